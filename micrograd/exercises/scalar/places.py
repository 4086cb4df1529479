"""Where the learner wrote each exercise (their file and line, or their notebook class), and the line a
diagnosis points at: the statement that gives a parent its wrong gradient, not the closure's first line; a
mistake in parameters() at parameters()."""
from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap
import types
from collections.abc import Callable, Set
from pathlib import Path
from typing import Any

import numpy as np

from micrograd.engine import Value
from micrograd.exercises import lines
from micrograd.exercises.cutting import read_learners
from micrograd.exercises.lines import NOT_LEARNERS, Noted, Right, noting, place, run_traced, traced
from micrograd.exercises.scalar.exercises import EXERCISES


def _written(method: ast.FunctionDef, class_name: str, first: int = 1) -> tuple[int, str]:
    """Where the learner writes an exercise in a method: the body of its backward closure ('_backward in
    Value.__mul__'), or the method itself; first is the line the method's text starts on in its file."""
    closure = next((f for f in ast.walk(method) if isinstance(f, ast.FunctionDef) and f is not method
                    and f.name.startswith('_backward')), None)
    if closure is not None:
        return first - 1 + closure.body[0].lineno, f"{closure.name} in {class_name}.{method.name}"
    return first - 1 + method.lineno, f"{class_name}.{method.name}"


def method_numbers(source: str) -> dict[str, int]:
    return {m: e.number for e in EXERCISES if e.source == source for m in e.methods}


def places_in(path: Path, class_name: str, source: str) -> dict[int, str]:
    """Where each exercise is written in a file: {number: 'my_engine.py, line 46: _backward in Value.__add__'}."""
    methods, out = method_numbers(source), dict[int, str]()
    try:
        tree = ast.parse(read_learners(path))
    except (SyntaxError, OSError, UnicodeDecodeError):
        return out
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in methods and methods[item.name] not in out:
                    line, name = _written(item, class_name)
                    out[methods[item.name]] = f"{path.name}, line {line}: {name}"
    return out


def _source(cls: Any, method: str) -> tuple[ast.FunctionDef, int, str] | None:
    """A method's syntax tree, the line it starts on, and its file's name; None where there is no source."""
    fn = _function(cls, method)
    if fn is None:
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent(''.join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        return None
    return node, first, Path(inspect.getsourcefile(fn) or '?').name  # (first: a decorator's line, if any)


def class_places(value_class: Any, neuron: Any) -> dict[int, str]:
    """Where each exercise is written in a notebook's classes: {number: 'line 12: _backward in Value.tanh'}."""
    out: dict[int, str] = {}
    for cls, kind in ((value_class, 'engine'), (neuron, 'nn')):
        if not isinstance(cls, type):
            continue
        for method, number in method_numbers(kind).items():
            if method not in cls.__dict__ or number in out:
                continue
            found = _source(cls, method)
            if found is None:
                out[number] = f"{cls.__name__}.{method}"
                continue
            line, name = _written(found[0], cls.__name__, found[1])
            out[number] = f"line {line}: {name}"
    return out


def method_place(cls: Any, method: str) -> str:
    """'my_nn.py, line 61: Neuron.parameters'."""
    found = _source(cls, method)
    if found is None:
        return ''
    node, first, file = found
    return f"{file}, line {first - 1 + node.lineno}: {cls.__name__}.{method}"


def wrong_line(methods: tuple[str, ...], value_class: Any, run: Callable[[Any], object], leaf: float | None) -> str:
    """The learner's line in the closures of value_class's methods that made a wrong value first, run(a Value
    class) running the case (lines.py: the library's closures noted, the learner's traced): 'my_engine.py, line 47:
    other.grad -= ...'; where every value is right, the line that handed the leaf of data leaf its gradient; ''
    where none did. The library's closures of every op are traced: x - y is x + (-y)."""
    noted: list[Noted] = []
    mine = run_traced(closures(value_class, methods), lambda: run(value_class), _fits)
    saved = {m: vars(Value)[m] for m in methods if m in vars(Value)}
    try:
        for method in saved:
            fn = _function(Value, method)
            setattr(Value, method, noting(textwrap.dedent(inspect.getsource(fn)), fn.__globals__, False, noted)[
                fn.__name__])
        right = run_traced(closures(Value, tuple(vars(Value))), lambda: run(Value), _fits)
    finally:
        for method, fn in saved.items():
            setattr(Value, method, fn)
    found = lines.wrong_line(Right(noted, right, np.float64, 1e-6, 1e-9), mine, leaf=leaf)
    return place(*found) if found else ''


def _fits(shape: Any, given: Any) -> bool:
    return True  # (a float's gradient is a float: no shapes)


def in_learners_words(why: str, place: str, one_parent: bool) -> str:
    """A diagnosis quoting the library's form of a line (`other.grad += grad * (x / y / y)`) with the learner's
    own line at place instead (`other.grad += self.data / other.data**2 * grad`): the quote of a .grad statement
    to the same parent; with one_parent (only one parent's gradient wrong), 'on every parent' said as that line."""
    text = place.split(': ', 1)[1] if ': ' in place else ''
    try:
        mine = ast.parse(text).body if text else []
    except SyntaxError:
        return why
    if len(mine) != 1 or not isinstance(mine[0], (ast.AugAssign, ast.Assign)) or _base(mine[0]) is None:
        return why
    base = _base(mine[0])

    def quote(match: re.Match[str]) -> str:
        try:
            theirs = ast.parse(match.group(1)).body
        except SyntaxError:
            return match.group(0)
        if len(theirs) == 1 and isinstance(theirs[0], (ast.AugAssign, ast.Assign)) and _base(theirs[0]) == base:
            return f"`{text}`"
        return match.group(0)
    why = re.sub(r'`([^`]+)`', quote, why)
    for every in (": on every parent", ": in every line"):
        if one_parent and why.endswith(every):
            why = why[:-len(every)] + f": `{text}`"
    return why


def alias_line(cls: Any, method: str) -> str:
    """The line of cls's body that makes method another method (`__rmul__ = __add__`), '' where method is its
    own function: 'my_engine.py, line 92: __rmul__ = __add__'."""
    fn = _function(cls, method)
    if fn is None or getattr(fn, '__name__', method) == method:
        return ''
    code = getattr(fn, '__code__', None)  # the class's file is the one its methods were compiled from
    lines = linecache.getlines(code.co_filename) if code is not None else []
    at = next((n for n, line in enumerate(lines, 1) if re.match(rf'\s*{method}\s*=', line)), None)
    return '' if at is None or code is None else \
        f"{Path(code.co_filename).name}, line {at}: {lines[at - 1].split('#')[0].strip()}"


def line_with(cls: Any, method: str, needle: str | re.Pattern[str], loop: bool = False) -> str:
    """The learner's first line in method that holds needle ('.tanh(', or a regular expression): 'my_nn.py,
    line 49: out = act.tanh()'; with loop, the `for` line of the loop that holds it, where there is one. ''
    where there is none."""
    found, fn = _source(cls, method), _function(cls, method)
    if found is None or fn is None:
        return ''
    node, first, file = found
    lines = inspect.getsourcelines(fn)[0]
    codes = [line.split('#')[0] for line in lines]  # (not in a comment)
    at = next((n for n, code in enumerate(codes, 1)
               if (needle.search(code) if isinstance(needle, re.Pattern) else needle in code)), None)
    if at is None:
        return ''
    if loop:  # the innermost loop around it
        loops = [s for s in ast.walk(node) if isinstance(s, (ast.For, ast.While))
                 and s.lineno < at <= (s.end_lineno or 0)]
        at = max((s.lineno for s in loops), default=at)
    return f"{file}, line {first - 1 + at}: {lines[at - 1].strip()}"


def zeroed_in_loop(cls: Any, method: str, after: bool = False) -> str:
    """The learner's line in method that sets a node's .grad to 0 inside the loop that runs each node's backward,
    before the call (with after, after it): 'my_engine.py, line 118: node.grad = 0.0'; '' where there is none."""
    found = _source(cls, method)
    if found is None:
        return ''
    node, first, file = found
    lines = inspect.getsourcelines(_function(cls, method))[0]
    for loop in (s for s in ast.walk(node) if isinstance(s, (ast.For, ast.While))):
        for at, statement in enumerate(loop.body):
            zeroes = (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                      and isinstance(statement.targets[0], ast.Attribute) and statement.targets[0].attr == 'grad'
                      and isinstance(statement.value, ast.Constant) and statement.value.value == 0)
            calls = any(isinstance(n, ast.Attribute) and n.attr in ('_backward', '_grad_fn')
                        for other in (loop.body[:at] if after else loop.body[at + 1:]) for n in ast.walk(other))
            if zeroes and calls:
                return f"{file}, line {first - 1 + statement.lineno}: {lines[statement.lineno - 1].strip()}"
    return ''


def _base(statement: ast.stmt) -> str | None:
    """The name whose .grad a statement sets: 'other' in other.grad -= ..., 'ws' in ws[i].grad += ..."""
    target = statement.target if isinstance(statement, ast.AugAssign) else statement.targets[0]  # type: ignore
    if not (isinstance(target, ast.Attribute) and target.attr == 'grad'):
        return None
    value = target.value
    value = value.value if isinstance(value, ast.Subscript) else value
    return value.id if isinstance(value, ast.Name) else None


Ran = Set[tuple[str, int]]  # (file, line) of each line of the learner's code that ran


_LEARNERS: dict[str, bool] = {}  # a file's name: whether it is the learner's


def lines_run(call: Callable[[], object]) -> Ran:
    """The lines of the learner's code that ran while call() did (an exception it raises is let through)."""
    seen: set[tuple[str, int]] = set()

    def line(frame: types.FrameType, event: str, arg: object) -> Any:
        if event == 'line':
            seen.add((frame.f_code.co_filename, frame.f_lineno))
        return line

    def enter(frame: types.FrameType, event: str, arg: object) -> Any:
        name = frame.f_code.co_filename
        if name not in _LEARNERS:
            _LEARNERS[name] = not (name.startswith('<frozen') or str(Path(name).resolve()).startswith(NOT_LEARNERS))
        return line if _LEARNERS[name] else None
    traced(call, enter)
    return seen


def codes_run(call: Callable[[], object], codes: set[types.CodeType]) -> set[types.CodeType]:
    """Which of codes (the closures of an op's methods, say) ran while call() did; an exception is let through."""
    seen: set[types.CodeType] = set()

    def enter(frame: types.FrameType, event: str, arg: object) -> None:
        if frame.f_code in codes:
            seen.add(frame.f_code)
    traced(call, enter)
    return seen


def closures(cls: Any, methods: tuple[str, ...]) -> set[types.CodeType]:
    """The code of the functions defined inside cls's methods (their backward closures)."""
    out = set()
    for method in methods:
        code = getattr(_function(cls, method), '__code__', None)
        out |= {c for c in getattr(code, 'co_consts', ()) if isinstance(c, types.CodeType)}
    return out


def _function(cls: Any, method: str) -> Any:
    """The function of cls's method, its own or inherited (a staticmethod's function)."""
    fn = inspect.getattr_static(cls, method, None) if isinstance(cls, type) else None
    return getattr(fn, '__func__', fn)


def _ran(node: ast.stmt, first: int, file: str, ran: Ran) -> bool:
    """Whether any line of statement node (at lines counted from first) ran."""
    end = node.end_lineno or node.lineno
    return any((file, first - 1 + n) in ran for n in range(node.lineno, end + 1))


def _own_statements(method: ast.FunctionDef) -> list[ast.stmt]:
    """The statements of method, nested ones (in an if, a for) too, but not those of a function inside it."""
    out, stack = [], list(reversed(method.body))
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack += reversed([n for field in ('body', 'orelse', 'finalbody', 'handlers')
                               for n in getattr(node, field, []) if isinstance(n, ast.stmt)])
    return out


def output_line(cls: Any, methods: tuple[str, ...], ran: Ran, returned: bool = False, argument: int = 0) -> str:
    """The learner's line in the methods that made the op's output Value ('my_engine.py, line 40: return
    Value(...)'), or with returned the return statement: of those that can, the one that ran ('' where it cannot
    be told). argument: the constructor's argument the diagnosis is about (1: the parents, 2: the op's name);
    where it is a name, the line that ran and gave it its value (`parents, op = (self, other), '**'`)."""
    makers = {cls.__name__, 'Value', 'cls'}

    def made(statement: ast.stmt) -> ast.Call | None:
        calls = [n for n in ast.walk(statement) if isinstance(n, ast.Call)]
        return next((c for c in calls if isinstance(c.func, ast.Name) and c.func.id in makers
                     or ast.unparse(c.func) in ('type(self)', 'self.__class__')), None)
    statements = []
    for method in methods:
        found, fn = _source(cls, method), _function(cls, method)
        if found is None or fn is None:
            continue
        node, first, file = found
        lines = inspect.getsourcelines(fn)[0]
        everything = _own_statements(node)
        own = [s for s in everything if (isinstance(s, ast.Return) if returned else
                                         not isinstance(s, (ast.If, ast.For, ast.While, ast.With)) and made(s))]
        if not returned:  # the Value made last: the output, not an operand converted first (other = Value(other))
            own = [s for s in own if not _converts_operand(s)] or own
        statements += [(s, first, file, lines, fn.__code__.co_filename, everything) for s in own]
    if not statements:
        return ''
    s, first, file, lines, code_file, everything = next(
        (t for t in reversed(statements) if _ran(t[0], t[1], t[4], ran)), statements[-1])
    call = made(s)
    given = call.args[argument] if call is not None and argument and len(call.args) > argument else None
    if isinstance(given, ast.Name):  # the parents (or the name) given by a line before it
        binds = [b for b in everything if isinstance(b, ast.Assign) and b.lineno < s.lineno
                 and given.id in {n.id for t in b.targets for n in ast.walk(t) if isinstance(n, ast.Name)}]
        s = next((b for b in reversed(binds) if _ran(b, first, code_file, ran)), binds[-1] if binds else s)
    return f"{file}, line {first - 1 + s.lineno}: {lines[s.lineno - 1].strip()}"


def _converts_operand(statement: ast.stmt) -> bool:
    """other = other if isinstance(other, Value) else Value(other): a number made a leaf, not the output."""
    return isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == 'other'
                                                     for t in statement.targets)
