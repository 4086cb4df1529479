"""The learner's line that made a wrong gradient, for a case whose numbers (not an exception) are wrong.

The library runs the case first, with every expression of the exercise's bodies noted as it is computed, and
every local array after each line: those are the right values, all of them. Then the learner's engine runs it,
traced line by line in the bodies they wrote: the first line whose new array (a local it assigned or changed, the
array it handed to _add_grad, what it returned) is none of the right values is the line that went wrong. A body
that computes everything right but hands it to the wrong tensor, or leaves a line out, has no such line: then it
is the line that handed the wrong tensor its gradient, else (nothing handed at all) the body's first line.

backward() is the learner's loop, not a formula: its line is found by what the slip named is about (the walk, the
seed, the reset).
"""
from __future__ import annotations
import __future__

import ast
import inspect
import re
import textwrap
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from micrograd.exercises.blame import traced
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.cases import Array, Case
from micrograd.exercises.tensor.my_tensor_file import FUNCTIONS, library_module
from micrograd.exercises.tensor.running import fits, library_text, own_function, run_case, tolerance

Line = tuple[types.CodeType, int]


def learners_function(module: Any, blank: str) -> Any:
    """The function a blank is in, in module (a method of its classes, or one of its functions), unwrapped."""
    holder = holder_of(module, blank)[0]
    fn = getattr(holder[0], holder[1], None) if holder else None
    if holder and isinstance(holder[0], type):
        fn = vars(holder[0])[holder[1]]
    return getattr(fn, '__wrapped__', fn)


def holder_of(module: Any, blank: str) -> tuple[tuple[Any, str] | None, str]:
    """(the class or module holding a blank's function, its attribute name), and its owner as 'Unary.exp'."""
    bare = blank.removesuffix('()').split('.')[-1]
    if '.' not in blank:
        return (module, bare), bare
    for cls in module.Tensor.__mro__:
        if bare in vars(cls):
            return (cls, bare), f"{cls.__name__}.{bare}"
    return None, ''


def _bodies(fn: Any, blank: str) -> set[types.CodeType]:
    """The code objects a blank's body runs as: the function's own, or its `_backward` closure's."""
    code = getattr(fn, '__code__', None)
    if code is None:
        return set()
    if blank.endswith('()') or blank in FUNCTIONS:
        return {code}
    found: set[types.CodeType] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                (found.add if const.co_name == '_backward' else stack.append)(const)
    return found or {code}


# --- the right values: the library's run, every expression noted ----------------------------------------

class _Noting(ast.NodeTransformer):
    """Every expression e that is read becomes __noted__(e), which keeps a copy of its value."""

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit(self, node: ast.AST) -> Any:
        new = super().visit(node)
        if (isinstance(new, ast.expr) and not isinstance(new, (ast.Starred, ast.Slice, ast.Constant, ast.JoinedStr))
                and isinstance(getattr(new, 'ctx', ast.Load()), ast.Load)
                and not (isinstance(new, ast.Tuple) and any(isinstance(e, ast.Slice) for e in new.elts))):
            return ast.copy_location(ast.Call(ast.Name('__noted__', ast.Load()), [new], []), new)
        return new


def _noting(owner: str, blank: str, module: Any, seen: list[Array]) -> Any:
    """The library's function owner compiled into module's namespace with every expression of the blank's body
    noted into seen."""
    tree = ast.parse(library_text(owner))
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    bodies = [fn] if blank.endswith('()') or blank in FUNCTIONS else [
        f for f in ast.walk(fn) if isinstance(f, ast.FunctionDef) and f.name == '_backward']
    for body in bodies:
        body.body = [_Noting().visit(statement) for statement in body.body]
    ast.fix_missing_locations(tree)

    def noted(value: Any) -> Any:
        if isinstance(value, (np.ndarray, np.generic)):
            seen.append(np.array(value, copy=True))
        return value
    namespace = {**vars(module), '__noted__': noted}
    flags = __future__.annotations.compiler_flag
    where = str(Path(__file__).parent / f'<library {owner}, noted>')
    exec(compile(tree, where, 'exec', flags=flags, dont_inherit=True), namespace)
    return own_function(namespace, fn.name, module)


@contextmanager
def _replaced(module: Any, functions: dict[str, Any]) -> Iterator[None]:
    """module with some blanks' functions replaced (by blank name), put back after."""
    saved = []
    try:
        for blank, fn in functions.items():
            holder = holder_of(module, blank)[0]
            if holder is None:
                continue
            saved.append((holder, holder[0].__dict__.get(holder[1]) if isinstance(holder[0], type)
                          else getattr(holder[0], holder[1])))
            setattr(holder[0], holder[1], fn)
        yield
    finally:
        for (owner, name), value in reversed(saved):
            setattr(owner, name, value)


def right_values(exercise: Exercise, case: Case) -> list[Array]:
    """Every array the library computes in the exercise's bodies on case: each expression's value, each local
    after each line, what the closures hold, every tensor's data and gradient."""
    module = library_module()
    seen: list[Array] = []
    functions = {}
    for blank in exercise.blanks:
        owner = holder_of(module, blank)[1]
        if owner:
            functions[blank] = _noting(owner, blank, module, seen)
    codes = {c for blank, fn in functions.items() for c in _bodies(fn, blank)}
    with _replaced(module, functions):
        events = _traced(codes, lambda: run_case(case, module))
    return seen + [a for _, _, arrays, _, _ in events for a in arrays]


# --- the learner's run, traced line by line -------------------------------------------------------------

def _tensors(frame: types.FrameType) -> list[Any]:
    return [v for v in frame.f_locals.values() if hasattr(v, '_prev') and hasattr(v, 'grad')]


def _arrays(frame: types.FrameType) -> dict[str, Any]:
    return {k: v for k, v in frame.f_locals.items() if isinstance(v, (np.ndarray, np.generic))}


Event = tuple[types.CodeType, int, list[Array], str, Any]
# ^ (code, line, the arrays it made, what else, the data of the tensor it handed a gradient to, or None). What else:
# 'given' the arrays a body starts with (not made: its arguments, what its closure holds, its tensors' data), 'wrote'
# into one of those, 'return' its value, 'misfit' handed to _add_grad in a shape not its tensor's, 'handed', or ''.


def _traced(codes: set[types.CodeType], run: Callable[[], Any]) -> list[Event]:
    """run() with the bodies of codes traced: for each line they ran, in order, the arrays it made (the locals it
    assigned or changed, the array it handed to _add_grad, the value it returned), tagged as Event says."""
    events: list[Event] = []

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        state = frames[id(frame)]
        now = _arrays(frame)
        if state['given'] is None:  # the first line: what the body starts with (its closure's cells are filled now)
            data = [v.data for v in frame.f_locals.values() if isinstance(getattr(v, 'data', None), np.ndarray)]
            events.append((frame.f_code, 0, [np.array(a, copy=True) for a in [*now.values(), *data]], 'given', None))
            state['given'] = {id(v) for v in now.values()}
        elif state['line'] is not None:
            changed = [k for k, v in now.items() if k not in state['before'] or state['before'][k] is not v
                       or not np.array_equal(state['copies'][k], v, equal_nan=True)]
            wrote = any(state['before'].get(k) is now[k] and id(now[k]) in state['given'] for k in changed)
            if changed:
                events.append((frame.f_code, state['line'], [np.array(now[k], copy=True) for k in changed],
                               'wrote' if wrote else '', None))
            for t in _tensors(frame):  # a .grad set by hand, not through _add_grad
                if state['line'] is not None and id(t.grad) != state['grads'].get(id(t), id(t.grad)):
                    events.append((frame.f_code, state['line'], [], 'handed', t.data))
        if event == 'return' and isinstance(arg, (np.ndarray, np.generic)):
            events.append((frame.f_code, frame.f_lineno, [np.array(arg, copy=True)], 'return', None))
        now = _arrays(frame)
        state.update(line=frame.f_lineno if event == 'line' else None, before=now,
                     copies={k: np.array(v, copy=True) for k, v in now.items()},
                     grads={id(t): id(t.grad) for t in _tensors(frame)})
        return local

    frames: dict[int, dict[str, Any]] = {}

    def calls(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event != 'call':
            return None
        if frame.f_code in codes:
            frames[id(frame)] = {'line': None, 'given': None}
            return local
        caller = frame.f_back
        if frame.f_code.co_name == '_add_grad' and caller is not None and caller.f_code in codes:
            handed, tensor = frame.f_locals.get('grad'), frame.f_locals.get('self')
            if isinstance(handed, (np.ndarray, np.generic)):
                shape = getattr(getattr(tensor, 'data', None), 'shape', np.shape(handed))
                events.append((caller.f_code, caller.f_lineno, [np.array(handed, copy=True)],
                               'handed' if fits(shape, np.shape(handed)) else 'misfit', getattr(tensor, 'data', None)))
        return None

    traced(run, calls)
    return events


def _known(a: Array, right: dict[tuple[int, ...], list[Array]], dtype: Any) -> bool:
    """Whether a is one of the right values (the same shape and numbers; a float of another width is not), or
    zeros, where a sum starts."""
    if not np.any(a) and (a.dtype.kind != 'f' or a.dtype == np.dtype(dtype)):
        return True
    rtol, atol = tolerance(dtype)
    for b in right.get(a.shape, []):
        if a.dtype.kind == 'f' and b.dtype.kind == 'f' and a.dtype != b.dtype:
            continue
        with np.errstate(all='ignore'):
            if np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True):
                return True
    return False


def wrong_line(exercise: Exercise, case: Case, module: Any, about: str = '', leaf: str = '') -> Line | None:
    """The learner's line that made a wrong value first on case (code and line number), or None when none did
    (then the caller says the body). about: 'wrote' the line that wrote into an array the body was given,
    'misfit' the one that handed _add_grad an array of a shape that is not its tensor's. When every value is right
    (handed to the wrong tensor, say), the line that handed leaf its gradient, or that returned the result."""
    right: dict[tuple[int, ...], list[Array]] = {}
    for a in right_values(exercise, case):
        right.setdefault(a.shape, []).append(a)
    codes = set()
    for blank in exercise.blanks:
        fn = learners_function(module, blank)
        codes |= _bodies(fn, blank) if fn is not None else set()
    events = _traced(codes, lambda: run_case(case, module))
    if about:
        return next(((code, line) for code, line, _, tag, _ in events if tag == about), None)
    for code, line, arrays, tag, _ in events:
        if tag != 'given' and any(not _known(np.asarray(a), right, case.dtype) for a in arrays):
            return code, line
    data = case.data().get(leaf)
    for code, line, _, tag, target in events:
        if tag == 'return' or tag == 'handed' and data is not None and np.shape(target) == data.shape and \
                np.array_equal(target, data):
            return code, line
    return None


# --- backward(): the line the slip is about --------------------------------------------------------------

def _loop_calling_backward(lines: list[str], i: int) -> bool:
    return bool(re.match(r'\s*for\b', lines[i])) and '_backward(' in ''.join(lines[i:i + 3])


def _seed(lines: list[str], i: int) -> bool:
    return bool(re.search(r'self\._add_grad\(|self\.grad\s*=', lines[i]))


_ABOUT: dict[str, list[Callable[[list[str], int], bool]]] = {  # a slip of backward(): its line, most telling first
    'backward_not_reversed': [_loop_calling_backward],
    'backward_unit_grad': [lambda lines, i: '_backward(' in lines[i]],
    'backward_ignores_grad': [lambda lines, i: 'np.ones' in lines[i], _seed],
    'backward_seed_overwrites': [lambda lines, i: bool(re.search(r'self\.grad\s*=', lines[i]))],
    'promoted': [lambda lines, i: 'np.ones(' in lines[i], _seed],
    'backward_no_seed': [_loop_calling_backward],
    'backward_no_reset': [lambda lines, i: bool(re.search(r'topological_order\(|build\w*\(self\)', lines[i]))],
    'backward_resets_leaves': [lambda lines, i: '.grad = None' in lines[i] and '_prev' in ''.join(lines[i - 2:i])],
    'backward_sort_revisits': [lambda lines, i: '.append(' in lines[i]],
    'backward_nonscalar_seeded': [lambda lines, i: bool(re.search(r'if\s+grad\s+is\s+None', lines[i]))],
}


def forwards(module: Any, exercise: Exercise) -> bool:
    """Whether the learner's backward() walks the order from the leaves: its loop that calls _backward goes over
    the order as it is (no reversed(), no [::-1])."""
    found = backward_line(module, exercise.blanks[0], 'backward_not_reversed')
    return found is not None and re.match(r'for\s+\w+\s+in\s+\w+\s*:', found[2]) is not None


def backward_line(module: Any, blank: str, key: str) -> tuple[str, int, str] | None:
    """(file, line, text) of the learner's line in backward() that a slip of backward() is about: the first line
    of a statement (never a comment or the docstring) that holds it."""
    fn = learners_function(module, blank)
    try:
        lines, first = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or ''
        tree = ast.parse(textwrap.dedent(''.join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    node = tree.body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    docstring = ast.get_docstring(node) is not None
    starts = sorted({s.lineno - 1 for s in ast.walk(node) if isinstance(s, ast.stmt) and s is not node
                     and not (docstring and s is node.body[0])})
    for about in _ABOUT.get(key, []):
        for i in starts:
            if about(lines, i):
                return file, first + i, lines[i].strip()
    return None
