"""Arrays in and out of a tensor, against PyTorch: no write through NumPy silently changes what a backward reads.

- In: Tensor(a) keeps a copy of a, as torch.tensor(a); from_numpy(a) shares a's memory, as
  torch.from_numpy(a). Swept over the ops of two or more inputs (tensor_ops.OPS): an input made from your array,
  the array changed after the forward, and the other inputs' gradient is PyTorch's from the values given.
- Out: np.asarray(t), t.numpy() and t.detach().numpy() are t's memory, read-only (PyTorch refuses .numpy() of a
  tensor that requires grad; here reading and plotting work and a write is refused by NumPy). Swept over every
  op's inputs and output: the write is refused, and the gradient is PyTorch's. np.array(t) is a copy of your own.
- A .grad set by hand of another shape than its tensor's: PyTorch refuses it when it is assigned, backward() here
  before any gradient changes (it would broadcast the gradient into it).
"""
from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.tensor import Tensor
from tests.conftest import TORCH_SKIP_REASON
from tests.tensor.tensor_ops import OPS, Op

try:
    import torch
except ImportError:
    torch = None

pytestmark = [pytest.mark.skipif(torch is None, reason=TORCH_SKIP_REASON),
              pytest.mark.filterwarnings('ignore:invalid value encountered:RuntimeWarning'),
              pytest.mark.filterwarnings('ignore:divide by zero encountered:RuntimeWarning'),
              pytest.mark.usefixtures('torch_in_float64')]

GRAD_OPS = [op for op in OPS if op.grad and 'float64' in op.dtypes]


def _inputs(op: Op) -> list[np.ndarray]:
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    return [rng.uniform(*op.interval, shape) for shape in op.shapes]


def _backward(out: Any, leaves: list[Any]) -> list[np.ndarray | None]:
    """backward() of a weighted sum of out (either engine): the leaves' gradients."""
    weights = np.random.default_rng(1).uniform(0.5, 1.5, tuple(out.shape))
    (out * (Tensor(weights) if isinstance(out, Tensor) else torch.tensor(weights))).sum().backward()
    return [None if leaf.grad is None else np.array(leaf.grad) if isinstance(leaf, Tensor) else leaf.grad.numpy()
            for leaf in leaves]


def _assert_same(ours: list[np.ndarray | None], theirs: list[np.ndarray | None], what: str) -> None:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert (a is None) == (b is None), f"{what}: input {i}'s gradient {a}, PyTorch's {b}"
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=f"{what}: input {i}")


# --- in: Tensor(a) copies, from_numpy(a) shares, as PyTorch's constructors ---

# name -> (ours, PyTorch's counterpart, whether it shares the array's memory)
CONSTRUCTORS: dict[str, tuple[Callable[[np.ndarray], Any], Callable[[np.ndarray], Any], bool]] = {
    'Tensor(a)': (lambda a: Tensor(a), lambda a: torch.tensor(a), False),
    'Tensor(a, dtype=None)': (lambda a: Tensor(a, dtype=None), lambda a: torch.tensor(a), False),
    'Tensor(a, requires_grad=True)': (lambda a: Tensor(a, requires_grad=True),
                                      lambda a: torch.tensor(a, requires_grad=True), False),
    'Tensor(a[::2]), a view': (lambda a: Tensor(a[::2]), lambda a: torch.tensor(a[::2]), False),
    'from_numpy(a)': (lambda a: mt.from_numpy(a), lambda a: torch.from_numpy(a), True),
    'from_numpy(a[::2]), a view': (lambda a: mt.from_numpy(a[::2]), lambda a: torch.from_numpy(a[::2]), True),
}


@pytest.mark.parametrize('name', CONSTRUCTORS)
def test_a_tensor_copies_or_shares_the_array_it_is_made_from_as_pytorchs_constructor(name: str) -> None:
    ours, theirs, shares = CONSTRUCTORS[name]
    seen = []
    for make in (ours, theirs):
        a = np.array([1.0, 2.0, 3.0, 4.0])
        t = make(a)
        a[0] = 100.0  # the user's array, changed afterwards
        seen.append(t.detach().numpy().tolist())
    assert seen[0] == seen[1], f"{name}: ours sees {seen[0]}, PyTorch's {seen[1]}"
    assert (seen[0][0] == 100.0) == shares, name


def test_the_issues_numbers_an_array_changed_after_the_forward() -> None:
    a = np.array([1.0, 2.0, 3.0])
    t = Tensor(a)
    w = Tensor([1.0, 1.0, 1.0], requires_grad=True)
    y = w * t
    a[0] = 100.0
    y.sum().backward()
    assert w.grad.tolist() == [1.0, 2.0, 3.0]  # torch.tensor(a) copies: PyTorch's [1, 2, 3]


def test_from_numpy_shares_a_changes_in_place_and_keeps_its_dtype() -> None:
    a = np.array([1, 2], dtype=np.int32)
    t = mt.from_numpy(a)
    t += 1  # through the tensor: the array sees it (and backward() would, as any change in place)
    assert t.dtype == np.int32 and a.tolist() == [2, 3] and t._changed is not None
    with pytest.raises(TypeError, match=r'from_numpy: expected an ndarray, got list .*Tensor\(data\)'):
        mt.from_numpy([1.0, 2.0])
    with pytest.raises(TypeError, match='from_numpy: takes real numbers'):
        mt.from_numpy(np.array(['a']))


DATA_CASES = [(op, i) for op in GRAD_OPS if len(op.shapes) > 1 and op.operand is None for i in range(len(op.shapes))]


@pytest.mark.parametrize('op, data', DATA_CASES, ids=[f'{op.name}-input {i}' for op, i in DATA_CASES])
def test_an_input_made_from_an_array_changed_after_the_forward_changes_no_gradient(op: Op, data: int) -> None:
    """Input `data` is Tensor(a) of the user's array a (torch.tensor(a)); a changes after the forward."""
    inputs = _inputs(op)
    grads = []
    for lib in ('ours', 'torch'):
        arrays = [a.copy() for a in inputs]
        make = (lambda a, g: Tensor(a, requires_grad=g)) if lib == 'ours' else \
            (lambda a, g: torch.tensor(a, requires_grad=g))
        leaves = [make(a, i != data) for i, a in enumerate(arrays)]
        out = op.ours(*leaves) if lib == 'ours' else op.theirs(torch, *leaves)
        arrays[data] *= 0.5
        grads.append(_backward(out, leaves))
    _assert_same(*grads, f"{op.name}, input {data} made from an array changed after the forward")


# --- out: np.asarray(t) and t.numpy() are read-only views ---

READ_OUTS: dict[str, Callable[[Tensor], np.ndarray]] = {
    'np.asarray(t)': np.asarray,
    'np.asarray(t, dtype=t.dtype)': lambda t: np.asarray(t, dtype=t.dtype),
    'np.asarray(t, copy=False)': lambda t: np.asarray(t, copy=False),
    't.numpy()': lambda t: t.numpy(),
    't.detach().numpy()': lambda t: t.detach().numpy(),
}
WHAT = ('output', 'input')
OUT_CASES = [(op, way, what) for op in GRAD_OPS for way in READ_OUTS for what in WHAT]


@pytest.mark.parametrize('op, way, what', OUT_CASES, ids=[f'{op.name}-{way}-{what}' for op, way, what in OUT_CASES])
def test_an_array_read_out_of_a_tensor_is_its_memory_read_only_and_the_gradient_stays_pytorchs(
        op: Op, way: str, what: str) -> None:
    inputs = _inputs(op)
    leaves = [Tensor(a, requires_grad=True) for a in inputs]
    out = op.ours(*leaves)
    tensor = out if what == 'output' else leaves[0]
    array = READ_OUTS[way](tensor)
    assert array.dtype == tensor.dtype and np.array_equal(array, tensor.data, equal_nan=True), way
    assert np.shares_memory(array, tensor.data) or tensor.data.size == 0, f"{way}: not the tensor's memory"
    with pytest.raises(ValueError, match='read-only'):
        array[...] = 0
    theirs = [torch.tensor(a, requires_grad=True) for a in inputs]
    _assert_same(_backward(out, leaves), _backward(op.theirs(torch, *theirs), theirs),
                 f"{op.name}: a write into {way} of its {what}")


def test_the_issues_numbers_a_write_into_np_asarray_of_an_output() -> None:
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    ny = np.asarray(y)
    assert ny.tolist() == np.exp([1.0, 2.0, 3.0]).tolist()  # reading works
    with pytest.raises(ValueError, match='assignment destination is read-only'):
        ny[0] = 0
    y.sum().backward()
    np.testing.assert_allclose(x.grad, np.exp([1.0, 2.0, 3.0]), rtol=1e-15)


def test_np_array_of_a_tensor_is_a_copy_of_your_own() -> None:
    t = Tensor([1.0, 2.0], requires_grad=True)
    for copy in (np.array(t), np.array(t, dtype=np.float32), np.asarray(t, dtype=np.float32), t.numpy().copy()):
        copy[0] = 5
        assert copy.flags.writeable and t.data.tolist() == [1.0, 2.0]


# --- a .grad of another shape than its tensor's ---

# name -> (the tensor's shape, the .grad set by hand)
BAD_GRADS: dict[str, tuple[tuple[int, ...], Any]] = {
    'one element for two': ((2,), np.array([1.0])),
    'a 0-d grad for a vector': ((2,), np.array(1.0)),
    'a column for a vector': ((2,), np.ones((2, 1))),
    'three for two': ((2,), np.ones(3)),
    'a vector for a 0-d tensor': ((), np.ones(1)),
    'the transpose': ((2, 3), np.ones((3, 2))),
    'a row for a matrix': ((2, 3), np.ones(3)),
}
# how the tensor with the bad .grad takes part: as a leaf of an op, or as the output backward() starts from
ROLES = ('a leaf of *', 'a leaf of @', 'the output, a leaf')


def _graph(role: str, x: Any, w: Any) -> Any:
    if role == 'a leaf of *':
        return (x * 2).sum() + (w * 1).sum()
    if role == 'a leaf of @':
        return (x.reshape(1, -1) @ (w.reshape(-1)[:1].reshape(1, 1) * x.reshape(-1, 1))).sum()
    return x


@pytest.mark.parametrize('role', ROLES)
@pytest.mark.parametrize('name', BAD_GRADS)
def test_a_grad_of_another_shape_is_refused_as_pytorch_does_and_changes_nothing(name: str, role: str) -> None:
    shape, bad = BAD_GRADS[name]
    if role == 'the output, a leaf' and shape != ():
        shape = ()  # backward() without grad= starts from a one-element output
        bad = np.ones(2)
    data = np.linspace(1.0, 2.0, int(np.prod(shape))).reshape(shape)
    x = torch.tensor(data, requires_grad=True)
    with pytest.raises(RuntimeError, match='assigned grad has data of a different size|attempting to assign'):
        x.grad = torch.tensor(bad)  # PyTorch refuses it at the assignment
    x, w = Tensor(data, requires_grad=True), Tensor([0.5, 0.5], requires_grad=True)
    x.grad, w.grad = bad.copy(), np.array([1.0, 1.0])
    out = _graph(role, x, w)
    with pytest.raises(RuntimeError, match=rf"Tensor\.backward: the \.grad of a tensor of shape {re_shape(x.shape)} "
                                           rf"\(a leaf\) has shape {re_shape(np.shape(bad))}.*Set \.grad to None"):
        out.backward()
    assert np.array_equal(x.grad, bad) and w.grad.tolist() == [1.0, 1.0]  # changed nothing


def re_shape(shape: tuple[int, ...]) -> str:
    return str(tuple(shape)).replace('(', r'\(').replace(')', r'\)')


def test_the_issues_numbers_a_grad_of_one_element_for_two() -> None:
    x = Tensor([1.0, 2.0], requires_grad=True)
    x.grad = np.array([1.0])
    with pytest.raises(RuntimeError, match=r"shape \(2,\) \(a leaf\) has shape \(1,\).*zero_grad\(\)"):
        (x * 2).sum().backward()
    assert x.grad.tolist() == [1.0]
    x.grad = None  # the way out
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_a_grad_of_the_right_shape_set_by_hand_accumulates_as_in_pytorch() -> None:
    ours, theirs = Tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
    ours.grad, theirs.grad = np.array([0.5, -0.5]), torch.tensor([0.5, -0.5])
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    assert ours.grad.tolist() == theirs.grad.tolist() == [2.5, 3.5]
