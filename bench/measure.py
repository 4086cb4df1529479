"""How each workload is measured on one Python: workers, interleaved rounds, medians, ratios, checks.

A round asks every engine for the same work, starting with a different engine each round, so a
machine that speeds up or slows down touches all of them alike. A cell is the median of all
samples; a ratio is the median over rounds of peer / ours, both taken in the same round.
"""
from __future__ import annotations

import json
import statistics
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import moons

WORKER = str(Path(__file__).resolve().with_name('worker.py'))


@dataclass
class Config:
    rounds: int  # interleaved rounds per workload
    steps: dict[str, int]  # training steps per engine per round; round 0, the same size, is a warm-up
    small: tuple[int, int]  # deep chain N and wide sum n that Karpathy's recursive sort survives
    large: int  # deep chain N and wide sum n for ours
    reps: int  # repeats per round of the small chain and sum


@dataclass
class Result:
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # workload, ours, peer, ratio
    checks: list[tuple[bool, str]] = field(default_factory=list)  # passed?, what was checked and by how much


class Worker:
    """One engine in a process of its own, spoken to in JSON lines (see worker.py)."""

    def __init__(self, python: str, engine: str, checkout: str) -> None:
        self.engine = engine
        # -I: neither the environment nor the current folder decides which `micrograd` is imported
        self.proc = subprocess.Popen([python, '-I', WORKER, engine, checkout],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, task: str, **args: Any) -> Any:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({'task': task, 'args': args}) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.engine} worker died during {task!r} (its error is printed above)")
        reply = json.loads(line)
        if 'error' in reply:
            raise RuntimeError(f"{self.engine} worker, {task}: {reply['error']}")
        return reply['ok']

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def interleaved(workers: dict[str, Worker], rounds: int, ask: Callable[[str, Worker], Any]) -> dict[str, list[Any]]:
    """ask(name, worker) for every worker, `rounds` times; round r starts with a different worker."""
    names, results = list(workers), {name: list[Any]() for name in workers}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            results[name].append(ask(name, workers[name]))
    return results


def median_of(rounds: list[dict[str, Any]], key: str = 'seconds') -> float:
    return statistics.median([float(x) for r in rounds for x in r[key]])


def ratio(peer: list[dict[str, Any]], ours: list[dict[str, Any]]) -> float:
    """The median over rounds of peer / ours, each pair from the same round."""
    return statistics.median([median_of([p]) / median_of([o]) for p, o in zip(peer, ours)])


def faster(x: float) -> str:
    return f"{x:.3g}x faster" if x >= 1 else f"{1 / x:.3g}x slower"


def seconds(t: float) -> str:
    for unit, scale in (('s', 1.0), ('ms', 1e-3), ('µs', 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def step_cell(rounds: list[dict[str, Any]]) -> str:
    """Median seconds per step, and the share of it the garbage collector took."""
    spent = median_of(rounds)
    return f"{seconds(spent)} (GC {median_of(rounds, 'gc_seconds') / spent:.0%})"


def max_rel_diff(a: list[float], b: list[float]) -> float:
    """The largest |x - y| / max(|x|, |y|) over pairs; pairs that are equal count 0."""
    return max((abs(x - y) / max(abs(x), abs(y)) if x != y else 0.0) for x, y in zip(a, b, strict=True))


def check(result: Result, what: str, a: list[float], b: list[float], limit: float) -> None:
    diff = max_rel_diff(a, b)
    result.checks.append((diff <= limit, f"{what}: max relative difference {diff:.1e} (limit {limit:g})"))


def moons_step(python: str, checkout: str, cfg: Config, result: Result) -> None:
    """Karpathy's demo step, ours vs his micrograd 0.1.0; then the memory of one step's graph."""
    X, Y = moons.make_moons()
    weights = moons.make_weights()
    workers = {'ours': Worker(python, 'ours', checkout), 'karpathy': Worker(python, 'karpathy', checkout)}
    try:
        for w in workers.values():
            w('moons_setup', X=X, Y=Y, weights=weights)
        first = {name: w('moons_check') for name, w in workers.items()}
        ours, theirs = first['ours'], first['karpathy']
        check(result, f"moons: loss and {len(weights)} gradients vs Karpathy's, initial weights",
              [ours['loss'], *ours['grads']], [theirs['loss'], *theirs['grads']], 1e-12)
        steps = interleaved(workers, cfg.rounds + 1, lambda name, w: w('moons_steps', steps=cfg.steps[name]))
        ours, theirs = steps['ours'][1:], steps['karpathy'][1:]  # round 0 was the warm-up
        result.rows.append(("moons step vs Karpathy's micrograd 0.1.0", step_cell(ours), step_cell(theirs),
                            faster(ratio(theirs, ours))))
        trained = workers['ours']('moons_check')  # at the weights our training reached
        other = workers['karpathy']('moons_check', weights=trained['weights'])
        check(result, "moons: loss and gradients vs Karpathy's, trained weights",
              [trained['loss'], *trained['grads']], [other['loss'], *other['grads']], 1e-12)
        memory = {name: w('moons_memory') for name, w in workers.items()}
        mb = {name: f"{m['bytes'] / 1e6:.1f} MB, {m['nodes']:,} nodes" for name, m in memory.items()}
        result.rows.append(("memory of the moons step's graph vs Karpathy's", mb['ours'], mb['karpathy'],
                            f"{memory['karpathy']['bytes'] / memory['ours']['bytes']:.3g}x less"))
    finally:
        for w in workers.values():
            w.close()


def microgpt_step(python: str, checkout: str, cfg: Config, result: Result) -> None:
    """microgpt's training step on microgpt's Value, on ours in microgpt's code, and in our example's code."""
    workers = {'microgpt': Worker(python, 'microgpt', checkout), 'plain': Worker(python, 'ours', checkout),
               'idiomatic': Worker(python, 'ours', checkout)}
    try:
        weights = workers['microgpt']('gpt_weights')  # microgpt's own initial weights, sent to every engine
        result.checks.append((workers['microgpt']('gpt_faithful', weights=weights),
                              "microgpt: bench/microgpt.py takes the package's own first step, bit for bit"))
        for style in ('microgpt', 'plain'):
            workers[style]('gpt_setup', weights=weights, style='plain')
        workers['idiomatic']('gpt_setup', weights=weights, style='idiomatic')
        steps = interleaved(workers, cfg.rounds + 1, lambda name, w: w('gpt_steps', steps=cfg.steps['gpt']))
        theirs = steps.pop('microgpt')
        labels = {'plain': "microgpt step, microgpt's code on our Value vs on microgpt's",
                  'idiomatic': "microgpt step, our scalar GPT (Value.dot) vs microgpt's"}
        for style, ours in steps.items():  # round 0 was the warm-up: timed apart, losses checked
            result.rows.append((labels[style], step_cell(ours[1:]), step_cell(theirs[1:]),
                                faster(ratio(theirs[1:], ours[1:]))))
            losses, their_losses = ([x for r in rounds for x in r['returned']] for rounds in (ours, theirs))
            check(result, f"microgpt, {style} style: the loss at each of {len(losses)} steps vs microgpt's",
                  losses, their_losses, 1e-9)
    finally:
        for w in workers.values():
            w.close()


def chain_and_sum(python: str, checkout: str, cfg: Config, result: Result) -> None:
    """Deep chain and wide sum per op: both engines where Karpathy's recursive sort survives, then ours large."""
    workers = {'ours': Worker(python, 'ours', checkout), 'karpathy': Worker(python, 'karpathy', checkout)}
    try:
        for task, n, what in (('chain', cfg.small[0], 'deep chain, N'), ('wide', cfg.small[1], 'wide sum, n')):
            small = interleaved(workers, cfg.rounds, lambda name, w: w(task, n=n, reps=cfg.reps))
            result.rows.append((f"{what}={n:,}, per op, vs Karpathy's", seconds(median_of(small['ours'])),
                                seconds(median_of(small['karpathy'])), faster(ratio(small['karpathy'], small['ours']))))
            check(result, f"{what}={n:,}: gradients vs Karpathy's", small['ours'][0]['grads'],
                  small['karpathy'][0]['grads'], 1e-12)
            large = [workers['ours'](task, n=cfg.large, reps=1) for _ in range(cfg.rounds)]
            theirs = workers['karpathy'](task, n=cfg.large, reps=1)  # once: it is expected to stop
            result.rows.append((f"{what}={cfg.large:,}, per op, vs Karpathy's", seconds(median_of(large)),
                                theirs.get('error') or seconds(median_of([theirs])), ''))
    finally:
        for w in workers.values():
            w.close()


WORKLOADS = [moons_step, microgpt_step, chain_and_sum]
