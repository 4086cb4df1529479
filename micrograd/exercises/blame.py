"""The learner's line: which function and line of the learner's code raised an error, or holds a mistake; and
the learner's code traced as it runs, to find that line.

Frames of micrograd itself (the checker, numeric.py) and of Python's standard library are not the learner's:
an error is reported at the innermost frame the learner wrote.
"""
from __future__ import annotations

import ast
import linecache
import os
import sys
import sysconfig
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

NOT_LEARNERS = tuple(str(Path(p).resolve()) + os.sep for p in [
    str(Path(__file__).parents[1]), *(sysconfig.get_paths()[k] for k in ('stdlib', 'purelib', 'platlib'))])


def learners(error: BaseException) -> list[tuple[types.CodeType, int]]:
    """The frames of error's traceback in the learner's code (their file, their notebook cell), outermost first."""
    frames, tb = [], error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        name = code.co_filename
        if name != '<string>' and not str(Path(name).resolve()).startswith(NOT_LEARNERS):
            frames.append((code, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def function(code: types.CodeType) -> str:
    """'_backward in Value.__mul__' for the closure inside __mul__."""
    parts = getattr(code, 'co_qualname', None) or _qualname_from_source(code)
    return ' in '.join(reversed(parts.split('.<locals>.')))


def _qualname_from_source(code: types.CodeType) -> str:
    """code's qualified name found in its file (Python 3.10 has no co_qualname): the classes and functions
    whose bodies hold the def that starts on its first line, written as Python 3.11 writes them."""
    try:  # linecache: also a workspace or notebook source the checker compiled itself
        tree = ast.parse(''.join(linecache.getlines(code.co_filename)))
    except (SyntaxError, ValueError):
        return code.co_name
    name, node = '', cast(ast.AST, tree)
    while True:
        inner = [child for child in ast.iter_child_nodes(node)
                 if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                 and child.lineno <= code.co_firstlineno <= (child.end_lineno or child.lineno)]
        if not inner:
            return name or code.co_name
        child = inner[0]
        if name:
            name += '.<locals>.' if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else '.'
        name, node = name + child.name, child
        if child.name == code.co_name and child.lineno == code.co_firstlineno:
            return name


def where(error: BaseException) -> str:
    """The error, and the function and line of the learner's code that raised it."""
    message = f"{type(error).__name__}: {error}".rstrip(': ')
    frames = learners(error)
    if frames:
        code, line = frames[-1]
        text = linecache.getline(code.co_filename, line).strip()
        message += f" (in {function(code)}, {Path(code.co_filename).name} line {line}: {text})"
    return message


def line_of(error: BaseException) -> str:
    """Where the learner's code raised error: 'the blank in _backward in Value.__mul__, my_engine.py line 184'."""
    frames = learners(error)
    if not frames:
        return str(error)
    code, line = frames[-1]
    return f"the blank in {function(code)}, {Path(code.co_filename).name} line {line}"


def place_of(error: BaseException) -> str:
    """The learner's line that raised error, as a report points at it: 'my_engine.py, line 142: raise ...'."""
    frames = learners(error)
    if not frames:
        return ''
    code, line = frames[-1]
    return f"{Path(code.co_filename).name}, line {line}: {linecache.getline(code.co_filename, line).strip()}"


def traced(call: Callable[[], object], tracer: Callable[[types.FrameType, str, Any], Any]) -> None:
    """call() with tracer as sys.settrace's (the one before it put back after; an exception is let through)."""
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)
