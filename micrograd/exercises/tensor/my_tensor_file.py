"""The tensor track's workspace, my_tensor.py, cut from the library's tensor engine as one module; the checker runs
that module with the library's bodies, a slip planted, or a learner's my_tensor.py in place of its blanks (load)."""
from __future__ import annotations

import ast
import importlib
import inspect
import linecache
import textwrap
import tokenize
import types
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from micrograd.exercises import cutting
from micrograd.exercises.commands import advice, command
from micrograd.exercises.cutting import Body, answer, body_span, dedented, definition, offsets, unwritten
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.exercise_list import EXERCISES, find

TENSOR_FILE = 'my_tensor.py'
PACKAGE = 'micrograd.tensor'
FUNCTIONS = ('unbroadcast',)   # functions of the library's kernels the workspace holds itself: exercises


@dataclass(frozen=True)
class Blank(Body):
    """One body the learner writes: a `_backward` closure, or a whole function or method."""
    exercise: Exercise
    name: str         # as the records name it: 'Tensor.__add__', 'unbroadcast', 'Tensor.backward()'
    owner: str        # the class or function it sits in, as the file has it: 'Reductions.sum', 'cross_entropy'

    def text(self) -> str:  # what this body does, and the raise that says it is not written
        n, name, prompts = self.exercise.number, self.exercise.name, self.exercise.prompts
        return f"# EXERCISE {n} ({name}), {prompts[self.exercise.blanks.index(self.name)]}\n{unwritten(n, name)}"


@cache
def library_source() -> str:
    """The library's tensor engine as one module's text: `unbroadcast`, then the modules of Tensor's classes (base
    first) and functional.py, each under a line naming its file, with its imports less the names defined here."""
    tensor = importlib.import_module(PACKAGE)
    names = [c.__module__ for c in reversed(tensor.Tensor.__mro__) if c.__module__.startswith(PACKAGE + '.')]
    modules = [importlib.import_module(n) for n in [*dict.fromkeys(names), f'{PACKAGE}.functional']]
    texts = [inspect.getsource(m) for m in modules]
    trees = [ast.parse(t) for t in texts]
    defined = {getattr(node, 'name', None) for tree in trees for node in tree.body} | set(FUNCTIONS)
    defined |= {t.id for tree in trees for node in tree.body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    kernels = importlib.import_module(f'{PACKAGE}.kernels')
    parts = [(kernels, inspect.getsource(getattr(kernels, f))) for f in FUNCTIONS]
    for module, text, tree in zip(modules, texts, trees):
        lines = text.splitlines(keepends=True)
        for node in reversed([n for n in tree.body if isinstance(n, ast.ImportFrom)]):
            kept = [a for a in node.names if (a.asname or a.name) not in defined]
            line = ast.unparse(ast.ImportFrom(node.module, kept, 0)) + '\n' if node.module != '__future__' else ''
            lines[node.lineno - 1:node.end_lineno] = [line] if kept else []
        parts.append((module, ''.join(lines)))
    return "from __future__ import annotations\n" + ''.join(
        f"\n\n# --- {module.__name__.replace('.', '/')}.py\n\n" + text.strip('\n') + '\n' for module, text in parts)


def _bare(name: str) -> str:
    """The name a blank's function has in the workspace: 'Tensor.backward()' -> 'backward'."""
    return name.removesuffix('()').split('.')[-1]


def locate(tree: ast.Module, name: str) -> tuple[ast.FunctionDef, str]:
    """The function or method a blank's name points to, and its owner's name as the file has it."""
    bare = _bare(name)
    if '.' not in name:
        return cutting.named(tree, bare), bare
    holders = [c for c in tree.body if isinstance(c, ast.ClassDef) and bare in {getattr(f, 'name', '') for f in c.body}]
    if not holders:
        raise LookupError(f"the tensor track's blank {name!r} is not in the library's source")
    cls = holders[0]
    return cutting.named(cls, bare), f"{cls.name}.{bare}"


@cache
def library_text(owner: str) -> str:
    """The library's text of the function or method owner ('Unary.exp', 'unbroadcast'), dedented."""
    return dedented(library_source().splitlines(), locate(ast.parse(library_source()), owner)[0]) + '\n'


def target(fn: ast.FunctionDef, name: str) -> ast.FunctionDef:
    """What a blank cuts out of fn: the `_backward` closure's body, or (a function, backward()) fn's own."""
    return fn if name.endswith('()') or name in FUNCTIONS else cutting.named(fn, '_backward')


def _indented(replacements: dict[Blank, str]) -> dict[Body, str]:
    """Each text, written unindented, indented as its blank's body was."""
    return {b: '\n'.join((b.indent + line if line.strip() else '') if i else line
                         for i, line in enumerate(text.strip('\n').split('\n'))) for b, text in replacements.items()}


def splice(source: str, replacements: dict[Blank, str]) -> str:
    """source with each blank's body replaced by the given text, written unindented (indented here as the body was)."""
    return cutting.splice(source, _indented(replacements))


@cache
def blanks() -> tuple[Blank, ...]:
    """Every body the exercises cut out of the library's source, in the order of the exercises."""
    source = library_source()
    tree, starts, out = ast.parse(source), offsets(source), []
    for exercise in EXERCISES:
        for name in exercise.blanks:
            fn, owner = locate(tree, name)
            start, end, indent = body_span(source, starts, target(fn, name))
            out.append(Blank(start, end, indent, source[start:end], exercise, name, owner))
    return tuple(out)


def solution(name: str) -> str:
    """The library's own code for an exercise: each function or method it blanks, from the library's files."""
    exercise, tensor = find(name), importlib.import_module(PACKAGE).Tensor
    kernels, functional = (importlib.import_module(f'{PACKAGE}.{m}') for m in ('kernels', 'functional'))
    holders = [tensor if '.' in n else kernels if n in FUNCTIONS else functional for n in exercise.blanks]
    return answer(f"# exercise {exercise.number} ({exercise.name}) of the tensor track: the library's answer",
                  [getattr(h, _bare(n)) for h, n in zip(holders, exercise.blanks)], owners=True)


@cache
def library_module() -> types.ModuleType:
    """The library's engine as the one-file module (every body the library's): what the slips are planted in."""
    return with_bodies({}, 'micrograd_tensor_whole', '<micrograd.tensor, one file>')


def with_bodies(replacements: dict[str, str], name: str, filename: str = '') -> types.ModuleType:
    """The library's engine with some bodies replaced (by blank name): a slip planted, or every body a blank."""
    spliced = splice(library_source(), {b: replacements[b.name] for b in blanks() if b.name in replacements})
    return cutting.load(spliced, name, filename or f'<{name}>')


# --- my_tensor.py ---------------------------------------------------------------------------------------

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
    lines = [f"# --- EXERCISE {exercise.number} ({exercise.name}) ---"]
    for label, text in (("", exercise.ask), ("Rules:", exercise.all_rules), ("Checked on:", exercise.shapes)):
        lines += textwrap.wrap(f"{label} {text.replace('`', '')}".strip(), 110, initial_indent='# ',
                               subsequent_indent='#     ')
    return '\n'.join(lines)


@cache
def _spans() -> list[tuple[Exercise, list[tuple[str, int, int]]]]:
    """Per exercise, each function or method it blanks: its owner and where its definition is in library_source()."""
    source = library_source()
    tree, starts = ast.parse(source), offsets(source)
    return [(exercise, [(owner, starts[definition(fn)[0]], starts[definition(fn)[1] + 1]) for fn, owner in
                        dict.fromkeys(locate(tree, name) for name in exercise.blanks)]) for exercise in EXERCISES]


def definitions(bodies: dict[str, str] | None = None) -> list[tuple[Exercise, list[tuple[str, str]]]]:
    """Per exercise, each function or method it blanks: (its owner, 'Unary.exp', its text dedented), as source()."""
    written = _indented({b: (bodies or {}).get(b.name, b.text()) for b in blanks()})
    spliced = cutting.splice(library_source(), written)

    def moved(at: int) -> int:  # an offset of the library's source, in spliced (each body before it written)
        return at + sum(len(text) - (b.end - b.start) for b, text in written.items() if b.end <= at)
    return [(exercise, [(owner, textwrap.dedent(spliced[moved(start):moved(end)].removesuffix('\n')))
                        for owner, start, end in spans]) for exercise, spans in _spans()]


def source(directory: str | Path = '.', bodies: dict[str, str] | None = None) -> str:
    """my_tensor.py's text: every exercise blank, or with the bodies given (by blank name, unindented)."""
    return '\n\n'.join([header(directory) + "from __future__ import annotations\n"] + [
        _task(exercise) + '\n' + '\n\n\n'.join(text for _, text in texts) + '\n'
        for exercise, texts in definitions(bodies)])


def library_bodies() -> dict[str, str]:
    """Every blank's body as the library writes it (by blank name, unindented)."""
    return {b.name: b.solution.replace('\n' + b.indent, '\n') for b in blanks()}


def solved(directory: str | Path = '.', bodies: dict[str, str] | None = None) -> str:
    """my_tensor.py with every exercise written as the library writes it (bodies: some written otherwise)."""
    return source(directory, library_bodies() | (bodies or {}))


def blank_tensor() -> types.ModuleType:
    """A fresh copy of the library's engine as one module, every exercise blank (for a notebook)."""
    given = str(Path(__file__).parent / '<micrograd.tensor, given>')  # in micrograd's folder: never the learner's line
    return with_bodies({b.name: b.text() for b in blanks()}, TENSOR_FILE.removesuffix('.py'), given)


def load(path: str | Path, text: str | None = None) -> types.ModuleType:
    """The learner's engine: a fresh copy of the library's, the functions and methods of the file at path (or of text)
    in place of its blanks; a method softmax does not hide the kernel softmax, nor a method sum Python's sum."""
    module = blank_tensor()
    filename = module.__file__ = str(path)  # (the learner's code reads its own __file__)
    namespace = vars(module)
    given = dict(namespace)
    if text is None:  # (read as Python reads a file: a byte-order mark and a coding line honoured)
        with tokenize.open(path) as file:
            text = file.read()
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)  # (for tracebacks)
    exec(compile(text, filename, 'exec', dont_inherit=True), namespace)
    defined = {name: value for name, value in namespace.items()  # (an op under a decorator: the function it wraps)
               if isinstance(value, types.FunctionType)
               and getattr(getattr(inspect.unwrap(value), '__code__', None), 'co_filename', None) == filename}
    functions = {b.owner for b in blanks() if '.' not in b.owner}
    namespace.update((name, value) for name, value in given.items()  # the engine's own names back: only its
                     if name not in functions or name not in defined)  # blank functions are the file's
    for cls, _, name in (b.owner.partition('.') for b in blanks() if '.' in b.owner):
        if name in defined:  # each method on the class that holds it (Tensor, or one of its mixins)
            setattr(namespace[cls], name, defined[name])
            if name not in given:
                del namespace[name]
    return module
