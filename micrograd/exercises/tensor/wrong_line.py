"""The tensor track's side of lines.py: which functions hold a blank, in the library and in the learner's engine,
and the line that made a wrong value first on a case whose numbers (not an exception) are wrong."""
from __future__ import annotations

import re
import types
from typing import Any

from micrograd.exercises import lines
from micrograd.exercises.lines import Line, Right, backward_line, noting, run_traced, swapped
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.cases import Case
from micrograd.exercises.tensor.my_tensor_file import FUNCTIONS, library_module
from micrograd.exercises.tensor.running import fits, library_text, own_function, run_case, tolerance


def learners_function(module: Any, blank: str) -> Any:
    """The function a blank is in, in module (a method of its classes, or one of its functions), unwrapped."""
    holder = holder_of(module, blank)[0]
    fn = vars(holder[0]).get(holder[1]) if holder else None
    return getattr(fn, '__wrapped__', fn)


def holder_of(module: Any, blank: str) -> tuple[tuple[Any, str] | None, str]:
    """(the class or module holding a blank's function, its attribute name), and its owner as 'Unary.exp'."""
    bare = blank.removesuffix('()').split('.')[-1]
    if '.' not in blank:
        return (module, bare), bare
    for cls in module.Tensor.__mro__:
        if bare in vars(cls):
            return (cls, bare), f"{cls.__name__}.{bare}"
    return None, ''


def _bodies(fn: Any, blank: str) -> set[types.CodeType]:
    """The code objects a blank's body runs as: the function's own, or its `_backward` closure's."""
    code = getattr(fn, '__code__', None)
    if code is None:
        return set()
    if blank.endswith('()') or blank in FUNCTIONS:
        return {code}
    found: set[types.CodeType] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                (found.add if const.co_name == '_backward' else stack.append)(const)
    return found or {code}


def wrong_line(exercise: Exercise, case: Case, module: Any, about: str = '', leaf: str = '') -> Line | None:
    """The learner's line that made a wrong value first on case (code and line number), or None when none did
    (then the caller says the body): lines.py's, the library's bodies noted against the learner's traced. about:
    'wrote' the line that wrote into an array the body was given, 'misfit' the one that handed _add_grad an array
    of a shape that is not its tensor's. leaf: the tensor whose gradient is wrong."""
    library, noted, swaps, codes, mine = library_module(), list[Any](), [], set(), set()
    for blank in exercise.blanks:
        holder, owner = holder_of(library, blank)
        if holder:
            namespace = noting(library_text(owner), vars(library), blank.endswith('()') or blank in FUNCTIONS, noted)
            fn = own_function(namespace, holder[1], library)
            swaps.append((*holder, fn))
            codes |= _bodies(getattr(fn, '__wrapped__', fn), blank)
        if (fn := learners_function(module, blank)) is not None:
            mine |= _bodies(fn, blank)
    with swapped(swaps):
        right = run_traced(codes, lambda: run_case(case, library), fits)
    events = run_traced(mine, lambda: run_case(case, module), fits)
    return lines.wrong_line(Right(noted, right, case.dtype, *tolerance(case.dtype)), events, about,
                            case.data().get(leaf))


def forwards(module: Any, exercise: Exercise) -> bool:
    """Whether the learner's backward() walks the order from the leaves: its loop that calls _backward goes over
    the order as it is (no reversed(), no [::-1])."""
    found = backward_line(learners_function(module, exercise.blanks[0]), 'backward_not_reversed')
    return re.match(r'for\s+\w+\s+in\s+\w+\s*:', found.split(': ', 1)[-1]) is not None
