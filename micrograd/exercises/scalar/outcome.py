"""A scalar exercise's Result, made the same way by every grader: the status, and for a mistake its sentence
(from the exercise's record, else from the rules slips are derived by, else the ones any exercise can get)."""
from __future__ import annotations

from typing import Any

from micrograd.exercises.lines import where
from micrograd.exercises.result import CORRECT, DONE, GENERIC, WRONG, Result
from micrograd.exercises.scalar.exercises import Exercise
from micrograd.exercises.scalar.slips import RULES


def explain(exercise: Exercise, key: str) -> str:
    return exercise.mistakes.get(key) or dict(exercise.rules).get(key) or RULES.get(key) or GENERIC.get(key, '')


def wrong(exercise: Exercise, diagnosis: str = '', *, why: str = '', **fields: Any) -> Result:
    """A mistake; its sentence is the record's for the diagnosis unless why says more."""
    return Result.of(exercise, WRONG, diagnosis=diagnosis,
                     why=why or (explain(exercise, diagnosis) if diagnosis else ''), **fields)


def raised(exercise: Exercise, text: str, error: BaseException | None, want: str = '', key: str = 'raises',
           **fields: Any) -> Result:
    """text raised error (a mistake named key), where want was expected."""
    return wrong(exercise, key, input=text, expected=want, obtained=type(error).__name__,
                 detail=where(error) if error is not None else '', **fields)


def verdict(exercise: Exercise, failed: dict[str, str], idea: str, missing: list[tuple[str, str]],
            **shown: Any) -> Result:
    """A grader's findings as its Result: the mistake failed (its fields, maybe a status); else done, or correct
    with the library's rules missing (key, what shows it) named, numbered as the task states them."""
    if failed:
        return Result.of(exercise, **failed) if 'status' in failed else wrong(exercise, **failed)
    if not missing:
        return Result.of(exercise, DONE)
    order = [key for key, _ in exercise.rules]
    missing = sorted(missing, key=lambda m: order.index(m[0]))
    left = '\n'.join(f"({order.index(key) + 1}) {dict(exercise.rules)[key]}" + (f"\n    {shown}" if shown else '')
                     for key, shown in missing)
    step = "one step" if len(missing) == 1 else f"{len(missing)} steps"
    return Result.of(exercise, CORRECT, diagnosis=missing[0][0],
                     why=f"correct ✓ — {idea}; {step} left to match the library:\n{left}", **shown)
