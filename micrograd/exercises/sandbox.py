"""Running the learner's code for one exercise: a time limit counting its time alone, what it prints kept aside."""
from __future__ import annotations

import contextlib
import io
import signal
import threading
from collections.abc import Callable, Iterator

from micrograd.exercises.lines import where
from micrograd.exercises.result import GENERIC, WRONG, Result


class Timeout(BaseException):
    """A BaseException, so that the learner's `except Exception` lets it through."""


class _Now:
    """The exercise being checked, one at a time: the class holds it."""
    input = ''                   # the case being run, for the report of a timeout or an exit
    left: float | None = None    # the seconds the learner's code has left (None: no limit)
    running = False              # whether the clock runs (the timer signal is set)


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block once the learner's code ran seconds in it (paused() not counted), where signals allow."""
    if not (seconds and hasattr(signal, 'setitimer') and threading.current_thread() is threading.main_thread()):
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Timeout(f"did not finish in {seconds:g} s")
    previous = signal.signal(signal.SIGALRM, stop)
    _Now.left = seconds
    try:
        with _clock(True):
            yield
    finally:
        _Now.left = None
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _clock(running: bool) -> Iterator[None]:
    """The block with the clock running or stopped, the seconds left carried over."""
    if _Now.left is None or running == _Now.running:
        yield
        return

    def turn(on: bool) -> None:
        if on:
            signal.setitimer(signal.ITIMER_REAL, max(_Now.left or 0.0, 1e-3))
        else:
            _Now.left = signal.setitimer(signal.ITIMER_REAL, 0)[0]
        _Now.running = on
    turn(running)
    try:
        yield
    finally:
        turn(not running)


def paused() -> contextlib.AbstractContextManager[None]:
    """The clock stopped while the block runs: the checker's own work, not the learner's time."""
    return _clock(False)


def set_input(text: str) -> None:
    _Now.input = text


def guarded(number: int, name: str, grade: Callable[[], Result], timeout: float | None) -> Result:
    """grade() under time_limit, what it prints kept in the Result; a loop that never ends or a sys.exit() is said."""
    printed = io.StringIO()
    set_input('')
    try:
        with contextlib.redirect_stdout(printed), time_limit(timeout):
            result = grade()
    except (Timeout, SystemExit) as error:
        key = 'exits' if isinstance(error, SystemExit) else 'timeout'
        result = Result(number=number, name=name, status=WRONG, input=_Now.input, diagnosis=key, why=GENERIC[key],
                        obtained=f"SystemExit({error.code!r})" if isinstance(error, SystemExit) else str(error),
                        detail=where(error) if key == 'exits' else "the checker stopped it: look for a loop that "
                        "never ends (a stack that is never emptied, a node pushed again and again)")
    result.printed = printed.getvalue()[-2000:]
    return result
