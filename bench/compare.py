"""Our engine alone, timed by pyperf: to compare two commits of micrograd (or two Pythons), as bench/README.md shows.

    python bench/compare.py -o new.json                              # this checkout's engine
    python bench/compare.py --ours ../old-checkout -o old.json       # another checkout's engine

--ours swaps only the engine (micrograd/ of that checkout); the workloads are this checkout's: those of
workloads.py marked compare=True, each call its task(steps=1) on our engine, at the full bench's sizes.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pyperf
from scalar_workloads import ScalarEngine
from worker import import_micrograd
from workloads import FULL, workloads

REPO = Path(__file__).resolve().parent.parent


def loop(step: Callable[[], Any]) -> Callable[[int], float]:
    """What pyperf times: `loops` calls of step(), in seconds."""
    def timed(loops: int) -> float:
        t0 = pyperf.perf_counter()
        for _ in range(loops):
            step()
        return pyperf.perf_counter() - t0
    return timed


def main() -> None:
    runner = pyperf.Runner(add_cmdline_args=lambda cmd, args: cmd.extend(['--ours', args.ours]))
    runner.argparser.add_argument('--ours', default=str(REPO), help='the checkout whose micrograd/ is timed')
    args = runner.parse_args()
    ours = Path(args.ours).resolve()
    if not (ours / 'micrograd' / 'engine.py').is_file():
        sys.exit(f"--ours {args.ours}: no micrograd/engine.py there")
    import_micrograd(ours, ours=True)
    runner.metadata['micrograd'] = str(ours.name)
    for w in workloads(FULL):
        if w.compare:
            engine = ScalarEngine(w.ours.kind)
            if w.setup:
                getattr(engine, w.ours.setup or w.setup)(**(w.inputs(FULL) if w.inputs else {}), **w.ours.args)
            runner.bench_time_func(w.key.replace(' ', '-'), loop(partial(getattr(engine, w.ours.task or w.task), 1)))


if __name__ == '__main__':
    main()
