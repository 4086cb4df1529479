"""Grading an op's backward: run each case with the learner's Value and the library's, compare the leaves'
gradients with the library's and with central differences, and when they differ name the slip that gives the
learner's numbers (slips.py) and point at the line that gives the wrong parent its gradient."""
from __future__ import annotations

import linecache
import math
from dataclasses import dataclass
from typing import Any

from micrograd import engine as library
from micrograd import ops
from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.lines import learners, line_of, place_of, run_traced, where
from micrograd.exercises.numbers import central_difference, close, grads, number, same
from micrograd.exercises.result import Result
from micrograd.exercises.sandbox import paused, set_input
from micrograd.exercises.scalar import fit, outcome
from micrograd.exercises.scalar.blanks import blanks_of
from micrograd.exercises.scalar.drive import backpropagate
from micrograd.exercises.scalar.exercises import EXERCISES, Case, Exercise, find
from micrograd.exercises.scalar.op_wiring import probes, through_the_graph, wiring
from micrograd.exercises.scalar.places import closures, in_learners_words, line_with, wrong_line
from micrograd.exercises.scalar.slips import variants


@dataclass
class Run:
    """One case run with one Value class."""
    grads: dict[str, float] | None = None
    data: float | None = None
    error: BaseException | None = None
    built: bool = True
    op: object = None   # the output's _op: '/' for a division of its own, '*' for the lecture's x * y**-1


def run_case(case: Case, value_class: Any) -> Run:
    try:
        leaves, out = case.build(value_class)
    except Exception as error:  # noqa: BLE001 -- a Value that cannot make this input
        return Run(error=error, built=False)
    try:
        backpropagate(out, case.grad)
        return Run({name: leaf.grad for name, leaf in leaves.items()}, out.data, op=getattr(out, '_op', None))
    except Exception as error:  # noqa: BLE001 -- RecursionError too: reported with the line that raised it
        return Run(error=error, data=out.data, op=getattr(out, '_op', None))


_EXPECTED: dict[tuple[str, int], tuple[Run, dict[str, float]]] = {}


def expected(name: str, index: int) -> tuple[Run, dict[str, float]]:
    """The library's gradients for a case, and the central differences of its forward pass."""
    if (name, index) not in _EXPECTED:
        case = find(name).cases[index]
        run = run_case(case, library.Value)
        fd: dict[str, float] = {}
        for leaf in case.leaves if not case.kink else ():
            def value(x: float, leaf: str = leaf) -> float:
                return float(case.build(library.Value, {**case.leaves, leaf: x})[1].data)
            fd[leaf] = case.grad * central_difference(value, case.leaves[leaf]) + case.prior.get(leaf, 0.0)
        _EXPECTED[name, index] = run, fd
    return _EXPECTED[name, index]


def _compared(run: Run) -> bool:
    """Whether a learner's run says something about this exercise: it built the input, and it did not stop
    at a blank (of this exercise or another)."""
    return run.built and (run.error is None or blank_raised(run.error, len(EXERCISES)) is None)


def _agree(mine: Run, theirs: Run | None) -> bool:
    """The same gradients, or an exception of the same type (an overflow where the slip overflows)."""
    if theirs is None:
        return False
    if mine.error is not None or theirs.error is not None:
        return mine.error is not None and theirs.error is not None and type(mine.error) is type(theirs.error)
    return same(mine.grads, theirs.grads)


def _refused(case: Case, run: Run) -> bool:
    """A right formula that Python refuses to evaluate on an extreme input (an overflow, y**2 underflowing to 0),
    or where the library's gives nan (math.log of x ** y's negative base): accepted, with a note."""
    return (case.extreme and isinstance(run.error, (OverflowError, ZeroDivisionError))
            or case.kink and isinstance(run.error, ValueError))


def _lecture_division(case: Case, run: Run, want: Run) -> bool:
    """x / y built as the lecture's x * y**-1, on a divisor so tiny that y**-1's derivative, -y**-2, is past a
    float's range: it raises, or gives an infinity, where the library's -(x/y)/y is finite."""
    if not (case.extreme and run.op == '*' and want.grads):
        return False
    if isinstance(run.error, (OverflowError, ZeroDivisionError)):
        return True
    return run.grads is not None and any(math.isinf(g) and not math.isinf(want.grads[k])
                                         for k, g in run.grads.items())


def _division_note(case: Case, run: Run, want: Run) -> str:
    y = number(case.leaves['y'])
    what = f"raises {type(run.error).__name__}" if run.error is not None else f"gives {grads(run.grads)}"
    return (f"your x / y is the lecture's x * y**-1: right in form, but for y = {y} the derivative of y**-1, "
            f"-y**-2 = -1e+340, is past a float's range, so `{case.text()}` {what}, where the library's "
            f"-(x/y)/y stays finite ({grads(want.grads)}). Accepted, since only the float's range differs; "
            "the hint shows the form that does not overflow")


def _leaky(exercise: Exercise, runs: list[Run], cases: tuple[Case, ...]) -> bool:
    """relu with a slope below zero: where the input is negative, a fraction of grad passes; elsewhere right."""
    if 'relu_leaky' not in exercise.mistakes:
        return False
    negative = [(c, r) for c, r in zip(cases, runs) if c.leaves.get('x', 1.0) < 0 and r.grads is not None]
    if not negative:
        return False
    slopes = [(r.grads['x'] - c.prior.get('x', 0.0)) / c.grad for c, r in negative if r.grads]
    return all(0 < abs(s) < 1 for s in slopes)


def diagnose(exercise: Exercise, runs: list[Run], failing: list[int], value_class: Any = None) -> tuple[str, str]:
    """The slip (key, sentence) that gives the learner's gradients (or exception) on the first failing case: the
    one that also matches every other case the learner's code ran, else the one matching the most failing cases."""
    cases, first = exercise.cases, failing[0]
    error = runs[first].error
    if error is not None and _lecture_reflex(error) or value_class is not None and _reads_out(exercise, value_class):
        return 'holds_out', outcome.explain(exercise, 'holds_out')
    scored = []
    for n, (slip, module) in enumerate(variants(exercise.name)):
        theirs = [run_case(case, module.Value) if _compared(runs[i]) else None for i, case in enumerate(cases)]
        if not _agree(runs[first], theirs[first]):
            continue
        everywhere = all(not _compared(mine) or _refused(case, mine) or _agree(mine, t)
                         for case, mine, t in zip(cases, runs, theirs))
        agreed = sum(_compared(mine) and _agree(mine, t) for mine, t in zip(runs, theirs))
        scored.append((everywhere, sum(_agree(runs[i], theirs[i]) for i in failing), agreed, -n, slip))
    best = max(scored, key=lambda s: s[:4]) if scored else None
    if best is not None and best[0]:  # a slip that gives the learner's numbers on every input
        return best[-1].key, best[-1].says
    if error is None and all(cases[i].reuses for i in failing):
        return 'reused_leaf', outcome.explain(exercise, 'reused_leaf')
    if error is None and _leaky(exercise, runs, cases):
        return 'relu_leaky', outcome.explain(exercise, 'relu_leaky')
    if best is not None and best[1] == len(failing):  # a slip that gives them wherever the learner's are wrong
        return best[-1].key, best[-1].says
    if error is None:  # no slip gives these numbers: say what formula they follow
        same = _same_closures(exercise, value_class, first)  # an op of two closures: the one that went wrong
        said = fit.explain([cases[i] for i in same], [runs[i] for i in same],
                           [expected(exercise.name, i)[0] for i in same], _right(exercise),
                           binary=any(len(b.parents) > 1 for b in blanks_of(exercise)))
        if said:
            return 'formula', said
    if best is not None:  # else the one that gives them on the most inputs that fail, said so
        return best[-1].key, (f"{best[-1].says} (this gives your numbers on {best[1]} of the {len(failing)} "
                               "inputs where yours are wrong)")
    if error is not None:
        return 'raises', ''
    grads_ = runs[first].grads or {}
    if all(close(g, cases[first].prior.get(leaf, 0.0)) for leaf, g in grads_.items()):
        return 'nothing', outcome.explain(exercise, 'nothing')
    return 'wrong', ''


def _same_closures(exercise: Exercise, value_class: Any, first: int) -> list[int]:
    """The cases that ran the learner's closure the first failing case ran (all of them, for an op of one
    closure): x ** y's numbers follow a formula where its own closure ran, not where x ** k's did."""
    codes = closures(value_class, exercise.methods) if value_class is not None else set()
    if len(codes) < 2:
        return list(range(len(exercise.cases)))
    ran = []
    for case in exercise.cases:
        try:
            ran.append({e.code for e in run_traced(codes, lambda: run_case(case, value_class))})  # noqa: B023
        except Exception:  # noqa: BLE001 -- run_case keeps the learner's errors: this is the checker's own
            ran.append(set())
    return [i for i, r in enumerate(ran) if not ran[first] or r & ran[first]]


def _right(exercise: Exercise) -> dict[str, str]:
    """The op's local derivatives as the ops table writes them: {'x': 'y', 'y': 'x'} for *."""
    op = ops.BY_METHOD.get(exercise.attribute)
    return dict(zip('xy', op.derivatives)) if op is not None else {}


def _lecture_reflex(error: BaseException) -> bool:
    """The lecture's out.grad (or out.data) in a workspace closure, where out is undefined (or a float)."""
    frames = learners(error)
    line = linecache.getline(frames[-1][0].co_filename, frames[-1][1]) if frames else ''
    return isinstance(error, (NameError, AttributeError)) and ('out.grad' in line or 'out.data' in line)


def check_op(exercise: Exercise, value_class: Any, strict: bool) -> Result:
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
    wrong: list[tuple[int, Result]] = []  # (case, what is wrong there), every case: a slip is named by all
    seen: dict[int, int] = {}  # case: how many gradients are wrong
    for i, (case, run) in enumerate(zip(cases, runs)):
        want, fd = expected(exercise.name, i)
        text = case.text()
        if not run.built:
            if case.extreme and isinstance(run.error, (OverflowError, ZeroDivisionError)):
                notes.append(f"on `{text}` your forward pass raises {where(run.error)}: accepted, since Python "
                             "refuses rather than answering wrong, but see the hint")
                continue
            if strict:
                return outcome.raised(exercise, text, run.error)
            continue  # this Value does not take this input (say, a Value exponent): nothing to check
        if _lecture_division(case, run, want):
            notes.append(_division_note(case, run, want))
            continue
        if _refused(case, run):
            assert run.error is not None
            notes.append(f"on `{text}` your formula raises {where(run.error)}, where the library's gives "
                         f"{grads(want.grads)}: accepted, since Python refuses rather than answering wrong, "
                         "but see the hint")
            continue
        if run.error is not None:
            if blank_raised(run.error, len(EXERCISES)) is not None:  # a blank to write: said after a wrong gradient
                unfinished = unfinished or outcome.wrong(exercise, 'unfinished', input=text,
                                                         expected=grads(want.grads), obtained='NotImplementedError',
                                                         detail=line_of(run.error), place=place_of(run.error))
                continue
            wrong.append((i, outcome.wrong(exercise, input=text, expected=grads(want.grads),
                                           obtained=type(run.error).__name__, detail=where(run.error))))
            continue
        if not close(run.data, want.data):
            return outcome.wrong(exercise, 'forward', input=text, expected=f"out.data = {number(want.data)}",
                                 obtained=f"out.data = {number(run.data)}")
        assert run.grads is not None and want.grads is not None
        if any(not isinstance(g, (int, float)) for g in run.grads.values()):  # x.grad += y * grad, y a Value
            return outcome.wrong(exercise, 'grad_not_number', input=text, expected=grads(want.grads),
                                 obtained=', '.join(f"{k}.grad = {g!r}"[:80] for k, g in run.grads.items()))
        bad = [k for k in run.grads if not (close(run.grads[k], want.grads[k]) and
                                           (case.kink or close(run.grads[k], fd[k], rel=1e-4, abs_=1e-6)))]
        if bad:
            shown = grads(want.grads)
            if not case.kink:
                differences = ', '.join(number(round(v, 8)) for v in fd.values())
                shown += f"   (the library's engine; central differences give {differences})"
            place = wrong_line(exercise.methods, value_class, lambda cls: run_case(case, cls),  # noqa: B023
                               case.leaves.get(bad[0]))  # (run at once, in this loop)
            wrong.append((i, outcome.wrong(exercise, input=text, expected=shown, obtained=grads(run.grads),
                                           place=place)))
            seen[i] = len(bad)
    if wrong or unfinished is None:  # an output left out of the graph explains any gradient: said first
        wired = wiring(exercise, value_class)
        if wired is not None:
            return wired
    if wrong:
        first = wrong[0][1]
        if not first.diagnosis:
            with paused():  # the checker's own work: not the learner's time
                first.diagnosis, first.why = diagnose(exercise, runs, [i for i, _ in wrong], value_class)
            first.why = first.why or outcome.explain(exercise, first.diagnosis)
            if first.diagnosis not in ('parent_twice', 'parent_dropped'):  # (these quote the right line)
                first.why = in_learners_words(first.why, first.place, seen.get(wrong[0][0]) == 1)
        first.also = '\n'.join(r.input for _, r in wrong[1:])
        return first
    if unfinished is not None:
        return unfinished
    behind = through_the_graph(exercise, value_class, {i: expected(exercise.name, i)[0].grads or {}
                                                       for i, _ in probes(exercise)})
    return behind or _holding_out(exercise, value_class) or outcome.done(exercise, note='\n'.join(notes))


def _reads_out(exercise: Exercise, value_class: Any) -> bool:
    """Whether a closure of the op that is handed grad reads the output Value, out, as the lecture's does."""
    return any(code.co_argcount and 'out' in code.co_freevars for code in closures(value_class, exercise.methods))


def _holding_out(exercise: Exercise, value_class: Any) -> Result | None:
    """The lecture's out.grad in a closure handed grad: its numbers are right, but the closure holds the output
    (and the output it: a cycle, freed only by the garbage collector). None where no closure reads out."""
    if not _reads_out(exercise, value_class):
        return None
    place = next((p for method in exercise.methods for needle in ('out.grad', 'out.data', 'out')
                  if (p := line_with(value_class, method, needle))), '')
    return outcome.wrong(exercise, 'holds_out', input=exercise.cases[0].text(), expected="grad, handed over",
                         obtained="out, held by the closure", place=place)

