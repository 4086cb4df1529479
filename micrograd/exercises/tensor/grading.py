"""Grading a tensor exercise: the learner's gradients against the library's and central differences' on every case;
for the first wrong, the slip named (naming.py) and the learner's line. A data tensor given a .grad is only noted."""
from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.lines import Event, place_of, run_traced, where
from micrograd.exercises.result import DONE, GENERIC, NOT_STARTED, WRONG, Result
from micrograd.exercises.sandbox import guarded, paused, set_input
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.backward_on_graphs import check_backward
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import library_module
from micrograd.exercises.tensor.naming import diagnose
from micrograd.exercises.tensor.running import Run, close, expected, fits, run_case, summary, torch_grads
from micrograd.exercises.tensor.wrong_line import alone, bodies, place


def check_one(exercise: Exercise, module: Any, timeout: float | None = 10.0) -> Result:
    """One exercise, alone (the other exercises' bodies the library's), with a time limit on the learner's code: its
    cases run, the learner's bodies traced, then judged. backward() is checked on graphs of its own."""
    def grade() -> Result:
        try:
            with alone(module, exercise) as functions, np.errstate(all='ignore'), warnings.catch_warnings():
                warnings.simplefilter('ignore', RuntimeWarning)  # (the mean of an empty slice, in a slip)
                if exercise.kind != 'backward':
                    mine, runs, traced = bodies(functions), list[Run](), []
                    for case in exercise.cases:  # each run, its lines traced, up to one whose forward pass raised
                        set_input(case.text())
                        traced.append(run_traced(mine, lambda: runs.append(run_case(case, module)), fits))
                        if not runs[-1].built:
                            break
                    with paused():  # the checker's own work: not the learner's time
                        return _judged(exercise, runs, traced, functions)
                return check_backward(exercise, module, functions[exercise.blanks[0]])
        except Exception as error:  # noqa: BLE001 -- the learner's module broke one of the checker's own steps
            return Result.of(exercise, WRONG, obtained=type(error).__name__, diagnosis='raises',
                             why=GENERIC['raises'], detail=where(error))
    return guarded(exercise.number, exercise.name, grade, timeout)


def _judged(exercise: Exercise, runs: list[Run], traced: list[list[Event]], functions: dict[str, Any]) -> Result:
    """exercise's runs graded (traced: the lines of the learner's each ran; functions: theirs, by blank)."""
    kept: list[Run | None] = []  # (None: a case that reached a blank not written)
    failing: list[int] = []
    unfinished: Result | None = None
    note = ''
    for i, (case, run) in enumerate(zip(exercise.cases, runs)):
        if blank_raised(run.error, len(EXERCISES)) is not None:
            kept.append(None)
            if unfinished is None and run.error is not None:
                unfinished = Result.of(exercise, WRONG, input=case.text(), obtained='NotImplementedError',
                                       diagnosis='unfinished', why=GENERIC['unfinished'], detail=where(run.error))
            continue
        if not run.built:  # the forward pass failed: something outside the blanks was changed
            return Result.of(exercise, WRONG, input=case.text(), obtained=type(run.error).__name__, diagnosis='raises',
                             why="the forward pass raised (the checker builds each case with your Tensor)",
                             detail=where(run.error) if run.error else '')
        kept.append(run)
        if run.error is not None or run.inplace or run.misshaped or _wrong_leaf(exercise, i, run):
            failing.append(i)  # (an error, a write in place, an array not of its tensor's shape, a wrong gradient)
        elif not note and (names := ', '.join(k for k, t in run.given.items() if t.grad is not None)):
            note = (f"on `{case.text()}`, {names} is data (requires_grad=False) and got a .grad: harmless for the "
                    "gradients, but the library (as PyTorch) passes grad on only to operands with requires_grad")
    if all(r is None for r in kept):
        return Result.of(exercise, NOT_STARTED)
    if not failing:
        return unfinished or Result.of(exercise, DONE, note=note)
    i = failing[0]
    run, leaf = runs[i], _wrong_leaf(exercise, i, runs[i])
    key, why, blank = diagnose(exercise, kept, failing, raised=place_of(run.error) if run.error is not None else '')
    found = place(exercise, exercise.cases[i], functions, run, traced[i], blank or exercise.blanks[0], leaf)
    want, fd = expected(exercise.number, i)
    if run.error is not None:
        shown, obtained = '; '.join(summary(k, v) for k, v in want.grads.items()), type(run.error).__name__
    else:
        leaf = leaf or next(iter(want.grads))
        shown, obtained = summary(leaf, want.grads[leaf]), summary(leaf, run.grads.get(leaf))
        if leaf in fd:
            torch = torch_grads(exercise.number, i) is not None
            shown += "   (the library's engine; central differences agree" + (", and PyTorch)" if torch else ")")
    also = '\n'.join(exercise.cases[j].text() for j in failing[1:4])
    return Result.of(exercise, WRONG, input=exercise.cases[i].text(), expected=shown, obtained=obtained,
                     diagnosis=key, why=why, place=found, also=also)


def _wrong_leaf(exercise: Exercise, i: int, run: Run) -> str:
    """The first leaf whose gradient is wrong (against the library's and central differences'; shapes and dtypes),
    or ''. (PyTorch's are the library's, as its tests hold: a report quotes them, but grading never needs them.)"""
    want, fd = expected(exercise.number, i)
    for name, w in want.grads.items():
        g = run.grads.get(name)
        if not close(g, w, exercise.cases[i].dtype) or (name in fd and not close(g, fd[name], loose=True)) or (
                isinstance(g, np.ndarray) and w is not None and g.dtype != w.dtype):
            return name
    return ''


def check_all(module: Any, timeout: float | None = 10.0) -> Iterator[Result]:
    library_module()  # (made before any clock starts)
    for exercise in EXERCISES:
        yield check_one(exercise, module, timeout)
