"""Grading an op's backward: run each case with the learner's Value and the library's, compare the leaves'
gradients with the library's and with central differences, and when they differ name the slip that gives the
learner's numbers (slips.py) and point at the line that gives the wrong parent its gradient."""
from __future__ import annotations

import math
import re
from typing import Any

from micrograd import ops
from micrograd.exercises.blame import line_of, place_of, where
from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.numbers import close, grads, number, same
from micrograd.exercises.result import Result
from micrograd.exercises.sandbox import paused, set_input
from micrograd.exercises.scalar import fit, outcome
from micrograd.exercises.scalar.blanks import blanks_of
from micrograd.exercises.scalar.drive import Run, expected, run_case
from micrograd.exercises.scalar.exercises import EXERCISES, Case, Exercise
from micrograd.exercises.scalar.op_wiring import wiring
from micrograd.exercises.scalar.places import (
    closures,
    codes_run,
    grad_line,
    in_learners_words,
    line_with,
    lines_run,
    repeated_grad_line,
)
from micrograd.exercises.scalar.slips import variants

__all__ = ['check_op', 'diagnose', 'expected']  # (expected: the library's numbers for a case, run in drive.py)


def _compared(run: Run) -> bool:
    """Whether a learner's run says something about this exercise: it built the input, and it did not stop
    at a blank (of this exercise or another)."""
    return run.built and (run.error is None or blank_raised(run.error, len(EXERCISES)) is None)


def _agree(mine: Run, theirs: Run | None) -> bool:
    """The same gradients, or an exception of the same type (an overflow where the slip overflows)."""
    if theirs is None or (mine.error is None) != (theirs.error is None):
        return False
    return type(mine.error) is type(theirs.error) if mine.error is not None else same(mine.grads, theirs.grads)


def _accepted(case: Case, run: Run, want: Run) -> str:
    """A note where a right formula meets the float's range on an extreme input, else '': Python refuses (an
    overflow, y**2 underflowing to 0; math.log of x ** y's negative base where the library's gives nan), or x / y
    is the lecture's x * y**-1, whose -y**-2 is past a float's range where the library's -(x/y)/y is finite."""
    text, refused = case.text(), isinstance(run.error, (OverflowError, ZeroDivisionError))
    if case.extreme and run.op == '*' and want.grads and (refused or run.grads is not None and any(
            math.isinf(g) and not math.isinf(want.grads[k]) for k, g in run.grads.items())):
        what = f"raises {type(run.error).__name__}" if run.error is not None else f"gives {grads(run.grads)}"
        return (f"your x / y is the lecture's x * y**-1: right in form, but for y = {number(case.leaves['y'])} the "
                f"derivative of y**-1, -y**-2 = -1e+340, is past a float's range, so `{text}` {what}, where the "
                f"library's -(x/y)/y stays finite ({grads(want.grads)}). Accepted, since only the float's range "
                "differs; the hint shows the form that does not overflow")
    if case.extreme and refused or case.kink and isinstance(run.error, ValueError):
        assert run.error is not None
        return (f"on `{text}` your formula raises {where(run.error)}, where the library's gives {grads(want.grads)}: "
                "accepted, since Python refuses rather than answering wrong, but see the hint")
    return ''


def _roles(case: Case, leaves: list[str], parents: tuple[str, ...]) -> list[str]:
    """The closure's parent names (as the library writes them) of the leaves whose gradient is wrong."""
    binary = re.fullmatch(r'out = (\w+) \S+ (\w+)', case.code)
    if binary and binary.group(1) in case.leaves and len(parents) > 1:
        roles = {binary.group(1): parents[0], binary.group(2): parents[1]}
        return [roles[leaf] for leaf in leaves if leaf in roles] or list(parents)
    if len(parents) > 2:  # dot: w1 and w2 are weights ('w'), x1 and x2 inputs ('x'), b the bias ('b')
        return [leaf[:1] for leaf in leaves]
    return list(parents[:1])


def _leaky(exercise: Exercise, runs: list[Run], cases: tuple[Case, ...]) -> bool:
    """relu with a slope below zero: where the input is negative, a fraction of grad passes; elsewhere right."""
    negative = [(c, r.grads) for c, r in zip(cases, runs) if c.leaves.get('x', 1.0) < 0 and r.grads]
    return 'relu_leaky' in exercise.mistakes and bool(negative) and all(
        0 < abs((g['x'] - c.prior.get('x', 0.0)) / c.grad) < 1 for c, g in negative)


def _holds_out(exercise: Exercise, value_class: Any, error: BaseException | None) -> bool:
    """The lecture's out.grad in a closure handed grad: a closure of the op reads the output Value, out (a
    cycle, freed only by the garbage collector), or raises where out is undefined (or a float) in the workspace."""
    reflex = isinstance(error, (NameError, AttributeError)) and any(
        s in place_of(error) for s in ('out.grad', 'out.data'))
    return reflex or any(code.co_argcount and 'out' in code.co_freevars
                         for code in closures(value_class, exercise.methods))


def diagnose(exercise: Exercise, runs: list[Run], failing: list[int], value_class: Any) -> tuple[str, str]:
    """The slip (key, sentence) that gives the learner's gradients (or exception) on the first failing case: the
    one that also matches every other case the learner's code ran, else the one matching the most failing cases."""
    cases, first = exercise.cases, failing[0]
    error = runs[first].error
    if _holds_out(exercise, value_class, error):
        return 'holds_out', ''
    scored = []
    for n, (slip, module) in enumerate(variants(exercise.name)):
        theirs = [run_case(case, module.Value) if _compared(runs[i]) else None for i, case in enumerate(cases)]
        if not _agree(runs[first], theirs[first]):
            continue
        everywhere = all(not _compared(mine) or _accepted(case, mine, expected(exercise.name, i)[0]) != ''
                         or _agree(mine, t) for i, (case, mine, t) in enumerate(zip(cases, runs, theirs)))
        agreed = sum(_compared(mine) and _agree(mine, t) for mine, t in zip(runs, theirs))
        scored.append((everywhere, sum(_agree(runs[i], theirs[i]) for i in failing), agreed, -n, slip))
    best = max(scored, key=lambda s: s[:4]) if scored else None
    if best is not None and best[0]:  # a slip that gives the learner's numbers on every input
        return best[-1].key, best[-1].says
    if error is None and all(cases[i].reuses for i in failing):
        return 'reused_leaf', ''
    if error is None and _leaky(exercise, runs, cases):
        return 'relu_leaky', ''
    if best is not None and best[1] == len(failing):  # a slip that gives them wherever the learner's are wrong
        return best[-1].key, best[-1].says
    if error is None:  # no slip gives these numbers: say what formula they follow
        alike = _same_closures(exercise, value_class, first)  # an op of two closures: the one that went wrong
        op = ops.BY_METHOD.get(exercise.attribute)  # the local derivatives as the ops table writes them
        said = fit.explain([cases[i] for i in alike], [runs[i] for i in alike],
                           [expected(exercise.name, i)[0] for i in alike],
                           dict(zip('xy', op.derivatives)) if op is not None else {},
                           binary=any(len(b.parents) > 1 for b in blanks_of(exercise)))
        if said:
            return 'formula', said
    if best is not None:  # else the one that gives them on the most inputs that fail, said so
        return best[-1].key, (f"{best[-1].says} (this gives your numbers on {best[1]} of the {len(failing)} "
                               "inputs where yours are wrong)")
    if error is not None:
        return 'raises', ''
    if all(close(g, cases[first].prior.get(leaf, 0.0)) for leaf, g in (runs[first].grads or {}).items()):
        return 'nothing', ''
    return 'wrong', ''


def _same_closures(exercise: Exercise, value_class: Any, first: int) -> list[int]:
    """The cases that ran the learner's closure the first failing case ran (all of them, for an op of one
    closure): x ** y's numbers follow a formula where its own closure ran, not where x ** k's did."""
    codes = closures(value_class, exercise.methods)
    if len(codes) < 2:
        return list(range(len(exercise.cases)))
    ran = []
    for case in exercise.cases:
        try:
            ran.append(codes_run(lambda: run_case(case, value_class), codes))  # noqa: B023 -- called at once
        except Exception:  # noqa: BLE001 -- run_case keeps the learner's errors: this is the checker's own
            ran.append(set())
    return [i for i, r in enumerate(ran) if not ran[first] or r & ran[first]]


def check_op(exercise: Exercise, value_class: Any, strict: bool) -> Result:
    """The op's verdict: each case against the library's gradients and central differences, then how the op puts
    its output in the graph; a mistake named by the slip that gives the learner's numbers, at its line."""
    cases = exercise.cases
    if not hasattr(value_class, exercise.attribute):  # a workspace's Value has them all: one missing was renamed
        if strict:
            return outcome.missing_method(exercise, f"Value.{exercise.attribute}", cases[0].text())
        return outcome.absent(exercise)
    runs = []
    for case in cases:
        set_input(case.text())
        runs.append(run_case(case, value_class))
    at_blank = [r.error is not None and blank_raised(r.error, len(EXERCISES)) is not None for r in runs]
    if all(not r.built for r in runs):
        return outcome.raised(exercise, cases[0].text(), runs[0].error) if strict else outcome.absent(exercise)
    if any(at_blank) and all(not r.built or b for r, b in zip(runs, at_blank)):
        return outcome.not_started(exercise)
    unfinished, notes = None, []
    wrong: list[tuple[int, Result, list[str]]] = []  # (case, what is wrong there, the leaves), every case
    for i, (case, run) in enumerate(zip(cases, runs)):
        want, fd = expected(exercise.name, i)
        text = case.text()
        if not run.built and not (case.extreme and isinstance(run.error, (OverflowError, ZeroDivisionError))):
            if strict:
                return outcome.raised(exercise, text, run.error)
            continue  # this Value does not take this input (say, a Value exponent): nothing to check
        if not run.built:
            assert run.error is not None
            notes.append(f"on `{text}` your forward pass raises {where(run.error)}: accepted, since Python refuses "
                         "rather than answering wrong, but see the hint")
        elif note := _accepted(case, run, want):
            notes.append(note)
        elif at_blank[i]:  # a blank to write: said after a wrong gradient
            assert run.error is not None
            unfinished = unfinished or outcome.wrong(exercise, 'unfinished', input=text, expected=grads(want.grads),
                                                     obtained='NotImplementedError', detail=line_of(run.error),
                                                     place=place_of(run.error))
        elif run.error is not None:
            wrong.append((i, outcome.wrong(exercise, input=text, expected=grads(want.grads),
                                           obtained=type(run.error).__name__, detail=where(run.error)), []))
        elif not close(run.data, want.data):
            return outcome.wrong(exercise, 'forward', input=text, expected=f"out.data = {number(want.data)}",
                                 obtained=f"out.data = {number(run.data)}")
        elif any(not isinstance(g, (int, float)) for g in (run.grads or {}).values()):  # y * grad, y a Value
            return outcome.wrong(exercise, 'grad_not_number', input=text, expected=grads(want.grads),
                                 obtained=', '.join(f"{k}.grad = {g!r}"[:80] for k, g in (run.grads or {}).items()))
        elif bad := [k for k, g in (run.grads or {}).items() if not (close(g, (want.grads or {})[k]) and (
                case.kink or close(g, fd[k], rel=1e-4, abs_=1e-6)))]:
            shown = grads(want.grads) + ('' if case.kink else "   (the library's engine; central differences give "
                                         f"{', '.join(number(round(v, 8)) for v in fd.values())})")
            wrong.append((i, outcome.wrong(exercise, input=text, expected=shown, obtained=grads(run.grads)), bad))
    if wrong or unfinished is None:  # an output left out of the graph explains any gradient: said first
        want_behind = None if wrong else {i: expected(exercise.name, i)[0].grads or {} for i in range(len(cases))}
        wired = wiring(exercise, value_class, want_behind)
        if wired is not None:
            return wired
    if not wrong:
        if unfinished is not None:
            return unfinished
        if _holds_out(exercise, value_class, None):  # right numbers, but the closure holds the output
            place = next((p for method in exercise.methods for needle in ('out.grad', 'out.data', 'out')
                          if (p := line_with(value_class, method, needle))), '')
            return outcome.wrong(exercise, 'holds_out', input=cases[0].text(), expected="grad, handed over",
                                 obtained="out, held by the closure", place=place)
        return outcome.done(exercise, note='\n'.join(notes))
    i, first, bad = wrong[0]
    with paused():  # the checker's own work: not the learner's time
        first.diagnosis, said = diagnose(exercise, runs, [i for i, _, _ in wrong], value_class)
        if bad:  # the line that gives the wrong parent its gradient (for wrong_parent, the second adding to one)
            parents = max((b.parents for b in blanks_of(exercise)), key=len, default=('self',))  # (x ** y's)
            ran = lines_run(lambda: run_case(cases[i], value_class))
            first.place = (first.diagnosis == 'wrong_parent' and repeated_grad_line(value_class, exercise.methods, ran)
                           or grad_line(value_class, exercise.methods, _roles(cases[i], bad, parents), ran))
    first.why = said or outcome.explain(exercise, first.diagnosis)
    if first.diagnosis not in ('parent_twice', 'parent_dropped'):  # (these quote the right line)
        first.why = in_learners_words(first.why, first.place, len(bad) == 1)
    first.also = '\n'.join(r.input for _, r, _ in wrong[1:])
    return first
