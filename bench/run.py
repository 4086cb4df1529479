"""Speed and memory of micrograd beside Karpathy's micrograd 0.1.0, PyTorch and plain floats, in one run.

    python bench/run.py            # the full table: about 3 minutes on 2 cores
    python bench/run.py --quick    # a smoke run: under 30 seconds once the baseline is installed

Each engine runs in a fresh worker process of its own, so none pays garbage-collector time for
another's heap, and Karpathy's package (also named `micrograd`) never meets ours. The first run
installs micrograd==0.1.0 from the package index into bench/.baseline-venv (reused afterwards).
This process sends every worker the same data and the same weights, asks for the work in
interleaved rounds, and prints medians. A ratio compares figures taken in the same rounds.
The garbage collector keeps its default settings everywhere: we measure what a user gets.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from operator import mul
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
BASELINE = 'micrograd==0.1.0'
BASELINE_VENV = BENCH / '.baseline-venv'
SIZES = [2, 16, 16, 1]  # MLP(2, [16, 16, 1]), as in Karpathy's demo
SEED = 1337

# ================================================================ the data, the same for every engine


def make_moons(n: int = 100, noise: float = 0.1, seed: int = SEED) -> tuple[list[list[float]], list[float]]:
    """Two interleaving half circles with Gaussian noise, labels -1 and +1 (scikit-learn's recipe).

    Written out here so the benchmark needs nothing but Python, and every engine gets these
    very floats: JSON carries a float's shortest repr, which reads back exactly.
    """
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out
    X, Y = [], []
    for k in range(n_out):  # the upper moon, label -1
        t = math.pi * k / (n_out - 1)
        X.append([math.cos(t) + rng.gauss(0, noise), math.sin(t) + rng.gauss(0, noise)])
        Y.append(-1.0)
    for k in range(n_in):  # the lower moon, label +1
        t = math.pi * k / (n_in - 1)
        X.append([1 - math.cos(t) + rng.gauss(0, noise), 0.5 - math.sin(t) + rng.gauss(0, noise)])
        Y.append(1.0)
    return X, Y


def make_weights(sizes: Sequence[int], seed: int = SEED) -> list[float]:
    """Parameters in parameters() order (per neuron: its weights, then its bias 0), like both MLPs draw them."""
    rng = random.Random(seed)
    weights = []
    for nin, nout in zip(sizes, sizes[1:]):
        for _ in range(nout):
            weights += [rng.uniform(-1, 1) for _ in range(nin)] + [0.0]
    return weights


def neurons(sizes: Sequence[int], weights: Sequence[float]) -> list[list[tuple[list[Any], Any]]]:
    """The flat parameter list cut into layers of (weights, bias) per neuron."""
    layers, i = [], 0
    for nin, nout in zip(sizes, sizes[1:]):
        layer = []
        for _ in range(nout):
            layer.append((list(weights[i:i + nin]), weights[i + nin]))
            i += nin + 1
        layers.append(layer)
    return layers


# ================================================================ the worker side: one engine per process


class GCWatch:
    """Counts the garbage collector's passes per generation and the time they take. It only watches."""

    def __init__(self) -> None:
        self.counts, self.seconds, self._start = [0, 0, 0], 0.0, 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == 'start':
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start
            self.counts[info['generation']] += 1

    def reset(self) -> None:
        self.counts, self.seconds = [0, 0, 0], 0.0


def moons_loss(model: Callable[[list[Any]], Any], params: list[Any], X: list[list[float]], Y: list[float],
               lift: Callable[[float], Any]) -> Any:
    """Karpathy's demo loss: the SVM max-margin loss averaged, plus 1e-4 L2 on the parameters."""
    inputs = [[lift(a), lift(b)] for a, b in X]
    scores = [model(x) for x in inputs]
    losses = [(1 + -y * score).relu() for y, score in zip(Y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in params)
    return data_loss + reg_loss


def graph_nodes(root: Any) -> int:
    """How many distinct Values the graph of root holds, found without recursion."""
    seen, stack = {id(root)}, [root]
    while stack:
        for parent in stack.pop()._prev:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return len(seen)


class Engine:
    """A micrograd (ours or Karpathy's) in this process: the moons model and the tasks the bench asks for."""

    def __init__(self, kind: str) -> None:
        if kind == 'ours':
            sys.path.insert(0, str(REPO))  # the checkout's engine, whatever else is installed
        import micrograd
        from micrograd.engine import Value
        from micrograd.nn import MLP
        self.kind, self.Value, self.MLP = kind, Value, MLP
        self.where = os.path.dirname(micrograd.__file__)
        self.watch = GCWatch()

    def setup(self, X: list[list[float]], Y: list[float], weights: list[float]) -> dict[str, Any]:
        self.X, self.Y, self.k = X, Y, 0
        random.seed(SEED)
        self.model = self.MLP(SIZES[0], SIZES[1:])
        seeded = [float(p.data) for p in self.model.parameters()]
        self.params = self.model.parameters()
        self.set_weights(weights)
        return {'is_ours': Path(self.where).resolve() == REPO / 'micrograd', 'seeded_weights': seeded}

    def set_weights(self, weights: list[float]) -> None:
        for p, w in zip(self.params, weights, strict=True):
            p.data = w

    def loss(self) -> Any:
        return moons_loss(self.model, self.params, self.X, self.Y, self.Value)

    def update(self, lr: float) -> None:
        for p in self.params:
            p.data -= lr * p.grad

    def moons(self, steps: int) -> dict[str, list[float]]:
        """Training steps of Karpathy's demo, each timed in parts, with the GC passes it triggered."""
        out: dict[str, list[Any]] = {'forward': [], 'backward': [], 'step': [], 'cpu': [], 'gc_seconds': [],
                                     'gc_counts': []}
        for _ in range(steps):
            self.watch.reset()
            cpu = time.process_time()  # unlike the clock, not advanced while other programs have the CPU
            t0 = time.perf_counter()
            loss = self.loss()
            t1 = time.perf_counter()
            self.model.zero_grad()
            loss.backward()
            t2 = time.perf_counter()
            self.update(1.0 - 0.9 * (self.k % 100) / 100)  # the demo's learning-rate decay
            del loss  # the graph goes now (ours), or whenever the collector finds it (Karpathy's)
            t3 = time.perf_counter()
            out['cpu'].append(time.process_time() - cpu)
            self.k += 1
            out['forward'].append(t1 - t0)
            out['backward'].append(t2 - t1)
            out['step'].append(t3 - t0)
            out['gc_seconds'].append(self.watch.seconds)
            out['gc_counts'].append(list(self.watch.counts))
        return out

    def weights(self) -> list[float]:
        return [float(p.data) for p in self.params]

    def check(self, weights: list[float]) -> dict[str, Any]:
        """The loss and every parameter's gradient at the given weights."""
        self.set_weights(weights)
        loss = self.loss()
        self.model.zero_grad()
        loss.backward()
        return {'loss': loss.data, 'grads': [p.grad for p in self.params]}

    def memory(self, workload: str) -> dict[str, int]:
        """Bytes a graph holds (tracemalloc), how many nodes it has, and what stays when it is dropped.

        workload 'moons' is one step's graph, 'chain' the N=SMALL_CHAIN relu chain (the same nodes in both engines).
        """
        gc.collect()  # one explicit pass, so what we count is this graph and not earlier garbage
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            if workload == 'moons':
                root, kept = self.loss(), len(self.params)  # the parameters were there before the step
                self.model.zero_grad()
            else:
                root, kept = self.Value(0.5), 0
                for _ in range(SMALL_CHAIN):
                    root = (root * 1.0001 + 0.0001).relu()
            graph = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.reset_peak()
            root.backward()
            backward_peak = tracemalloc.get_traced_memory()[1] - before
            nodes = graph_nodes(root) - kept  # the Values this workload created
            del root
            left = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        gc.collect()
        return {'graph_bytes': graph, 'nodes': nodes, 'backward_peak': backward_peak, 'left_after_drop': left}

    def chain(self, n: int, op: str, reps: int) -> dict[str, Any]:
        """y = op(y*1.0001 + 0.0001), n times, then backward(): seconds per op (3 ops per step)."""
        forward, backward = [], []
        for _ in range(reps):
            x = y = self.Value(0.5)
            t0 = time.perf_counter()
            try:
                for _ in range(n):
                    y = getattr(y * 1.0001 + 0.0001, op)()
                t1 = time.perf_counter()
                y.backward()
            except RecursionError:
                return {'error': 'RecursionError'}
            t2 = time.perf_counter()
            grad = x.grad
            del y
            t3 = time.perf_counter()
            forward.append((t1 - t0) / (3 * n))
            backward.append((t2 - t1) / (3 * n))
        return {'forward': forward, 'backward': backward, 'grad': grad,  # and the totals of the last run:
                'forward_total': t1 - t0, 'backward_total': t2 - t1, 'drop_total': t3 - t2}

    def wide(self, n: int, reps: int) -> dict[str, Any]:
        """sum() of n products w*x of leaves, then backward(): seconds per op (n products, n additions)."""
        rng = random.Random(n)
        forward, backward = [], []
        for _ in range(reps):
            ws = [self.Value(rng.uniform(-1, 1)) for _ in range(n)]
            xs = [self.Value(rng.uniform(-1, 1)) for _ in range(n)]
            t0 = time.perf_counter()
            try:
                s = sum(w * x for w, x in zip(ws, xs))
                t1 = time.perf_counter()
                s.backward()
            except RecursionError:
                return {'error': 'RecursionError'}
            t2 = time.perf_counter()
            forward.append((t1 - t0) / (2 * n))
            backward.append((t2 - t1) / (2 * n))
        return {'forward': forward, 'backward': backward, 'grad': [ws[0].grad, xs[-1].grad]}



class TorchEngine(Engine):
    """The same MLP on PyTorch 0-d float64 tensors, one tensor per scalar, summed the way Karpathy's Neuron does."""

    def __init__(self, kind: str) -> None:
        import torch
        self.torch, self.watch = torch, GCWatch()

    def lift(self, x: float) -> Any:
        return self.torch.tensor(x, dtype=self.torch.float64)

    def setup(self, X: list[list[float]], Y: list[float], weights: list[float]) -> dict[str, Any]:
        self.X, self.Y, self.k = X, Y, 0
        self.params = [self.lift(w).requires_grad_() for w in weights]
        layers, params = neurons(SIZES, self.params), self.params

        class Model:
            def __call__(self, x: list[Any]) -> Any:
                for i, layer in enumerate(layers):
                    x = [sum((w * xi for w, xi in zip(ws, x)), b) for ws, b in layer]
                    if i < len(layers) - 1:
                        x = [a.relu() for a in x]
                return x[0]

            def zero_grad(self) -> None:
                for p in params:
                    p.grad = None
        self.model = Model()
        return {'version': self.torch.__version__}

    def set_weights(self, weights: list[float]) -> None:
        with self.torch.no_grad():
            for p, w in zip(self.params, weights, strict=True):
                p.fill_(w)

    def loss(self) -> Any:
        return moons_loss(self.model, self.params, self.X, self.Y, self.lift)

    def update(self, lr: float) -> None:
        with self.torch.no_grad():
            for p in self.params:
                p -= lr * p.grad

    def check(self, weights: list[float]) -> dict[str, Any]:
        self.set_weights(weights)
        loss = self.loss()
        self.model.zero_grad()
        loss.backward()
        return {'loss': loss.item(), 'grads': [p.grad.item() for p in self.params]}


class FloatsEngine:
    """The same forward pass and loss on plain floats: no graph at all, the floor for any autograd engine."""

    def __init__(self, kind: str) -> None:
        self.watch = GCWatch()

    def setup(self, X: list[list[float]], Y: list[float], weights: list[float]) -> dict[str, Any]:
        self.X, self.Y = X, Y
        self.set_weights(weights)
        return {}

    def set_weights(self, weights: list[float]) -> None:
        self.params, self.layers = weights, neurons(SIZES, weights)

    def loss(self) -> float:
        last = len(self.layers) - 1
        losses = []
        for x, y in zip(self.X, self.Y):
            for i, layer in enumerate(self.layers):
                x = [sum(map(mul, ws, x)) + b for ws, b in layer]
                if i < last:
                    x = [max(a, 0.0) for a in x]
            losses.append(max(1 + -y * x[0], 0.0))
        return sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in self.params)

    def moons(self, steps: int) -> dict[str, list[float]]:
        forward = []
        for _ in range(steps):
            t0 = time.perf_counter()
            self.loss()
            forward.append(time.perf_counter() - t0)
        return {'forward': forward}

    def check(self, weights: list[float]) -> dict[str, Any]:
        self.set_weights(weights)
        return {'loss': self.loss()}


def serve(kind: str) -> None:
    """The worker: read one JSON request per line, run it, answer with one JSON line."""
    replies, sys.stdout = sys.stdout, sys.stderr  # a stray print must not garble the replies
    engine = {'torch': TorchEngine, 'floats': FloatsEngine}.get(kind, Engine)(kind)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {'ok': getattr(engine, request['task'])(**request['args'])}
        except Exception as e:  # reported by the caller, which knows what it asked for
            reply = {'error': f'{type(e).__name__}: {e}'}
        replies.write(json.dumps(reply) + '\n')
        replies.flush()


# ================================================================ the conducting side


class Worker:
    """One engine in a process of its own, spoken to in JSON lines."""

    def __init__(self, name: str, python: str, kind: str) -> None:
        self.name = name
        # -I: neither the environment nor the current directory decides which `micrograd` is imported
        self.proc = subprocess.Popen([python, '-I', str(Path(__file__).resolve()), '--worker', kind],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, task: str, **args: Any) -> Any:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({'task': task, 'args': args}) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.name} worker died during {task!r} (its error is printed above)")
        reply = json.loads(line)
        if 'error' in reply:
            raise RuntimeError(f"{self.name} {task}: {reply['error']}")
        return reply['ok']

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def baseline_python() -> str | None:
    """The interpreter of a virtual environment holding Karpathy's micrograd 0.1.0, made on first use."""
    python = BASELINE_VENV / ('Scripts/python.exe' if os.name == 'nt' else 'bin/python')
    probe = [str(python), '-I', '-c', 'import importlib.metadata as m; print(m.version("micrograd"))']

    def installed() -> bool:
        return python.exists() and subprocess.run(probe, capture_output=True, text=True).stdout.strip() == '0.1.0'
    if not installed():
        print(f"installing {BASELINE} into {BASELINE_VENV.relative_to(REPO)} (first run only) ...", flush=True)
        try:
            subprocess.run([sys.executable, '-m', 'venv', '--clear', str(BASELINE_VENV)], check=True)
            subprocess.run([str(python), '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', BASELINE],
                           check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"  could not install the baseline ({e}); the table will lack it")
            return None
    return str(python) if installed() else None


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as f:
            cpu = next(line.split(':', 1)[1].strip() for line in f if line.startswith('model name'))
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"{platform.python_implementation()} {platform.python_version()}")


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def max_rel_diff(a: Sequence[float], b: Sequence[float]) -> float:
    """The largest |x - y| / max(|x|, |y|) over pairs; pairs that are equal count 0."""
    return max((abs(x - y) / max(abs(x), abs(y)) if x != y else 0.0) for x, y in zip(a, b, strict=True))


def seconds(t: float | None) -> str:
    if t is None:
        return '-'
    for unit, scale in (('s', 1), ('ms', 1e-3), ('µs', 1e-6), ('ns', 1e-9)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def size(b: float) -> str:
    return f"{b / 1e6:.1f} MB"


QUICK = dict(rounds=2, warmup=1, steps={'ours': 3, 'karpathy': 1, 'torch': 1, 'floats': 3},
             chain=10_000, wide=10_000, small_reps=3, million=False)
FULL = dict(rounds=5, warmup=2, steps={'ours': 10, 'karpathy': 2, 'torch': 1, 'floats': 10},
            chain=100_000, wide=100_000, small_reps=20, million=True)
SMALL_CHAIN, SMALL_WIDE = 300, 900  # deep enough to measure, shallow enough for Karpathy's recursive sort


def per_round(rounds: list[dict[str, Any]], key: str) -> list[float]:
    """The median of one measure in each round."""
    return [median(r[key]) for r in rounds]


def ratio(slow: list[float], fast: list[float]) -> float:
    """The median over rounds of slow/fast, each pair taken in the same round."""
    return median([s / f for s, f in zip(slow, fast)])


def rotated(names: list[str], r: int) -> list[str]:
    """Round r starts with a different engine, so none always runs on a machine just warmed (or just loaded)."""
    k = r % len(names)
    return names[k:] + names[:k]


def run(workers: dict[str, Worker], cfg: dict[str, Any], quick: bool) -> bool:
    """Every measurement, then the table; False if any check failed."""
    X, Y = make_moons()
    weights = make_weights(SIZES)
    info = {name: w('setup', X=X, Y=Y, weights=weights) for name, w in workers.items()}
    ok = True
    if not info['ours']['is_ours']:
        print("error: the 'ours' worker imported a micrograd from outside this checkout")
        return False
    base = 'karpathy' in workers
    if base and info['karpathy']['is_ours']:
        print("error: the baseline worker imported our micrograd instead of Karpathy's")
        return False

    # ---- correctness first: loss and every gradient at identical weights
    checks: list[tuple[str, float]] = []
    ours = workers['ours']('check', weights=weights)
    for name, label in (('karpathy', "Karpathy's micrograd"), ('torch', 'PyTorch')):
        if name in workers:
            other = workers[name]('check', weights=weights)
            checks.append((f"loss and {len(ours['grads'])} gradients vs {label}, initial weights",
                           max_rel_diff([ours['loss'], *ours['grads']], [other['loss'], *other['grads']])))
    checks.append(('loss vs plain floats, initial weights',
                   max_rel_diff([ours['loss']], [workers['floats']('check', weights=weights)['loss']])))

    # ---- the moons step, interleaved rounds of every engine
    names = list(workers)
    for name in names:
        workers[name]('moons', steps=cfg['warmup'])
    moons: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for r in range(cfg['rounds']):
        for name in rotated(names, r):
            moons[name].append(workers[name]('moons', steps=cfg['steps'][name]))
        print(f"  moons step, round {r + 1}/{cfg['rounds']} done", flush=True)

    # ---- deep chain and wide sum: both engines at a size Karpathy's recursive sort survives, ours also at full size
    pair = [n for n in ('ours', 'karpathy') if n in workers]
    small_chain: dict[str, list[dict[str, Any]]] = {n: [] for n in pair}
    small_wide: dict[str, list[dict[str, Any]]] = {n: [] for n in pair}
    big_chain, big_wide = [], []
    for r in range(cfg['rounds']):
        for name in rotated(pair, r):
            small_chain[name].append(workers[name]('chain', n=SMALL_CHAIN, op='relu', reps=cfg['small_reps']))
            small_wide[name].append(workers[name]('wide', n=SMALL_WIDE, reps=cfg['small_reps']))
        big_chain.append(workers['ours']('chain', n=cfg['chain'], op='tanh', reps=1))
        big_wide.append(workers['ours']('wide', n=cfg['wide'], reps=1))
    print("  deep chain and wide sum done", flush=True)
    if base:
        checks.append((f"deep chain N={SMALL_CHAIN} (relu): d y/d x vs Karpathy's",
                       max_rel_diff([small_chain['ours'][0]['grad']], [small_chain['karpathy'][0]['grad']])))
        checks.append((f"wide sum n={SMALL_WIDE}: two leaf gradients vs Karpathy's",
                       max_rel_diff(small_wide['ours'][0]['grad'], small_wide['karpathy'][0]['grad'])))
        base_big_chain = workers['karpathy']('chain', n=cfg['chain'], op='relu', reps=1)
        base_big_wide = workers['karpathy']('wide', n=cfg['wide'], reps=1)

    # ---- memory of the moons step's graph
    memory = {name: workers[name]('memory', workload='moons') for name in pair}
    chain_memory = {name: workers[name]('memory', workload='chain') for name in pair}
    print("  memory done", flush=True)

    # ---- a million
    million = {}
    if cfg['million']:
        for n in (333_334, 1_000_000):
            million[n] = workers['ours']('chain', n=n, op='tanh', reps=1)
        print("  million-op chains done", flush=True)

    # ---- correctness again, at the weights training reached
    if base:
        trained = workers['ours']('weights')
        ours = workers['ours']('check', weights=trained)
        other = workers['karpathy']('check', weights=trained)
        checks.append((f"loss and {len(ours['grads'])} gradients vs Karpathy's micrograd, trained weights",
                       max_rel_diff([ours['loss'], *ours['grads']], [other['loss'], *other['grads']])))

    # ================================================================ the table
    columns = ['ours', 'karpathy', 'ratio', 'torch', 'floats']
    heads = ['micrograd (this)', "Karpathy's 0.1.0", 'Karpathy / ours', 'PyTorch 0-d f64', 'plain floats']
    rows: list[list[str]] = []

    def row(label: str, **cells: str) -> None:
        rows.append([label] + [cells.get(c, '') for c in columns])

    def timed(label: str, key: str) -> None:
        cells = {name: seconds(median([t for r in moons[name] for t in r[key]]))
                 for name in names if key in moons[name][0]}
        if base:
            x = ratio(per_round(moons['karpathy'], key), per_round(moons['ours'], key))
            cells['ratio'] = f"{x:.1f}x"
        row(label, **cells)

    steps = {name: [s for r in moons[name] for s in r.get('step', [])] for name in names}
    row("moons step: 100 points, MLP(2, [16, 16, 1]), SVM loss + L2, per step")
    timed('  step: forward, zero_grad, backward, SGD', 'step')
    timed('  forward (plain floats: forward only)', 'forward')
    timed('  backward', 'backward')
    timed('  step, CPU time of the process (less disturbed by other load)', 'cpu')
    gc_cells, gc_time = {}, {}
    for name in names:
        if 'gc_counts' in moons[name][0]:
            counts = [c for r in moons[name] for c in r['gc_counts']]
            gc_cells[name] = '/'.join(f"{sum(c[g] for c in counts) / len(counts):.{1 if g else 0}f}" for g in range(3))
            spent = median([s for r in moons[name] for s in r['gc_seconds']])
            gc_time[name] = f"{seconds(spent)} ({spent / median(steps[name]):.0%})"
    row('  GC passes per step, generation 0/1/2', **gc_cells)
    row('  time in GC per step (share of the step)', **gc_time)
    node_cells = {name: f"{memory[name]['nodes']:,}" for name in pair}
    if base:
        node_cells['ratio'] = f"{memory['karpathy']['nodes'] / memory['ours']['nodes']:.1f}x"
    row('  graph nodes per step (Values created)', **node_cells)

    row("memory of the moons step's graph (tracemalloc)")
    for label, key in (('  bytes per node', None), ('  bytes for the whole graph', 'graph_bytes'),
                       ('  peak while backward() runs', 'backward_peak'),
                       ('  still held just after the graph is dropped', 'left_after_drop')):
        value = {name: (memory[name]['graph_bytes'] / memory[name]['nodes'] if key is None else memory[name][key])
                 for name in pair}
        cells = {name: f"{value[name]:,.0f} B" if key is None else size(value[name]) for name in pair}
        if base and key != 'left_after_drop':
            cells['ratio'] = f"{value['karpathy'] / value['ours']:.1f}x"
        row(label, **cells)
    value = {name: chain_memory[name]['graph_bytes'] / chain_memory[name]['nodes'] for name in pair}
    cells = {name: f"{value[name]:,.0f} B" for name in pair}
    if base:
        cells['ratio'] = f"{value['karpathy'] / value['ours']:.1f}x"
    row(f"  bytes per node, deep chain N={SMALL_CHAIN} (* + relu: the same nodes)", **cells)

    def per_op(label: str, small: dict[str, list[dict[str, Any]]], big: list[dict[str, Any]], base_big: Any,
               n_big: int) -> None:
        for part in ('forward', 'backward'):
            cells = {name: seconds(median([t for r in small[name] for t in r[part]])) for name in pair}
            if base:
                cells['ratio'] = f"{ratio(per_round(small['karpathy'], part), per_round(small['ours'], part)):.1f}x"
            row(f"  {label[0]}, {part} per op", **cells)
        for part in ('forward', 'backward'):
            cells = {'ours': seconds(median([t for r in big for t in r[part]]))}
            if base:
                cells['karpathy'] = base_big.get('error', '?') if isinstance(base_big, dict) else '?'
            row(f"  {label[1]}, {part} per op", **cells)

    row("deep chain: y = f(y*1.0001 + 0.0001) N times, then backward(); 3 ops per step")
    per_op((f"N={SMALL_CHAIN:,}, f=relu", f"N={cfg['chain']:,}, f=tanh (Karpathy's: relu)"), small_chain, big_chain,
           base_big_chain if base else None, cfg['chain'])
    for n, result in million.items():
        for part in ('forward', 'backward', 'drop'):
            row(f"  N={n:,} ({3 * n:,} ops), f=tanh: {part}, total", ours=seconds(result[f'{part}_total']))
    row("wide sum: sum(w*x for n pairs of leaves), then backward(); 2n ops")
    per_op((f"n={SMALL_WIDE:,}", f"n={cfg['wide']:,}"), small_wide, big_wide, base_big_wide if base else None,
           cfg['wide'])

    table = [r for r in rows if any(r[1:])] + [[''] + heads]  # section titles span the line
    widths = [max(len(r[i]) for r in table) for i in range(len(columns) + 1)]
    present = [0] + [i + 1 for i, c in enumerate(columns) if any(r[i + 1] for r in rows)]
    line = '  '.join(('{:<%d}' if i == 0 else '{:>%d}') % widths[i] for i in present)
    print()
    print(line.format(*[([''] + heads)[i] for i in present]))
    print(line.format(*['-' * widths[i] for i in present]))
    for r in rows:
        print(line.format(*[r[i] for i in present]) if any(r[1:]) else r[0])

    print()
    for label, diff in checks:
        good = diff <= 1e-12
        ok &= good
        print(f"{'ok  ' if good else 'FAIL'} {label}: max relative difference {diff:.1e} (limit 1e-12)")
    if base:
        same = info['ours']['seeded_weights'] == info['karpathy']['seeded_weights']
        print(f"{'ok  ' if same else 'note'} random.seed({SEED}); MLP(2, [16, 16, 1]) draws the same weights in both"
              f" engines{'' if same else ': NOT the same (the benchmark copies weights across anyway)'}")

    # ================================================================ the summary
    print()
    parts = []
    if base:
        x = ratio(per_round(moons['karpathy'], 'step'), per_round(moons['ours'], 'step'))
        cpu = ratio(per_round(moons['karpathy'], 'cpu'), per_round(moons['ours'], 'cpu'))
        parts.append(f"moons step {x:.0f}x faster than Karpathy's micrograd ({seconds(median(steps['ours']))} "
                     f"vs {seconds(median(steps['karpathy']))}; {cpu:.0f}x in CPU time)")
        m, k = memory['ours'], memory['karpathy']
        mc, kc = chain_memory['ours'], chain_memory['karpathy']
        parts.append(f"memory {k['graph_bytes'] / m['graph_bytes']:.1f}x less per step graph, "
                     f"{k['graph_bytes'] / k['nodes'] / (m['graph_bytes'] / m['nodes']):.1f}x less per node "
                     f"({kc['graph_bytes'] / kc['nodes'] / (mc['graph_bytes'] / mc['nodes']):.1f}x on identical nodes)")
    else:
        parts.append(f"moons step {seconds(median(steps['ours']))} (no baseline)")
    if million:
        parts.append(f"1,000,000-step chain (3,000,000 ops): backward {seconds(million[1_000_000]['backward_total'])}"
                     f", 1,000,002-op chain: {seconds(million[333_334]['backward_total'])}")
    parts.append('gradients agree' if ok else 'CHECKS FAILED')
    print(('quick smoke run: ' if quick else 'summary: ') + '; '.join(parts) + '.')
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run with smaller sizes, under 30 seconds')
    parser.add_argument('--no-torch', action='store_true', help='leave PyTorch out even if it is installed')
    parser.add_argument('--worker', help=argparse.SUPPRESS)  # how this script starts its own workers
    args = parser.parse_args()
    if args.worker:
        serve(args.worker)
        return 0

    started = time.perf_counter()
    cfg = QUICK if args.quick else FULL
    base = baseline_python()
    print(f"machine: {machine()}")
    print(f"garbage collector: default settings, thresholds {gc.get_threshold()}, never changed")
    print(f"each figure: median of {cfg['rounds']} interleaved rounds, every engine in its own process; "
          "a ratio is the median over rounds of Karpathy's figure / ours from the same round")
    workers = {'ours': Worker('ours', sys.executable, 'ours')}
    if base:
        workers['karpathy'] = Worker('karpathy', base, 'karpathy')
    if not args.no_torch and importlib.util.find_spec('torch'):
        workers['torch'] = Worker('torch', sys.executable, 'torch')
    workers['floats'] = Worker('floats', sys.executable, 'floats')
    try:
        ok = run(workers, cfg, args.quick)
    finally:
        for w in workers.values():
            w.close()
    print(f"(the benchmark took {time.perf_counter() - started:.0f} s)")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
