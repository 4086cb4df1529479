"""Where the learner wrote each exercise, and the scalar track's lines a diagnosis points at: the first that made a
wrong value, those that made and returned the output, an alias (`__rmul__ = __add__`), a line holding a slip."""
from __future__ import annotations

import inspect
import linecache
import re
import textwrap
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from micrograd.engine import Value
from micrograd.exercises import lines
from micrograd.exercises.lines import Line, Right, line_holding, noting, place, run_traced, swapped, traced, written
from micrograd.exercises.scalar.exercises import EXERCISES


def class_places(value_class: Any, neuron: Any) -> dict[int, str]:
    """Where each exercise is written in a notebook's classes: {number: 'line 12: _backward in Value.tanh'}."""
    out: dict[int, str] = {}
    for cls, kind in ((value_class, 'engine'), (neuron, 'nn')):
        for number, method in ((e.number, m) for e in EXERCISES if e.source == kind for m in e.methods):
            if isinstance(cls, type) and method in cls.__dict__ and number not in out:
                out[number] = method_place(cls, method).partition(', ')[2] or f"{cls.__name__}.{method}"
    return out


def method_place(cls: Any, method: str) -> str:
    """Where the learner writes cls's method (lines.written): 'my_nn.py, line 62: Neuron.parameters', or ''."""
    return written(_function(cls, method), f"{cls.__name__}.{method}")


def wrong_line(methods: tuple[str, ...], mine: list[lines.Event], run: Callable[[Any], object],
               leaf: float | None) -> str:
    """The learner's line that made a wrong value first (mine: their run, traced), or ''; run(cls) runs the case."""
    noted, swaps = list[Any](), []
    for method in (m for m in methods if m in vars(Value)):
        fn = _function(Value, method)
        try:
            namespace = noting(textwrap.dedent(inspect.getsource(fn)), fn.__globals__, False, noted)
        except OSError:  # (the library's source not at hand)
            return ''
        swaps.append((Value, method, namespace[fn.__name__]))
    with swapped(swaps):
        right = run_traced(closures(Value, tuple(vars(Value))), lambda: run(Value))  # every op's: x - y is x + (-y)
    found = lines.wrong_line(Right(noted, right, float, 1e-6, 1e-9), mine, leaf=leaf)
    return place(*found) if found else ''


def in_learners_words(why: str, place: str, one_parent: bool) -> str:
    """why quoting the learner's line at place for the library's (each quoted .grad statement to the same parent);
    with one_parent (only one parent's gradient wrong), 'on every parent' said as that line too."""
    text = place.partition(': ')[2]
    if (base := _base(text)) is None:
        return why
    why = re.sub(r'`([^`]+)`', lambda quote: f"`{text}`" if _base(quote.group(1)) == base else quote.group(0), why)
    if one_parent:
        why = re.sub(r": (on every parent|in every line)\Z", lambda _: f": `{text}`", why)
    return why


def alias_line(cls: Any, method: str) -> str:
    """The line of cls's body making method another one ('my_engine.py, line 92: __rmul__ = __add__'), else ''."""
    fn = _function(cls, method)
    code = getattr(fn, '__code__', None)  # the class's file is the one its methods were compiled from
    if code is None or getattr(fn, '__name__', method) == method:
        return ''
    lines = linecache.getlines(code.co_filename)
    at = next((n for n, line in enumerate(lines, 1) if re.match(rf'\s*{method}\s*=', line)), None)
    return f"{Path(code.co_filename).name}, line {at}: {lines[at - 1].split('#')[0].strip()}" if at else ''


def line_with(cls: Any, method: str, needle: str | re.Pattern[str]) -> str:
    """The learner's first line in method holding needle ('.tanh(', or a pattern), as lines.line_holding says it."""
    return line_holding(_function(cls, method), needle)


def _base(text: str) -> str | None:
    """The name whose .grad a statement sets ('other' in other.grad -= ..., 'ws' in ws[i].grad += ...), or None."""
    found = re.match(r'\s*(\w+)(\[[^\]]*\])?\.grad\s*[-+*/@]{0,2}=(?!=)', text)
    return found[1] if found else None


def output_lines(cls: Any, methods: tuple[str, ...], run: Callable[[], object]) -> tuple[str, str]:
    """The learner's lines in cls's methods, as run() runs them, that made the output (assigned the name the
    innermost method returning it returns, else returned it) and that returned it; '' where none ran."""
    codes = {getattr(_function(cls, m), '__code__', None) for m in methods}
    returned: list[tuple[Any, Line]] = []  # innermost first

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == 'return':
            returned.append((arg, (frame.f_code, frame.f_lineno)))
        return local
    traced(run, lambda frame, event, arg: local if event == 'call' and frame.f_code in codes else None)
    if not returned:
        return '', ''
    code, line = next(at for value, at in returned if value is returned[-1][0])
    name = re.fullmatch(r'\s*return\s+(\w+)\s*(#.*)?', linecache.getline(code.co_filename, line).rstrip())
    made = line_holding(code, re.compile(rf'^\s*{name[1]}\s*=(?!=)')) if name else ''
    return made or place(code, line), place(code, line)


def closures(cls: Any, methods: tuple[str, ...]) -> set[types.CodeType]:
    """The code of the functions defined inside cls's methods (their backward closures)."""
    codes = [getattr(_function(cls, method), '__code__', None) for method in methods]
    return {c for code in codes for c in getattr(code, 'co_consts', ()) if isinstance(c, types.CodeType)}


def _function(cls: Any, method: str) -> Any:
    """The function of cls's method, its own or inherited (a staticmethod's function)."""
    fn = inspect.getattr_static(cls, method, None) if isinstance(cls, type) else None
    return getattr(fn, '__func__', fn)
