"""What every workload times with: the garbage collector's watch and a loop of timed steps. Nothing happens at
import: a watch adds its callback to gc.callbacks only when started (by worker.py, for its own process)."""
from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any


class GCWatch:
    """Adds up the time the garbage collector spends in its passes, once started. It only watches."""

    def __init__(self) -> None:
        self.seconds, self._start = 0.0, 0.0

    def start(self) -> GCWatch:
        gc.callbacks.append(self._callback)
        return self

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == 'start':
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start


def timed(steps: int, step: Callable[[], Any], watch: GCWatch) -> dict[str, list[Any]]:
    """Run step() `steps` times: the seconds and collector seconds of each, and what each returned."""
    out: dict[str, list[Any]] = {'seconds': [], 'gc_seconds': [], 'returned': []}
    for _ in range(steps):
        gc0, t0 = watch.seconds, time.perf_counter()
        returned = step()
        out['seconds'].append(time.perf_counter() - t0)
        out['gc_seconds'].append(watch.seconds - gc0)
        out['returned'].append(returned)
    return out
