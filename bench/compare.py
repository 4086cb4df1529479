"""Our engine alone, timed by pyperf: to compare two commits of micrograd (or two Pythons).

    python bench/compare.py -o new.json                              # this checkout's engine
    python bench/compare.py --ours ../old-checkout -o old.json       # another checkout's engine
    python -m pyperf compare_to old.json new.json --table            # the speed-ups, and which are significant

pyperf calibrates the loops, warms up, spreads the runs over many fresh processes and keeps every value;
`--fast` gives a quick look, `--rigorous` a careful one (`python bench/compare.py --help` lists the rest).
--ours swaps only the engine (micrograd/ of that checkout); the workloads are this checkout's:
  moons       one step of Karpathy's demo loop (scalar_workloads.py) on our MLP
  scalar-gpt  one step of examples/gpt/scalar_gpt.py on a name, with micrograd.optim.Adam
  deep-chain  y = relu(y * 1.0001 + 0.0001), 1,000 times, then backward()
  wide-sum    sum(w * x for ...) over 1,000 pairs of leaves, then backward()
"""
from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyperf
from scalar_workloads import ScalarEngine, make_moons, make_weights
from worker import import_micrograd

REPO = Path(__file__).resolve().parent.parent
NAMES = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia', 'harper', 'evelyn']


def loop(step: Callable[[], Any]) -> Callable[[int], float]:
    """What pyperf times: `loops` calls of step(), in seconds."""
    def timed(loops: int) -> float:
        t0 = pyperf.perf_counter()
        for _ in range(loops):
            step()
        return pyperf.perf_counter() - t0
    return timed


def graph(engine: ScalarEngine, kind: str, n: int = 1000) -> Callable[[], None]:
    """A deep chain or a wide sum of n steps over fresh leaves, then backward()."""
    Value = engine.Value

    def step() -> None:
        if kind == 'chain':
            y = Value(0.5)
            for _ in range(n):
                y = (y * 1.0001 + 0.0001).relu()
        else:
            rng = random.Random(n)
            y = sum(Value(rng.uniform(-1, 1)) * Value(rng.uniform(-1, 1)) for _ in range(n))
        y.backward()
    return step


def main() -> None:
    runner = pyperf.Runner(add_cmdline_args=lambda cmd, args: cmd.extend(['--ours', args.ours]))
    runner.argparser.add_argument('--ours', default=str(REPO), help='the checkout whose micrograd/ is timed')
    args = runner.parse_args()
    ours = Path(args.ours).resolve()
    if not (ours / 'micrograd' / 'engine.py').is_file():
        sys.exit(f"--ours {args.ours}: no micrograd/engine.py there")
    import_micrograd(ours, ours=True)
    engine = ScalarEngine('ours')
    runner.metadata['micrograd'] = str(ours.name)

    engine.moons_setup(*make_moons(), weights=make_weights())
    runner.bench_time_func('moons', loop(engine.moons_step))

    engine.gpt_setup(NAMES)
    runner.bench_time_func('scalar-gpt', loop(lambda: engine.gpt_steps(0)))  # one step (with a fresh Adam)
    for kind in ('chain', 'sum'):
        runner.bench_time_func('deep-chain' if kind == 'chain' else 'wide-sum', loop(graph(engine, kind)))


if __name__ == '__main__':
    main()
