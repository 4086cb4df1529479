"""The tensor track's side of lines.py: which functions hold a blank, in the library's engine and the learner's,
and the learner's line for a wrong case: the line that raised, that made a wrong value first, or the blank's."""
from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any

from micrograd.exercises import lines
from micrograd.exercises.lines import Event, Right, noting, place_of, run_traced, swapped, written
from micrograd.exercises.sandbox import paused
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.cases import Case
from micrograd.exercises.tensor.my_tensor_file import FUNCTIONS, blanks, library_module, library_text
from micrograd.exercises.tensor.running import Run, fits, run_case, tolerance


def holder_of(module: Any, blank: str) -> tuple[Any, str] | None:
    """The class or module holding a blank's function in module, and its name there (None: no class of Tensor's)."""
    bare = blank.removesuffix('()').split('.')[-1]
    if '.' not in blank:
        return module, bare
    return next(((cls, bare) for cls in module.Tensor.__mro__ if bare in vars(cls)), None)


def learners_function(module: Any, blank: str) -> Any:
    """The function a blank is in, in module, unwrapped (an op under a decorator that names its errors)."""
    holder = holder_of(module, blank)
    fn = vars(holder[0]).get(holder[1]) if holder else None
    return getattr(fn, '__wrapped__', fn)


def compiled(owner: str, module: Any, whole: bool = True, noted: list[Any] | None = None) -> Any:
    """The library's function owner ('Unary.exp') run in a copy of module's namespace, its values noted into noted
    (lines.noting); module's own name goes back in the copy, so a method softmax calls the function, not itself."""
    name = owner.rpartition('.')[2]
    namespace = noting(library_text(owner), vars(module), whole, noted)
    fn = namespace[name]
    namespace[name] = getattr(module, name, fn)
    return fn


@contextlib.contextmanager
def alone(module: Any, exercise: Exercise) -> Iterator[dict[str, Any]]:
    """While checking exercise, every other exercise's body is the library's (so one slip never shows as another's).
    Yields the learner's functions of exercise's blanks, by blank."""
    mine, swaps = {}, []
    with paused():  # (the checker's own work: the library's bodies made for module)
        for b in blanks():
            if b.exercise is exercise:
                mine[b.name] = learners_function(module, b.name)
            elif (holder := holder_of(module, b.name)) is not None:
                swaps.append((*holder, compiled(b.owner, module)))
    with swapped(swaps):
        yield mine


def _closures(code: types.CodeType) -> set[types.CodeType]:
    """The `_backward` functions defined in code, at any depth."""
    inner = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return set().union(*({c} if c.co_name == '_backward' else _closures(c) for c in inner))


def bodies(functions: dict[str, Any]) -> set[types.CodeType]:
    """The code objects functions (by blank) run their blanks' bodies as: their own, or their `_backward` closures'."""
    codes: set[types.CodeType] = set()
    for blank, fn in functions.items():
        if (code := getattr(fn, '__code__', None)) is not None:
            codes |= {code} if blank.endswith('()') or blank in FUNCTIONS else _closures(code) or {code}
    return codes


def place(exercise: Exercise, case: Case, functions: dict[str, Any], run: Run, mine: list[Event], blank: str,
          leaf: str) -> str:
    """The learner's line for run, a wrong run of case (mine: its lines, traced): the line that raised, the one that
    made a wrong value first (against the library's run; leaf: whose gradient is wrong), or where blank is written."""
    if run.error is not None:
        return place_of(run.error) or written(functions[blank])
    library, noted, swaps, solutions = library_module(), list[Any](), [], {}
    for b in blanks():
        if b.exercise is exercise and (holder := holder_of(library, b.name)) is not None:
            fn = compiled(b.owner, library, b.name.endswith('()') or b.name in FUNCTIONS, noted)
            swaps.append((*holder, fn))
            solutions[b.name] = getattr(fn, '__wrapped__', fn)
    with swapped(swaps):
        right = run_traced(bodies(solutions), lambda: run_case(case, library), fits)
    about = 'wrote' if run.inplace else 'misfit' if run.misshaped else ''
    found = lines.wrong_line(Right(noted, right, case.dtype, *tolerance(case.dtype)), mine, about,
                             case.data().get(leaf))
    return lines.place(*found) if found is not None else written(functions[blank])
