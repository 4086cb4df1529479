"""The scalar workloads, each run by a worker (worker.py) on one engine, peers on their own code: Karpathy's demo
loop on the two moons (each engine's own MLP, and the lecture's MLP in plain + and *) and its graph's memory,
microgpt's own train_on_docs, our scalar GPT taking its very steps, a deep chain and a wide sum (bench/README.md
says what each measures). The moons data and weights are made here, by the driver, and sent to every engine as
JSON (a float's shortest repr reads back exactly). The worker imports the right micrograd before this.
"""
from __future__ import annotations

import gc
import importlib.util
import math
import random
import time
import tracemalloc
from pathlib import Path
from types import ModuleType
from typing import Any

from timing import GCWatch, timed

SIZES = [2, 16, 16, 1]  # MLP(2, [16, 16, 1]), as in Karpathy's demo
SEED = 1337
GPT_EXAMPLE = Path(__file__).resolve().parent.parent / 'examples' / 'gpt'


def make_moons(n: int = 100, noise: float = 0.1, seed: int = SEED) -> tuple[list[list[float]], list[float]]:
    """Two interleaving half circles with Gaussian noise, labels -1 and +1 (scikit-learn's recipe, without it)."""
    rng, X, Y = random.Random(seed), [], []
    for label, n_moon in ((-1.0, n // 2), (1.0, n - n // 2)):
        for k in range(n_moon):
            t = math.pi * k / max(n_moon - 1, 1)
            x, y = (math.cos(t), math.sin(t)) if label < 0 else (1 - math.cos(t), 0.5 - math.sin(t))
            X.append([x + rng.gauss(0, noise), y + rng.gauss(0, noise)])
            Y.append(label)
    return X, Y


def make_weights(seed: int = SEED) -> list[float]:
    """Parameters in parameters() order (per neuron: its weights, then its bias 0), as both MLPs lay them out."""
    rng, weights = random.Random(seed), []
    for nin, nout in zip(SIZES, SIZES[1:]):
        for _ in range(nout):
            weights += [rng.uniform(-1, 1) for _ in range(nin)] + [0.0]
    return weights


class LectureMLP:
    """Karpathy's nn.MLP (ReLU layers, a linear output) over any Value class, each neuron as his nn.Neuron sums
    it, in plain + and *: sum((wi*xi for wi, xi in zip(w, x)), b), then relu. The lecture's plain-op path."""

    def __init__(self, Value: Any, nin: int, nouts: list[int]) -> None:
        sizes = [nin] + nouts
        self.layers = [[([Value(0.0) for _ in range(n_in)], Value(0.0)) for _ in range(n_out)]
                       for n_in, n_out in zip(sizes, sizes[1:])]

    def __call__(self, x: list[Any]) -> Any:
        for i, layer in enumerate(self.layers):
            out = [sum((wi * xi for wi, xi in zip(w, x)), b) for w, b in layer]
            out = [act.relu() for act in out] if i < len(self.layers) - 1 else out
            x = out[0] if len(out) == 1 else out
        return x

    def parameters(self) -> list[Any]:
        return [p for layer in self.layers for w, b in layer for p in (*w, b)]

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = 0


def microgpt_engine() -> ModuleType:
    """microgpt's engine.py, a fresh module each call (its package's __init__ would import an agent framework)."""
    spec = importlib.util.find_spec('strands_microgpt')
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("strands-microgpt is not installed in this environment")
    return load_module('microgpt_engine', Path(spec.submodule_search_locations[0], 'engine.py'))


def load_module(name: str, path: Path) -> ModuleType:
    """Import one file by path, without its package (microgpt's __init__ imports an agent framework)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ScalarEngine:
    """The tasks the driver asks of one scalar engine (kind: ours, karpathy or microgpt)."""

    def __init__(self, kind: str, watch: GCWatch | None = None) -> None:
        self.kind, self.k, self.watch = kind, 0, watch or GCWatch()  # an unstarted watch reads 0 GC seconds
        if kind == 'microgpt':
            self.Value, self.MLP = microgpt_engine().Value, None  # microgpt has no nn: the lecture's path only
        else:  # the worker imported the right micrograd already
            from micrograd.engine import Value
            from micrograd.nn import MLP
            self.Value, self.MLP = Value, MLP

    # ---------------------------------------------------------------- Karpathy's demo (demo.ipynb)
    def moons_setup(self, X: list[list[float]], Y: list[float], weights: list[float], path: str = 'nn') -> None:
        """path 'nn': the engine's own MLP; 'lecture': LectureMLP over the engine's Value."""
        self.X, self.Y = X, Y
        # random weights, replaced just below
        self.model = self.MLP(SIZES[0], SIZES[1:]) if path == 'nn' else LectureMLP(self.Value, SIZES[0], SIZES[1:])
        self.set_weights(weights)

    def set_weights(self, weights: list[float]) -> None:
        for p, w in zip(self.model.parameters(), weights, strict=True):
            p.data = w

    def loss(self) -> tuple[Any, float]:
        """The demo's loss(): SVM max-margin loss, 1e-4 L2 regularization, and the accuracy."""
        inputs = [list(map(self.Value, xrow)) for xrow in self.X]
        scores = list(map(self.model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(self.Y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        alpha = 1e-4
        reg_loss = alpha * sum(p * p for p in self.model.parameters())
        total_loss = data_loss + reg_loss
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(self.Y, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    def moons_step(self) -> float:
        """One pass of the demo's optimization loop (its k counts 0..99; here it wraps around)."""
        total_loss, acc = self.loss()
        self.model.zero_grad()
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * (self.k % 100) / 100
        for p in self.model.parameters():
            p.data -= learning_rate * p.grad
        self.k += 1
        return float(total_loss.data)

    def moons_steps(self, steps: int) -> dict[str, list[Any]]:
        return timed(steps, self.moons_step, self.watch)

    def moons_grads(self, weights: list[float] | None = None) -> dict[str, Any]:
        """The loss and every parameter's gradient ('values') at the given weights (or the current ones)."""
        if weights is not None:
            self.set_weights(weights)
        total_loss, _ = self.loss()
        self.model.zero_grad()
        total_loss.backward()
        params = self.model.parameters()
        return {'values': [total_loss.data, *(p.grad for p in params)], 'weights': [p.data for p in params]}

    def moons_memory(self) -> dict[str, int]:
        """Bytes one step's graph holds while alive (tracemalloc), and how many Values the step made."""
        gc.collect()  # one explicit pass, so what is counted is this graph and not earlier garbage
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            root, _ = self.loss()
            graph_bytes = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        seen, stack = {id(root)}, [root]  # every Value of the graph, found without recursion
        while stack:
            for parent in stack.pop()._prev:
                if id(parent) not in seen:
                    seen.add(id(parent))
                    stack.append(parent)
        return {'bytes': graph_bytes, 'nodes': len(seen) - len(self.model.parameters())}

    # ---------------------------------------------------------------- microgpt's own loop
    def microgpt_setup(self, docs: list[str]) -> None:
        self.mg = microgpt_engine()
        if self.kind == 'ours':  # every Value the module makes from here on (weights, ops) is ours
            self.mg.Value = self.Value
        self.docs, self.tokenizer = list(docs), self.mg.Tokenizer.from_docs(docs)
        self.gpt = self.mg.MicroGPT(vocab_size=self.tokenizer.vocab_size)  # random.seed(42): microgpt's weights

    def microgpt_steps(self, steps: int) -> dict[str, list[Any]]:
        """train_on_docs(docs, num_steps=steps + 1), timed step by step through its callback; the first
        step of a call is left out of the times (no earlier step's graph is alive yet, see README)."""
        marks = [(time.perf_counter(), self.watch.seconds)]

        def mark(step: int, loss: float) -> None:
            marks.append((time.perf_counter(), self.watch.seconds))
        losses = self.gpt.train_on_docs(self.docs, self.tokenizer, num_steps=steps + 1, log_every=0, callback=mark)
        return {'seconds': [b[0] - a[0] for a, b in zip(marks[1:], marks[2:])],
                'gc_seconds': [b[1] - a[1] for a, b in zip(marks[1:], marks[2:])], 'returned': losses}

    def microgpt_calls(self, steps: int) -> dict[str, list[Any]]:
        """train_on_docs([doc], num_steps=1) `steps` times, each with the next doc: one step per call."""
        def step() -> float:
            self.k += 1
            return float(self.gpt.train_on_docs([self.docs[self.k % len(self.docs)]], self.tokenizer,
                                                num_steps=1, log_every=0)[0])
        return timed(steps, step, self.watch)

    # ---------------------------------------------------------------- our scalar GPT, microgpt's steps
    def gpt_setup(self, docs: list[str]) -> None:
        # this checkout's model, Adam and learning rate, whichever checkout's engine runs them (compare.py --ours)
        scalar_gpt, self.schedule = (load_module(name, GPT_EXAMPLE / f'{name}.py') for name in ('scalar_gpt',
                                                                                                 'schedule'))
        self.docs, self.chars = list(docs), sorted(set(''.join(docs)))  # microgpt's Tokenizer.from_docs
        self.gpt = scalar_gpt.GPT(len(self.chars) + 1, seed=42)  # microgpt's config, seed and weights

    def gpt_steps(self, steps: int) -> dict[str, list[Any]]:
        """What microgpt_steps(steps) does, on our GPT: train_on_docs's shuffle, fresh Adam, schedule."""
        random.seed(42)
        random.shuffle(self.docs)
        optimizer = self.schedule.adam(self.gpt, 0.01)
        bos, step_of_call = len(self.chars), iter(range(steps + 1))

        def step() -> float:
            k = next(step_of_call)
            tokens = [bos] + [self.chars.index(ch) for ch in self.docs[k % len(self.docs)]] + [bos]
            loss = self.gpt.loss(tokens)
            loss.backward()
            optimizer.lr = self.schedule.decayed_lr(0.01, k, steps + 1)
            optimizer.step()
            optimizer.zero_grad()
            return float(loss.data)
        out = timed(steps + 1, step, self.watch)
        return {'seconds': out['seconds'][1:], 'gc_seconds': out['gc_seconds'][1:], 'returned': out['returned']}

    # ---------------------------------------------------------------- graphs of one shape (compare.py)
    def chain_steps(self, steps: int, n: int = 1000) -> dict[str, list[Any]]:
        """y = relu(y * 1.0001 + 0.0001), n times from y = 0.5, then backward(): a deep chain, `steps` times."""
        Value = self.Value

        def step() -> float:
            y = Value(0.5)
            for _ in range(n):
                y = (y * 1.0001 + 0.0001).relu()
            y.backward()
            return float(y.data)
        return timed(steps, step, self.watch)

    def sum_steps(self, steps: int, n: int = 1000) -> dict[str, list[Any]]:
        """sum(w * x) over n pairs of fresh leaves, then backward(): a wide sum, `steps` times."""
        Value = self.Value

        def step() -> float:
            rng = random.Random(n)
            y = sum(Value(rng.uniform(-1, 1)) * Value(rng.uniform(-1, 1)) for _ in range(n))
            y.backward()
            return float(y.data)
        return timed(steps, step, self.watch)
