"""The tensor track's workspace, my_tensor.py: per exercise, its task and the library's own text of each function
or method it cuts a body out of, at the top level of the file; and load(), which runs it inside a fresh copy of
the library's engine.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path

from micrograd.exercises import cutting
from micrograd.exercises.commands import advice, command
from micrograd.exercises.cutting import body_span, definition, offsets, read_learners
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import (
    TENSOR_FILE,
    blanks,
    engine_source,
    library_source,
    locate,
    splice,
    target,
    written_at,
)

GIVEN = str(Path(__file__).parent / '<micrograd.tensor, given>')  # in micrograd's folder: never the learner's line


def _bare(name: str) -> str:
    """The name a blank's function has in the workspace: 'Tensor.backward()' -> 'backward'."""
    return name.removesuffix('()').split('.')[-1]


def header(directory: str | Path = '.') -> str:
    """my_tensor.py's first lines: what it is, how it runs, the commands."""
    where = Path(directory).resolve()
    first, last = EXERCISES[0], EXERCISES[-1]
    return f"""\
# my_tensor.py: the backward passes of micrograd's tensor engine, for you to write, one exercise after another,
# from {first.number} ({first.name}) to {last.number} ({last.name}). Each EXERCISE is the library's own function or
# method with the body of its _backward (or the whole body) cut out; everything else is micrograd.tensor's.
# The checker runs this file inside a fresh copy of micrograd.tensor: Tensor, np and the library's helpers are
# that copy's, and each method below (def exp(self), ...) is put on Tensor. To try your engine yourself:
#     from micrograd.exercises.tensor import load; mt = load('my_tensor.py'); x = mt.Tensor([1.0, 2.0], ...)
# Each op's _backward(grad) is handed the output's gradient, an array of the output's shape, and passes it on with
# parent._add_grad(...), which sums it back to the parent's shape (your {first.name}) and adds it to .grad; it never
# writes into grad, which another node may hold too.
""" + advice(command('check', '--track', 'tensor', where), command('solution', '--track', 'tensor', 'softmax'))


def _task(exercise: Exercise) -> str:
    lines = [f"# {'-' * 3} EXERCISE {exercise.number} ({exercise.name}) {'-' * 3}"]
    for label, text in (("", exercise.ask), ("Rules:", exercise.all_rules), ("Checked on:", exercise.shapes)):
        lines += textwrap.wrap(f"{label} {text.replace('`', '')}".strip(), 110, initial_indent='# ',
                               subsequent_indent='#     ')
    return '\n'.join(lines)


def source(directory: str | Path = '.', bodies: dict[str, str] | None = None) -> str:
    """my_tensor.py's text: every exercise blank, or with the bodies given (by blank name, unindented)."""
    spliced = splice(library_source(), {b: (bodies or {}).get(b.name, b.text()) for b in blanks()})
    tree, lines = ast.parse(spliced), spliced.splitlines()
    parts = [header(directory) + "from __future__ import annotations\n"]
    for exercise in EXERCISES:
        functions = dict.fromkeys(locate(tree, name)[0] for name in exercise.blanks)
        texts = [textwrap.dedent('\n'.join(lines[definition(fn)[0] - 1:definition(fn)[1]])) for fn in functions]
        parts.append(_task(exercise) + '\n' + '\n\n\n'.join(texts) + '\n')
    return '\n\n'.join(parts)


def solved(directory: str | Path = '.', bodies: dict[str, str] | None = None) -> str:
    """my_tensor.py with every exercise written as the library writes it (bodies: some written otherwise)."""
    own = {b.name: b.solution.replace('\n' + b.indent, '\n') for b in blanks()}
    return source(directory, own | (bodies or {}))


@dataclass(frozen=True)
class Place:
    """Where a blank's body starts in a workspace's text: its offset, its line, its function ('_backward in exp')."""
    start: int
    line: int
    function: str


def places(text: str) -> dict[str, Place]:
    """Where each blank is in a workspace's text (a learner's file: each function found by its name at the top
    level of the file); a blank whose function is not there is left out."""
    tree, starts, out = ast.parse(text), offsets(text), {}
    defined = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for b in blanks():
        if (fn := defined.get(_bare(b.name))) is None:
            continue
        try:
            line, function = written_at(fn, fn.name, b.name)
        except LookupError:
            continue
        out[b.name] = Place(body_span(text, starts, target(fn, b.name))[0], line, function)
    return out


def blank_tensor() -> types.ModuleType:
    """A fresh copy of the library's engine as one module, every exercise blank (for a notebook)."""
    return cutting.load(engine_source(), TENSOR_FILE.removesuffix('.py'), GIVEN)


def load(path: str | Path, text: str | None = None) -> types.ModuleType:
    """The learner's engine: a fresh copy of the library's, with the functions and methods of the file at path
    (or of text, shown as that file) put in place of its blanks (each method on its class, the engine's own names
    given back: a method softmax must not hide the kernel softmax, nor a method sum Python's sum)."""
    module = blank_tensor()
    filename = module.__file__ = str(path)  # (the learner's code reads its own __file__)
    namespace = vars(module)
    given = dict(namespace)
    if text is None:
        text = read_learners(path)
    else:  # (a text of no file: its lines kept for tracebacks and inspect)
        linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    exec(compile(text, filename, 'exec', dont_inherit=True), namespace)
    defined = {name: value for name, value in namespace.items()  # (an op under a decorator: the function it wraps)
               if isinstance(value, types.FunctionType)
               and getattr(inspect.unwrap(value), '__code__', None) is not None
               and inspect.unwrap(value).__code__.co_filename == filename}
    methods = {_bare(b.name) for b in blanks() if '.' in b.name}
    functions = {_bare(b.name) for b in blanks() if '.' not in b.name}
    for name, value in given.items():  # the engine's own names back: only its blank functions are the file's
        if name not in functions or name not in defined:
            namespace[name] = value
    for name in methods & defined.keys():  # each method on the class that holds it (Tensor, or one of its mixins)
        setattr(next(c for c in module.Tensor.__mro__ if name in vars(c)), name, defined[name])
        if name not in given:
            del namespace[name]
    return module

