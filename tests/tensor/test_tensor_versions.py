"""Changes in place after the forward, against PyTorch: every array a backward reads is checked or copied.

Generated from the op tables (tensor_ops.OPS, and LOSSES for the targets): for every op with gradients, each
input, the output and each operand that is no input (a condition, an index, a mask, a target) is changed in
place after the op ran, under no_grad() and while recording, and backward() must give PyTorch's gradient, or
refuse where PyTorch refuses ("modified by an inplace operation"). An operand given as an ndarray has no
version to count: the op keeps a copy, and the gradient is that of the values it was given (PyTorch's, with the
operand left alone). Then the hand-written cases: PyTorch's versions kept apart (a += a, s = a.sum(); a += 1),
views changed while recording, parameters changed by an optimizer's step or load_state_dict.
"""
from __future__ import annotations

import contextlib
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.tensor import Tensor, no_grad
from tests.conftest import TORCH_SKIP_REASON
from tests.tensor.tensor_ops import LOSSES, OPS, Loss, Op

try:
    import torch
except ImportError:
    torch = None

pytestmark = [pytest.mark.skipif(torch is None, reason=TORCH_SKIP_REASON),
              pytest.mark.filterwarnings('ignore:invalid value encountered:RuntimeWarning'),
              pytest.mark.filterwarnings('ignore:divide by zero encountered:RuntimeWarning'),
              pytest.mark.usefixtures('torch_in_float64')]

GRAD_OPS = [op for op in OPS if op.grad and 'float64' in op.dtypes]
WHEN = ('under no_grad', 'recording')


class Refused(Exception):
    """backward() (or the change itself) refused, as PyTorch's 'modified by an inplace operation'."""


def _inputs(op: Op) -> list[np.ndarray]:
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    return [rng.uniform(*op.interval, shape) for shape in op.shapes]


def _engine(lib: str) -> tuple[Callable[..., Any], Any]:
    """How each engine makes a tensor from an array, and its no_grad()."""
    if lib == 'torch':
        return (lambda a, grad=False: torch.tensor(a, requires_grad=grad)), torch.no_grad
    return (lambda a, grad=False: Tensor(np.array(a), requires_grad=grad, dtype=None)), no_grad


def _run(lib: str, op: Op, inputs: list[np.ndarray], changed: str, when: str,
         operand: str | None = None) -> list[np.ndarray | None]:
    """The op on leaves (or on leaf * 1, for an input changed while recording), changed is 'input i' or 'output'
    or 'operand', changed after the forward, then backward() of a weighted sum of the output."""
    tensor, no_grad_ = _engine(lib)
    leaves = [tensor(a, grad=True) for a in inputs]
    changing_input = changed.startswith('input') and when == 'recording'
    args = [leaf * 1.0 if changing_input else leaf for leaf in leaves]  # (a leaf changes only under no_grad)
    extra: list[Any] = []
    if operand is not None:
        assert op.operand is not None
        made = op.operand.make(op.shapes[0])
        extra = [made if operand == 'ndarray' else tensor(made)]
        out = op.operand.ours(*extra, *args) if lib == 'ours' else op.operand.theirs(torch, *extra, *args)
    else:
        out = op.ours(*args) if lib == 'ours' else op.theirs(torch, *args)
    weights = np.random.default_rng(1).uniform(0.5, 1.5, tuple(out.shape))
    try:
        with no_grad_() if when == 'under no_grad' else contextlib.nullcontext():
            if changed == 'output':
                out.mul_(0.5)
            elif changed == 'operand':
                assert op.operand is not None
                new = op.operand.change(op.operand.make(op.shapes[0]))
                if operand == 'ndarray':
                    extra[0][...] = new
                else:
                    extra[0].copy_(tensor(new))
            else:
                args[int(changed.split()[1])].mul_(0.5)
        (out * tensor(weights)).sum().backward()
    except RuntimeError as e:
        if lib == 'torch' and 'modified by an inplace operation' not in str(e) and 'view' not in str(e):
            raise
        raise Refused(str(e)) from None
    return [None if leaf.grad is None else np.asarray(leaf.grad) for leaf in leaves]


def _compare(ours: Callable[[], list[np.ndarray | None]], theirs: Callable[[], list[np.ndarray | None]],
             what: str) -> None:
    outcomes = []
    for run in (ours, theirs):
        try:
            outcomes.append(run())
        except Refused as e:
            outcomes.append(e)
    mine, pytorchs = outcomes
    assert isinstance(mine, Refused) == isinstance(pytorchs, Refused), f"{what}: ours {mine!r}, PyTorch's {pytorchs!r}"
    if isinstance(mine, Refused):
        return
    assert not isinstance(pytorchs, Refused)
    for i, (a, b) in enumerate(zip(mine, pytorchs)):
        assert (a is None) == (b is None), f"{what}: input {i}'s gradient {a}, PyTorch's {b}"
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=f"{what}: input {i}")


CASES = [(op, f'input {i}', when) for op in GRAD_OPS for i in range(len(op.shapes)) for when in WHEN]
CASES += [(op, 'output', when) for op in GRAD_OPS for when in WHEN]


@pytest.mark.parametrize('op, changed, when', CASES, ids=[f'{op.name}-{c}-{w}' for op, c, w in CASES])
def test_an_input_or_output_changed_in_place_after_the_forward_gives_pytorchs_gradient_or_refusal(
        op: Op, changed: str, when: str) -> None:
    inputs = _inputs(op)
    _compare(lambda: _run('ours', op, inputs, changed, when), lambda: _run('torch', op, inputs, changed, when),
             f"{op.name}, {changed} changed {when}")


OPERAND_OPS = [op for op in GRAD_OPS if op.operand is not None]


@pytest.mark.parametrize('op', OPERAND_OPS, ids=[op.name for op in OPERAND_OPS])
def test_a_condition_index_or_mask_tensor_changed_after_the_forward_is_refused_as_in_pytorch(op: Op) -> None:
    inputs = _inputs(op)
    _compare(lambda: _run('ours', op, inputs, 'operand', 'under no_grad', 'tensor'),
             lambda: _run('torch', op, inputs, 'operand', 'under no_grad', 'tensor'), f"{op.name}, operand tensor")


@pytest.mark.parametrize('op', OPERAND_OPS, ids=[op.name for op in OPERAND_OPS])
def test_a_condition_index_or_mask_array_changed_after_the_forward_changes_no_gradient(op: Op) -> None:
    inputs = _inputs(op)
    ours = _run('ours', op, inputs, 'operand', 'under no_grad', 'ndarray')  # the op kept a copy of the array
    for a, b in zip(ours, _unchanged_gradient(op, inputs)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=op.name)


def _unchanged_gradient(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """PyTorch's gradient of the weighted sum, the operand left as it was made."""
    assert op.operand is not None
    leaves = [torch.tensor(a, requires_grad=True) for a in inputs]
    out = op.operand.theirs(torch, torch.tensor(op.operand.make(op.shapes[0])), *leaves)
    weights = np.random.default_rng(1).uniform(0.5, 1.5, tuple(out.shape))
    (out * torch.tensor(weights)).sum().backward()
    return [np.asarray(leaf.grad) for leaf in leaves]


# --- the losses' targets (tensor_ops.LOSSES): as a tensor, checked; as an array, copied ---

def _loss_run(lib: str, loss: Loss, changed: str, target_as: str) -> list[np.ndarray | None]:
    rng = np.random.default_rng(zlib.crc32(loss.name.encode()))
    p, t = loss.prediction(rng, (4, 3)), loss.target(rng, (4, 3))
    tensor, no_grad_ = _engine(lib)
    pred = tensor(p, grad=True)
    target = t.copy() if target_as == 'ndarray' else tensor(t, grad=target_as == 'tensor requiring grad')
    out = loss.ours(pred, target) if lib == 'ours' else loss.theirs(torch.nn.functional, pred, target)
    new = (t + 1) % 3 if t.dtype.kind in 'iu' else t[::-1].copy()
    try:
        with no_grad_():
            if changed == 'prediction':
                pred.mul_(0.5)
            elif target_as == 'ndarray':
                target[...] = new
            else:
                target.copy_(tensor(new))
        out.backward()
    except RuntimeError as e:
        if lib == 'torch' and 'modified by an inplace operation' not in str(e):
            raise
        raise Refused(str(e)) from None
    grads = [pred.grad] + ([target.grad] if target_as == 'tensor requiring grad' else [])
    return [None if g is None else np.asarray(g) for g in grads]


LOSS_CASES = [(loss, changed, target_as) for loss in LOSSES for changed in ('prediction', 'target')
              for target_as in ('tensor', 'tensor requiring grad')
              if not (target_as == 'tensor requiring grad' and loss.name.endswith('class indices'))]


@pytest.mark.parametrize('loss, changed, target_as', LOSS_CASES,
                         ids=[f'{loss.name}-{changed}-{target_as}' for loss, changed, target_as in LOSS_CASES])
def test_a_losss_prediction_or_target_changed_after_the_forward_gives_pytorchs_gradient_or_refusal(
        loss: Loss, changed: str, target_as: str) -> None:
    _compare(lambda: _loss_run('ours', loss, changed, target_as), lambda: _loss_run('torch', loss, changed, target_as),
             f"{loss.name}, {changed} changed, the target as a {target_as}")


@pytest.mark.parametrize('loss', LOSSES, ids=[loss.name for loss in LOSSES])
def test_a_target_array_changed_after_the_forward_changes_no_gradient(loss: Loss) -> None:
    ours = _loss_run('ours', loss, 'target', 'ndarray')  # the loss kept a copy of the array
    rng = np.random.default_rng(zlib.crc32(loss.name.encode()))
    p, t = loss.prediction(rng, (4, 3)), loss.target(rng, (4, 3))
    pred = torch.tensor(p, requires_grad=True)
    loss.theirs(torch.nn.functional, pred, torch.tensor(t)).backward()
    np.testing.assert_allclose(ours[0], pred.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=loss.name)


# --- the cases a user types, each run on both engines: the same gradients, or both refuse ---

def _tensor(lib: str, values: Any, grad: bool = False) -> Any:
    return _engine(lib)[0](np.asarray(values, dtype=float), grad)


def _grads(*tensors: Any) -> list[np.ndarray | None]:
    return [None if t.grad is None else np.asarray(t.grad) for t in tensors]


def _slice_of_a_result_plus_a_tensor(lib: str) -> list[np.ndarray | None]:
    w, x = _tensor(lib, [1, 2, 3], True), _tensor(lib, [10, 20], True)
    t = w * 1
    t[1:] += x  # t's history becomes its old self with [1:] replaced, as PyTorch's CopySlices
    (t * t).sum().backward()
    return _grads(w, x)  # [2, 24, 46], [24, 46]


def _slice_of_data_plus_a_parameter(lib: str) -> list[np.ndarray | None]:
    w, buf = _tensor(lib, [1, 2], True), _tensor(lib, [0, 0, 0])
    buf[:2] += w  # data joins the graph
    (buf * _tensor(lib, [1, 2, 3])).sum().backward()
    return _grads(w)  # [1, 2]


def _reshape_changed(lib: str) -> list[np.ndarray | None]:
    w = _tensor(lib, [1, 2, 3], True)
    y = w * 2
    r = y.reshape(3)
    r += 1  # y's values change, and so does its history
    (y * y).sum().backward()
    return _grads(w)  # [12, 20, 28]


def _plus_itself(lib: str) -> list[np.ndarray | None]:
    w = _tensor(lib, [1, 2], True)
    a = w * 1
    a += a
    (a * a).sum().backward()
    return _grads(w)  # a = 2w: 8w


def _sum_then_changed(lib: str) -> list[np.ndarray | None]:
    w = _tensor(lib, [1, 2], True)
    a = w * 1
    s = a.sum()
    a += 1  # s took a as it was
    s.backward()
    return _grads(w)


def _exp_then_input_doubled(lib: str) -> list[np.ndarray | None]:
    w = _tensor(lib, [1, 2], True)
    a = w * 1
    e = a.exp()
    a *= 2  # exp's gradient reads its output, not a
    (e.sum() + a.sum()).backward()
    return _grads(w)


def _element_then_base_changed(lib: str) -> list[np.ndarray | None]:
    w = _tensor(lib, [1, 2], True)
    a = w * 1
    y = a[0]  # a view: it follows a
    z = y * 1  # z took y as it was
    a *= 3
    (y + z).backward()
    return _grads(w)  # [4, 0]: y = 3 w0 now, z = w0


def _times_itself_in_place(lib: str) -> list[np.ndarray | None]:
    w = _tensor(lib, [1, 2], True)
    a = w * 1
    a *= a  # *'s gradient reads a, which the change overwrote: refused
    a.sum().backward()
    return _grads(w)


def _rms_norm_output_scaled(lib: str) -> list[np.ndarray | None]:
    x = _tensor(lib, [[1, 2, 3]], True)
    y = torch.nn.functional.rms_norm(x, (3,), eps=1e-5) if lib == 'torch' else mt.rms_norm(x)
    y *= _tensor(lib, [[2, 3, 4]])  # rms_norm's gradient reads x, not its output
    (y * _tensor(lib, [[1, -1, 0.5]])).sum().backward()
    return _grads(x)


def _a_step_between_two_backwards(lib: str) -> list[np.ndarray | None]:
    rng = np.random.default_rng(0)
    w1, w2 = _tensor(lib, rng.normal(size=(3, 4)), True), _tensor(lib, rng.normal(size=(4, 2)), True)
    out = (_tensor(lib, np.ones((5, 3))) @ w1).tanh() @ w2
    out.sum().backward(**({'retain_graph': True} if lib == 'torch' else {}))
    (torch.optim.SGD([w1, w2], lr=0.1) if lib == 'torch' else mt.SGD([w1, w2], lr=0.1)).step()
    out.sum().backward()  # the second @ reads w2, which the step changed: refused
    return _grads(w1, w2)


CASES_BY_HAND: dict[str, Callable[[str], list[np.ndarray | None]]] = {
    't = w * 1; t[1:] += x': _slice_of_a_result_plus_a_tensor,
    'buf[:2] += w': _slice_of_data_plus_a_parameter,
    'r = y.reshape(3); r += 1': _reshape_changed,
    'a += a': _plus_itself,
    's = a.sum(); a += 1': _sum_then_changed,
    'e = a.exp(); a *= 2': _exp_then_input_doubled,
    'y = a[0]; z = y * 1; a *= 3': _element_then_base_changed,
    'a *= a': _times_itself_in_place,
    'y = rms_norm(x); y *= g': _rms_norm_output_scaled,
    'out = m(x); backward; step; backward': _a_step_between_two_backwards,
}


@pytest.mark.parametrize('case', list(CASES_BY_HAND))
def test_what_a_user_types_gives_pytorchs_gradient_or_refusal(case: str) -> None:
    def run(lib: str) -> Callable[[], list[np.ndarray | None]]:
        def go() -> list[np.ndarray | None]:
            try:
                return CASES_BY_HAND[case](lib)
            except RuntimeError as e:
                raise Refused(str(e)) from None
        return go
    _compare(run('ours'), run('torch'), case)


def test_the_issues_numbers() -> None:
    assert [g.tolist() for g in _slice_of_a_result_plus_a_tensor('ours')] == [[2, 24, 46], [24, 46]]
    assert [g.tolist() for g in _slice_of_data_plus_a_parameter('ours')] == [[1, 2]]
    assert [g.tolist() for g in _reshape_changed('ours')] == [[12, 20, 28]]
    assert [g.tolist() for g in _element_then_base_changed('ours')] == [[4, 0]]
    with pytest.raises(RuntimeError, match=r"'@' reads its input 2 for its gradient.*\(by SGD.step"):
        _a_step_between_two_backwards('ours')


@pytest.mark.parametrize('optimizer', [lambda ps: mt.SGD(ps, lr=0.1), lambda ps: mt.SGD(ps, lr=0.1, momentum=0.9),
                                       lambda ps: mt.Adam(ps), 'load_state_dict'],
                         ids=['SGD', 'SGD momentum', 'Adam', 'load_state_dict'])
def test_a_parameter_written_by_a_step_or_a_load_counts_as_a_change_in_place(optimizer: Any) -> None:
    model = mt.MLP(3, [4, 2], activation='tanh', rng=np.random.default_rng(0))
    out = model(np.ones((5, 3)))
    out.sum().backward()
    if optimizer == 'load_state_dict':
        model.load_state_dict(mt.MLP(3, [4, 2], rng=np.random.default_rng(1)).state_dict())
    else:
        optimizer(model.parameters()).step()
    grads = [p.grad.copy() for p in model.parameters()]
    with pytest.raises(RuntimeError, match='modified by an inplace operation'):
        out.sum().backward()
    assert all(np.array_equal(p.grad, g) for p, g in zip(model.parameters(), grads))  # refused: nothing changed
