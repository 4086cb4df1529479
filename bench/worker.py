"""One engine in one process, answering the driver's requests (JSON lines on stdin and stdout).

    python -I bench/worker.py KIND      (our micrograd is this checkout's)

KIND is ours, karpathy or microgpt (scalar_workloads.py, run by each Python's peer environment),
or tensor-ours or tensor-torch (tensor_workloads.py, run where PyTorch is installed). A fresh
process per engine means none pays garbage-collector time for another's heap, and Karpathy's
package (also named `micrograd`) never meets ours. The collector keeps its default settings; it
is only watched, through gc.callbacks.
"""
from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent


class GCWatch:
    """Adds up the time the garbage collector spends in its passes. It only watches."""

    def __init__(self) -> None:
        self.seconds, self._start = 0.0, 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == 'start':
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start


WATCH = GCWatch()


def timed(steps: int, step: Callable[[], Any]) -> dict[str, list[Any]]:
    """Run step() `steps` times: the seconds and collector seconds of each, and what each returned."""
    out: dict[str, list[Any]] = {'seconds': [], 'gc_seconds': [], 'returned': []}
    for _ in range(steps):
        gc0, t0 = WATCH.seconds, time.perf_counter()
        returned = step()
        out['seconds'].append(time.perf_counter() - t0)
        out['gc_seconds'].append(WATCH.seconds - gc0)
        out['returned'].append(returned)
    return out


def import_micrograd(checkout: Path, ours: bool) -> Any:
    """Our micrograd from the checkout, or (ours=False) the one installed; either way, checked."""
    if ours:
        sys.path.insert(0, str(checkout))
    import micrograd
    if (Path(micrograd.__file__).resolve().parent == checkout / 'micrograd') != ours:
        raise ImportError(f"imported the wrong micrograd: {micrograd.__file__}")
    return micrograd


def serve(kind: str) -> None:
    """Read one JSON request per line, run it, answer with one JSON line."""
    replies, sys.stdout = sys.stdout, sys.stderr  # a stray print must not garble the replies
    sys.path.insert(0, str(BENCH))  # -I leaves the script's folder off sys.path
    if kind.startswith('tensor-'):
        from tensor_workloads import TensorEngine
        engine: Any = TensorEngine(kind.removeprefix('tensor-'), BENCH.parent)
    else:
        from scalar_workloads import ScalarEngine
        engine = ScalarEngine(kind, BENCH.parent)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {'ok': getattr(engine, request['task'])(**request['args'])}
        except Exception as e:  # reported by the driver, which knows what it asked for
            reply = {'error': f'{type(e).__name__}: {e}'}
        replies.write(json.dumps(reply) + '\n')
        replies.flush()


if __name__ == '__main__':
    serve(sys.argv[1])
