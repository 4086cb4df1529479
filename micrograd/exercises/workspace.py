"""The workspace: micrograd's own engine.py and nn.py with each exercise's body cut out.

It is made from the library's source every time, so it never drifts from it. `ast` finds where each
body is; the text is cut by those positions, so every comment and every blank line outside the
bodies stays exactly as in the library.
"""
from __future__ import annotations

import ast
import importlib.util
import io
import linecache
import sys
import textwrap
import tokenize
import types
from dataclasses import dataclass
from pathlib import Path

from micrograd.exercises.catalog import EXERCISES, Exercise, find
from micrograd.exercises.commands import command

ENGINE_FILE, NN_FILE = 'my_engine.py', 'my_nn.py'

# What each blank asks. A number in x + 2, x * 2 or x / 2 arrives as a leaf Value(2.0), so one closure serves both.
PROMPTS: dict[str, str] = {
    '+': "x + y (and x + k: other is then a leaf Value(k)): add grad * (local derivative) to self.grad and "
         "other.grad",
    '*': "x * y (and x * k: other is then a leaf Value(k)): each parent's .grad grows by grad times its "
         "local derivative",
    '**': "x ** k and x ** y: self.grad gets the power rule times grad; when other is a Value (x ** y), "
          "other.grad gets its share too",
    '/': "x / y (and x / k: other is then a leaf Value(k)): add grad * d(x/y)/dx to self.grad and "
         "grad * d(x/y)/dy to other.grad",
    'exp': "exp(x), x being self: add grad * d(e**x)/dx to self.grad",
    'tanh': "tanh(x), x being self: add grad * d(tanh x)/dx to self.grad",
    'log': "log(x), x being self: add grad * d(log x)/dx to self.grad",
    'relu': "relu(x), x being self: add grad * d(relu x)/dx to self.grad",
    'sigmoid': "sigmoid(x), x being self: add grad * d(sigmoid x)/dx to self.grad",
    'dot': "dot: each w in ws, each x in xs and the bias b get their share of grad",
    'sort': "return the nodes ops made on the way to self, each after its parents (no recursion)",
    'backward': "sort, zero, seed self.grad, then pass each node's grad on to its parents, root first",
    'neuron': "return activation(w . x + b) as a Value built from self.w, x and self.b",
    'parameters': "return the neuron's weights and its bias, as one list",
}


@dataclass(frozen=True)
class Blank:
    """One body the learner writes: an op's backward closure, or a whole method."""
    exercise: Exercise
    method: str              # the method of Value (or Neuron) it sits in
    function: str            # the function whose body it is: the closure '_backward', or the method itself
    parents: tuple[str, ...]  # for a closure, the names whose .grad it adds to: ('self', 'other')
    start: int               # where the body starts and ends, as offsets into the source text
    end: int
    indent: str
    solution: str            # the library's text of that body
    comments: tuple[str, ...] = ()  # an op's formulas, the comments on its body's lines: they stay

    @property
    def prompt(self) -> str:
        if self.exercise.name == 'neuron' and self.method == 'parameters':
            return PROMPTS['parameters']
        return PROMPTS.get(self.exercise.name, self.exercise.title)

    def text(self) -> str:
        """The blank itself: the marker comment with the prompt, and the raise that says it is not written."""
        n, name = self.exercise.number, self.exercise.name
        formulas = ''.join(f"{comment}\n{self.indent}" for comment in self.comments)
        return (f"{formulas}# EXERCISE {n} ({name}): {self.prompt}\n"
                f"{self.indent}raise NotImplementedError('exercise {n} ({name}): not written yet')")


def library_source(which: str) -> tuple[str, str]:
    """The text of micrograd's engine.py or nn.py, and its file name as a reader knows it."""
    spec = importlib.util.find_spec(f'micrograd.{which}')
    assert spec is not None and spec.origin is not None, f"micrograd.{which} is not installed"
    return Path(spec.origin).read_text(encoding='utf-8'), f'micrograd/{which}.py'


def _offsets(source: str) -> list[int]:
    """Where each line starts (ast counts lines from 1 and columns in UTF-8 bytes)."""
    starts, total = [0, 0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def _position(source: str, starts: list[int], line: int, col: int) -> int:
    text = source[starts[line]:starts[line + 1]]
    return starts[line] + len(text.encode('utf-8')[:col].decode('utf-8'))


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise LookupError(f"no class {name} in the library's source")


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise LookupError(f"no method {cls.name}.{name} in the library's source")


def _body_span(source: str, starts: list[int], fn: ast.FunctionDef) -> tuple[int, int, str]:
    """The text of fn's body after its docstring, up to the end of its last line (a trailing comment
    goes with it), and the body's indentation."""
    body = fn.body
    if (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str) and len(body) > 1):
        body = body[1:]  # the docstring stays: it states what the learner's code must do
    first, last = body[0], body[-1]
    start = _position(source, starts, first.lineno, first.col_offset)
    assert last.end_lineno is not None
    end = starts[last.end_lineno + 1]
    end -= len(source[:end]) - len(source[:end].rstrip('\r\n'))
    line_start = starts[first.lineno]
    indent = source[line_start:start]
    if indent.strip():  # `def f(): body` on one line: the blank goes on lines of its own
        indent = ' ' * (fn.col_offset + 4)
    return start, end, indent


def _comments(text: str) -> tuple[str, ...]:
    """The comments in a piece of code, in order."""
    tokens = tokenize.generate_tokens(io.StringIO(textwrap.dedent(text)).readline)
    try:
        return tuple(t.string for t in tokens if t.type == tokenize.COMMENT)
    except (tokenize.TokenError, IndentationError):
        return ()


def methods_of(cls: ast.ClassDef, exercise: Exercise) -> list[ast.FunctionDef]:
    """The methods an exercise blanks (x + k has no helper of its own: k becomes a leaf Value)."""
    return [_method(cls, name) for name in exercise.methods]


def _graded(fn: ast.FunctionDef) -> tuple[str, ...]:
    """The names whose .grad a backward closure adds to, in order: ('self', 'other'), or ('w', 'x', 'b')."""
    targets = [t for node in ast.walk(fn) if isinstance(node, (ast.AugAssign, ast.Assign))
               for t in ([node.target] if isinstance(node, ast.AugAssign) else node.targets)]
    names = [t.value.id for t in targets
             if isinstance(t, ast.Attribute) and t.attr == 'grad' and isinstance(t.value, ast.Name)]
    return tuple(dict.fromkeys(names))


def find_blanks(source: str, which: str = 'engine') -> list[Blank]:
    """Every body the exercises cut out of engine.py (which='engine') or nn.py (which='nn'), in order."""
    tree, starts, blanks = ast.parse(source), _offsets(source), []
    cls = _class(tree, 'Value' if which == 'engine' else 'Neuron')
    for exercise in EXERCISES:
        if exercise.source != which:
            continue
        for method in methods_of(cls, exercise):
            method_name = method.name
            if exercise.name in ('sort', 'backward', 'neuron'):
                functions = [method]
            else:  # an op: every closure named _backward... inside it
                functions = [f for f in ast.walk(method)
                             if isinstance(f, ast.FunctionDef) and f.name.startswith('_backward')]
                if not functions and method_name in exercise.methods:
                    raise LookupError(f"Value.{method_name} defines no _backward closure")
            for fn in functions:
                start, end, indent = _body_span(source, starts, fn)
                parents = _graded(fn) if fn is not method else ()
                comments = _comments(indent + source[start:end]) if fn is not method else ()
                blanks.append(Blank(exercise, method_name, fn.name, parents, start, end, indent,
                                    source[start:end], comments))
    return sorted(blanks, key=lambda b: (b.exercise.number, b.start))


def splice(source: str, replacements: dict[Blank, str]) -> str:
    """source with each blank's body replaced by the given text (its first line unindented)."""
    out, at = [], 0
    for blank in sorted(replacements, key=lambda b: b.start):
        text = replacements[blank]
        if source[:blank.start].rstrip(' \t')[-1:] not in ('\n', ''):  # a body that began on the def's line
            text = '\n' + blank.indent + text
        out += [source[at:blank.start], text]
        at = blank.end
    return ''.join(out) + source[at:]


_LAST, _NEURON = find('backward'), find('neuron')


def engine_header(directory: str | Path = '.') -> str:
    """my_engine.py's first lines, with the commands for its folder as they run from anywhere."""
    where = Path(directory).resolve()
    return f"""\
# my_engine.py: micrograd's engine.py with the backward of each op cut out, for you to write.
# Fill in each EXERCISE in order, from 1 (+) to {_LAST.number} (backward); exercise {_NEURON.number} is in my_nn.py.
# Each op's _backward(grad) is handed the output's gradient: where the lecture writes out.grad, write grad.
# After each one, check it (add --hint when you are stuck):
#     {command('check', where)}
# The library's answer, when you want to compare:
#     {command('solution', 'tanh')}
"""


def nn_header(directory: str | Path = '.') -> str:
    return f"""\
# my_nn.py: micrograd's nn.py, on your engine (my_engine.py), with exercise {_NEURON.number} to write:
# Neuron.__call__ and Neuron.parameters. Check it with:
#     {command('check', Path(directory).resolve())}
"""


def engine_text(directory: str | Path = '.') -> str:
    """my_engine.py for a workspace in directory: the library's engine.py, every exercise a blank."""
    source, _ = library_source('engine')
    return engine_header(directory) + splice(source, {b: b.text() for b in find_blanks(source, 'engine')})


def _on_my_engine(source: str) -> str:
    """nn.py's source importing Value (and anything else) from my_engine instead of micrograd.engine."""
    starts = _offsets(source)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == 'micrograd.engine':
            start = _position(source, starts, node.lineno, node.col_offset)
            assert node.end_lineno is not None and node.end_col_offset is not None
            end = _position(source, starts, node.end_lineno, node.end_col_offset)
            names = ', '.join(a.name + (f' as {a.asname}' if a.asname else '') for a in node.names)
            return source[:start] + f"from my_engine import {names}  # your engine" + source[end:]
    raise LookupError("nn.py does not import from micrograd.engine")


def nn_text(directory: str | Path = '.') -> str:
    """my_nn.py: the library's nn.py on my_engine, with Neuron.__call__ and parameters() blank."""
    source, _ = library_source('nn')
    return nn_header(directory) + _on_my_engine(splice(source, {b: b.text() for b in find_blanks(source, 'nn')}))


def start(directory: str | Path, force: bool = False) -> list[Path]:
    """Write my_engine.py and my_nn.py into directory; an existing workspace is kept unless force."""
    directory = Path(directory)
    files = [directory / ENGINE_FILE, directory / NN_FILE]
    existing = [f for f in files if f.exists()]
    if existing and not force:
        raise FileExistsError(f"{existing[0]} exists already: your work is kept. Continue with "
                              f"`{command('check', directory)}`, or start over with --force")
    directory.mkdir(parents=True, exist_ok=True)
    files[0].write_text(engine_text(directory), encoding='utf-8')
    files[1].write_text(nn_text(directory), encoding='utf-8')
    return files


def solution(name: str) -> str:
    """The library's own code for an exercise: the whole method(s) it lives in, from engine.py or nn.py."""
    exercise = find(name)
    source, filename = library_source(exercise.source)
    lines = source.splitlines()
    cls = _class(ast.parse(source), 'Value' if exercise.source == 'engine' else 'Neuron')
    parts = []
    for method in methods_of(cls, exercise):
        first = min([method.lineno] + [d.lineno for d in method.decorator_list])
        assert method.end_lineno is not None
        code = '\n'.join(lines[first - 1:method.end_lineno])
        parts.append(f"# {filename}, lines {first}-{method.end_lineno}\n{code}")
    return f"# exercise {exercise.number} ({exercise.name}): the library's answer\n" + '\n\n'.join(parts) + '\n'


def load(source: str, name: str, filename: str) -> types.ModuleType:
    """Run source as a fresh module called name (not put in sys.modules); tracebacks show filename's lines."""
    module = types.ModuleType(name)
    module.__file__ = filename
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    sys.modules[name] = module  # while it runs: dataclasses and typing look a module up by name
    try:
        exec(compile(source, filename, 'exec'), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def blank_engine() -> types.ModuleType:
    """my_engine.py as a module: the library's engine with every backward blank, for a notebook."""
    return load(engine_text(), 'my_engine', ENGINE_FILE)


def blank_nn(engine: types.ModuleType) -> types.ModuleType:
    """my_nn.py as a module, on the given engine module (say, blank_engine())."""
    previous = sys.modules.get('my_engine')
    sys.modules['my_engine'] = engine
    try:
        return load(nn_text(), 'my_nn', NN_FILE)
    finally:
        if previous is None:
            del sys.modules['my_engine']
        else:
            sys.modules['my_engine'] = previous


def engine_with(replacements: dict[Blank, str], name: str = 'micrograd_variant') -> types.ModuleType:
    """The library's engine with some bodies replaced (the checker's catalogue of classic mistakes)."""
    source, _ = library_source('engine')
    return load(splice(source, replacements), name, f'<{name}>')
