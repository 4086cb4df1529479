"""The library's tensor engine as one module, and the bodies the exercises cut out of it: what the checker runs
(the library's answers, a slip planted, a learner's workspace loaded into a fresh copy: workspace.py).

The library keeps Tensor in a few modules (the node, then one mixin per family of ops, then tensor.py)
and the fused ops in functional.py. library_source() puts them one after the other, in the order Python
needs them, each under a line naming its file: the node, the families, Tensor, the functional ops, and
first of all `unbroadcast`, the function every op's `_add_grad` calls (the first exercise). Imports between those
modules are dropped (what they import is now in the text); the rest (dtype rules, checks, NumPy kernels)
is still imported from the library. It is made from the library's source every time, so it never drifts;
`ast` finds where each body is and the text is cut by those positions, so every comment stays.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import types
from dataclasses import dataclass
from functools import cache

from micrograd.exercises import cutting
from micrograd.exercises.cutting import body_span, first_statement, offsets, quoted, unwritten
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.exercise_list import EXERCISES, find

TENSOR_FILE = 'my_tensor.py'
PACKAGE = 'micrograd.tensor'
FUNCTIONS = ('unbroadcast',)   # functions of the library's kernels the workspace holds itself: exercises


@dataclass(frozen=True)
class Blank:
    """One body the learner writes: a `_backward` closure, or a whole function or method."""
    exercise: Exercise
    name: str         # as the records name it: 'Tensor.__add__', 'unbroadcast', 'Tensor.backward()'
    owner: str        # the class or function it sits in, as the file has it: 'Reductions.sum', 'cross_entropy'
    start: int        # where the body starts and ends, as offsets into the source text
    end: int
    indent: str
    line: int         # the body's first line in the source
    solution: str     # the library's text of that body

    def text(self, task: bool = True) -> str:
        """The blank: the exercise's task, rules and shapes (at its first blank, unless task=False), what this
        body does, and the raise that says it is not written."""
        n, name = self.exercise.number, self.exercise.name
        lines = []
        if task and self.name == self.exercise.blanks[0]:
            e = self.exercise
            for label, text in ((f"EXERCISE {n} ({name}):", e.ask), ("Rules:", e.all_rules), ("Checked on:", e.shapes)):
                lines += textwrap.wrap(f"{label} {text.replace('`', '')}", 108 - len(self.indent),
                                       initial_indent='# ', subsequent_indent='#     ')
        lines.append(f"# EXERCISE {n} ({name}), {self.exercise.prompt(self.name)}")
        lines.append(unwritten(n, name))
        return '\n'.join(lines)


# --- the library's engine as one file ----------------------------------------------------------------

def _modules() -> list[types.ModuleType]:
    """The modules of Tensor's classes, base first, then functional: the order my_tensor.py needs."""
    tensor = importlib.import_module(PACKAGE)
    names = [c.__module__ for c in reversed(tensor.Tensor.__mro__) if c.__module__.startswith(PACKAGE + '.')]
    names = list(dict.fromkeys(names)) + [f'{PACKAGE}.functional']
    return [importlib.import_module(n) for n in names]


def _header_end(tree: ast.Module) -> int:
    """How many statements at the top of a module are its docstring, imports and TYPE_CHECKING block."""
    n = 0
    for node in tree.body:
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and n == 0
        checking = isinstance(node, ast.If) and 'TYPE_CHECKING' in ast.unparse(node.test)
        if not (docstring or checking or isinstance(node, (ast.Import, ast.ImportFrom))):
            break
        n += 1
    return n


@cache
def library_source() -> str:
    """The library's tensor engine as one module's text, every body as the library has it."""
    modules = _modules()
    texts = [inspect.getsource(m) for m in modules]
    trees = [ast.parse(t) for t in texts]
    defined = {getattr(node, 'name', None) for tree in trees for node in tree.body} | set(FUNCTIONS)
    defined |= {t.id for tree in trees for node in tree.body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    imports: dict[str, list[str]] = {}     # module: names, in order of first use
    plain: list[str] = []                  # import x, import x as y
    checking: list[str] = []
    bodies: list[str] = []
    for module, text, tree in zip(modules, texts, trees):
        n = _header_end(tree)
        for node in tree.body[:n]:
            if isinstance(node, ast.ImportFrom) and node.module != '__future__':
                kept = [a for a in node.names if (a.asname or a.name) not in defined]
                names = imports.setdefault(node.module or '', [])
                names += [ast.unparse(a) for a in kept if ast.unparse(a) not in names]
            elif isinstance(node, ast.Import):
                plain += [ast.unparse(node)] if ast.unparse(node) not in plain else []
            elif isinstance(node, ast.If):
                checking += [ast.unparse(node)] if ast.unparse(node) not in checking else []
        lines = text.splitlines(keepends=True)
        first = tree.body[n].lineno if n < len(tree.body) else len(lines) + 1
        first = min([first] + [d.lineno for d in getattr(tree.body[n], 'decorator_list', [])]) if n < len(
            tree.body) else first
        doc = ast.get_docstring(tree) or ''
        title = doc.split('\n')[0]
        path = module.__name__.replace('.', '/') + '.py'
        bodies.append(f"\n\n# {'-' * 3} {path}: {title}\n\n" + ''.join(lines[first - 1:]).strip('\n') + '\n')
    kernels = importlib.import_module(f'{PACKAGE}.kernels')
    own = ''.join(f"\n\n# {'-' * 3} {PACKAGE.replace('.', '/')}/kernels.py: the sum every op's _add_grad calls\n\n"
                  + inspect.getsource(getattr(kernels, f)).rstrip('\n') + '\n' for f in FUNCTIONS)
    for names in imports.values():
        for f in FUNCTIONS:
            if f in names:
                names.remove(f)
    statements = [(s.split()[1], s) for s in plain]
    statements += [(m, _import_line(m, sorted(ns, key=str.lower))) for m, ns in imports.items() if ns]
    head = ["from __future__ import annotations"]
    for group in (lambda m: m.split('.')[0] not in ('numpy', 'micrograd'), lambda m: m.split('.')[0] == 'numpy',
                  lambda m: m.split('.')[0] == 'micrograd'):  # the standard library, NumPy, micrograd
        head += [""] + [text for module, text in sorted(statements) if group(module)]
    head += [""] + checking
    return '\n'.join(head) + '\n' + own + ''.join(bodies)


def _import_line(module: str, names: list[str]) -> str:
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= 110:
        return line
    return f"from {module} import (\n" + textwrap.fill(', '.join(names) + ',', 106, initial_indent='    ',
                                                         subsequent_indent='    ') + "\n)"


# --- the blanks ---------------------------------------------------------------------------------------

def locate(tree: ast.Module, name: str) -> tuple[ast.FunctionDef, str]:
    """The function or method a blank's name points to, and its owner's name as the file has it."""
    bare = name.removesuffix('()').split('.')[-1]
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == bare and '.' not in name:
            return node, node.name
        if isinstance(node, ast.ClassDef) and '.' in name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == bare:
                    return item, f"{node.name}.{item.name}"
    raise LookupError(f"the tensor track's blank {name!r} is not in the library's source")


def target(fn: ast.FunctionDef, name: str) -> ast.FunctionDef:
    """What a blank cuts out of fn: the `_backward` closure's body, or (a function, backward()) fn's own."""
    if name.endswith('()') or name in FUNCTIONS:
        return fn
    closure = next((f for f in ast.walk(fn) if isinstance(f, ast.FunctionDef) and f.name == '_backward'), None)
    if closure is None:
        raise LookupError(f"{fn.name} defines no _backward closure")
    return closure


def written_at(fn: ast.FunctionDef, owner: str, blank: str) -> tuple[int, str]:
    """Where the learner writes blank in fn (its line in fn's text), and that body's name as a place says it:
    '_backward in Unary.exp', or 'unbroadcast'."""
    body = target(fn, blank)
    return first_statement(body).lineno, owner if body is fn else f"_backward in {owner}"


def find_blanks(source: str) -> list[Blank]:
    """Every body the exercises cut out, in the order of the exercises."""
    tree, starts, out = ast.parse(source), offsets(source), []
    for exercise in EXERCISES:
        for name in exercise.blanks:
            fn, owner = locate(tree, name)
            body = target(fn, name)
            start, end, indent = body_span(source, starts, body)
            out.append(Blank(exercise, name, owner, start, end, indent, first_statement(body).lineno,
                             source[start:end]))
    return out


def splice(source: str, replacements: dict[Blank, str]) -> str:
    """source with each blank's body replaced by the given text, written unindented (each line is indented here
    as the body was)."""
    return cutting.splice(source, {b: '\n'.join((b.indent + line if line.strip() else '') if i else line
                                                for i, line in enumerate(text.strip('\n').split('\n')))
                                   for b, text in replacements.items()})


@cache
def blanks() -> tuple[Blank, ...]:
    return tuple(find_blanks(library_source()))


def blank(name: str) -> Blank:
    return next(b for b in blanks() if b.name == name)


# --- the engine with its blanks --------------------------------------------------------------------------

@cache
def engine_source() -> str:
    """The library's engine as one module's text, every exercise's body a blank (what a workspace runs in)."""
    return splice(library_source(), {b: b.text(task=False) for b in blanks()})


def solution(name: str) -> str:
    """The library's own code for an exercise: each function or method it blanks, from the library's files."""
    exercise = find(name)
    parts = []
    for module in _modules() + [importlib.import_module(f'{PACKAGE}.kernels')]:
        text = inspect.getsource(module)
        tree = ast.parse(text)
        lines = text.splitlines()
        for bname in exercise.blanks:
            try:
                fn, owner = locate(tree, bname)
            except LookupError:
                continue
            if bname in FUNCTIONS and module.__name__ != f'{PACKAGE}.kernels':
                continue
            path = module.__name__.replace('.', '/') + '.py'
            parts.append((exercise.blanks.index(bname), quoted(path, lines, fn, owner)))
    parts.sort(key=lambda p: p[0])
    return (f"# exercise {exercise.number} ({exercise.name}) of the tensor track: the library's answer\n"
            + '\n\n'.join(text for _, text in parts) + '\n')


@cache
def library_module() -> types.ModuleType:
    """The library's engine as the one-file module (every body the library's): what the slips are planted in."""
    return cutting.load(library_source(), 'micrograd_tensor_whole', '<micrograd.tensor, one file>')


def with_bodies(replacements: dict[str, str], name: str = 'micrograd_tensor_variant') -> types.ModuleType:
    """The library's engine with some bodies replaced (by blank name): a slip, planted."""
    return cutting.load(splice(library_source(), {blank(k): v for k, v in replacements.items()}), name, f'<{name}>')
