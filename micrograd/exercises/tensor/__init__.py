"""The tensor track: the backward of micrograd.tensor's ops, from a broadcast gradient to attention, cut out of
the library's own tensor engine for the learner to write, and graded as the scalar track is (its commands, with
--track tensor). In a notebook: `from micrograd.exercises.tensor import blank_tensor, check`, then check(module).

    op_exercises.py         the exercises on the ops (broadcasting to matmul), one record each
    network_exercises.py    the same for softmax, cross_entropy, RMS norm and attention
    backward_exercise.py    the same for backward(), checked on graphs
    exercise_list.py        the exercises in order (a number is a place in it), and find()
    array_exercise.py       what a record holds: an Exercise and its Slips; the sentences several share
    cases.py                a case: tensors of given shapes, a line of code, a random upstream gradient; or a graph
    my_tensor_file.py       my_tensor.py, cut from the library's tensor engine as one module; load() runs it
    running.py              a case run by the checker's own loop, with any engine; the right answer
    naming.py               the slip named: planted in the library and run, or read off the numbers and the shapes
    grading.py              one exercise graded, in stages: its cases run and graded, the slip named, the line
    wrong_line.py           the learner's line: the lines of their functions traced, against the library's
    backward_on_graphs.py   the backward() exercise, on graphs the checker makes
    exercises_tensor_ipynb.py  exercises_tensor.ipynb, made from the records and the library's source

The track is TRACK, a Track (../track.py); start, check and solution are its methods; load(path) runs a workspace.
"""
from __future__ import annotations

try:
    import numpy  # noqa: F401  (checked first, so that the error says what to install)
except ImportError:  # pragma: no cover - a Python without NumPy
    raise ImportError("the tensor track needs NumPy: pip install numpy (in the clone's folder: pip install -e "
                      "'.[tensor]'; make exercises TRACK=tensor installs it)") from None

import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from micrograd.exercises.lines import written
from micrograd.exercises.report import Report
from micrograd.exercises.result import Result
from micrograd.exercises.runner import import_learners
from micrograd.exercises.tensor.exercise_list import EXERCISES, find
from micrograd.exercises.tensor.grading import check_all
from micrograd.exercises.tensor.my_tensor_file import TENSOR_FILE, blank_tensor, library_module, load, source
from micrograd.exercises.tensor.my_tensor_file import solution as library_answer
from micrograd.exercises.tensor.wrong_line import learners_function
from micrograd.exercises.track import Track

__all__ = ['EXERCISES', 'find', 'start', 'check', 'solution', 'blank_tensor', 'load', 'TRACK']

TITLE = 'micrograd exercises, tensor track'


def _places(module: Any) -> dict[int, str]:
    """Where the learner writes each exercise: {number: 'my_tensor.py, line 412: _backward in Unary.softmax'}."""
    return {e.number: p for e in EXERCISES if (p := written(learners_function(module, e.blanks[0])))}


def _check_objects(target: Any, *more: Any, timeout: float) -> Report:
    """target: the engine's module, as blank_tensor() makes it, with the learner's methods put on its classes."""
    if not (isinstance(target, types.ModuleType) and hasattr(target, 'Tensor')):
        raise TypeError(f"check: expected a workspace directory, my_tensor.py or the engine's module, got "
                        f"{type(target).__name__}")
    results = list(check_all(target, timeout=timeout))
    return Report(results, EXERCISES, places=_places(target) | {r.number: r.place for r in results if r.place},
                  command='check(my_tensor)', title=TITLE)


def _check_files(paths: list[Path], timeout: float) -> tuple[dict[int, str], Iterator[Result]]:
    """my_tensor.py loaded into a fresh copy of the engine (in the time limit): its exercises' places, and checks."""
    module = import_learners('my_tensor', paths[0], timeout, load=lambda _, path: load(path))
    return _places(module), check_all(module, timeout=timeout)


TRACK = Track('tensor', EXERCISES, (TENSOR_FILE,), 'micrograd.exercises.tensor.exercises_tensor_ipynb',
              texts=lambda directory: [source(directory)], check_objects=_check_objects,
              check_files=_check_files, solution=library_answer, warm_up=library_module, title=TITLE)
start, check, solution = TRACK.start, TRACK.check, TRACK.solution
