"""Sweeps generated from the op table in scalar_ops.py, against plain float arithmetic and PyTorch (float64):

- every op x special values (0, -0, +-inf, nan, 1e-170, 1e-310, 1e300, negative numbers, relu's tie at 0), with
  a Value or a number on either side: both refuse (ours with the exception the table's domain names), or the same
  number as float arithmetic and as PyTorch, and the same gradients as PyTorch (and as a central difference at
  ordinary points);
- every op with a number x every kind of number (Python's, NumPy's of each width, 0-d arrays, Fraction) on either
  side: the number becomes a Python float first; and things that are no real numbers (Decimal, complex, str, None,
  lists, arrays): refused with a TypeError naming the Value method, the graph and its gradients untouched;
- properties (hypothesis): a refused input leaves every node of a random graph as it was; a second backward()
  adds to the leaves again while the other nodes hold the latest call's gradients.

The full cross-product of special values is marked slow; the default run pairs each special value with an
ordinary number on the other side (and runs every case the engine is known to get wrong, as a strict xfail).
"""
from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from micrograd import Value
from tests.conftest import TORCH_SKIP_REASON
from tests.scalar.scalar_ops import (
    BY_NAME,
    DIFFERENCES,
    NOT_NUMBERS,
    NUMBERS,
    OPERAND_DIFFERENCES,
    OPS,
    ORDINARY,
    SPECIALS,
    WITH_A_NUMBER,
    ScalarOp,
    central_differences,
    operands,
)
from tests.support.graphs import graphs, micrograd_graph

pytestmark = pytest.mark.same_on_every_python  # float arithmetic, the same on every Python: CI runs it on one

try:
    import torch
except ImportError:  # everything but the comparisons with PyTorch still runs
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason=TORCH_SKIP_REASON)

# Where the engine is wrong today, each a strict xfail: the day it is fixed the test says so and the entry goes.
NOT_NUMBER_BUGS: dict[str, str] = {}


def not_number_marks(kind: str) -> list[Any]:
    return [pytest.mark.xfail(strict=True, reason=NOT_NUMBER_BUGS[kind])] if kind in NOT_NUMBER_BUGS else []


def known_bug(name: str, x: str, y: str, against: str) -> str | None:
    """Why the case fails today, or None. against: 'float' (the test against float arithmetic) or 'torch'."""
    return None


class Refused:
    def __init__(self, error: Exception):
        self.error = error

    def __repr__(self) -> str:
        return f"refused: {type(self.error).__name__}: {self.error}"


def run_ours(op: ScalarOp, a: Any, b: Any) -> Any:
    a, b, values = operands(op, a, b)
    try:
        out = op.ours(a, b)
    except (TypeError, ValueError, ArithmeticError) as e:
        return Refused(e)
    out.backward()
    return out.data, [v.grad for v in values]


def run_torch(op: ScalarOp, a: float, b: float) -> tuple[float, list[float]]:
    first, second = op.values
    ta = torch.tensor(a, dtype=torch.float64, requires_grad=True) if first else a
    tb = torch.tensor(b, dtype=torch.float64, requires_grad=True) if second else b
    out = op.theirs(torch, ta, tb)
    out.backward()
    tensors = [t for t in (ta, tb) if isinstance(t, torch.Tensor)]
    return out.item(), [0.0 if t.grad is None else t.grad.item() for t in tensors]


def same(ours: float, theirs: float, ulps: int = 0, rel: float = 0.0) -> bool:
    """The same float (nan where nan, the same infinities), to within ulps units in the last place or rel."""
    if math.isnan(ours) or math.isnan(theirs):
        return math.isnan(ours) and math.isnan(theirs)
    if math.isinf(ours) or math.isinf(theirs):
        return ours == theirs
    return ours == theirs or abs(ours - theirs) <= max(ulps * math.ulp(theirs), rel * abs(theirs))


def check_refusal(op: ScalarOp, result: Any, expected: type[Exception], what: str) -> None:
    assert isinstance(result, Refused), f"{what}: the table says we refuse with {expected.__name__}, got {result}"
    assert type(result.error) is expected, f"{what}: {result}, the table says {expected.__name__}"
    assert re.search(op.error_pattern, str(result.error)), f"{what}: the error does not name the op: {result}"


# --- the table itself ---

def test_every_row_names_a_method_of_value_and_every_difference_says_why():
    for op in OPS:
        assert hasattr(Value, op.method.split('.')[1]), op.name
        for check, why in op.differs.items():
            assert check in ('refuses', 'forward', 'grad'), (op.name, check)
            assert set(why) <= set(DIFFERENCES), f"{op.name}: {why} (not all in DIFFERENCES, for the README)"


@needs_torch
@pytest.mark.filterwarnings('ignore::DeprecationWarning')  # (NumPy's, about PyTorch's __array_wrap__)
@pytest.mark.parametrize('kind', [*NUMBERS, *NOT_NUMBERS])
@pytest.mark.parametrize('side', ['right', 'left'])
def test_where_pytorch_takes_an_operand_kind_we_refuse_or_the_other_way_the_table_says_why(kind, side):
    k = NUMBERS[kind] if kind in NUMBERS else NOT_NUMBERS[kind][0]
    results = []
    for x in (Value(2.0), torch.tensor(2.0, dtype=torch.float64)):
        try:
            x + k if side == 'right' else k + x
            results.append('takes')
        except (TypeError, ValueError, ArithmeticError):
            results.append('refuses')
    ours, theirs = results
    assert ours == ('takes' if kind in NUMBERS else 'refuses')
    differs = side in OPERAND_DIFFERENCES.get(kind, ((), ''))[0]
    assert (ours != theirs) == differs, f"{kind} on the {side}: we {ours} it, PyTorch {theirs} it"


def test_where_float_arithmetic_refuses_the_table_refuses_too():
    for op in OPS:
        for a in SPECIALS.values():
            for b in SPECIALS.values():
                try:
                    op.reference(a, b)
                except (ValueError, ArithmeticError) as e:
                    assert op.refuses(a, b) is not None, f"{op.name}({a}, {b}): Python refuses ({e!r}), we compute"


# --- special values: both refuse, or the same numbers and gradients ---

def special_cases(against: str) -> list[Any]:
    cases = []
    for op in OPS:
        binary = op.form != 'unary'
        for x in SPECIALS:
            for y in (SPECIALS if binary else ['2']):
                bug = known_bug(op.name, x, y, against)
                default = not binary or x == '2' or y == '2' or bug  # (a known bug: seen in every run)
                marks = [] if default else [pytest.mark.slow]
                if bug:
                    marks.append(pytest.mark.xfail(strict=True, reason=bug))
                cases.append(pytest.param(op.name, x, y, marks=marks, id=f"{op.name}-{x}-{y}"))
    return cases


@pytest.mark.parametrize('name, x, y', special_cases('float'))
def test_special_values_give_float_arithmetics_number_or_the_tables_refusal(name, x, y):
    op, a, b = BY_NAME[name], SPECIALS[x], SPECIALS[y]
    ours, expected = run_ours(op, a, b), op.refuses(a, b)
    what = f"{name} with {x}, {y}"
    if expected is not None:
        check_refusal(op, ours, expected, what)
        assert 'refuses' in op.differs, f"{what}: a refusal the table does not explain"
        return
    assert not isinstance(ours, Refused), f"{what}: {ours}, where the table's domain takes it"
    data, grads = ours
    assert type(data) is float and all(type(g) is float for g in grads), f"{what}: {data!r}, {grads!r}"
    reference = op.reference(a, b)
    assert same(data, reference), f"{what}: {data!r}, float arithmetic gives {reference!r}"
    negative_base = '**' in op.name and op.form in ('values', 'rnumber') and a < 0  # (no real power nearby)
    if x in ORDINARY and y in ORDINARY and all(a != k and b != k for k in op.kinks) and not negative_base:
        for g, slope in zip(grads, central_differences(op, a, b)):
            assert g == pytest.approx(slope, rel=1e-5, abs=1e-6), f"{what}: gradient {g}, difference quotient {slope}"


@needs_torch
@pytest.mark.parametrize('name, x, y', special_cases('torch'))
def test_special_values_agree_with_pytorch(name, x, y):
    op, a, b = BY_NAME[name], SPECIALS[x], SPECIALS[y]
    ours = run_ours(op, a, b)
    what = f"{name} with {x}, {y}"
    if isinstance(ours, Refused):
        assert op.refuses(a, b) is not None and 'refuses' in op.differs, f"{what}: {ours}, outside the table's domain"
        return
    data, grads = ours
    their_data, their_grads = run_torch(op, a, b)
    differs = op.torch_differs(a, b)  # (then the table says why, and the forward too may differ, or only grads)
    if not (differs and 'forward' in op.differs):
        assert same(data, their_data, op.ulps, rel=1e-15), f"{what}: {data!r}, PyTorch gives {their_data!r}"
    if differs:
        assert 'grad' in op.differs, what
        return
    for i, (g, h) in enumerate(zip(grads, their_grads)):
        assert same(g, h, rel=1e-14), f"{what}: gradient {i} is {g!r}, PyTorch's {h!r}"


# --- numbers of every kind: a Python float first ---

NUMBER_CASES = [(name, kind) for name in WITH_A_NUMBER for kind in NUMBERS]
X = 2.0  # the Value's data: a power of two, so each result is the float arithmetic of the converted number


def number_operands(op: ScalarOp, k: Any) -> tuple[Any, Any]:
    return (X, k) if op.form == 'number' else (k, X)


@pytest.mark.parametrize('name, kind', NUMBER_CASES)
def test_every_kind_of_number_takes_part_as_a_python_float(name, kind):
    op, k = BY_NAME[name], NUMBERS[kind]
    as_float = float(k)
    ours, expected = run_ours(op, *number_operands(op, k)), op.refuses(*number_operands(op, as_float))
    if expected is not None:
        check_refusal(op, ours, expected, f"{name} with {kind} {k!r}")
        return
    data, grads = ours
    assert type(data) is float and all(type(g) is float for g in grads), (data, grads)
    again = run_ours(op, *number_operands(op, as_float))  # the very same bits (nan for nan)
    assert repr((data, grads)) == repr(again)
    assert same(data, op.reference(*number_operands(op, as_float)))


@needs_torch
@pytest.mark.parametrize('name, kind', NUMBER_CASES)
def test_every_kind_of_number_agrees_with_pytorch_given_its_float(name, kind):
    op, k = BY_NAME[name], NUMBERS[kind]
    ours = run_ours(op, *number_operands(op, k))
    if isinstance(ours, Refused):
        return  # (checked above against the table's domain)
    data, grads = ours
    their_data, their_grads = run_torch(op, *number_operands(op, float(k)))
    assert same(data, their_data, op.ulps) and all(same(g, h, rel=1e-15) for g, h in zip(grads, their_grads))


def a_small_graph() -> tuple[Value, list[Value], list[Any]]:
    """x and a graph built on it, after backward(): the node a refused op is tried on, the nodes, their state."""
    x, w = Value(X), Value(-1.5)
    y = (x * w).tanh() + x
    y.backward()
    nodes = [x, w, y, *y._prev]
    return x, nodes, snapshot(nodes)


def snapshot(nodes: list[Value]) -> list[Any]:
    return [(v.data, v.grad, v._prev, v._op, v._grad_fn) for v in nodes]


@pytest.mark.parametrize('name, kind', [pytest.param(name, kind, marks=not_number_marks(kind))
                                        for name in WITH_A_NUMBER for kind in NOT_NUMBERS
                                        if not (kind == 'None' and 'bias' in name)])  # (a bias of None: no bias)
def test_what_is_no_real_number_is_refused_naming_the_method_and_changes_nothing(name, kind):
    op, (bad, error) = BY_NAME[name], NOT_NUMBERS[kind]
    x, nodes, before = a_small_graph()
    call = (lambda: op.ours(x, bad)) if op.form == 'number' else (lambda: op.ours(bad, x))
    with pytest.raises(error) as refused:
        call()
    assert re.search(op.operand_pattern, str(refused.value)), f"not {op.operand_pattern}: {refused.value}"
    assert snapshot(nodes) == before


@pytest.mark.parametrize('kind', NUMBERS)
def test_a_value_of_any_kind_of_number_holds_its_python_float(kind):
    v = Value(NUMBERS[kind])
    assert type(v.data) is float and v.data == float(NUMBERS[kind]) and type(v.grad) is float


@pytest.mark.parametrize('kind', [pytest.param(kind, marks=not_number_marks(kind)) for kind in NOT_NUMBERS])
def test_a_value_of_what_is_no_real_number_is_refused_naming_the_constructor(kind):
    bad, error = NOT_NUMBERS[kind]
    with pytest.raises(error, match=r'Value\(\)'):
        Value(bad)


@pytest.mark.parametrize('kind', NOT_NUMBERS)
def test_a_value_in_place_of_a_value_exponent_or_operand_is_refused_too(kind):
    bad, error = NOT_NUMBERS[kind]
    x, nodes, before = a_small_graph()
    calls = [lambda: x ** Value(2.0) + bad, lambda: Value.dot([x, x], [bad, 1.0])]
    if bad is not None:  # (a bias of None is no bias)
        calls.append(lambda: Value.dot([x], [1.0], bad))
    for call in calls:
        with pytest.raises(error):
            call()
    assert snapshot(nodes) == before


# --- properties over random graphs ---

REFUSAL_CANDIDATES = [bad for bad, _ in NOT_NUMBERS.values()] + [0.0, -0.0, -1.0, -0.5, math.nan, -math.inf, 1e300,
                                                                  1000.0, 1e-310, 0.5]


def all_nodes(out: Value, leaves: list[Value]) -> list[Value]:
    return [*leaves, *out._topological_order()]


@settings(max_examples=150, deadline=None)
@given(graphs(max_ops=8), st.sampled_from([op.name for op in OPS]), st.sampled_from(range(len(REFUSAL_CANDIDATES))),
       st.integers(0, 10 ** 6), st.booleans(), st.booleans())
def test_a_refused_input_leaves_every_node_of_the_graph_as_it_was(recipe, name, bad_index, which, after_backward,
                                                                   node_first):
    leaves, out = micrograd_graph(recipe)
    if after_backward and math.isfinite(out.data):
        out.backward()
    nodes = all_nodes(out, leaves)
    node, bad, op = nodes[which % len(nodes)], REFUSAL_CANDIDATES[bad_index], BY_NAME[name]
    before = snapshot(nodes)
    other = Value(bad) if isinstance(bad, float) else bad  # in a Value's place: a Value, or what is no number
    a, b = {'unary': (node, None), 'values': (node, other) if node_first else (other, node),
            'number': (node, bad), 'rnumber': (bad, node)}[op.form]
    try:
        op.ours(a, b)
    except (TypeError, ValueError, ArithmeticError) as e:
        event(f"refused with {type(e).__name__}")
    else:
        event("taken")
        return  # nothing to check
    assert snapshot(nodes) == before
    if after_backward and math.isfinite(out.data):  # and backward() still gives the same gradients
        grads = [v.grad for v in leaves]
        for v in leaves:
            v.grad = 0.0
        out.backward()
        assert [v.grad for v in leaves] == pytest.approx(grads, rel=0, abs=0, nan_ok=True)


@settings(max_examples=100, deadline=None)
@given(graphs(max_ops=10))
def test_a_second_backward_adds_to_the_leaves_and_the_other_nodes_hold_the_latest_call(recipe):
    leaves, out = micrograd_graph(recipe)
    if not math.isfinite(out.data):
        return
    inner = out._topological_order()
    out.backward()
    first_leaves, first_inner = [v.grad for v in leaves], [v.grad for v in inner]
    out.backward()
    assert [v.grad for v in inner] == pytest.approx(first_inner, rel=0, abs=0, nan_ok=True)  # bit for bit
    scale = 1 + max(map(abs, first_leaves + first_inner))
    for leaf, g in zip(leaves, first_leaves):
        if math.isfinite(g) and scale < 1e100:
            assert math.isclose(leaf.grad, 2 * g, rel_tol=1e-12, abs_tol=1e-12 * scale), (leaf.grad, g)
    for leaf in leaves:  # zeroed, a third call gives the first call's gradients bit for bit
        leaf.grad = 0.0
    out.backward()
    assert [v.grad for v in leaves] == pytest.approx(first_leaves, rel=0, abs=0, nan_ok=True)
