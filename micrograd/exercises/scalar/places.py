"""Where the learner wrote each exercise (their file and line, or their notebook class), and the line a
diagnosis points at: the statement that gives a parent its wrong gradient, not the closure's first line; a
mistake in parameters() at parameters()."""
from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path
from typing import Any

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
        tree = ast.parse(path.read_text(encoding='utf-8'))
    except (SyntaxError, OSError):
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
    fn = cls.__dict__.get(method) if isinstance(cls, type) else None
    fn = getattr(fn, '__func__', fn)
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
    return node, first - len(node.decorator_list), Path(inspect.getsourcefile(fn) or '?').name


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


def grad_line(cls: Any, method: str, roles: list[str]) -> str:
    """The learner's line in method's backward closure that adds to the .grad of the first of roles (the
    parent names as the library writes them: 'other', or 'w' for a weight in dot): 'my_engine.py, line 47:
    other.grad -= ...'. '' where it cannot be told."""
    found = _source(cls, method)
    if found is None:
        return ''
    node, first, file = found
    lines = inspect.getsourcelines(getattr(cls.__dict__[method], '__func__', cls.__dict__[method]))[0]
    statements = [(s, _code(s)) for s in ast.walk(node) if isinstance(s, (ast.AugAssign, ast.Assign))
                  and _base(s) is not None]
    for role in roles:
        for exact in (True, False):
            for statement, _ in statements:
                base = _base(statement) or ''
                if base == role if exact else base[:1] == role[:1]:
                    text = lines[statement.lineno - 1].strip()
                    return f"{file}, line {first - 1 + statement.lineno}: {text}"
    return ''


def line_with(cls: Any, method: str, needle: str) -> str:
    """The learner's first line in method that holds needle ('.tanh('): 'my_nn.py, line 49: out = act.tanh()';
    '' where there is none."""
    found = _source(cls, method)
    if found is None:
        return ''
    _, first, file = found
    fn = cls.__dict__[method]
    lines = inspect.getsourcelines(getattr(fn, '__func__', fn))[0]
    return next((f"{file}, line {first + n}: {line.strip()}" for n, line in enumerate(lines)
                 if needle in line and not line.strip().startswith('#')), '')


def _base(statement: ast.stmt) -> str | None:
    """The name whose .grad a statement sets: 'other' in other.grad -= ..., 'ws' in ws[i].grad += ..."""
    target = statement.target if isinstance(statement, ast.AugAssign) else statement.targets[0]  # type: ignore
    if not (isinstance(target, ast.Attribute) and target.attr == 'grad'):
        return None
    value = target.value
    value = value.value if isinstance(value, ast.Subscript) else value
    return value.id if isinstance(value, ast.Name) else None


def _code(node: ast.AST) -> str:
    return ast.unparse(node)
