"""The learner's line, for both tracks: the frame of their code that raised an error, the first line of their
code that made a wrong value (their run traced line by line, held against the library's with every expression
noted: see Right and wrong_line), or the line a slip of backward() (a loop, not a formula) is about."""
from __future__ import annotations
import __future__

import ast
import gc
import inspect
import linecache
import math
import os
import re
import sys
import sysconfig
import textwrap
import traceback
import types
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import cache, partial
from pathlib import Path
from typing import Any, NamedTuple
from unittest.mock import patch

from micrograd.exercises.cutting import first_statement

NOT_LEARNERS = tuple(str(Path(p).resolve()) + os.sep for p in [  # micrograd's files, and Python's
    str(Path(__file__).parents[1]), *(sysconfig.get_paths()[k] for k in ('stdlib', 'purelib', 'platlib'))])
Line = tuple[types.CodeType, int]


# --- an error: the innermost frame the learner wrote -----------------------------------------------------

def innermost(error: BaseException) -> Line | None:
    """The innermost frame of error's traceback in the learner's code (their file, their notebook cell), if any."""
    found = None
    for frame, line in traceback.walk_tb(error.__traceback__):
        if (name := frame.f_code.co_filename) != '<string>' and not str(Path(name).resolve()).startswith(NOT_LEARNERS):
            found = frame.f_code, line
    return found


def function(code: types.CodeType) -> str:
    """'_backward in Value.__mul__' for the closure inside __mul__."""
    parts = getattr(code, 'co_qualname', None) or next(  # (Python 3.10 has no co_qualname: its function's)
        (f.__qualname__ for f in gc.get_referrers(code) if getattr(f, '__code__', None) is code), code.co_name)
    return ' in '.join(reversed(parts.split('.<locals>.')))


def place(code: types.CodeType, line: int) -> str:
    """A line as a report points at it: 'my_engine.py, line 142: raise ...'."""
    return f"{file_name(code.co_filename)}, line {line}: {linecache.getline(code.co_filename, line).strip()}"


def file_name(path: str) -> str:
    """A file as the learner knows it: its name, or 'your cell' for a notebook's (Jupyter's, named by a number)."""
    return 'your cell' if 'ipykernel' in path or Path(path).stem.isdigit() else Path(path).name


def where(error: BaseException) -> str:
    """The error, and the function and line of the learner's code that raised it."""
    message = f"{type(error).__name__}: {error}".rstrip(': ')
    if (found := innermost(error)) is not None:
        code, line = found
        text = linecache.getline(code.co_filename, line).strip()
        message += f" (in {function(code)}, {Path(code.co_filename).name} line {line}: {text})"
    return message


def line_of(error: BaseException) -> str:
    """Where the learner's code raised error: 'the blank in _backward in Value.__mul__, my_engine.py line 184'."""
    if (found := innermost(error)) is None:
        return str(error)
    return f"the blank in {function(found[0])}, {Path(found[0].co_filename).name} line {found[1]}"


def place_of(error: BaseException) -> str:
    """The learner's line that raised error, as a report points at it; '' where none is theirs."""
    return place(*found) if (found := innermost(error)) is not None else ''


def traced(call: Callable[[], object], tracer: Callable[[types.FrameType, str, Any], Any]) -> None:
    """call() with tracer as sys.settrace's (the one before it put back after; an exception is let through)."""
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)


@contextmanager
def swapped(replacements: list[tuple[Any, str, Any]]) -> Iterator[None]:
    """Each (owner, name, value) of replacements: owner.name made value while the block runs, put back after."""
    with ExitStack() as stack:
        for owner, name, value in replacements:
            stack.enter_context(patch.object(owner, name, value))
        yield


# --- the library's run, every expression noted ---------------------------------------------------------

def _value(v: Any) -> Any:
    """A copy of v where it is a value a line makes (a float, a NumPy array or number), else None; NumPy unimported."""
    return v if type(v) is float else v.copy() if type(v).__module__ == 'numpy' and hasattr(v, 'shape') else None


def _equal(a: Any, b: Any) -> bool:
    """The same value (NaN equal to NaN); None is none."""
    if a is None or b is None:
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b or a != a and b != b)
    return bool(sys.modules['numpy'].array_equal(a, b, equal_nan=True))


class _Noting(ast.NodeTransformer):
    """Every expression e that is read becomes __noted__(e), which keeps a copy of its value."""

    def visit(self, node: ast.AST) -> Any:
        new = node if isinstance(node, (ast.JoinedStr, ast.Lambda)) else super().visit(node)  # (not inside these)
        if (isinstance(new, ast.expr) and not isinstance(new, (ast.Starred, ast.Slice, ast.Constant, ast.JoinedStr))
                and isinstance(getattr(new, 'ctx', ast.Load()), ast.Load)
                and not (isinstance(new, ast.Tuple) and any(isinstance(e, ast.Slice) for e in new.elts))):
            return ast.copy_location(ast.Call(ast.Name('__noted__', ast.Load()), [new], []), new)
        return new


@cache
def _noting_code(source: str, whole: bool, noting: bool) -> types.CodeType:
    """source compiled with every expression of its body (not whole: of its `_backward` closures') noted (if noting)
    by a call to __noted__, a name the namespace it runs in gives."""
    tree = ast.parse(source)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    for body in [] if not noting else [fn] if whole else [f for f in ast.walk(fn) if isinstance(
            f, ast.FunctionDef) and f.name == '_backward']:
        body.body = [_Noting().visit(statement) for statement in body.body]
    ast.fix_missing_locations(tree)
    where = str(Path(__file__).parent / f'<library {fn.name}>')  # (the library's, not the learner's)
    code: types.CodeType = compile(tree, where, 'exec', flags=__future__.annotations.compiler_flag, dont_inherit=True)
    return code


def noting(source: str, namespace: dict[str, Any], whole: bool, noted: list[Any] | None) -> dict[str, Any]:
    """source, one library function's text, run in a copy of namespace (returned, holding it), every expression of
    its body (not whole: of its `_backward` closures') noted into noted as it is computed (noted None: none is)."""
    def note(value: Any) -> Any:
        if noted is not None and (copy := _value(value)) is not None:
            noted.append(copy)
        return value
    namespace = {**namespace, '__noted__': note}
    exec(_noting_code(source, whole, noted is not None), namespace)
    return namespace


# --- a run traced line by line --------------------------------------------------------------------------

class Event(NamedTuple):
    """A line that ran and the values it made; tag: 'given' (a body's start: its arguments, closure, nodes' data),
    'wrote' into those, 'return', 'handed' a gradient to the node of data target, 'misfit' one not of its shape."""
    code: types.CodeType
    line: int
    values: list[Any]
    tag: str = ''
    target: Any = None


def _nodes(frame: types.FrameType) -> list[Any]:
    """The nodes a frame holds, itself or in a list or tuple (ws[i].grad += ...)."""
    held = [n for v in frame.f_locals.values() for n in (v if isinstance(v, (list, tuple)) else [v])]
    return [v for v in held if hasattr(v, '_prev') and hasattr(v, 'grad')]


def run_traced(codes: set[types.CodeType], run: Callable[[], Any],
               fits: Callable[[Any, Any], bool] = lambda shape, given: True) -> list[Event]:
    """run() with the bodies of codes traced: for each line they ran, in order, the values it made. fits(shape,
    given): whether an array of shape given is a gradient for a tensor of shape."""
    events: list[Event] = []
    frames: dict[int, dict[str, Any]] = {}

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        state = frames[id(frame)]
        now = {k: v for k, v in frame.f_locals.items() if _value(v) is not None}  # its values: floats, arrays
        if state['given'] is None:  # the first line: what the body starts with (its closure's cells are filled now)
            data = [_value(getattr(v, 'data', None)) for v in frame.f_locals.values()]
            given = [_value(v) for v in now.values()] + [d for d in data if d is not None]
            events.append(Event(frame.f_code, 0, given, 'given'))
            state['given'] = {id(v) for v in now.values()}
        elif state['line'] is not None:
            before, copies = state['before'], state['copies']
            changed = [k for k, v in now.items() if before.get(k) is not v or not _equal(copies[k], v)]
            if changed:
                tag = 'wrote' if any(before.get(k) is now[k] and id(now[k]) in state['given'] for k in changed) else ''
                events.append(Event(frame.f_code, state['line'], [_value(now[k]) for k in changed], tag))
            for t in _nodes(frame):  # a .grad set by hand, not through _add_grad
                if id(t.grad) != state['grads'].get(id(t), id(t.grad)):
                    new = _value(t.grad)
                    events.append(Event(frame.f_code, state['line'], [] if new is None else [new], 'handed', t.data))
        if event == 'return' and (value := _value(arg)) is not None:
            events.append(Event(frame.f_code, frame.f_lineno, [value], 'return'))
        state.update(line=frame.f_lineno if event == 'line' else None, before=now,
                     copies={k: _value(v) for k, v in now.items()},
                     grads={id(t): id(t.grad) for t in _nodes(frame)})
        return local

    def calls(frame: types.FrameType, event: str, arg: Any) -> Any:  # (settrace's: called as each function starts)
        if frame.f_code in codes:
            frames[id(frame)] = {'line': None, 'given': None}
            return local
        caller = frame.f_back
        if frame.f_code.co_name == '_add_grad' and caller is not None and caller.f_code in codes:
            copy, data = _value(frame.f_locals.get('grad')), getattr(frame.f_locals.get('self'), 'data', None)
            if hasattr(copy, 'shape'):  # (the tensor's data, handed a gradient of a shape that fits it or not)
                tag = 'handed' if fits(getattr(data, 'shape', copy.shape), copy.shape) else 'misfit'
                events.append(Event(caller.f_code, caller.f_lineno, [copy], tag, data))
        return None

    traced(run, calls)
    return events


# --- the first line that made a wrong value -------------------------------------------------------------

class Right:
    """The library's values on a case, to hold the learner's against within (rtol, atol); dtype: the case's."""

    def __init__(self, noted: list[Any], events: list[Event], dtype: Any, rtol: float, atol: float) -> None:
        self.dtype, self.rtol, self.atol = dtype, rtol, atol
        self.everywhere = noted + [v for e in events for v in e.values]
        self.handed = [e for e in events if e.tag == 'handed']

    def gradients(self, target: Any, since: int) -> list[Any]:
        """The gradients the library handed a node of data target, but for the first since of them."""
        return [v for e in [e for e in self.handed if _equal(e.target, target)][since:] for v in e.values]

    def known(self, a: Any, among: list[Any]) -> bool:
        """Whether a is one of among (same shape, numbers and float width), or zeros, where a sum starts."""
        if type(a) is float:
            return a == 0 or any(isinstance(b, float) and (math.isclose(a, b, rel_tol=self.rtol, abs_tol=self.atol)
                                                           or a != a and b != b) for b in among)
        np = sys.modules['numpy']
        if not np.any(a) and (a.dtype.kind != 'f' or a.dtype == np.dtype(self.dtype)):
            return True
        with np.errstate(all='ignore'):
            return any(a.shape == b.shape and not (a.dtype.kind == b.dtype.kind == 'f' and a.dtype != b.dtype)
                       and np.allclose(a.astype(np.float64), b.astype(np.float64), self.rtol, self.atol, equal_nan=True)
                       for b in map(np.asarray, among))


def wrong_line(right: Right, mine: list[Event], about: str = '', leaf: Any = None) -> Line | None:
    """The learner's line (of their run's events) that made a wrong value first, or the first tagged about ('wrote',
    'misfit'); where every value is right, the line that handed the node of data leaf its gradient, or returned."""
    if about:
        return next(((e.code, e.line) for e in mine if e.tag == about), None)
    for n, e in enumerate(mine):
        since = sum(f.tag == 'handed' and _equal(f.target, e.target) for f in mine[:n])  # (never an earlier one)
        among = right.gradients(e.target, since) if e.tag == 'handed' else right.everywhere
        if e.tag != 'given' and not all(right.known(a, among) for a in e.values):
            return e.code, e.line
    return next(((e.code, e.line) for e in mine if e.tag == 'return' or e.tag == 'handed' and _equal(e.target, leaf)),
                None)


# --- backward(): the line a slip of it is about ------------------------------------------------------------

_CALL = re.compile(r'\._(backward|grad_fn)\(')  # a node's backward called (or the engine's node._grad_fn(...))


def _block(lines: list[str], i: int) -> list[str]:
    """The lines of the block line i opens: those after it, indented deeper (text within its indent ends it)."""
    depth = len(lines[i]) - len(lines[i].lstrip())
    end = next((k for k in range(i + 1, len(lines)) if lines[k][:depth + 1].strip()), len(lines))
    return lines[i + 1:end]


def _loop(lines: list[str], i: int) -> bool:
    """Line i opens the innermost loop around the first call of a node's backward in it."""
    block = _block(lines, i) if re.match(r'\s*(for|while)\b', lines[i]) else []
    at = next((k for k, line in enumerate(block) if _CALL.search(line)), None)
    return at is not None and not any(_loop(block, k) for k in range(at))


def _zeroed(lines: list[str], i: int, after: bool = False) -> bool:
    """Line i sets a node's .grad to 0 in the loop that calls each node's backward, before the call (after: after)."""
    loop = next((j for j in range(i - 1, -1, -1) if i - j <= len(_block(lines, j)) and _loop(lines, j)), None)
    if loop is None or not re.match(r'\s*[\w.\[\]]+\.grad\s*=\s*0(\.0)?\s*(#.*)?$', lines[i]):
        return False
    return _CALL.search(''.join(lines[loop + 1:i] if after else _block(lines, loop)[i - loop:])) is not None


Holds = str | re.Pattern[str] | Callable[[list[str], int], bool]
_SEED = re.compile(r'self\._add_grad\(|self\.grad\s*=')
_ABOUT: dict[str, list[Holds]] = {  # a slip of backward(): what its line holds, most telling first
    'backward_not_reversed': [_loop, _CALL],  # (the root's alone: no loop)
    'backward_no_seed': [_loop],
    'backward_unit_grad': [_CALL],
    'backward_not_called': ['._backward'],
    'backward_zeroed_in_loop': [_zeroed],
    'backward_zeroed_after': [partial(_zeroed, after=True)],
    'backward_ignores_grad': ['np.ones', _SEED],
    'backward_seed_overwrites': [re.compile(r'self\.grad\s*=')],
    'promoted': ['np.ones(', _SEED],
    'backward_no_reset': [re.compile(r'topological_order\(|build\w*\(self\)')],
    'backward_resets_leaves': [lambda lines, i: '.grad = None' in lines[i] and '_prev' in ''.join(lines[i - 2:i])],
    'backward_sort_revisits': ['.append('],
    'backward_nonscalar_seeded': [re.compile(r'if\s+grad\s+is\s+None')],
}


def backward_line(fn: Any, key: str) -> str:
    """The learner's line in backward() (fn, in either track) that the slip key is about."""
    return line_holding(fn, *_ABOUT.get(key, []))


def source(fn: Any) -> tuple[ast.FunctionDef, list[str], int, str] | None:
    """fn's syntax tree, its lines, the line they start on (a decorator's, if any) and its file; None without them."""
    try:
        lines, first = inspect.getsourcelines(fn)
        node = ast.parse(textwrap.dedent(''.join(lines))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    return (node, lines, first, inspect.getsourcefile(fn) or '?') if isinstance(node, ast.FunctionDef) else None


def written(fn: Any, owner: str = '') -> str:
    """Where the learner writes fn's exercise: its `_backward` closure's first statement, or fn's where it has none
    ('my_engine.py, line 47: _backward in Value.__mul__'); owner: fn's name to say; '' with no source at hand."""
    if (found := source(fn)) is None:
        return ''
    node, _, first, file = found
    closure = next((f for f in ast.walk(node) if isinstance(f, ast.FunctionDef) and f.name == '_backward'), None)
    line = first_statement(closure or node)
    name = owner or getattr(fn, '__qualname__', node.name)
    return f"{file_name(file)}, line {first - 1 + line.lineno}: {'_backward in ' if closure else ''}{name}"


def line_holding(fn: Any, *holds: Holds) -> str:
    """The first line of a statement of fn (not its docstring) holding the first of holds that any holds: text or a
    pattern in its code before a comment, or a test holds(lines, i); 'my_nn.py, line 49: out = act.tanh()', or ''."""
    if (found := source(fn)) is None:
        return ''
    node, lines, first, file = found
    docstring = ast.get_docstring(node) is not None
    starts = sorted({s.lineno - 1 for s in ast.walk(node) if isinstance(s, ast.stmt) and s is not node
                     and not (docstring and s is node.body[0])})

    def holding(about: Holds, i: int) -> bool:
        code = lines[i].split('#')[0]
        return about(lines, i) if callable(about) else bool(
            about.search(code) if isinstance(about, re.Pattern) else about in code)
    return next((f"{Path(file).name}, line {first + i}: {lines[i].strip()}" for about in holds for i in starts
                 if holding(about, i)), '')
