"""Grading one exercise of the tensor track: the learner's gradients against the library's and central
differences', on every case; for the first one wrong, the slip named (naming.py) and the learner's line.

The idea is graded first: gradients right on every case is the exercise done. A library rule the task stated is
a second level: backward() that seeds a non-scalar output without grad= is "correct ✓ — one step left", never a
wrong gradient; a data tensor that got a .grad is only noted (the gradients are right, and nothing else changes).
"""
from __future__ import annotations

import contextlib
import linecache
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.lines import Line, learners, source, swapped, where
from micrograd.exercises.result import DONE, GENERIC, NOT_STARTED, WRONG, Result
from micrograd.exercises.sandbox import guarded, set_input, timed
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.backward_on_graphs import check_backward
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import blanks, written_at
from micrograd.exercises.tensor.naming import diagnose
from micrograd.exercises.tensor.running import (
    Run,
    close,
    expected,
    library_body,
    prepare,
    run_case,
    summary,
    torch_grads,
)
from micrograd.exercises.tensor.wrong_line import holder_of, learners_function, wrong_line

# --- one exercise --------------------------------------------------------------------------------------

def _wrong_leaf(exercise: Exercise, i: int, run: Run) -> str:
    """'' when run's gradients are right (the library's and central differences'; shapes and dtypes); else the
    first leaf that is wrong. (PyTorch's are the library's, as the library's tests hold: a report quotes them, but
    a right case needs no PyTorch, so a check of right code never imports it.)"""
    want, fd = expected(exercise.number, i)
    for name, w in want.grads.items():
        g = run.grads.get(name)
        if not close(g, w, exercise.cases[i].dtype) or (name in fd and not close(g, fd[name], loose=True)) or (
                isinstance(g, np.ndarray) and w is not None and g.dtype != w.dtype):
            return name
    return ''


def _right(exercise: Exercise, i: int, run: Run) -> bool:
    """Whether run is right on case i: no error, no write in place, every array handed over of its tensor's shape,
    the right gradients."""
    return run.error is None and not run.inplace and not run.misshaped and not _wrong_leaf(exercise, i, run)


def _shown(exercise: Exercise, i: int, run: Run) -> tuple[str, str]:
    """(expected, obtained) as the report shows them."""
    want, fd = expected(exercise.number, i)
    if run.error is not None:
        return '; '.join(summary(k, v) for k, v in want.grads.items()), type(run.error).__name__
    leaf = _wrong_leaf(exercise, i, run) or next(iter(want.grads))
    shown = summary(leaf, want.grads[leaf])
    if leaf in fd:
        torch = torch_grads(exercise.number, i) is not None
        shown += "   (the library's engine; central differences agree" + (", and PyTorch)" if torch else ")")
    return shown, summary(leaf, run.grads.get(leaf))


def check_op(exercise: Exercise, module: Any) -> Result:
    runs: list[Run | None] = []
    failing: list[int] = []
    unfinished: Result | None = None
    note = ''
    for i, case in enumerate(exercise.cases):
        set_input(case.text())
        run = run_case(case, module)
        if blank_raised(run.error, len(EXERCISES)) is not None:
            runs.append(None)
            if unfinished is None and run.error is not None:
                unfinished = Result.of(exercise, WRONG, input=case.text(), obtained='NotImplementedError',
                                       diagnosis='unfinished', why=GENERIC['unfinished'], detail=where(run.error))
            continue
        if not run.built:  # the forward pass failed: something outside the blanks was changed
            return Result.of(exercise, WRONG, input=case.text(), obtained=type(run.error).__name__, diagnosis='raises',
                             why="the forward pass raised (the checker builds each case with your Tensor)",
                             detail=where(run.error) if run.error else '')
        runs.append(run)
        if not _right(exercise, i, run):
            failing.append(i)
        elif not note and any(t.grad is not None for t in run.given.values()):
            names = ', '.join(k for k, t in run.given.items() if t.grad is not None)
            note = (f"on `{case.text()}`, {names} is data (requires_grad=False) and got a .grad: harmless for the "
                    "gradients, but the library (as PyTorch) passes grad on only to operands with requires_grad")
    if all(r is None for r in runs):
        return Result.of(exercise, NOT_STARTED)
    if failing:
        i = failing[0]
        wrong = runs[i]
        assert wrong is not None
        shown, obtained = _shown(exercise, i, wrong)
        raised = linecache.getline(at[0].co_filename, at[1]) if (at := _raising(wrong.error)) else ''
        key, why, blank = diagnose(exercise, runs, failing, raised=raised)
        return Result.of(exercise, WRONG, input=exercise.cases[i].text(), expected=shown, obtained=obtained,
                         diagnosis=key, why=why, place=_place(module, exercise, blank, wrong, i),
                         also='\n'.join(exercise.cases[j].text() for j in failing[1:4]))
    return unfinished or Result.of(exercise, DONE, note=note)


def _raising(error: BaseException | None) -> Line | None:
    """The learner's frame that raised error: their innermost in a blank (or backward()), else their innermost."""
    frames = learners(error) if error is not None else []
    inner = [f for f in frames if f[0].co_name in ('_backward', 'unbroadcast', 'backward')] or frames
    return inner[-1] if inner else None


def _at(found: Line) -> str:
    code, line = found
    return f"{_file(code.co_filename)}, line {line}: {linecache.getline(code.co_filename, line).strip()}"


# --- where: the learner's line -------------------------------------------------------------------------

def blank_place(module: Any, blank: str) -> str:
    """'my_tensor.py, line 412: _backward in Unary.softmax': where the learner writes a blank."""
    fn = learners_function(module, blank)  # (unwrapped: an op under a decorator that names its errors)
    if (found := source(fn)) is None:
        return ''
    node, _, first, file = found
    try:
        line, name = written_at(node, getattr(fn, '__qualname__', node.name), blank)
    except LookupError:
        return ''
    return f"{_file(file)}, line {first - 1 + line}: {name}"


def _file(path: str) -> str:
    """A file as the learner knows it: its name, or 'your cell' for a notebook's (Jupyter keeps a cell's code in
    a file of a number's name)."""
    return 'your cell' if 'ipykernel' in path or Path(path).stem.isdigit() else Path(path).name


def _place(module: Any, exercise: Exercise, blank: str, run: Run, i: int) -> str:
    """The learner's line for a wrong case: the line that raised, the line that made a wrong value first, or else
    where blank is written (the named slip's; the exercise's first if none)."""
    if (raised := _raising(run.error)) is not None:
        return _at(raised)
    about = 'wrote' if run.inplace else 'misfit' if run.misshaped else ''
    leaf = _wrong_leaf(exercise, i, run)
    found = wrong_line(exercise, exercise.cases[i], module, about, leaf) if run.error is None else None
    if found is not None:
        return _at(found)
    return blank_place(module, blank or exercise.blanks[0])


@contextlib.contextmanager
def alone(module: Any, exercise: Exercise) -> Iterator[None]:
    """While checking exercise: every other exercise's body is the library's (patched into module, and put
    back after), so that one exercise's slip never shows as another's."""
    with contextlib.ExitStack() as stack:
        for b in blanks():
            holder = holder_of(module, b.name)[0]
            if b.exercise is not exercise and holder is not None:
                stack.enter_context(swapped([(*holder, library_body(b.owner, module))]))
        yield


# --- the driver ----------------------------------------------------------------------------------------

def check_one(exercise: Exercise, module: Any, timeout: float | None = 10.0) -> Result:
    """One exercise, alone (the other exercises' bodies the library's), with a time limit on the learner's code."""
    def grade() -> Result:
        try:
            with timed(module, timeout), alone(module, exercise), np.errstate(all='ignore'), \
                    warnings.catch_warnings():
                warnings.simplefilter('ignore', RuntimeWarning)  # (the mean of an empty slice, in a slip)
                return check_backward(exercise, module) if exercise.kind == 'backward' else check_op(exercise, module)
        except Exception as error:  # noqa: BLE001 -- the learner's module broke one of the checker's own steps
            return Result.of(exercise, WRONG, obtained=type(error).__name__, diagnosis='raises',
                             why=GENERIC['raises'], detail=where(error))
    return guarded(exercise.number, exercise.name, grade, None)  # (the time limit: learners_time in running.py)


def check_all(module: Any, timeout: float | None = 10.0,
              before: Callable[[int], None] | None = None) -> Iterator[Result]:
    prepare()
    for exercise in EXERCISES:
        if before is not None:
            before(exercise.number)
        yield check_one(exercise, module, timeout)
