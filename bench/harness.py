"""The driver's side of the harness: worker processes, interleaved rounds, paired ratios, checks. A round asks
every engine for the same work, each round starting with another engine; a time is the median of all samples,
and a ratio is OUR figure over the PEER's, the median over rounds of the two taken in the same round.
"""
from __future__ import annotations

import json
import statistics
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORKER = str(Path(__file__).resolve().with_name('worker.py'))
REPO = Path(__file__).resolve().parent.parent
ONE_THREAD = {name: '1' for name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')}


@dataclass
class Report:
    """What one Python's run found: table cells by row name, and every check with its verdict."""
    cells: dict[str, str] = field(default_factory=dict)
    checks: list[tuple[bool, str]] = field(default_factory=list)

    def check(self, what: str, ours: list[float], theirs: list[float], limit: float) -> None:
        """Passes if the largest difference of a pair, relative to the largest value, is within `limit`.
        (Relative to each pair's own size, a gradient near 0 would fail on the order of its sum's terms.)"""
        diff = max(abs(x - y) for x, y in zip(ours, theirs, strict=True)) / (max(map(abs, ours + theirs)) or 1.0)
        self.checks.append((diff <= limit, f"{what}: largest difference {diff:.1e} of the largest value "
                                           f"(limit {limit:g})"))


class Worker:
    """One engine in a process of its own (bench/worker.py), spoken to in JSON lines."""

    def __init__(self, python: str, kind: str, env: dict[str, str] | None = None) -> None:
        self.kind = kind
        # -I: neither the environment's PYTHONPATH nor the current folder decides which `micrograd` is imported
        self.proc = subprocess.Popen([python, '-I', WORKER, kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)

    def __call__(self, task: str, **args: Any) -> Any:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({'task': task, 'args': args}) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.kind} worker died during {task!r} (its error is printed above)")
        reply = json.loads(line)
        if 'error' in reply:
            raise RuntimeError(f"{self.kind} worker, {task}: {reply['error']}")
        return reply['ok']

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


@contextmanager
def team(python: str, *names: str, env: dict[str, str] | None = None,
         kinds: dict[str, str] | None = None) -> Iterator[dict[str, Worker]]:
    """A worker per name, all closed at the end. A name is its worker's kind unless `kinds` gives
    another (two workers of one kind: {'ours nn': 'ours', 'ours lecture': 'ours'})."""
    workers = {name: Worker(python, (kinds or {}).get(name, name), env) for name in names}
    try:
        yield workers
    finally:
        for w in workers.values():
            w.close()


def interleaved(workers: dict[str, Worker], rounds: int, ask: Callable[[str, Worker], Any]) -> dict[str, list[Any]]:
    """ask(name, worker) of every worker, `rounds` times after a warm-up round (whose answers are
    dropped), round r starting with a different worker."""
    names, results = list(workers), {name: list[Any]() for name in workers}
    for r in range(rounds + 1):
        for name in names[r % len(names):] + names[:r % len(names)]:
            results[name].append(ask(name, workers[name]))
    return {name: answers[1:] for name, answers in results.items()}


def median(rounds: list[dict[str, Any]], key: str = 'seconds') -> float:
    """The median of every sample of `key` over the rounds."""
    return statistics.median(float(x) for r in rounds for x in r[key])


def returned(rounds: list[dict[str, Any]]) -> list[float]:
    """What every step of every round returned (its loss), in order."""
    return [x for r in rounds for x in r['returned']]


def paired(ours: list[float], theirs: list[float]) -> float:
    """Our figure over the peer's, the median over rounds of the ratio taken within each round."""
    return statistics.median(o / t for o, t in zip(ours, theirs, strict=True))


def per_round(rounds: list[dict[str, Any]], key: str = 'seconds') -> list[float]:
    return [statistics.median(r[key]) for r in rounds]


def seconds(t: float) -> str:
    unit, scale = next(((u, x) for u, x in (('s', 1.0), ('ms', 1e-3), ('µs', 1e-6)) if abs(t) >= x), ('ns', 1e-9))
    return f"{t / scale:.3g} {unit}"


def cell(ratio: float, ours: str, theirs: str) -> str:
    """The one way a comparison is written: our figure / the peer's, then the two figures."""
    return f"{ratio:.3g}x ({ours} / {theirs})"


def time_cell(ours: list[dict[str, Any]], theirs: list[dict[str, Any]], with_gc: bool = False) -> str:
    """Paired ratio of the seconds of two engines' rounds, with each one's median (and GC share)."""
    o, t = seconds(median(ours)), seconds(median(theirs))
    if with_gc:
        o, t = (f"{x}, GC {median(r, 'gc_seconds') / median(r):.0%}" for x, r in ((o, ours), (t, theirs)))
    return cell(paired(per_round(ours), per_round(theirs)), o, t)


def overhead_cell(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> str:
    """Paired ratio of the two engines' time above their floors, with each one's median overhead and floor."""
    over = [[s - f for s, f in zip(per_round(r), per_round(r, 'floor_seconds'))] for r in (ours, theirs)]
    return cell(paired(*over), *(f"{seconds(median(r) - median(r, 'floor_seconds'))} over "
                                 f"{seconds(median(r, 'floor_seconds'))}" for r in (ours, theirs)))
