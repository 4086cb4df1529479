"""Changes in place (x += y, x.add_(y), x.zero_(), x[i] = v ...), generated from tensor_ops.IN_PLACE, against PyTorch:

- on data, for every dtype of x and every kind of y: both refuse (and x is unchanged), or the same values and dtype,
  written into x's own memory;
- PyTorch's habits: a leaf that requires grad is refused outside no_grad() and changes under it; a tensor an op made
  records the change (the gradients are PyTorch's); backward() refuses a tensor changed after an op took it;
- the manual SGD step `with no_grad(): p -= lr * p.grad` trains as in PyTorch.

The cross product of dtypes and operand kinds is marked slow; the default run keeps one of each kind for every op.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.tensor import Tensor, no_grad
from tests.conftest import TORCH_SKIP_REASON
from tests.tensor.tensor_ops import DTYPES, FLOATS, IN_PLACE, IN_PLACE_NAMES, InPlace

try:
    import torch
except ImportError:
    torch = None

pytestmark = [pytest.mark.skipif(torch is None, reason=TORCH_SKIP_REASON),
              pytest.mark.filterwarnings('ignore:invalid value encountered:RuntimeWarning'),
              pytest.mark.usefixtures('torch_in_float64')]
REFUSALS = (TypeError, ValueError, OverflowError, IndexError, RuntimeError)
BY_NAME = {op.name: op for op in IN_PLACE}
GRAD_OPS = [op.name for op in IN_PLACE if op.grad]
NUMBERS = {'int': 2, 'float': 1.5, 'bool': True}


def x_sample(dtype: str) -> np.ndarray:
    a = np.random.default_rng(0).uniform(0.5, 3.0, (3, 4))
    return (a > 1.5 if dtype == 'bool' else np.round(a) if dtype.startswith('int') else a).astype(dtype)


def y_sample(kind: str) -> Any:
    """y of a kind: a number (int, float, bool), or an array of shape (4,) of a dtype."""
    if kind in NUMBERS:
        return NUMBERS[kind]
    a = np.random.default_rng(1).uniform(0.5, 2.0, 4)
    return (a > 1.0 if kind == 'bool' else np.round(a) if kind.startswith('int') else a).astype(kind)


def y_kinds(op: InPlace) -> list[str]:
    return {'tensor': list(DTYPES), 'number': list(NUMBERS), 'nothing': ['-']}[op.takes]


def run(op: InPlace, engine: str, x: np.ndarray, y: Any) -> Any:
    """x changed by op on one engine: (the tensor's values, dtype, whether it kept its memory), or the error."""
    if engine == 'ours':
        t = Tensor(x.copy(), dtype=None)
        memory = t.data
        other = Tensor(y, dtype=None) if isinstance(y, np.ndarray) else y
        try:
            result = op.ours(t, other)
        except REFUSALS as e:
            assert np.array_equal(t.data, x) and t.data is memory, f"{op.name}: a refused change changed the tensor"
            return e
        assert result is t and t.data is memory, f"{op.name}: the change is not in the tensor's own memory"
        return t.data.copy(), t.data.dtype
    t = torch.from_numpy(x.copy())
    other = torch.from_numpy(y) if isinstance(y, np.ndarray) else y
    try:
        op.theirs(t, other)
    except REFUSALS as e:
        return e
    return t.numpy().copy(), t.numpy().dtype


def assert_as_pytorch(op: InPlace, dtype: str, kind: str) -> None:
    x, y = x_sample(dtype), y_sample(kind) if kind != '-' else None
    ours, theirs = run(op, 'ours', x, y), run(op, 'torch', x, y)
    what = f"{op.name} on {dtype} by {kind}"
    if isinstance(ours, Exception) and not isinstance(theirs, Exception) and 'values' in op.differs:
        return  # a deliberate refusal, with its reason in the table
    assert isinstance(ours, Exception) == isinstance(theirs, Exception), f"{what}: ours {ours!r}, PyTorch's {theirs!r}"
    if isinstance(ours, Exception):
        assert str(ours).startswith(('Tensor.', 'unsupported operand')), f"{what}: the error names no op: {ours}"
        return
    assert ours[1] == theirs[1], f"{what}: dtype {ours[1]}, PyTorch's {theirs[1]}"
    tol = dict(rtol=2e-3, atol=2e-3) if dtype == 'float16' else dict(rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours[0].astype(float), theirs[0].astype(float), err_msg=what, **tol)


# --- on data: values, dtypes and refusals ---

@pytest.mark.parametrize('name', IN_PLACE_NAMES)
@pytest.mark.parametrize('dtype', DTYPES)
def test_in_place_on_data_gives_pytorchs_values_and_dtype(name: str, dtype: str) -> None:
    op = BY_NAME[name]
    for kind in {'tensor': [dtype, 'float'], 'number': ['int', 'float'], 'nothing': ['-']}[op.takes]:
        assert_as_pytorch(op, dtype, 'float64' if kind == 'float' and op.takes == 'tensor' else kind)


@pytest.mark.slow
@pytest.mark.parametrize('name', IN_PLACE_NAMES)
@pytest.mark.parametrize('dtype', DTYPES)
def test_in_place_on_data_by_every_kind_of_operand_is_as_in_pytorch(name: str, dtype: str) -> None:
    op = BY_NAME[name]
    for kind in y_kinds(op) + (list(NUMBERS) if op.takes == 'tensor' else []):
        assert_as_pytorch(op, dtype, kind)


# --- PyTorch's habits, for every op with gradients ---

def operand(op: InPlace, engine: str, requires_grad: bool = False) -> Any:
    """The op's y in float64, as a tensor of either engine (requiring grad if asked), or its number."""
    y = y_sample('float64') if op.takes == 'tensor' else 2 if op.takes == 'number' else None
    if not isinstance(y, np.ndarray):
        return y
    if engine == 'ours':
        return Tensor(y, requires_grad=requires_grad)
    return torch.from_numpy(y.copy()).requires_grad_(requires_grad)


@pytest.mark.parametrize('name', GRAD_OPS)
def test_a_leaf_that_requires_grad_is_refused_outside_no_grad(name: str) -> None:
    op = BY_NAME[name]
    t = torch.from_numpy(x_sample('float64')).requires_grad_(True)
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad'):
        op.theirs(t, operand(op, 'torch'))
    p = Tensor(x_sample('float64'), requires_grad=True)
    with pytest.raises(RuntimeError, match=r'leaf that requires grad can be changed in place only under no_grad'):
        op.ours(p, operand(op, 'ours'))
    assert np.array_equal(p.data, x_sample('float64')) and p._changed is None


@pytest.mark.parametrize('name', GRAD_OPS)
def test_under_no_grad_a_leaf_changes_in_place_and_stays_a_leaf(name: str) -> None:
    op = BY_NAME[name]
    t = torch.from_numpy(x_sample('float64')).requires_grad_(True)
    with torch.no_grad():
        op.theirs(t, operand(op, 'torch'))
    p = Tensor(x_sample('float64'), requires_grad=True)
    p.grad = np.ones((3, 4))
    with no_grad():
        assert op.ours(p, operand(op, 'ours')) is p
    np.testing.assert_allclose(p.data, t.detach().numpy(), rtol=1e-12)
    assert p.requires_grad and not p._prev and np.array_equal(p.grad, np.ones((3, 4)))  # the gradient is untouched


@pytest.mark.parametrize('name', GRAD_OPS)
def test_a_tensor_an_op_made_records_the_change_and_backpropagates_as_in_pytorch(name: str) -> None:
    op = BY_NAME[name]
    grads = []
    for engine, make in (('ours', lambda a: Tensor(a, requires_grad=True)),
                         ('torch', lambda a: torch.from_numpy(a.copy()).requires_grad_(True))):
        a, y = make(x_sample('float64')), operand(op, engine, requires_grad=True)
        b = a * 1.5
        (op.ours if engine == 'ours' else op.theirs)(b, y)
        (b * make(np.arange(12.0).reshape(3, 4))).sum().backward()
        grads.append([g if isinstance(g, np.ndarray) or g is None else g.numpy()
                      for g in (a.grad, getattr(y, 'grad', None))])
    for ours, theirs in zip(*grads):
        assert (ours is None) == (theirs is None), f"{name}: gradient {ours} where PyTorch's is {theirs}"
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=name)


# What took b before b changes in place, and what backward() does then. PyTorch refuses where the gradient reads b
# (b * b), not where it does not (b.sum(), b.clone()): so do we, for a change under no_grad() and one made while
# recording (which makes b a new node: what took b before keeps the old one, as PyTorch keeps the versions apart).
READS_B = r"'\*' reads its input 1 for its gradient, and that tensor was changed in place afterwards \(by "
USES: dict[str, tuple[Callable[[Any], Any], bool, str | None, str | None]] = {
    # what took b: (the op, PyTorch refuses, our refusal under no_grad, our refusal when recorded; None: computes)
    'b * b': (lambda b: (b * b).sum(), True, READS_B, READS_B),
    'b.sum()': (lambda b: b.sum(), False, None, None),
    'b.clone()': (lambda b: (b.clone() * 2).sum(), False, None, None),
}


@pytest.mark.parametrize('use', list(USES))
@pytest.mark.parametrize('recorded', [False, True], ids=['under no_grad', 'recorded'])
@pytest.mark.parametrize('name', GRAD_OPS)
def test_backward_after_a_change_in_place_of_a_tensor_an_op_took(name: str, recorded: bool, use: str) -> None:
    op, (take, pytorch_refuses, refused_under_no_grad, refused_recorded) = BY_NAME[name], USES[use]
    refusal = refused_recorded if recorded else refused_under_no_grad
    a = torch.from_numpy(x_sample('float64')).requires_grad_(True)
    b = a * 1.5
    out = take(b)
    with torch.enable_grad() if recorded else torch.no_grad():
        op.theirs(b, operand(op, 'torch'))
    if pytorch_refuses:
        with pytest.raises(RuntimeError, match='modified by an inplace operation'):
            out.backward()
    else:
        out.backward()
    a_ours = Tensor(x_sample('float64'), requires_grad=True)
    b = a_ours * 1.5
    out = take(b)
    if recorded:
        op.ours(b, operand(op, 'ours'))
    else:
        with no_grad():
            op.ours(b, operand(op, 'ours'))
    if refusal is None:
        out.backward()
        np.testing.assert_allclose(a_ours.grad, a.grad.numpy(), rtol=1e-12)  # PyTorch's gradient
        return
    with pytest.raises(RuntimeError, match=r"Tensor.backward: " + refusal + re_escape(name)):
        out.backward()
    assert a_ours.grad is None  # refused before any gradient changed


def re_escape(name: str) -> str:
    """The op's name as the error gives it (add_ for 'add_ alpha', __setitem__ for '[] =')."""
    return re.escape({'[] =': '__setitem__'}.get(name, name.split()[0]))


@pytest.mark.parametrize('name', GRAD_OPS)
def test_the_output_of_an_op_whose_gradient_reads_it_cannot_be_changed_before_backward(name: str) -> None:
    op = BY_NAME[name]
    a = torch.from_numpy(x_sample('float64')).requires_grad_(True)
    e = a.exp()
    with torch.no_grad():
        op.theirs(e, operand(op, 'torch'))
    with pytest.raises(RuntimeError, match='output 0 of Exp'):
        e.sum().backward()
    a = Tensor(x_sample('float64'), requires_grad=True)
    e = a.exp()
    with no_grad():
        op.ours(e, operand(op, 'ours'))
    with pytest.raises(RuntimeError, match="'exp' reads its output for its gradient"):
        e.sum().backward()
    a = torch.from_numpy(x_sample('float64')).requires_grad_(True)
    e = a.exp()
    op.theirs(e, operand(op, 'torch'))  # recording: e becomes the change's output, and exp's is refused at backward()
    with pytest.raises(RuntimeError, match='output 0 of Exp'):
        e.sum().backward()
    a = Tensor(x_sample('float64'), requires_grad=True)
    e = a.exp()
    op.ours(e, operand(op, 'ours'))
    with pytest.raises(RuntimeError, match="'exp' reads its output for its gradient"):
        e.sum().backward()
    assert a.grad is None


# --- views: a slice, a reshape and detach() share the memory they show ---

def test_a_slice_of_a_leaf_that_requires_grad_is_refused_outside_no_grad_and_changes_the_leaf_under_it() -> None:
    p = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match='a view of a leaf that requires grad'):
        p[0:2] += 1  # (PyTorch: 'a view of a leaf Variable that requires grad is being used in an in-place ...')
    with pytest.raises(RuntimeError, match='a leaf that requires grad'):
        p[0] = 5.0
    with no_grad():
        p[0:2] += 1
        p[2] = 0.0
    assert p.data.tolist() == [2.0, 3.0, 0.0]


def test_a_change_through_detach_or_a_reshape_is_seen_by_backward() -> None:
    for alias in (lambda e: e.detach(), lambda e: e.reshape(2, 2), lambda e: e[1:]):
        a = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        e = a.exp()
        with no_grad():
            alias(e).mul_(2)
        assert e.data[1, 1] == pytest.approx(2 * np.exp(4.0))  # the same memory
        with pytest.raises(RuntimeError, match="'exp' reads its output for its gradient"):
            e.sum().backward()


def test_changing_a_view_while_recording_rewrites_its_bases_history_as_in_pytorch() -> None:
    grads = []
    for make in (lambda v: torch.tensor(v, requires_grad=True), param):
        a, w = make([1.0, 2.0]), make([5.0])
        b = a * 2
        b[0:1] += w * a[1]  # b = [2 a0 + w a1, 2 a1]
        (b * b).sum().backward()
        grads.append([np.asarray(t.grad) for t in (a, w)])
    for theirs, ours in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def param(values: list[float]) -> Tensor:
    return Tensor(values, requires_grad=True)


def test_data_that_becomes_a_function_of_a_parameter_joins_the_graph_as_in_pytorch() -> None:
    b, w = Tensor([1.0, 1.0]), Tensor([5.0, 6.0], requires_grad=True)
    b *= w
    assert b.requires_grad and b._prev  # no longer a leaf, as torch's b.is_leaf is False then
    b.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


def test_matmul_assignment_makes_a_new_tensor_as_in_pytorch() -> None:
    a = Tensor(np.ones((3, 4)), requires_grad=True)
    b = a
    b @= Tensor(np.ones(4))  # PyTorch has no matmul in place: b = b @ y, of another shape
    assert b is not a and b.shape == (3,) and a.shape == (3, 4)
    t = torch.ones(3, 4, requires_grad=True)
    u = t
    u @= torch.ones(4)
    assert u is not t and tuple(u.shape) == (3,)


def test_a_change_that_does_not_fit_names_the_op_and_changes_nothing() -> None:
    x = Tensor([1, 2], dtype=np.int64)
    with pytest.raises(TypeError, match=r"Tensor.\+=: the result is float64, which does not go into a tensor of int64"):
        x += 1.5
    with pytest.raises(ValueError, match=r"Tensor.\+=: the result has shape \(2, 2\)"):
        x += Tensor([[1], [2]], dtype=np.int64)
    with pytest.raises(ValueError, match=r"Tensor.\*=: operands could not be broadcast"):
        x *= Tensor([1, 2, 3], dtype=np.int64)
    with pytest.raises(ValueError, match=r"Tensor.fill_: 1.5 is not a whole number"):
        x.fill_(1.5)
    assert x.data.tolist() == [1, 2] and x._changed is None


def test_a_read_only_array_is_refused_by_name() -> None:
    x = mt.from_numpy(np.broadcast_to(np.ones(2), (3, 2)))  # (Tensor(a) would copy it)
    with pytest.raises(ValueError, match=r'Tensor.zero_: the tensor.s memory is read-only'):
        x.zero_()


# --- the manual SGD step, as PyTorch users write it ---

STEPS = {
    'p -= lr * p.grad': lambda p, lr: p.__isub__(lr * p.grad),
    'p.sub_(lr * p.grad)': lambda p, lr: p.sub_(lr * p.grad),
    'p.add_(p.grad, alpha=-lr)': lambda p, lr: p.add_(p.grad, alpha=-lr),
}


@pytest.mark.parametrize('step', list(STEPS))
@pytest.mark.parametrize('dtype', sorted(FLOATS - {'float16'}))
def test_the_manual_sgd_step_trains_the_model_as_in_pytorch(step: str, dtype: str) -> None:
    rng = np.random.default_rng(0)
    w0, x, y = rng.normal(size=(4, 3)), rng.normal(size=(8, 4)), rng.normal(size=(8, 3))
    model = mt.Linear(4, 3, bias=False)
    model.weight.data = w0.astype(dtype)
    params, tw = model.parameters(), torch.tensor(w0, dtype=getattr(torch, dtype), requires_grad=True)
    for _ in range(3):
        loss = mt.mse_loss(model(Tensor(x, dtype=dtype)), y.astype(dtype))
        loss.backward()
        with no_grad():
            for p in params:
                STEPS[step](p, 0.1)
                p.grad = None
        tloss = torch.nn.functional.mse_loss(torch.tensor(x, dtype=tw.dtype) @ tw, torch.tensor(y, dtype=tw.dtype))
        tloss.backward()
        with torch.no_grad():
            tw -= 0.1 * tw.grad
            tw.grad = None
    assert not np.allclose(model.weight.data, w0)  # the model changed
    assert model.weight.data.dtype == np.dtype(dtype)
    np.testing.assert_allclose(model.weight.data, tw.detach().numpy(), rtol=1e-5 if dtype == 'float32' else 1e-12)


# --- the PyTorch habits around changes in place: clone() first, copy.copy shares, requires_grad_ freezes ---

def test_clone_keeps_the_old_values_and_the_graph_where_an_alias_would_change_with_the_tensor() -> None:
    a = Tensor([1.0, 2.0], requires_grad=True)
    kept, alias = a.clone(), a.detach()
    with no_grad():
        a += 1
    assert kept.data.tolist() == [1.0, 2.0] and alias.data.tolist() == [2.0, 3.0]
    (kept * 3).sum().backward()  # the copy was made before the change: its gradient is fine
    assert a.grad.tolist() == [3.0, 3.0]


def test_copy_copy_shares_the_data_and_its_changes_as_in_pytorch() -> None:
    import copy
    a = Tensor([1.0, 2.0], requires_grad=True)
    b = copy.copy(a)
    c = a * a
    with pytest.raises(RuntimeError, match='a leaf that requires grad'):
        b += 1  # b is a leaf that requires grad too
    with no_grad():
        b += 1
    assert a.data.tolist() == [2.0, 3.0]  # the same memory, as torch's copy.copy
    with pytest.raises(RuntimeError, match=r"'\*' reads its input 1 for its gradient, and that tensor was changed"):
        c.sum().backward()


def test_requires_grad_freezes_a_leaf_and_refuses_what_pytorch_refuses() -> None:
    p = Tensor([1.0, 2.0], requires_grad=True)
    assert p.requires_grad_(False) is p and not p.requires_grad
    assert p.requires_grad_() is p and p.requires_grad
    with pytest.raises(RuntimeError, match=r"only a leaf's requires_grad can change"):
        (p * 2).requires_grad_(False)
    with pytest.raises(TypeError, match='only floating-point tensors can require gradients'):
        Tensor([1, 2], dtype=np.int64).requires_grad_()
    with pytest.raises(TypeError, match='requires_grad must be True or False'):
        p.requires_grad_('no')
    for error, call in ((RuntimeError, lambda: (torch.ones(2, requires_grad=True) * 2).requires_grad_(False)),
                        (RuntimeError, lambda: torch.tensor([1, 2]).requires_grad_())):
        with pytest.raises(error):
            call()


def test_backward_refuses_an_integer_tensor_whose_requires_grad_was_set_by_hand() -> None:
    t = Tensor([1, 2], dtype=np.int64)
    t.requires_grad = True  # (PyTorch refuses this assignment; here backward() does, before any gradient changes)
    w = Tensor([1.0, 1.0], requires_grad=True)
    with pytest.raises(TypeError, match=r'a int64 tensor requires grad, but only floating-point tensors'):
        (t * 1.5 + w).sum().backward()
    assert t.grad is None and w.grad is None  # (its gradient would have been truncated: 1.5 to 1)
