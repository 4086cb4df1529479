"""One engine in one process: the bench's worker, asked for work in JSON lines by bench/run.py.

    python -I bench/worker.py ours|karpathy|microgpt CHECKOUT    (CHECKOUT: where "ours" comes from)

Each engine gets a fresh process, so none pays garbage-collector time for another's heap, and
Karpathy's package (also named `micrograd`) never meets ours. The collector keeps its default
settings; it is only watched, through gc.callbacks.
"""
from __future__ import annotations

import gc
import importlib.util
import json
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / 'bench'))  # -I leaves the script's folder off sys.path
import microgpt  # noqa: E402
import moons  # noqa: E402


def load_module(name: str, path: Path) -> ModuleType:
    """Import one file by path, without its package (microgpt's __init__ would import its agent framework)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


class Engine:
    """The tasks the bench asks of an engine; each method answers one request."""

    def __init__(self, name: str, checkout: str) -> None:
        self.name, self.checkout, self.watch = name, Path(checkout).resolve(), GCWatch()
        if name == 'microgpt':
            package = importlib.util.find_spec('strands_microgpt')
            if package is None or not package.submodule_search_locations:
                raise ImportError("strands-microgpt is not installed in this environment")
            self.microgpt = load_module('microgpt_engine', Path(package.submodule_search_locations[0], 'engine.py'))
            self.Value = self.microgpt.Value
            return
        if name == 'ours':
            sys.path.insert(0, str(self.checkout))  # the checkout's engine, whatever else is installed
        import micrograd
        from micrograd.engine import Value
        from micrograd.nn import MLP
        is_ours = Path(micrograd.__file__).resolve().parent == self.checkout / 'micrograd'
        if is_ours != (name == 'ours'):
            raise ImportError(f"the {name} worker imported the wrong micrograd: {micrograd.__file__}")
        self.Value, self.MLP = Value, MLP

    def timed(self, steps: int, step: Callable[[], Any]) -> dict[str, list[Any]]:
        """Run step() `steps` times: seconds and collector seconds of each, and what each returned."""
        out: dict[str, list[Any]] = {'seconds': [], 'gc_seconds': [], 'returned': []}
        for _ in range(steps):
            self.watch.seconds = 0.0
            t0 = time.perf_counter()
            returned = step()
            out['seconds'].append(time.perf_counter() - t0)
            out['gc_seconds'].append(self.watch.seconds)
            out['returned'].append(returned)
        return out

    # ---------------------------------------------------------------- the moons step (ours and Karpathy's)
    def moons_setup(self, X: list[list[float]], Y: list[float], weights: list[float]) -> None:
        self.X, self.Y, self.k = X, Y, 0
        self.model = self.MLP(moons.SIZES[0], moons.SIZES[1:])  # its random weights are replaced just below
        self.params = self.model.parameters()
        self.set_weights(weights)

    def set_weights(self, weights: list[float]) -> None:
        for p, w in zip(self.params, weights, strict=True):
            p.data = w

    def moons_loss(self) -> Any:
        return moons.loss(self.model, self.params, self.X, self.Y, self.Value)

    def moons_step(self) -> None:
        """Forward, zero_grad, backward, SGD; the graph is dropped (Karpathy's waits for the collector)."""
        loss = self.moons_loss()
        self.model.zero_grad()
        loss.backward()
        lr = moons.learning_rate(self.k)
        for p in self.params:
            p.data -= lr * p.grad
        self.k += 1

    def moons_steps(self, steps: int) -> dict[str, list[Any]]:
        return self.timed(steps, self.moons_step)

    def moons_check(self, weights: list[float] | None = None) -> dict[str, Any]:
        """The loss and every parameter's gradient at the given weights (or the current ones)."""
        if weights is not None:
            self.set_weights(weights)
        loss = self.moons_loss()
        self.model.zero_grad()
        loss.backward()
        return {'loss': loss.data, 'grads': [p.grad for p in self.params], 'weights': [p.data for p in self.params]}

    def moons_memory(self) -> dict[str, int]:
        """Bytes one step's graph holds while alive (tracemalloc), and how many Values the step made."""
        gc.collect()  # one explicit pass, so what we count is this graph and not earlier garbage
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            root = self.moons_loss()
            graph_bytes = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        seen, stack = {id(root)}, [root]  # every Value in the graph, found without recursion
        while stack:
            for parent in stack.pop()._prev:
                if id(parent) not in seen:
                    seen.add(id(parent))
                    stack.append(parent)
        del root
        gc.collect()
        return {'bytes': graph_bytes, 'nodes': len(seen) - len(self.params)}  # the parameters were there before

    # ---------------------------------------------------------------- deep chain and wide sum
    def chain(self, n: int, reps: int) -> dict[str, Any]:
        """y = relu(y*1.0001 + 0.0001), n times, then backward(): seconds per op (3 ops per step)."""
        per_op = []
        for _ in range(reps):
            x = y = self.Value(0.5)
            t0 = time.perf_counter()
            try:
                for _ in range(n):
                    y = (y * 1.0001 + 0.0001).relu()
                y.backward()
            except RecursionError:
                return {'error': 'RecursionError'}
            per_op.append((time.perf_counter() - t0) / (3 * n))
            del y
        return {'seconds': per_op, 'grads': [x.grad]}

    def wide(self, n: int, reps: int) -> dict[str, Any]:
        """sum() of n products w*x of leaves, then backward(): seconds per op (n products, n additions)."""
        rng, per_op = random.Random(n), []
        for _ in range(reps):
            ws = [self.Value(rng.uniform(-1, 1)) for _ in range(n)]
            xs = [self.Value(rng.uniform(-1, 1)) for _ in range(n)]
            t0 = time.perf_counter()
            try:
                s = sum(w * x for w, x in zip(ws, xs))
                s.backward()
            except RecursionError:
                return {'error': 'RecursionError'}
            per_op.append((time.perf_counter() - t0) / (2 * n))
            del s
        return {'seconds': per_op, 'grads': [ws[0].grad, xs[-1].grad]}

    # ---------------------------------------------------------------- the microgpt step
    def gpt_weights(self) -> dict[str, list[list[float]]]:
        """microgpt's own initial weights: its MicroGPT draws them with random.seed(42)."""
        model = self.microgpt.MicroGPT(**microgpt.CONFIG)
        return {name: [[p.data for p in row] for row in rows] for name, rows in model.state_dict.items()}

    def gpt_faithful(self, weights: dict[str, list[list[float]]]) -> bool:
        """Does bench/microgpt.py take the package's own first training step, bit for bit (loss and weights)?"""
        theirs = self.microgpt.MicroGPT(**microgpt.CONFIG)
        for name, rows in weights.items():
            for row, values in zip(theirs.state_dict[name], rows, strict=True):
                for p, w in zip(row, values, strict=True):
                    p.data = w
        tokenizer = self.microgpt.Tokenizer(microgpt.CHARS)
        their_loss = theirs.train_on_docs([microgpt.NAMES[0]], tokenizer, num_steps=1, log_every=0)
        copy = microgpt.MicroGPT(self.Value, weights)
        our_loss = copy.train_step(0, microgpt.tokens(0))
        return bool(their_loss == [our_loss] and [p.data for p in theirs.params] == [p.data for p in copy.params])

    def gpt_setup(self, weights: dict[str, list[list[float]]], style: str) -> None:
        """microgpt's code on this engine's Value ('plain'), or our example GPT with Value.dot ('idiomatic')."""
        self.k = 0
        if style == 'plain':
            model = microgpt.MicroGPT(self.Value, weights)
            self.gpt_step = lambda: model.train_step(self.k, microgpt.tokens(self.k))
            return
        # The model and the optimizer are this repository's, whichever checkout's engine is measured
        # (an older one may have neither); they need nothing of micrograd but its engine.
        example = REPO / 'examples' / 'gpt' / 'scalar_gpt.py'
        gpt = load_module('scalar_gpt', example).GPT(**microgpt.CONFIG)
        for name, rows in weights.items():
            mine = gpt.state_dict.get(name)
            if mine is None or [len(r) for r in mine] != [len(r) for r in rows]:
                raise ValueError(f"{example}: state_dict[{name!r}] is not laid out like microgpt's")
            for row, values in zip(mine, rows):
                for p, w in zip(row, values):
                    p.data = w
        Adam = load_module('micrograd_optim', REPO / 'micrograd' / 'optim.py').Adam
        optimizer = Adam(gpt.parameters(), lr=microgpt.LEARNING_RATE, betas=(0.85, 0.99), eps=1e-8)

        def step() -> float:  # loss, backward, Adam at microgpt's learning rate for this step, zero_grad
            loss = gpt.loss(microgpt.tokens(self.k))
            loss.backward()
            optimizer.lr = microgpt.lr_at(self.k)
            optimizer.step()
            optimizer.zero_grad()
            return float(loss.data)
        self.gpt_step = step

    def gpt_steps(self, steps: int) -> dict[str, list[Any]]:
        def step() -> float:  # one name, the next one each call
            loss = self.gpt_step()
            self.k += 1
            return loss
        return self.timed(steps, step)


def serve(engine: str, checkout: str) -> None:
    """Read one JSON request per line, run it, answer with one JSON line."""
    replies, sys.stdout = sys.stdout, sys.stderr  # a stray print must not garble the replies
    worker = Engine(engine, checkout)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {'ok': getattr(worker, request['task'])(**request['args'])}
        except Exception as e:  # reported by the bench, which knows what it asked for
            reply = {'error': f'{type(e).__name__}: {e}'}
        replies.write(json.dumps(reply) + '\n')
        replies.flush()


if __name__ == '__main__':
    serve(*sys.argv[1:3])
