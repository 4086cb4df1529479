"""Running the learner's code for one exercise: a time limit (a timer signal, where signals allow it), and what it
prints kept aside."""
from __future__ import annotations

import contextlib
import io
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from micrograd.exercises.lines import where
from micrograd.exercises.result import GENERIC, WRONG, Result


class Timeout(BaseException):
    """A BaseException, so that the learner's `except Exception` lets it through."""


def _signals() -> bool:
    """Whether a timer signal can interrupt the code here."""
    return hasattr(signal, 'setitimer') and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after seconds, where signals allow it; elsewhere run it without a limit."""
    if not (seconds and _signals()):
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Timeout(f"did not finish in {seconds:g} s")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The time limit stopped while the block runs: the checker's own work (naming a slip)."""
    left = signal.setitimer(signal.ITIMER_REAL, 0)[0] if _signals() else 0.0
    try:
        yield
    finally:
        if left:
            signal.setitimer(signal.ITIMER_REAL, left)


@dataclass
class _Now:
    """The exercise being checked."""
    input: str = ''              # the case being run, for the report of a timeout or an exit
    module: Any = None           # the learner's engine, while one of its exercises is checked
    left: float | None = None    # the seconds its code has left (None: no limit)
    inside: bool = False


_NOW = _Now()


@contextlib.contextmanager
def timed(module: Any, seconds: float | None) -> Iterator[None]:
    """While one exercise is checked: module's code has `seconds` in all, counted by learners_time()."""
    _NOW.module, _NOW.left = module, seconds
    try:
        yield
    finally:
        _NOW.module, _NOW.left = None, None


@contextlib.contextmanager
def learners_time(module: Any) -> Iterator[None]:
    """A block that runs the learner's code (module is the learner's engine), under what is left of the exercise's
    time limit; the checker's own work (the library's runs, central differences, PyTorch, naming) is not counted."""
    if module is not _NOW.module or _NOW.left is None or _NOW.inside:
        yield
        return
    began = time.perf_counter()
    _NOW.inside = True
    try:
        with time_limit(max(_NOW.left, 1e-3)):
            yield
    finally:
        _NOW.inside = False
        _NOW.left -= time.perf_counter() - began


def set_input(text: str) -> None:
    _NOW.input = text


def guarded(number: int, name: str, grade: Callable[[], Result], timeout: float | None) -> Result:
    """grade() under a time limit, with what the learner's code prints kept in the Result, not shown in
    between; a loop that never ends or a sys.exit() is said as such, and the checking goes on."""
    printed = io.StringIO()
    set_input('')
    try:
        with contextlib.redirect_stdout(printed), time_limit(timeout):
            result = grade()
    except Timeout as error:
        result = Result(number=number, name=name, status=WRONG, input=_NOW.input, obtained=str(error),
                        diagnosis='timeout', why=GENERIC['timeout'],
                        detail="the checker stopped it: look for a loop that never ends (a stack that is never "
                               "emptied, a node pushed again and again)")
    except SystemExit as error:
        result = Result(number=number, name=name, status=WRONG, input=_NOW.input,
                        obtained=f"SystemExit({error.code!r})", diagnosis='exits', why=GENERIC['exits'],
                        detail=where(error))
    result.printed = printed.getvalue()[-2000:]
    return result
