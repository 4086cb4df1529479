"""Arrays in and out of a tensor, against PyTorch: no write through NumPy silently changes what a backward reads.

- In: Tensor(a) keeps a copy of a, as torch.tensor(a); from_numpy(a) shares a's memory, as
  torch.from_numpy(a). Swept over the ops of two or more inputs (tensor_ops.OPS): an input made from your array,
  the array changed after the forward, and the other inputs' gradient is PyTorch's from the values given. Swept
  over every kind of source (numbers, lists, arrays, tensors: a parameter, an output, a view): Tensor(x) is a
  copy of its own, a leaf, as torch.tensor(x).
- Out: np.asarray(t), t.numpy() and t.detach().numpy() are t's memory, read-only (PyTorch refuses .numpy() of a
  tensor that requires grad; here reading and plotting work and a write is refused by NumPy). Swept over every
  op's inputs and output: the write is refused, and the gradient is PyTorch's. np.array(t) is a copy of your own.
- A .grad set by hand of another shape than its tensor's: PyTorch refuses it when it is assigned, backward() and
  an optimizer's step here before any gradient or parameter changes (either would broadcast into it). Of every
  kind (a Tensor, an array of another dtype, a list, a number): kept as an ndarray (a list's or a number's of the
  tensor's dtype), that x.grad *= 0.5 and a step change as PyTorch's; what is no numbers is refused at once.
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


# Every kind of thing a tensor is made from: name -> a function of the engine giving the source and a change of
# it in place (None for a number). Tensor(x) copies each, as torch.tensor(x); a tensor is also detached.
def _array_source(values: Any, dtype: Any = np.float64, view: bool = False, read_only: bool = False) -> Any:
    def make(lib: str) -> tuple[Any, Callable[[], None] | None]:
        base = np.array(values, dtype=dtype)
        a = base[::2] if view else base
        if read_only:
            a.setflags(write=False)
            return a, None
        return a, lambda: base.fill(7)
    return make


def _list_source(values: list[Any]) -> Any:
    def make(lib: str) -> tuple[Any, Callable[[], None] | None]:
        def change() -> None:
            inner = values_copy[0] if isinstance(values_copy[0], list) else values_copy
            inner[0] = 7
        values_copy = [list(v) if isinstance(v, list) else v for v in values]
        return values_copy, change
    return make


def _tensor_source(values: Any, how: str = 'data', dtype: str = 'float64') -> Any:
    """A tensor of either engine: data, a parameter, an op's output, a view, or made under no_grad()."""
    def make(lib: str) -> tuple[Any, Callable[[], None] | None]:
        array = np.array(values, dtype=dtype)
        if lib == 'torch':
            leaf = torch.tensor(array, requires_grad=how != 'data' and dtype == 'float64')
            no_grad_ = torch.no_grad
        else:
            leaf = Tensor(array, requires_grad=how != 'data' and dtype == 'float64', dtype=None)
            no_grad_ = mt.no_grad
        if how == 'output':
            t = leaf * 2
        elif how == 'a view':
            t = leaf[1:]
        elif how == 'detached':
            t = leaf.detach()
        elif how == 'under no_grad':
            with no_grad_():
                t = leaf * 2
        else:
            t = leaf

        def change() -> None:
            with no_grad_():
                leaf.fill_(7)
                if how == 'under no_grad':
                    t.fill_(7)
        return t, change
    return make


def _from_numpy_source(lib: str) -> tuple[Any, Callable[[], None] | None]:
    a = np.array([1.0, 2.0, 3.0])
    return (torch.from_numpy(a) if lib == 'torch' else mt.from_numpy(a)), lambda: a.fill(7)


SOURCES: dict[str, Callable[[str], tuple[Any, Callable[[], None] | None]]] = {
    'a float': lambda lib: (1.5, None),
    'an int': lambda lib: (3, None),
    'a bool': lambda lib: (True, None),
    'a NumPy float32': lambda lib: (np.float32(1.5), None),
    'a NumPy int64': lambda lib: (np.int64(-2), None),
    'a list': _list_source([1.0, 2.0, 3.0]),
    'a nested list': _list_source([[1, 2], [3, 4]]),
    'a tuple': lambda lib: ((1.0, 2.0), None),
    'a 0-d array': _array_source(2.5),
    'an array': _array_source([1.0, 2.0, 3.0]),
    'a float32 array': _array_source([1.0, 2.0, 3.0], np.float32),
    'an int32 array': _array_source([1, 2, 3], np.int32),
    'a bool array': _array_source([True, False], bool),
    'a strided view of an array': _array_source([1.0, 2.0, 3.0, 4.0], view=True),
    'a read-only array': _array_source([1.0, 2.0], read_only=True),
    'a data tensor': _tensor_source([1.0, 2.0, 3.0]),
    'a parameter': _tensor_source([1.0, 2.0, 3.0], 'parameter'),
    "an op's output": _tensor_source([1.0, 2.0, 3.0], 'output'),
    'a slice of a parameter': _tensor_source([1.0, 2.0, 3.0], 'a view'),
    'a detached parameter': _tensor_source([1.0, 2.0, 3.0], 'detached'),
    'an output made under no_grad': _tensor_source([1.0, 2.0, 3.0], 'under no_grad'),
    'a 0-d parameter': _tensor_source(2.5, 'parameter'),
    'an int32 tensor': _tensor_source([1, 2, 3], dtype='int32'),
    'a float32 tensor': _tensor_source([1.0, 2.0], dtype='float32'),
    'a from_numpy tensor': _from_numpy_source,
}


def _values(x: Any) -> Any:
    if isinstance(x, (Tensor, torch.Tensor)):
        return x.detach().numpy().tolist()
    return np.array(x).tolist()


@pytest.mark.filterwarnings('ignore:To copy construct from a tensor')  # (PyTorch's words on torch.tensor(t))
@pytest.mark.parametrize('grad', [False, True], ids=['data', 'requires_grad'])
@pytest.mark.parametrize('name', SOURCES)
def test_a_tensor_made_from_anything_is_a_copy_of_its_own_as_torch_tensor(name: str, grad: bool) -> None:
    """The values and dtype (dtype=None keeps the source's), a leaf without gradient, and no change of either
    the source or the new tensor reaches the other."""
    made = {}
    for lib in ('ours', 'torch'):
        source, change = SOURCES[name](lib)
        before = _values(source)
        kind = (np.asarray(source.detach().numpy() if lib == 'torch' and isinstance(source, torch.Tensor) else
                           np.asarray(source)).dtype if not isinstance(source, Tensor) else source.dtype)
        if grad and kind.kind != 'f':
            continue  # (only float tensors require grad, in both engines)
        t = Tensor(source, dtype=None, requires_grad=grad) if lib == 'ours' else torch.tensor(source,
                                                                                              requires_grad=grad)
        assert t.is_leaf and t.requires_grad == grad and t.grad is None, f'{lib}: {name}'
        made[lib] = (_values(t), str(t.dtype).replace('torch.', ''))
        if change is not None:
            change()
            assert _values(t) == made[lib][0], f"{lib}: {name} changed after Tensor() changed the tensor"
        after = _values(source)
        with (mt.no_grad() if lib == 'ours' else torch.no_grad()):
            t.fill_(False if str(t.dtype).endswith('bool') else 5)
        assert _values(source) == after, f"{lib}: a change of Tensor({name}) changed the source"
        if change is None:
            assert after == before
    if made:
        assert made['ours'] == made['torch'], name


def test_the_issues_numbers_tensor_of_a_parameter_keeps_its_values_of_then() -> None:
    p = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    best = Tensor(p)
    (p * p).sum().backward()
    mt.SGD([p], lr=0.5).step()  # p - 0.5 * 2p = 0
    assert p.data.tolist() == [0.0, 0.0, 0.0] and best.data.tolist() == [1.0, 2.0, 3.0]  # torch.tensor(p)'s
    best += 1  # a tensor of its own, no parameter: outside no_grad() too
    assert best.data.tolist() == [2.0, 3.0, 4.0] and p.data.tolist() == [0.0, 0.0, 0.0]
    assert not best.requires_grad and best.is_leaf and not np.shares_memory(best.data, p.data)
    shared = p.detach()  # the way to share a tensor's memory, as in PyTorch
    assert np.shares_memory(shared.data, p.data)


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


# --- a .grad set by hand, of every kind: kept as this engine's gradient, an ndarray of the tensor's dtype ---

# name -> the value assigned to the .grad of a float64 tensor of shape (2,) (a 0-d one for 'a number').
GRAD_VALUES: dict[str, Callable[[], Any]] = {
    'a Tensor': lambda: Tensor([0.5, -0.5]),
    'a Tensor that requires grad': lambda: Tensor([0.5, -0.5], requires_grad=True),
    "an op's output": lambda: Tensor([0.25, -0.25], requires_grad=True) * 2,
    'a float32 Tensor': lambda: Tensor([0.5, -0.5], dtype=np.float32),
    'an array': lambda: np.array([0.5, -0.5]),
    'a float32 array': lambda: np.array([0.5, -0.5], dtype=np.float32),
    'an int array': lambda: np.array([1, -1]),
    'a read-only array': lambda: np.broadcast_to(np.array([0.5, -0.5]), (2,)),
    'a list': lambda: [0.5, -0.5],
    'a tuple': lambda: (0.5, -0.5),
    'a number': lambda: 0.5,
    'a NumPy number': lambda: np.float32(0.5),
}
# name -> the value, and what the refusal says (PyTorch refuses each too)
BAD_GRAD_VALUES: dict[str, tuple[Callable[[], Any], str]] = {
    'an array of bools': (lambda: np.array([True, False]), 'a gradient is numbers, got bools'),
    'a string': (lambda: 'grad', 'a gradient is an array, a Tensor, numbers or None, got str'),
    'a dict': (lambda: {'x': 1.0}, 'a gradient is an array, a Tensor, numbers or None, got dict'),
    'a complex array': (lambda: np.array([1j, 1.0]), 'takes real numbers'),
    'a list with None': (lambda: [0.5, None], 'takes real numbers'),
    'a micrograd Value': (lambda: mt_value(0.5), 'Values and tensors do not mix'),
}


def mt_value(x: float) -> Any:
    from micrograd.engine import Value
    return Value(x)


def _numbers(t: Any) -> np.ndarray:
    return np.array(t.numpy() if isinstance(t, torch.Tensor) else t)


def _grad_steps(lib: str, shape: tuple[int, ...], value: Any) -> tuple[list[Any], list[Any]]:
    """.grad set by hand, then a step, x.grad *= 0.5, a backward that adds into it and a step again."""
    data = np.array([1.0, 2.0]).reshape(shape) if shape else np.array(1.5)
    x = torch.tensor(data, requires_grad=True) if lib == 'torch' else Tensor(data, requires_grad=True)
    optimizer = (torch.optim if lib == 'torch' else mt).SGD([x], lr=0.1, momentum=0.9)
    x.grad = value
    seen = [_numbers(x.grad)]
    optimizer.step()
    x.grad *= 0.5
    seen.append(_numbers(x.grad))
    (x * x).sum().backward()
    optimizer.step()
    return seen + [_numbers(x.grad)], [_numbers(x.detach())]


@pytest.mark.parametrize('name', GRAD_VALUES)
def test_a_grad_set_by_hand_of_any_kind_trains_as_pytorchs_of_the_same_numbers(name: str) -> None:
    value = GRAD_VALUES[name]()
    shape = () if np.ndim(np.asarray(value.data if isinstance(value, Tensor) else value)) == 0 else (2,)
    x = Tensor(np.ones(shape), requires_grad=True)
    x.grad = value
    given = value.data if isinstance(value, Tensor) else value
    assert type(x.grad) is np.ndarray and x.grad.flags.writeable, name
    floats = isinstance(given, np.ndarray) and given.dtype.kind == 'f'
    assert x.grad.dtype == (given.dtype if floats else np.float64), name  # (an array of floats keeps its dtype)
    numbers = np.asarray(given, dtype=np.float64)
    assert np.array_equal(x.grad, numbers), name
    ours = _grad_steps('ours', shape, GRAD_VALUES[name]())
    theirs = _grad_steps('torch', shape, torch.tensor(numbers))  # (PyTorch takes a tensor of x's dtype only)
    for a, b in zip([*ours[0], *ours[1]], [*theirs[0], *theirs[1]]):
        np.testing.assert_allclose(a, b, rtol=1e-14, err_msg=name)


def test_a_tensor_set_as_grad_is_shared_as_in_pytorch() -> None:
    x, g = Tensor([1.0, 2.0], requires_grad=True), Tensor([1.0, 1.0])
    x.grad = g
    x.grad *= 0.5  # PyTorch's x.grad is g: g is halved too
    assert g.data.tolist() == [0.5, 0.5]
    tx, tg = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 1.0])
    tx.grad = tg
    tx.grad *= 0.5
    assert tg.tolist() == [0.5, 0.5]


@pytest.mark.parametrize('name', BAD_GRAD_VALUES)
def test_a_grad_that_is_no_numbers_is_refused_at_the_assignment_and_changes_nothing(name: str) -> None:
    make, says = BAD_GRAD_VALUES[name]
    with pytest.raises((TypeError, RuntimeError)):  # (a tensor of bools: 'attempting to assign a gradient with dtype')
        torch.tensor([1.0, 2.0], requires_grad=True).grad = torch.tensor([True, False]) if 'bools' in name else \
            make()
    x = Tensor([1.0, 2.0], requires_grad=True)
    x.grad = np.array([0.5, 0.5])
    with pytest.raises(TypeError, match=rf'Tensor\.grad: .*{says}'):
        x.grad = make()
    assert x.grad.tolist() == [0.5, 0.5]


def test_the_issues_numbers_a_tensor_set_as_grad() -> None:
    x = Tensor([1.0, 2.0], requires_grad=True)
    x.grad = Tensor([1.0, 1.0])
    (x * 2).sum().backward()
    x.grad *= 0.5  # was "output array is read-only"
    assert x.grad.tolist() == [1.5, 1.5]
    y = Tensor([1.0, 2.0], requires_grad=True)
    y.grad = Tensor([1.0, -1.0])
    mt.SGD([y], lr=0.1).step()  # was a ufunc TypeError
    assert y.data.tolist() == [0.9, 2.1]


OPTIMIZERS: dict[str, Callable[[list[Tensor]], Any]] = {
    'SGD': lambda ps: mt.SGD(ps, lr=0.1),
    'SGD with momentum': lambda ps: mt.SGD(ps, lr=0.1, momentum=0.9),
    'Adam': lambda ps: mt.Adam(ps, lr=0.1),
}


@pytest.mark.parametrize('optimizer', OPTIMIZERS)
@pytest.mark.parametrize('name', BAD_GRADS)
def test_a_grad_of_another_shape_is_refused_by_a_step_naming_the_parameter_and_changes_nothing(
        name: str, optimizer: str) -> None:
    shape, bad = BAD_GRADS[name]
    w = Tensor([0.5, 0.5], requires_grad=True)
    x = Tensor(np.linspace(1.0, 2.0, int(np.prod(shape))).reshape(shape), requires_grad=True)
    opt = OPTIMIZERS[optimizer]([w, x])
    w.grad, x.grad = np.array([1.0, 1.0]), np.ones(shape)
    opt.step()  # a first step of the right shapes: momentum and Adam's means
    state, values = repr(vars(opt)), [w.data.copy(), x.data.copy()]
    w.grad, x.grad = np.array([1.0, 1.0]), bad.copy()
    with pytest.raises(RuntimeError, match=rf"\.step: parameter 1 of 2 has shape {re_shape(shape)} and a \.grad of "
                                           rf"shape {re_shape(bad.shape)}.*no parameter was changed"):
        opt.step()
    assert repr(vars(opt)) == state and np.array_equal(w.data, values[0]) and np.array_equal(x.data, values[1])


def test_a_grad_of_another_float_dtype_set_by_hand_is_added_into_and_stepped_in_the_tensors() -> None:
    x = Tensor([1.0, 2.0], requires_grad=True, dtype=np.float32)
    x.grad = np.array([0.1, 0.1])  # float64, kept as it is (PyTorch refuses another dtype at the assignment)
    (x * 2).sum().backward()
    assert x.grad.dtype == np.float32 and x.grad.tolist() == np.float32([2.1, 2.1]).tolist()
    x.grad = np.array([0.1, 0.1])
    mt.SGD([x], lr=1.0).step()
    assert x.data.dtype == np.float32 and x.data.tolist() == (np.float32([1.0, 2.0]) - np.float32(0.1)).tolist()


@pytest.mark.parametrize('kept', ['the .grad backward() made', 'a tensor set as .grad', 'an array set as .grad'])
def test_a_leafs_grad_kept_aside_follows_the_next_backward_as_in_pytorch(kept: str) -> None:
    """PyTorch adds a leaf's gradient into its .grad in place: g = x.grad (or the g set by hand) follows."""
    seen = {}
    for lib in ('ours', 'torch'):
        x = Tensor([1.0, 2.0], requires_grad=True) if lib == 'ours' else torch.tensor([1.0, 2.0], requires_grad=True)
        if kept == 'the .grad backward() made':
            (x * 3).sum().backward()
            g = x.grad
        else:
            g = (np.array([0.5, -0.5]) if kept.startswith('an array') and lib == 'ours' else
                 Tensor([0.5, -0.5]) if lib == 'ours' else torch.tensor([0.5, -0.5]))
            x.grad = g
        (x * x).sum().backward()
        seen[lib] = [_numbers(g.data if isinstance(g, Tensor) else g).tolist(), _numbers(x.grad).tolist()]
    assert seen['ours'] == seen['torch'], kept
