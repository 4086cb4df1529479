"""The tensor track: the backward of micrograd.tensor's ops, from a broadcast gradient to attention, cut out of
the library's own tensor engine for the learner to write, and graded as the scalar track is.

    python -m micrograd.exercises start --track tensor DIR    # DIR/my_tensor.py, every exercise a blank
    python -m micrograd.exercises check --track tensor DIR    # the progress table and, for the first wrong one, why
    python -m micrograd.exercises solution --track tensor softmax

In a notebook: `from micrograd.exercises.tensor import blank_tensor, check`, then check(module).

    op_exercises.py         the exercises on the ops (broadcasting to matmul), one record each (task, rules,
                            shapes, hints, formula, cases, slips, a prompt above each blank): an exercise is a record
    network_exercises.py    the same for softmax, cross_entropy, RMS norm and attention
    backward_exercise.py    the same for backward(), checked on graphs
    exercise_list.py        the exercises in order (a number is a place in it), and find()
    array_exercise.py       what a record holds: an Exercise and its Slips; the sentences several share
    cases.py                what a case is: tensors of given shapes and dtype, a line of code, a random upstream
                            gradient; and a graph for backward(), made node by node
    my_tensor_file.py       my_tensor.py: the library's tensor engine in one file, each exercise's body cut out
    running.py              a case run with any engine and backpropagated by the checker's own loop; the right
                            answer (the library, central differences, PyTorch where installed); each exercise alone
    naming.py               the slip named: planted in the library and run, or read off the numbers and the shapes
    grading.py              one exercise graded: the idea first, then the library's rules
    wrong_line.py           the learner's line that made a wrong gradient: their run traced against the library's
    backward_on_graphs.py   the backward() exercise, on graphs the checker makes
    exercises_tensor_ipynb.py  exercises_tensor.ipynb, made from the records and the library's source

The track's interface, as every track has it: EXERCISES, start(directory), check(target) -> Report,
solution(name), write_notebook(path), and check_files(paths, timeout, before) and warm_up() for the checking
process.
"""
from __future__ import annotations

try:
    import numpy  # noqa: F401  (checked first, so that the error says what to install)
except ImportError:  # pragma: no cover - a Python without NumPy
    raise ImportError("the tensor track needs NumPy: pip install numpy (in the clone's folder: pip install -e "
                      "'.[tensor]'; make exercises TRACK=tensor installs it)") from None

import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from micrograd.exercises.commands import command
from micrograd.exercises.report import Report
from micrograd.exercises.result import Result
from micrograd.exercises.runner import import_learners, run_in_child
from micrograd.exercises.tensor.exercise_list import EXERCISES, find
from micrograd.exercises.tensor.grading import check_all, place_of
from micrograd.exercises.tensor.my_tensor_file import TENSOR_FILE, blank_tensor, solution, start
from micrograd.exercises.tensor.running import prepare

__all__ = ['EXERCISES', 'find', 'start', 'check', 'solution', 'check_files', 'missing', 'blank_tensor', 'FILES',
           'write_notebook', 'warm_up']
FILES = (TENSOR_FILE,)
NAME = 'tensor'
TITLE = 'micrograd exercises, tensor track'


def _again(path: Path | None = None) -> str:
    return command('check', '--track', NAME, *([path] if path is not None and str(path) != '.' else []))


def check(target: Any = '.', *, hint: bool = False, timeout: float = 10.0) -> Report:
    """Check the tensor exercises and return a Report (printable; shown as a table in Jupyter).

    target: a workspace directory, its my_tensor.py, or a module holding the engine (as blank_tensor() makes
    it, with the learner's methods put on its classes). hint: add the stronger hint and the formula.
    """
    if isinstance(target, (str, Path)):
        report = check_workspace(Path(target), timeout=timeout)
    elif isinstance(target, types.ModuleType) and hasattr(target, 'Tensor'):
        results = list(check_all(target, timeout=timeout))
        report = Report(results, EXERCISES, places=places(target) | {r.number: r.place for r in results if r.place},
                        command='check(my_tensor)', title=TITLE)
    else:
        raise TypeError(f"check: expected a workspace directory, my_tensor.py or the engine's module, got "
                        f"{type(target).__name__}")
    report.hint = hint
    return report


def places(module: Any) -> dict[int, str]:
    """Where each exercise is written: {number: 'my_tensor.py, line 40: unbroadcast'} (its first blank)."""
    out = {}
    for exercise in EXERCISES:
        place = place_of(module, exercise.blanks[0])
        if place:
            out[exercise.number] = place
    return out


def missing(path: Path) -> str:
    """What is wrong with path as a workspace to check, before any work ('' when nothing is)."""
    start_there = command('start', '--track', NAME, path)
    if not path.exists():
        return (f"no file {path}" if path.suffix == '.py'
                else f"no folder {path}: make the workspace with `{start_there}`")
    if path.is_dir() and not (path / TENSOR_FILE).exists():
        return f"no {TENSOR_FILE} in {path}: make a workspace there with `{start_there}`"
    if path.is_file() and path.suffix != '.py':
        return f"{path} is not a Python file: give the workspace's folder, or its {TENSOR_FILE}"
    return ''


def check_workspace(path: Path, timeout: float = 10.0) -> Report:
    file = path / TENSOR_FILE if path.is_dir() else path
    again = _again(path)
    if absent := missing(path):
        return Report(exercises=EXERCISES, error=absent, command=again, title=TITLE)
    results, error = run_in_child(NAME, [file], EXERCISES, timeout, file.parent)
    if error:
        return Report(exercises=EXERCISES, error=error, command=again, title=TITLE)
    places = _file_places(file) | {r.number: r.place for r in results if r.place}  # (a wrong one: its line)
    return Report(results, EXERCISES, places=places, command=again, title=TITLE,
                  answer=command('solution', '--track', NAME, 'NAME'))


def _file_places(file: Path) -> dict[int, str]:
    """The places in the learner's file, found without importing it (in this process)."""
    import ast

    from micrograd.exercises.tensor.my_tensor_file import locate, target
    try:
        tree = ast.parse(file.read_text(encoding='utf-8'))
    except (SyntaxError, OSError):
        return {}
    out = {}
    for exercise in EXERCISES:
        try:
            fn, owner = locate(tree, exercise.blanks[0])
            body = target(fn, exercise.blanks[0])
        except LookupError:
            continue
        name = owner if body is fn else f"_backward in {owner}"
        first = body.body[1] if ast.get_docstring(body) and len(body.body) > 1 else body.body[0]
        out[exercise.number] = f"{file.name}, line {first.lineno}: {name}"
    return out


def check_files(paths: list[Path], timeout: float = 10.0,
                before: Callable[[int], None] | None = None) -> Iterator[Result]:
    """In the checking process: import my_tensor.py and check every exercise."""
    yield from check_all(import_learners('my_tensor', paths[0]), timeout=timeout, before=before)


def write_notebook(path: Path) -> Path:
    """Write exercises_tensor.ipynb to path (it needs nbformat, of the demo extra: imported only here)."""
    from micrograd.exercises.tensor.exercises_tensor_ipynb import write_notebook as write
    return write(path)


def warm_up() -> None:
    """In the checking process, before the learner's files and any clock: import what the checker needs."""
    prepare()
