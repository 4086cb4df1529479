"""The scalar track: each op's backward, the sort and backward(), and a neuron, cut out of micrograd's own
engine.py and nn.py for the learner to write.

    exercises.py      the exercises, one record each (adding one is adding a record; its number is its place),
                      and what a record holds: the Exercise, its Cases (ops) and Graphs (sort, backward())
    blanks.py         the bodies cut out of engine.py and nn.py: my_engine.py, my_nn.py, the library's answer
    drive.py          backpropagating through any Value-like class, the workspace's convention or the lecture's
    op_grading.py     grading an op's backward on its cases, the slip named, its line pointed at
    op_wiring.py      whether an op puts its output in the graph: its parents, its _op, its closure attached
    slips.py          the wrong backwards derived from the library's own by rules every op shares
    backprop_grading.py  grading the sort and backward(): the idea first, then the library's rules
    neuron_grading.py grading the neuron: the idea first, then the library's rules
    outcome.py        a Result made the same way by every grader
    places.py         where the learner wrote each exercise, and the line a diagnosis points at
    grade.py          every exercise in order, each under a time limit
    fit.py            a wrong gradient no slip reproduces, named by the formula its numbers follow
    exercises_ipynb.py  exercises.ipynb: a cell per exercise, a check under each

The track's interface, as every track has it: EXERCISES, FILES, start(directory), check(target) -> Report,
solution(name), write_notebook(path), and check_files(paths, timeout, before) and warm_up() for the checking
process (runner.py).
"""
from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from micrograd.exercises.commands import command
from micrograd.exercises.report import Report
from micrograd.exercises.result import Result
from micrograd.exercises.runner import ImportFailed, import_learners, run_in_child
from micrograd.exercises.scalar.blanks import ENGINE_FILE, NN_FILE, blank_engine, blank_nn, solution, start
from micrograd.exercises.scalar.exercises import EXERCISES, find
from micrograd.exercises.scalar.grade import check_all
from micrograd.exercises.scalar.op_grading import expected
from micrograd.exercises.scalar.places import class_places, places_in

__all__ = ['EXERCISES', 'find', 'start', 'check', 'solution', 'check_files', 'missing', 'warm_up', 'blank_engine',
           'blank_nn', 'write_notebook', 'FILES']
FILES = (ENGINE_FILE, NN_FILE)
NAME = 'scalar'


def check(target: Any = '.', neuron: Any = None, *, hint: bool = False, timeout: float = 10.0) -> Report:
    """Check the exercises and return a Report (printable; shown as a table in Jupyter).

    target: a workspace directory, its my_engine.py, a Value class, or a module holding one. neuron: a
    Neuron class to check the neuron's exercise on (a workspace's my_nn.py, or a module's own Neuron, is found).
    hint: add the stronger hint and the formula for the first exercise that is wrong or not started.
    """
    if isinstance(target, (str, Path)):
        report = check_workspace(Path(target), timeout=timeout)
    else:
        if isinstance(target, types.ModuleType):
            neuron = neuron if neuron is not None else getattr(target, 'Neuron', None)
            target = target.Value
        if not isinstance(target, type):
            raise TypeError(f"check: expected a workspace directory, a file, a Value class or a module, got "
                            f"{type(target).__name__}")
        report = Report(list(check_all(target, neuron, timeout=timeout)), EXERCISES,
                        places=class_places(target, neuron),
                        command='check(Value, Neuron)' if neuron is not None else 'check(Value)')
    report.hint = hint
    return report


def missing(path: Path) -> str:
    """What is wrong with path as a workspace to check, before any work ('' when nothing is)."""
    if not path.exists():
        if path.suffix == '.py':
            return f"no file {path}"
        return f"no folder {path}: make the workspace there with `{command('start', path)}`"
    if path.is_dir() and path.suffix == '.py':
        return f"{path} is a folder, not a Python file: give the workspace's folder, or its {ENGINE_FILE}"
    if path.is_dir() and (path / ENGINE_FILE).is_dir():
        return f"{path / ENGINE_FILE} is a folder, not a Python file: the workspace's {ENGINE_FILE} is a file"
    if path.is_dir() and not (path / ENGINE_FILE).exists():
        return f"no {ENGINE_FILE} in {path}: make a workspace there with `{command('start', path)}`"
    if path.is_file() and path.suffix != '.py':
        return f"{path} is not a Python file: give the workspace's folder, or its {ENGINE_FILE}"
    if path.name == NN_FILE and not (path.parent / ENGINE_FILE).is_file():
        return f"no {ENGINE_FILE} beside {path}: {NN_FILE} runs on it"
    return ''


def check_workspace(path: Path, timeout: float = 10.0) -> Report:
    """Check a workspace: its folder, or one of its files (my_nn.py checks the workspace it belongs to), or any
    Python file holding a Value class."""
    engine = path / ENGINE_FILE if path.is_dir() else path.parent / ENGINE_FILE if path.name == NN_FILE else path
    nn = engine.parent / NN_FILE
    paths = [engine] + ([nn] if nn.is_file() and nn != engine else [])
    again = command('check', *([path] if str(path) != '.' else []))
    if absent := missing(path):
        return Report(exercises=EXERCISES, error=absent, command=again)
    results, error = run_in_child(NAME, paths, EXERCISES, timeout, engine.parent)
    if error:
        return Report(exercises=EXERCISES, error=error, command=again)
    places = places_in(engine, 'Value', 'engine')
    if len(paths) > 1:
        places |= places_in(nn, 'Neuron', 'nn')
    places |= {r.number: r.place for r in results if r.place}  # a wrong one: the line that holds it
    return Report(results, EXERCISES, places=places, command=again, answer=command('solution', 'NAME'))


def warm_up() -> None:
    """In the checking process, before any time limit: the library's answer to every op's case."""
    for exercise in EXERCISES:
        for index in range(len(exercise.cases)):
            expected(exercise.name, index)


def check_files(paths: list[Path], timeout: float = 10.0,
                before: Callable[[int], None] | None = None) -> Iterator[Result]:
    """In the checking process: import my_engine.py (and my_nn.py, when given) and check every exercise."""
    sys.path.insert(0, str(paths[0].parent))
    value = getattr(import_learners('my_engine', paths[0], timeout), 'Value', None)
    if not isinstance(value, type):
        raise ImportFailed(f"{paths[0].name} has no class `Value` (is it empty?): the exercises are methods of "
                           f"micrograd's Value, in the {ENGINE_FILE} that `{command('start', 'NEW_FOLDER')}` writes")
    nn = import_learners('my_nn', paths[1], timeout) if len(paths) > 1 else None
    yield from check_all(value, getattr(nn, 'Neuron', None), strict=True, timeout=timeout, before=before)


def write_notebook(path: Path) -> Path:
    """Write exercises.ipynb (the track's notebook) to path; needs nbformat, imported only here."""
    from micrograd.exercises.scalar.exercises_ipynb import write_notebook as write
    return write(path)
