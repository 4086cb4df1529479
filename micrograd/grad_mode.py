"""Grad mode: whether ops record the graph. `with no_grad():` switches it off, as in PyTorch.

Inside no_grad() a Value has no parents and no backward: evaluating, plotting, or updating the parameters
builds no graph and costs no memory. The mode is a ContextVar, so each thread (and asyncio task) has its
own: one thread evaluating under no_grad() does not stop another from training.
"""
from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ['recording', 'is_grad_enabled', 'no_grad']

recording = contextvars.ContextVar('recording', default=True)  # read by every Value() an op makes

F = TypeVar('F', bound=Callable[..., Any])


def is_grad_enabled() -> bool:
    """Whether ops record the graph now (False inside `no_grad()`)."""
    return recording.get()


class no_grad:
    """`with no_grad():`, `@no_grad()` or `@no_grad`: ops inside build no graph.

    One instance may be entered again while it is active (nested, or from another thread or asyncio task):
    each entry restores what it found. As a decorator it also covers every step of a generator function's run,
and the whole run of an async function.
    """

    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:  # @no_grad without parentheses
        return super().__new__(cls) if func is None else cls()(func)

    def __init__(self, func: Callable[..., Any] | None = None) -> None:
        # What each entry found, innermost last: a tuple in a ContextVar, so that every thread and asyncio
        # task (which starts with a copy of its creator's context) keeps its own, and no entry in one can
        # undo another's.
        self._found: contextvars.ContextVar[tuple[bool, ...]] = contextvars.ContextVar('no_grad_found')

    def __enter__(self) -> None:
        self._found.set((*self._found.get(()), recording.get()))
        recording.set(False)

    def __exit__(self, *exc: object) -> None:
        found = self._found.get(())
        if not found:
            raise RuntimeError("no_grad.__exit__: this no_grad() was not entered in this thread or task")
        recording.set(found[-1])
        self._found.set(found[:-1])

    def __call__(self, func: F) -> F:
        import inspect  # here, not at the top: a decorator is rare, and inspect is slow to import
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator(*args: Any, **kwargs: Any) -> Any:  # each step runs without recording
                gen = func(*args, **kwargs)
                try:
                    with no_grad():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with no_grad():
                                gen.close()
                            raise
                        except BaseException as error:
                            with no_grad():
                                response = gen.throw(error)
                        else:
                            with no_grad():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            return generator  # type: ignore[return-value]
        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def coroutine(*args: Any, **kwargs: Any) -> Any:  # its whole run, awaits included
                with no_grad():  # (a task's context is its own: other tasks keep recording)
                    return await func(*args, **kwargs)
            return coroutine  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with no_grad():
                return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
