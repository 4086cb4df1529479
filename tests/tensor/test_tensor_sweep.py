"""Sweeps generated from the op table in tensor_ops.py, against PyTorch (float64 default dtype):

- every op x dtype (bool, int32, int64, float16, float32, float64): both refuse, or the same values and dtype;
- gradients of every differentiable op in each float dtype;
- special values as inputs (0, -0, +-inf, nan, ties), forward and backward;
- inf and nan upstream gradients through every op with a mask or a branch: 0 where PyTorch gives 0;
- every binary op x operand kind (Python and NumPy numbers of each type, arrays and 0-d arrays and 0-d
  tensors of each dtype, on either side), and things that are no numbers;
- empty shapes;
- and a property (hypothesis): an input that is refused leaves the graph and every gradient as they were.

The big cross-products are marked slow; the default run keeps one of each kind of check for every op.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd.tensor as mt
from micrograd.optim import SGD, Adam
from tests.tensor.sweep import (
    REFUSALS,
    SPECIAL_VALUE_MARKS,
    Refused,
    assert_same,
    needs_torch,
    run_ours,
    run_torch,
    samples,
    specials,
    torch,
)
from tests.tensor.tensor_ops import BY_NAME, DTYPES, FLOATS, NOT_NUMBERS, NUMBER_OPERANDS, OP_NAMES, OPS, Op

pytestmark = [*SPECIAL_VALUE_MARKS, pytest.mark.same_on_every_python]  # inf and nan in forward ops; PyTorch in float64
COMPLEX_REFUSED = "complex numbers are refused (TypeError); PyTorch computes in complex"


def slow_unless(default: bool) -> list[Any]:
    return [] if default else [pytest.mark.slow]


# --- op x dtype: both refuse, or the same values and dtype ---

@needs_torch
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name', OP_NAMES)
def test_every_op_in_every_dtype_agrees_with_pytorch_or_both_refuse(name, dtype):
    op = BY_NAME[name]
    arrays = samples(op, dtype)
    ours, theirs = run_ours(op, arrays, grad=False), run_torch(op, arrays, grad=False)
    assert isinstance(ours, Refused) == (dtype not in op.dtypes), f"the table says we take {sorted(op.dtypes)}: {ours}"
    assert isinstance(theirs, Refused) == (not op.torch_takes(dtype)), f"PyTorch, against the table: {theirs}"
    if op.torch_takes(dtype) != (dtype in op.dtypes):
        assert 'dtypes' in op.differs, "a difference from PyTorch must be written in the table"
        return
    assert_same(ours, theirs, f"{name} in {dtype}")


def test_every_difference_in_the_table_says_why():
    for op in OPS:
        for check, why in op.differs.items():
            assert check in ('dtypes', 'specials', 'specials grad', 'upstream inf', 'operands') and len(why) > 20


# --- gradients in each float dtype ---

GRAD_CASES = [pytest.param(op.name, dtype, marks=slow_unless(dtype == 'float64'))
              for op in OPS if op.grad for dtype in sorted(FLOATS & op.dtypes)]


@needs_torch
@pytest.mark.parametrize('name, dtype', GRAD_CASES)
def test_gradients_agree_with_pytorch(name, dtype):
    op = BY_NAME[name]
    arrays = samples(op, dtype)
    assert_same(run_ours(op, arrays, grad=True), run_torch(op, arrays, grad=True), f"{name} in {dtype}")


# --- special values: 0, -0, +-inf, nan, ties ---

SPECIAL_CASES = [pytest.param(op.name, dtype, marks=slow_unless(dtype == 'float64'))
                 for op in OPS if op.specials for dtype in sorted(FLOATS & op.dtypes)]


@needs_torch
@pytest.mark.parametrize('name, dtype', SPECIAL_CASES)
def test_special_values_agree_with_pytorch(name, dtype):
    op = BY_NAME[name]
    arrays = specials(op, dtype)
    grad = op.grad and 'specials grad' not in op.differs
    ours, theirs = run_ours(op, arrays, grad), run_torch(op, arrays, grad)
    if isinstance(ours, Refused) and not isinstance(theirs, Refused):
        assert 'specials' in op.differs and isinstance(ours.error, ValueError), ours
        return
    assert_same(ours, theirs, f"{name} on special values in {dtype}")


# --- inf and nan upstream: an op with a mask or a branch selects, it does not multiply ---

UPSTREAM_CASES = [pytest.param(op.name, dtype, bad, marks=slow_unless(dtype == 'float64'))
                  for op in OPS if op.masks for dtype in ('float32', 'float64') for bad in ('inf', 'nan')]


@needs_torch
@pytest.mark.parametrize('name, dtype, bad', UPSTREAM_CASES)
def test_an_inf_or_nan_upstream_gradient_gives_0_where_pytorch_gives_0(name, dtype, bad):
    op = BY_NAME[name]
    op_ints = Op(op.name, op.ours, op.theirs, op.shapes, interval=(-2.0, 2.0))
    arrays = samples(op_ints, 'int64')  # whole numbers in [-2, 2]: zeros and ties
    arrays = [a.astype(dtype) for a in arrays]
    out = run_ours(op, arrays, grad=False)[0]
    upstream = np.full(out.shape, float(bad))
    ours, theirs = run_ours(op, arrays, True, upstream), run_torch(op, arrays, True, upstream)
    for i, (g, h) in enumerate(zip(ours[1], theirs[1])):
        assert np.all(g[h == 0] == 0), f"{name}: input {i} gets {g[h == 0]} where PyTorch gives 0"
    if 'upstream inf' not in op.differs:
        assert_same(ours, theirs, f"{name} with an upstream gradient of {bad}")


def test_a_fully_masked_softmax_row_sends_no_nan_back():
    x = mt.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    hidden = np.array([[True, True], [False, True]])  # the first row is all padding
    probs = x.masked_fill(hidden, -np.inf).softmax()
    assert np.isnan(probs.data[0]).all()  # 0 / 0, as in PyTorch
    probs.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]  # as in PyTorch


# --- operand kinds: numbers and arrays of every type, on either side ---

def operand_kinds() -> dict[str, Any]:
    kinds: dict[str, Any] = dict(NUMBER_OPERANDS)
    for d in DTYPES:
        kinds[f'array {d}'] = np.array([2, 1, 0, 3]).astype(d)
        kinds[f'0-d array {d}'] = np.array(2).astype(d)
        kinds[f'0-d tensor {d}'] = ('tensor', np.array(2).astype(d))
    kinds['column tensor'] = ('tensor', np.array([[1.0], [2.0], [0.0]]))
    return kinds


KINDS = operand_kinds()
BINARY = [op.name for op in OPS if op.binary]
DEFAULT_BINARY = ('add', 'sub', 'div', 'pow', 'lt', 'and')
OPERAND_CASES = [pytest.param(name, dtype, kind, side,
                              marks=slow_unless(dtype in ('bool', 'int32', 'float32') and name in DEFAULT_BINARY
                                                and side == 'right'))
                 for name in BINARY for dtype in DTYPES for kind in KINDS for side in ('right', 'left')]


def _operand(kind: Any, engine: str) -> Any:
    if isinstance(kind, tuple):  # a tensor
        return mt.Tensor(kind[1], dtype=kind[1].dtype) if engine == 'ours' else torch.from_numpy(kind[1].copy())
    if isinstance(kind, np.ndarray) and engine == 'torch':
        return torch.from_numpy(kind.copy())
    if isinstance(kind, np.bool_) and engine == 'torch':
        return bool(kind)  # NUMPY_BOOL in the table: ours takes it as Python's True, PyTorch as a float
    return kind


@needs_torch
@pytest.mark.parametrize('name, dtype, kind, side', OPERAND_CASES)
def test_every_operand_kind_gives_pytorchs_result_and_dtype(name, dtype, kind, side):
    op = BY_NAME[name]
    (x,) = samples(op, dtype, (op.shapes[0],))
    results = []
    for engine, make in (('ours', lambda a: mt.Tensor(a, dtype=a.dtype)), ('torch', torch.from_numpy)):
        left, right = make(x.copy()), _operand(KINDS[kind], engine)
        if side == 'left':
            left, right = right, left
        if name == 'where':  # where(cond, number, tensor) and where(cond, tensor, number)
            cond = np.array([True, False, True, False])
            call = (lambda: mt.where(cond, left, right)) if engine == 'ours' else (
                lambda: torch.where(torch.from_numpy(cond), left, right))
        else:
            call = (lambda: op.ours(left, right)) if engine == 'ours' else (lambda: op.theirs(torch, left, right))
        try:
            out = call()
            results.append((out.data if engine == 'ours' else out.numpy(), None))
        except REFUSALS as e:
            results.append(Refused(e))
    ours, theirs = results
    if isinstance(ours, Refused) and not isinstance(theirs, Refused):
        if isinstance(ours.error, OverflowError):
            return  # a number that does not fit the dtype (-1 in uint8, 200 in int8): PyTorch wraps it around
        if isinstance(ours.error, ValueError) and 'specials' in op.differs and np.isnan(theirs[0]).any():
            return  # the table's 'specials' difference: we refuse where PyTorch gives nan
        if isinstance(ours.error, ValueError) and 'dtypes' in op.differs:
            return  # the table's 'dtypes' difference (an integer to a negative power)
    assert_same(ours, theirs, f"{name}: {dtype} tensor and {kind} on the {side}")


NOT_NUMBER_CASES = [pytest.param(name, kind, marks=slow_unless(name in ('add', 'eq', 'where')))
                    for name in BINARY for kind in NOT_NUMBERS]


@needs_torch
@pytest.mark.parametrize('name, kind', NOT_NUMBER_CASES)
def test_things_that_are_no_numbers_are_refused_as_operands(name, kind):
    op = BY_NAME[name]
    (x,) = samples(op, 'float64', (op.shapes[0],))
    bad = NOT_NUMBERS[kind]
    try:
        answer: Any = op.ours(mt.Tensor(x), bad)
    except TypeError as e:
        assert name in ('eq', 'ne') or 'Tensor' in str(e) or 'where' in str(e) or 'supported' in str(e), e
        answer = None
    if answer is not None:  # only == and != answer, and only for what is no array: not equal, as in PyTorch
        assert name in ('eq', 'ne') and isinstance(answer, bool), answer
        if 'complex' not in kind:  # (PyTorch compares with a complex number elementwise: COMPLEX_REFUSED)
            assert answer == op.theirs(torch, torch.from_numpy(x), bad)
        return
    try:
        their = op.theirs(torch, torch.from_numpy(x), bad if not isinstance(bad, np.ndarray) else bad)
    except Exception:  # (NumPy's errors for string and date arrays are no TypeError)
        return
    assert 'complex' in kind or isinstance(their, bool), f"PyTorch computes {their!r}: {COMPLEX_REFUSED}"


# --- empty shapes ---

EMPTY_CASES = [pytest.param(op.name, dtype, marks=slow_unless(dtype == 'float64'))
               for op in OPS if op.empty for dtype in sorted(op.dtypes & {'int64', 'float32', 'float64'})
               if op.torch_takes(dtype)]


@needs_torch
@pytest.mark.parametrize('name, dtype', EMPTY_CASES)
def test_empty_shapes_agree_with_pytorch(name, dtype):
    op = BY_NAME[name]
    arrays = samples(op, dtype, op.empty)
    grad = op.grad and dtype in FLOATS
    assert_same(run_ours(op, arrays, grad), run_torch(op, arrays, grad), f"{name} on shapes {op.empty}")


# --- a refused input changes nothing ---

def _refused_inputs() -> dict[str, Any]:
    """Calls that must be refused, each given (x, y): x a trainable (3, 4) float tensor, y its output so far."""
    return {
        'None operand': lambda x, y: x + None,
        'string operand': lambda x, y: y * '2',
        'string array operand': lambda x, y: x - np.array(['1', '2', '3', '4']),
        'object array operand': lambda x, y: x * np.array([1.0, None, 2.0, 3.0], dtype=object),
        'complex operand': lambda x, y: x + (1 + 2j),
        'date array operand': lambda x, y: x + np.array(['2024-01-01'] * 4, dtype='datetime64[D]'),
        'shapes that do not broadcast': lambda x, y: x + np.ones(3),
        'matmul shapes': lambda x, y: x @ x,
        'masked_fill with False': lambda x, y: y.masked_fill(False, 0.0),
        'masked_fill with an int mask': lambda x, y: y.masked_fill(np.ones((3, 4), dtype=int), 0.0),
        'masked_fill with a mask of the wrong shape': lambda x, y: y.masked_fill(np.ones(3, dtype=bool), 0.0),
        'masked_fill with a string': lambda x, y: y.masked_fill(y > 0, 'a'),
        'log of a negative number': lambda x, y: (x - 10).log(),
        'fractional power of a negative base': lambda x, y: (x - 10) ** 0.5,
        'mean of integers': lambda x, y: mt.Tensor([1, 2], dtype=np.int64).mean(),
        'neg of bools': lambda x, y: -(y > 0),
        'bool of many elements': lambda x, y: bool(y),
        'reshape to a wrong size': lambda x, y: y.reshape(5, 3),
        'a float axis': lambda x, y: y.sum(axis=1.0),
        'an axis out of range': lambda x, y: y.mean(axis=2),
        'backward with a wrong-shape grad': lambda x, y: y.backward(np.ones(3)),
        'backward with a string grad': lambda x, y: y.backward(np.full((3, 4), 'a')),
        'binary_cross_entropy with a nan probability': lambda x, y: mt.binary_cross_entropy(
            (x * np.nan).sigmoid(), np.zeros((3, 4))),
        'binary_cross_entropy with a target of 2': lambda x, y: mt.binary_cross_entropy(
            x.sigmoid(), np.full((3, 4), 2.0)),
        'cross_entropy with a class out of range': lambda x, y: mt.cross_entropy(y, [0, 1, 9]),
        'Adam with a nan learning rate': lambda x, y: Adam([x], lr=float('nan')),
        'SGD given one tensor': lambda x, y: SGD(x, lr=0.1),
        'Linear(3.5, 2)': lambda x, y: mt.Linear(3.5, 2),
        'Linear(0, 2)': lambda x, y: mt.Linear(0, 2),
        'MLP(2, 3)': lambda x, y: mt.MLP(2, 3),
        'a float head count': lambda x, y: mt.CausalSelfAttention(8, 2.0),
        'heads that do not divide n_embd': lambda x, y: mt.CausalSelfAttention(10, 3),
        'Embedding(0, 4)': lambda x, y: mt.Embedding(0, 4),
        'RMSNorm with eps nan': lambda x, y: mt.RMSNorm(4, eps=float('nan')),
        'a Tensor of None': lambda x, y: mt.Tensor([1.0, None]),
        'a Tensor of strings': lambda x, y: mt.Tensor(['1.5', '2']),
        'a Tensor of complex numbers': lambda x, y: mt.Tensor(np.ones(2, dtype=complex)),
    }


REFUSED = _refused_inputs()


def _snapshot(tensors: list[mt.Tensor]) -> list[Any]:
    return [(t.data.copy(), None if t.grad is None else t.grad.copy(), t._prev, t._op, t.requires_grad)
            for t in tensors]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(REFUSED)), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_a_refused_input_leaves_the_graph_and_every_gradient_as_they_were(name, seed, after_backward):
    rng = np.random.default_rng(seed)
    x = mt.Tensor(rng.normal(size=(3, 4)), requires_grad=True)
    w = mt.Tensor(rng.normal(size=(4,)), requires_grad=True)
    y = (x * w).relu() + x.tanh()
    loss = y.masked_fill(y > 2, 0.0).mean()
    if after_backward:
        loss.backward()
    nodes = [x, w, y, loss] + loss._topological_order()
    before = _snapshot(nodes)
    with pytest.raises(REFUSALS):
        REFUSED[name](x, y)
    after = _snapshot(nodes)
    for (d0, g0, p0, o0, r0), (d1, g1, p1, o1, r1) in zip(before, after):
        np.testing.assert_array_equal(d0, d1)
        assert (g0 is None and g1 is None) or np.array_equal(g0, g1, equal_nan=True)
        assert p0 is p1 and o0 == o1 and r0 == r1
    if after_backward:  # and backward still gives the same gradients
        expected = x.grad.copy()
        x.grad = w.grad = None
        loss.backward()
        np.testing.assert_array_equal(x.grad, expected)
