"""Grading an op's backward: each case's gradients against the library's and central differences, the op's
wiring (op_wiring.py), and a wrong gradient's mistake named (fit.py) at the line that made it."""
from __future__ import annotations

import math
from typing import Any

from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.lines import line_of, place_of, run_traced, where
from micrograd.exercises.numbers import close, grads, number
from micrograd.exercises.result import ABSENT, DONE, NOT_STARTED, Result
from micrograd.exercises.sandbox import paused, set_input
from micrograd.exercises.scalar import fit, outcome
from micrograd.exercises.scalar.drive import Run, expected, run_case, wrong_leaves
from micrograd.exercises.scalar.exercises import EXERCISES, Case, Exercise
from micrograd.exercises.scalar.op_wiring import probes, wired_text, wiring
from micrograd.exercises.scalar.places import closures, in_learners_words, line_with, wrong_line


def _accepted(case: Case, run: Run, want: Run) -> str:
    """A note where a right formula meets the float's range (Python refuses: an overflow, y**2 underflowing to 0,
    math.log of a negative base; or the lecture's x * y**-1 overflows where -(x/y)/y does not), else ''."""
    text, refused = case.text(), isinstance(run.error, (OverflowError, ZeroDivisionError))
    if not run.built:
        return (f"on `{text}` your forward pass raises {where(run.error)}: accepted, since Python refuses rather than "
                "answering wrong, but see the hint") if case.extreme and run.error is not None and refused else ''
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


def check_op(exercise: Exercise, value_class: Any, strict: bool, made: dict[str, list[Run]]) -> Result:
    """The op's verdict: its gradients on each case, then its wiring; made: its probes' runs, kept for backward()'s."""
    cases = exercise.cases
    codes = closures(value_class, exercise.methods)  # the op's closures, handed to all that reads them
    runs: list[Run] = []
    # Each case run once, then each probe (its operands made by an op); a Run keeps the lines its closures ran
    for case, methods in [*((case, ()) for case in cases), *((case, exercise.methods) for case in probes(exercise))]:
        set_input(wired_text(case) if methods else case.text())
        events = run_traced(codes, lambda: runs.append(run_case(case, value_class, made=methods)))  # noqa: B023
        runs[-1].events = events  # (on the run just appended)
    runs, made[exercise.name] = runs[:len(cases)], runs[len(cases):]
    at_blank = [r.error is not None and blank_raised(r.error, len(EXERCISES)) is not None for r in runs]
    if all(not r.built for r in runs):
        return outcome.raised(exercise, cases[0].text(), runs[0].error) if strict else Result.of(exercise, ABSENT)
    if any(at_blank) and all(not r.built or b for r, b in zip(runs, at_blank)):
        return Result.of(exercise, NOT_STARTED)
    unfinished, notes = None, dict[int, str]()  # notes: the accepted cases', by index
    wrong: list[tuple[int, Result, list[str]]] = []  # (case, what is wrong there, the leaves), every case
    for i, (case, run) in enumerate(zip(cases, runs)):
        (want, fd), text = expected(exercise.name, i), case.text()
        note = _accepted(case, run, want)
        if not run.built and not note:
            if strict:
                return outcome.raised(exercise, text, run.error)
            continue  # this Value does not take this input (say, a Value exponent): nothing to check
        if note:
            notes[i] = note
        elif at_blank[i]:  # a blank to write: said after a wrong gradient
            assert run.error is not None
            unfinished = unfinished or outcome.wrong(exercise, 'unfinished', input=text, expected=grads(want.grads),
                                                     obtained='NotImplementedError', detail=line_of(run.error),
                                                     place=place_of(run.error))
        elif run.error is not None:
            wrong.append((i, outcome.raised(exercise, text, run.error, grads(want.grads), key=''), []))
        elif not close(run.data, want.data):
            return outcome.wrong(exercise, 'forward', input=text, expected=f"out.data = {number(want.data)}",
                                 obtained=f"out.data = {number(run.data)}")
        elif any(not isinstance(g, (int, float)) for g in (run.grads or {}).values()):  # y * grad, y a Value
            return outcome.wrong(exercise, 'grad_not_number', input=text, expected=grads(want.grads),
                                 obtained=', '.join(f"{k}.grad = {g!r}"[:80] for k, g in (run.grads or {}).items()))
        elif bad := wrong_leaves(case, run.grads):
            shown = grads(want.grads) + ('' if case.kink else "   (the library's engine; central differences give "
                                         f"{', '.join(number(round(v, 8)) for v in fd.values())})")
            wrong.append((i, outcome.wrong(exercise, input=text, expected=shown, obtained=grads(run.grads)), bad))
    if wrong or unfinished is None:  # an output left out of the graph explains any gradient: said first
        wired = wiring(exercise, value_class, codes, made[exercise.name], through=not wrong)
        if wired is not None:
            return wired
    if not wrong:
        if unfinished is not None:
            return unfinished
        if fit.holds_out(codes, None):  # right numbers, but the closure holds the output
            place = next((p for method in exercise.methods for needle in ('out.grad', 'out.data', 'out')
                          if (p := line_with(value_class, method, needle))), '')
            return outcome.wrong(exercise, 'holds_out', input=cases[0].text(), expected="grad, handed over",
                                 obtained="out, held by the closure", place=place)
        return Result.of(exercise, DONE, note='\n'.join(notes.values()))
    i, first, bad = wrong[0]
    with paused():  # the checker's own work: not the learner's time
        first.diagnosis, said = fit.diagnose(exercise, runs, [k for k, _, _ in wrong], codes, frozenset(notes))
        if bad:  # the line that made a wrong value first (for wrong_parent, the second adding to one parent)
            first.place = wrong_line(exercise.methods, runs[i].events, lambda cls: run_case(cases[i], cls),
                                     cases[i].leaves.get(bad[0]))
    first.why = said or outcome.explain(exercise, first.diagnosis)
    if first.diagnosis not in ('parent_twice', 'parent_dropped'):  # (these quote the right line)
        first.why = in_learners_words(first.why, first.place, len(bad) == 1)
    first.also = '\n'.join(r.input for _, r, _ in wrong[1:])
    return first
