"""The scalar track: each op's backward, the sort and backward(), and a neuron, cut out of micrograd's own
engine.py and nn.py for the learner to write. exercises.py holds the records, blanks.py cuts the workspace, grade.py
grades every exercise in order (each with its *_grading.py), then the whole engine. TRACK is its Track (../track.py)."""
from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from micrograd.exercises.commands import command
from micrograd.exercises.report import Report
from micrograd.exercises.result import Result
from micrograd.exercises.runner import ImportFailed, import_learners
from micrograd.exercises.scalar.blanks import ENGINE_FILE, NN_FILE, blank_engine, blank_nn, engine_text, nn_text
from micrograd.exercises.scalar.blanks import solution as library_answer
from micrograd.exercises.scalar.drive import expected
from micrograd.exercises.scalar.exercises import EXERCISES, find
from micrograd.exercises.scalar.grade import check_all
from micrograd.exercises.scalar.places import class_places
from micrograd.exercises.track import Track

__all__ = ['EXERCISES', 'find', 'start', 'check', 'solution', 'blank_engine', 'blank_nn', 'TRACK']


def _check_objects(target: Any, *more: Any, timeout: float) -> Report:
    """target: a Value class, or a module holding one (and its Neuron); more: a Neuron class for the neuron's."""
    neuron = more[0] if more else None
    if isinstance(target, types.ModuleType):
        neuron = neuron if neuron is not None else getattr(target, 'Neuron', None)
        target = target.Value
    if not isinstance(target, type):
        raise TypeError(f"check: expected a workspace directory, a file, a Value class or a module, got "
                        f"{type(target).__name__}")
    return Report(list(check_all(target, neuron, timeout=timeout)), EXERCISES, places=class_places(target, neuron),
                  command='check(Value, Neuron)' if neuron is not None else 'check(Value)')


def _warm_up() -> None:
    """The library's answer to every op's case."""
    for exercise in EXERCISES:
        for index in range(len(exercise.cases)):
            expected(exercise.name, index)


def _check_files(paths: list[Path], timeout: float) -> tuple[dict[int, str], Iterator[Result]]:
    """Import my_engine.py (and my_nn.py): where each exercise is written in them, and every exercise checked."""
    sys.path.insert(0, str(paths[0].parent))
    value = getattr(import_learners('my_engine', paths[0], timeout), 'Value', None)
    if not isinstance(value, type):
        raise ImportFailed(f"{paths[0].name} has no class `Value` (is it empty?): the exercises are methods of "
                           f"micrograd's Value, in the {ENGINE_FILE} that `{command('start', 'NEW_FOLDER')}` writes")
    neuron = getattr(import_learners('my_nn', paths[1], timeout), 'Neuron', None) if len(paths) > 1 else None
    places = {n: f"{paths[0].name}, {p}" for n, p in class_places(value, None).items()}
    places |= {n: f"{paths[-1].name}, {p}" for n, p in class_places(None, neuron).items()}
    return places, check_all(value, neuron, strict=True, timeout=timeout)


TRACK = Track('scalar', EXERCISES, (ENGINE_FILE, NN_FILE), 'micrograd.exercises.scalar.exercises_ipynb',
              texts=lambda directory: [engine_text(directory), nn_text(directory)], check_objects=_check_objects,
              check_files=_check_files, solution=library_answer, warm_up=_warm_up)
start, check, solution = TRACK.start, TRACK.check, TRACK.solution
