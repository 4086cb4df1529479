"""Threads, against PyTorch: a graph built and differentiated in one thread sees nothing of another's.

The programs of changes in place (a += b while recording, a view changed, x += x) are those whose backward
passes a gradient to a tensor as it was before the change: what backward() is reading then is per thread. Each
runs in three threads at once, started together by a barrier, again and again for a bounded time, with Python
switching threads as often as it can; every run must give PyTorch's gradients. Then the check that lists the
tensor engine's state shared by the whole process: its module globals and class attributes, each immutable,
or named here with the reason it may be shared, and a run of every program changes only the version clock.
"""
from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import pkgutil
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.tensor import Tensor, no_grad
from tests.conftest import TORCH_SKIP_REASON

try:
    import torch
except ImportError:
    torch = None

pytestmark = [pytest.mark.skipif(torch is None, reason=TORCH_SKIP_REASON),
              pytest.mark.usefixtures('torch_in_float64')]

THREADS = 3
SECONDS = 0.6  # each sweep's time; the issue's program went wrong within a second or two before the fix


def _tensor(lib: str, values: Any, grad: bool = False) -> Any:
    if lib == 'torch':
        return torch.tensor(values, requires_grad=grad)
    if lib == 'shared':  # the leaves themselves, shared by every thread's graph
        assert isinstance(values, Tensor)
        return values
    return Tensor(values, requires_grad=grad)


def _grads(*tensors: Any) -> list[np.ndarray]:
    return [t.grad.numpy() if torch is not None and isinstance(t, torch.Tensor) else t.grad for t in tensors]


# Each program takes the engine and its arrays, and returns its leaves' gradients.

def _the_issues(lib: str, w: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    wt, bt = _tensor(lib, w, True), _tensor(lib, b, True)
    a = wt * 1.
    y = a * 3.
    a += bt  # y took a as it was: its gradient goes to that a
    (y.sum() + a.sum()).backward()
    return _grads(wt, bt)


def _plus_itself(lib: str, w: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    wt = _tensor(lib, w, True)
    a = wt * 1.
    a += a
    (a * a).sum().backward()
    return _grads(wt)


def _sum_then_changed(lib: str, w: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    wt, bt = _tensor(lib, w, True), _tensor(lib, b, True)
    a = wt * 2.
    s = a.sum()
    a *= bt  # s took a as it was
    (s + a.sum()).backward()
    return _grads(wt, bt)


def _slice_changed(lib: str, w: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    wt, bt = _tensor(lib, w, True), _tensor(lib, b, True)
    t = wt * 1.
    u = t * 2.
    t[1:] += bt[1:]  # t's history: its old self with the rows [1:] replaced
    ((t * t).sum() + u.sum()).backward()  # u's gradient goes to t as it was
    return _grads(wt, bt)


def _row_then_base_changed(lib: str, w: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    wt = _tensor(lib, w, True)
    a = wt * 1.
    y = a[0]  # a view: it follows a
    z = y * 1.  # z took y as it was
    a *= 3.
    (y + z).sum().backward()
    return _grads(wt)


def _reshape_changed(lib: str, w: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    wt, bt = _tensor(lib, w, True), _tensor(lib, b, True)
    y = wt * 2.
    r = y.reshape(-1)
    r += bt.reshape(-1)  # y's values change, and so does its history
    (y * y).sum().backward()
    return _grads(wt, bt)


def _exp_then_doubled(lib: str, w: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    wt = _tensor(lib, w, True)
    a = wt * 0.01
    e = a.exp()  # exp's gradient reads its output, not a
    a *= 2.
    (e.sum() + a.sum()).backward()
    return _grads(wt)


PROGRAMS: dict[str, Callable[[str, np.ndarray, np.ndarray], list[np.ndarray]]] = {
    'a = w * 1; y = a * 3; a += b': _the_issues,
    'a += a': _plus_itself,
    's = a.sum(); a *= b': _sum_then_changed,
    't[1:] += b[1:]': _slice_changed,
    'y = a[0]; z = y * 1; a *= 3': _row_then_base_changed,
    'r = y.reshape(-1); r += b': _reshape_changed,
    'e = a.exp(); a *= 2': _exp_then_doubled,
}


@contextlib.contextmanager
def _switching_often() -> Iterator[None]:
    """Python switches threads as often as it can (every 5 microseconds, not 5 milliseconds)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(5e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def _run_in_threads(work: Callable[[int], None]) -> None:
    """work(0), ..., work(THREADS - 1), each in a thread of its own, all at once, switching often."""
    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    with _switching_often():
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def _in_threads(programs: list[str], shape: tuple[int, ...], seconds: float) -> list[str]:
    """Every thread runs the programs in turn (each from its own place in the list) until the time is up, and
    compares every run's gradients with PyTorch's. Returns what went wrong."""
    rng = np.random.default_rng(0)
    w, b = rng.normal(size=shape), rng.normal(size=shape)
    expected = {name: PROGRAMS[name]('torch', w, b) for name in programs}
    start, wrong = threading.Barrier(THREADS), []

    def work(first: int) -> None:
        start.wait()
        deadline, runs = time.monotonic() + seconds, 0
        while time.monotonic() < deadline or runs < len(programs):
            name = programs[(first + runs) % len(programs)]
            runs += 1
            try:
                got = PROGRAMS[name]('ours', w, b)
            except Exception as e:  # noqa: BLE001  (a refusal where PyTorch computes is wrong too)
                wrong.append(f'{name}: {type(e).__name__}: {e}')
                continue
            for i, (g, want) in enumerate(zip(got, expected[name])):
                if not np.allclose(g, want, rtol=1e-12, atol=1e-12):
                    wrong.append(f'{name}: leaf {i}: {g.flat[0]} where PyTorch gives {want.flat[0]}')
    _run_in_threads(work)
    return wrong


def test_the_issues_program_in_three_threads_gives_pytorchs_gradients() -> None:
    wrong = _in_threads(['a = w * 1; y = a * 3; a += b'], (100, 100), SECONDS)
    assert not wrong, f'{len(wrong)} wrong runs, e.g. {wrong[:3]}'


def test_the_issues_numbers() -> None:
    w, b = np.full((300, 300), 0.5), np.ones((300, 300))
    assert [g[0, 0] for g in _the_issues('ours', w, b)] == [4.0, 1.0]  # y's 3 and a's 1 for w; a's 1 for b
    wrong = _in_threads(['a = w * 1; y = a * 3; a += b'], (300, 300), SECONDS)
    assert not wrong, wrong[:3]


@pytest.mark.parametrize('shape', [(2, 3), (60, 60)], ids=['small', 'large'])
def test_every_program_of_changes_in_place_and_views_in_threads_at_once_gives_pytorchs_gradients(
        shape: tuple[int, ...]) -> None:
    wrong = _in_threads(list(PROGRAMS), shape, SECONDS)
    assert not wrong, f'{len(wrong)} wrong runs, e.g. {wrong[:3]}'


@pytest.mark.parametrize('name', PROGRAMS)
def test_threads_differentiating_graphs_that_share_the_parameters_each_add_their_gradient(name: str) -> None:
    """Hogwild: every thread builds its own graph from the same leaves, and every run's gradient is added in, as
    PyTorch's are: after n runs in all, each leaf's .grad is n times one run's."""
    rng = np.random.default_rng(1)
    w, b = rng.normal(size=(100, 100)), rng.normal(size=(100, 100))
    once = PROGRAMS[name]('torch', w, b)
    leaves = [Tensor(w, requires_grad=True), Tensor(b, requires_grad=True)]
    runs, start = [0] * THREADS, threading.Barrier(THREADS)

    def work(i: int) -> None:
        start.wait()
        deadline = time.monotonic() + SECONDS / 3
        while time.monotonic() < deadline:
            PROGRAMS[name]('shared', *leaves)  # type: ignore[arg-type]
            runs[i] += 1
    _run_in_threads(work)
    for leaf, g in zip(leaves, once):
        np.testing.assert_allclose(leaf.grad, sum(runs) * g, rtol=1e-9, err_msg=f'{name}, {sum(runs)} runs')


def test_a_backward_in_another_thread_runs_while_one_is_routing_a_gradient() -> None:
    """Step by step: thread 1 stops inside a backward that passes a gradient to a tensor as it was before its
    change in place; thread 2 runs the same program meanwhile, start to end. Neither may see the other's."""
    inside, done = threading.Event(), threading.Event()
    results: dict[str, list[np.ndarray]] = {}

    def first() -> None:
        w, b = Tensor([1., 2.], requires_grad=True), Tensor([1., 1.], requires_grad=True)
        a = w * 1.
        y = a * 3.
        a += b
        original = y._backward
        assert original is not None

        def waiting(grad: np.ndarray) -> None:  # y's backward, which backward() runs for a as it was
            inside.set()
            done.wait(5)
            original(grad)
        y._backward = waiting
        (y.sum() + a.sum()).backward()
        results['first'] = _grads(w, b)

    def second() -> None:
        inside.wait(5)
        results['second'] = _the_issues('ours', np.array([1., 2.]), np.array([1., 1.]))
        done.set()
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [g.tolist() for g in results['second']] == [[4., 4.], [1., 1.]]
    assert [g.tolist() for g in results['first']] == [[4., 4.], [1., 1.]]


# --- the tensor engine's state shared by the whole process ---

# Module globals and class attributes that are neither immutable nor per thread, each with why it may be shared.
SHARED = {
    'comparisons._COMPARISONS': 'a table of NumPy functions, read only',
    'comparisons._LOGIC': 'a table of NumPy functions, read only',
    'layers._APPLY': 'a table of activations, read only',
    'node._CLOCK_LOCK': 'the lock under which the version clock ticks',
    'node._GRAD_LOCK': 'the lock under which a gradient is added into a .grad',
    'node.Node._clock': 'the version clock: one for every tensor, as a change in one thread may be read in another',
    'node.Node._last_rebase': "the clock's tick of the last change while recording: only ever forward",
    'vjp_rules.RULES': "each op's gradient in Tensor ops, keyed by its closure's code: read only",
    'tensor_grad.RULES': "vjp_rules.RULES, imported: read only",
}
# What changes at run time: the clock, under its lock (node.Node._tick, _note_change, _become).
CHANGING = {'node.Node._clock', 'node.Node._last_rebase'}

IMMUTABLE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, int, float, str, bytes, bool,
             type(None), np.dtype, frozenset, types.GenericAlias, types.UnionType, type(Any), type(ClassVar),
             type(Callable[[], None]))
DESCRIPTORS = (staticmethod, classmethod, property, types.MemberDescriptorType)


def _immutable(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return isinstance(value, IMMUTABLE) or type(value).__name__ in ('TypeVar', '_Feature', 'ContextVar')


def _state() -> dict[str, object]:
    """Every module global of micrograd.tensor that is not immutable, and every data attribute of its classes
    (a class attribute is one for the whole process, whatever its value), by name."""
    found: dict[str, object] = {}
    for info in pkgutil.iter_modules(mt.__path__):
        module = importlib.import_module(f'micrograd.tensor.{info.name}')
        for name, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == module.__name__:
                for attr, v in vars(value).items():
                    if not attr.startswith('__') and not callable(v) and not isinstance(v, DESCRIPTORS):
                        found[f'{info.name}.{value.__name__}.{attr}'] = v
            elif not name.startswith('__') and not _immutable(value):
                found[f'{info.name}.{name}'] = value
    return found


def test_no_module_of_the_tensor_engine_rebinds_a_global() -> None:
    for info in pkgutil.iter_modules(mt.__path__):
        source = inspect.getsource(importlib.import_module(f'micrograd.tensor.{info.name}'))
        assert not [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Global)], info.name


def _snapshot() -> dict[str, object]:
    return {name: (dict(v) if isinstance(v, dict) else v) for name, v in _state().items()}


def test_the_tensor_engines_shared_state_is_listed_and_each_is_immutable_or_the_clock() -> None:
    assert set(_state()) == set(SHARED), 'state shared by every thread: per thread, per graph, or listed here'
    node = importlib.import_module('micrograd.tensor.node')
    assert type(node._READING).__name__ == 'ContextVar'  # what backward() is reading: per thread and task
    before = _snapshot()
    _in_threads(list(PROGRAMS), (2, 3), 0.05)
    p = Tensor([1., 2.], requires_grad=True)
    (p * p).sum().backward()
    mt.SGD([p], lr=0.1).step()
    with no_grad():
        p += 1
    after = _snapshot()
    changed = {name for name in before if before[name] is not after[name] and before[name] != after[name]}
    assert changed == CHANGING
    assert after['node.Node._clock'] > before['node.Node._clock']  # type: ignore[operator]
