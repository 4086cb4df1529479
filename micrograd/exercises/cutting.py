"""Cutting bodies out of the library's own source (`ast` finds them; the text is cut by position, so everything
outside the bodies stays as the library has it), and running the result, or a learner's file."""
from __future__ import annotations

import ast
import importlib.util
import inspect
import io
import itertools
import linecache
import sys
import textwrap
import tokenize
import types
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Body:
    """A body cut out of the library's source (a blank of either track): its offsets, indentation and text."""
    start: int
    end: int
    indent: str
    solution: str


# engine.py's Value takes in more_ops.py's ops as methods by an import in its body: the exercises read them inside.
INLINED = {'micrograd.engine': 'micrograd.more_ops'}


@cache
def library_source(module: str) -> tuple[str, str]:
    """The text of one of micrograd's modules (engine.py's with INLINED) and its file name, read once: cuts agree."""
    text = inspect.getsource(importlib.import_module(module))
    return (_inlined(text, INLINED[module]) if module in INLINED else text), module.replace('.', '/') + '.py'


def _inlined(source: str, module: str) -> str:
    """source with its class-body `from <module> import ...` replaced by those functions' text, in module's order,
    and module's imports added at the end."""
    inner = inspect.getsource(importlib.import_module(module))
    tree, lines = ast.parse(inner), inner.splitlines(keepends=True)
    imports = [ast.get_source_segment(inner, node) or '' for node in tree.body
               if isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, 'module', '') != '__future__']
    node = next((n for cls in ast.parse(source).body if isinstance(cls, ast.ClassDef)
                 for n in cls.body if isinstance(n, ast.ImportFrom) and n.module == module), None)
    if node is None:
        raise LookupError(f"no class of the library's source imports {module}")
    names = {alias.name for alias in node.names}
    spans = [definition(fn) for fn in tree.body if isinstance(fn, ast.FunctionDef) and fn.name in names]
    text = ''.join(textwrap.indent(''.join(lines[first - 1:last]), ' ' * node.col_offset) for first, last in spans)
    starts = offsets(source)
    return (source[:starts[node.lineno]] + text + source[starts[(node.end_lineno or node.lineno) + 1]:]
            + '\n' + '\n'.join(imports) + '\n')


def offsets(source: str) -> list[int]:
    """Where each line starts (ast counts lines from 1 and columns in UTF-8 bytes)."""
    return [0, 0, *itertools.accumulate(len(line) for line in source.splitlines(keepends=True))]


def named(node: ast.Module | ast.ClassDef | ast.FunctionDef, name: str) -> Any:
    """The class or function called name in node's body: a module's class, a class's method, a method's closure."""
    found = next((n for n in node.body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name == name), None)
    if found is None:
        raise LookupError(f"no {name} in {getattr(node, 'name', 'the module')} of the library's source")
    return found


def definition(fn: ast.FunctionDef) -> tuple[int, int]:
    """The lines fn's definition spans, its decorators included (counted from 1, the last included)."""
    return min([fn.lineno] + [d.lineno for d in fn.decorator_list]), fn.end_lineno or fn.lineno


def dedented(lines: list[str], fn: ast.FunctionDef) -> str:
    """fn's definition as lines (a source's, split) have it, dedented: a function of a workspace or a notebook."""
    first, last = definition(fn)
    return textwrap.dedent('\n'.join(lines[first - 1:last]))


def first_statement(fn: ast.FunctionDef) -> ast.stmt:
    """fn's first statement after its docstring (the docstring itself when it is all there is)."""
    return fn.body[1] if ast.get_docstring(fn) and len(fn.body) > 1 else fn.body[0]


def answer(heading: str, functions: list[Any], owners: bool = False) -> str:
    """The library's own code for an exercise: under heading, each function's definition as its file has it,
    under a line naming the file and the lines (and, with owners, what it is: 'Unary.softmax')."""
    parts = []
    for fn in map(inspect.unwrap, functions):  # (an op under a decorator: the function it wraps)
        lines, first = inspect.getsourcelines(fn)
        owner = f": {fn.__qualname__}" if owners else ''
        parts.append(f"# {fn.__module__.replace('.', '/')}.py, lines {first}-{first + len(lines) - 1}{owner}\n"
                     + ''.join(lines).rstrip('\n'))
    return heading + '\n' + '\n\n'.join(parts) + '\n'


def body_span(source: str, starts: list[int], fn: ast.FunctionDef) -> tuple[int, int, str]:
    """Where fn's body after its docstring starts and ends (a trailing comment goes with it), and its indentation."""
    first, last = first_statement(fn), fn.body[-1]  # the docstring stays: it says what the learner's code must do
    line = source[starts[first.lineno]:starts[first.lineno + 1]]
    start = starts[first.lineno] + len(line.encode('utf-8')[:first.col_offset].decode('utf-8'))
    end = starts[(last.end_lineno or last.lineno) + 1]
    end -= len(source[:end]) - len(source[:end].rstrip('\r\n'))
    return start, end, source[starts[first.lineno]:start]


def comments(text: str) -> tuple[str, ...]:
    """The comments in a piece of code, in order."""
    tokens = tokenize.generate_tokens(io.StringIO(textwrap.dedent(text)).readline)
    return tuple(t.string for t in tokens if t.type == tokenize.COMMENT)


def unwritten(number: int, name: str) -> str:
    """A blank's last line until the learner writes it: it raises, naming its exercise (blank_raised reads it)."""
    return f"raise NotImplementedError('exercise {number} ({name}): not written yet')"


def blank_raised(error: BaseException | None, count: int) -> int | None:
    """The exercise a blank's NotImplementedError names (of 1..count; 0: the learner's own); None for other errors."""
    return (next((n for n in range(1, count + 1) if str(error).startswith(f'exercise {n} ')), 0)
            if isinstance(error, NotImplementedError) else None)


def splice(source: str, replacements: Mapping[Body, str]) -> str:
    """source with each body replaced by the given text (its first line unindented)."""
    for span in sorted(replacements, key=lambda s: s.start, reverse=True):  # (from the end: the offsets still hold)
        source = source[:span.start] + replacements[span] + source[span.end:]
    return source


@lru_cache(maxsize=32)
def _compiled(source: str, filename: str) -> types.CodeType:
    """source compiled (once: the library with the same slip planted is loaded again and again)."""
    return compile(source, filename, 'exec')


def load(source: str, name: str, filename: str, **imports: types.ModuleType) -> types.ModuleType:
    """Run source as a fresh module called name (tracebacks show filename's lines), lending it sys.modules
    entries for itself and for imports while it runs (dataclasses look a module up by name)."""
    module = types.ModuleType(name)
    module.__file__ = filename
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    before = {key: sys.modules.get(key) for key in [name, *imports]}
    sys.modules.update({name: module, **imports})
    try:
        exec(_compiled(source, filename), module.__dict__)
    finally:
        for key, previous in before.items():  # (sys.modules as it was)
            sys.modules.pop(key, None)
            if previous is not None:
                sys.modules[key] = previous
    return module


def load_file(name: str, path: Path) -> types.ModuleType:
    """Import the learner's file as module name (left in sys.modules, so that my_nn.py finds my_engine)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    sys.modules[name] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
