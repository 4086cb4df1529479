"""Karpathy's micrograd lecture, replayed cell by cell on this library.

Each notebook runs twice, cell by cell: once as he wrote it, with the Value class it defines, and once with
that class definition replaced by `from micrograd.engine import Value` (his Neuron, Layer and MLP stay his).
After every cell, every Value the cell left in the notebook's namespace (also in lists, and a model's
parameters) has the same data and grad in both runs: the hand-run backward (`o.grad = 1.0; o._backward()`),
the custom ops (`exp`, `tanh` written as he writes them), his trace/draw_dot and the MLP training loop.
Numbers agree to 1e-15 (relative, as the README says), his own Neuron, Layer and MLP and their training loop
included: his tanh is (e**2x - 1)/(e**2x + 1) and his division x * y**-1, so the last bit may differ.
"""
import io
import math
import random
import re
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from micrograd.engine import Value


def cells_of(half: str) -> list[str]:
    """The code cells of one notebook, kept as text in data/lecture_<half>_half.txt, each after a line '# %%'."""
    text = (Path(__file__).parent / 'data' / f'lecture_{half}_half.txt').read_text(encoding='utf-8')
    return re.split(r'^# %%\n', text, flags=re.M)[1:]  # (what comes before the first cell says where they are from)


def without_value_class(cell: str) -> str:
    """The cell with its `class Value:` block replaced by an import of ours."""
    lines, out, inside = cell.split('\n'), [], False
    for line in lines:
        if line.startswith('class Value'):
            inside = True
            out.append('from micrograd.engine import Value')
            continue
        if inside and line.strip() and not line[0].isspace():
            inside = False
        if not inside:
            out.append(line)
    return '\n'.join(out)


def runnable(cell: str) -> str:
    return '\n'.join(line for line in cell.split('\n') if not line.lstrip().startswith('%'))  # IPython magics


def values_in(namespace: dict[str, Any], value_class: type) -> dict[str, list[tuple[float, float]]]:
    """(data, grad) of each Value a name holds: itself, the Values in a list, or a model's parameters."""
    found = {}
    for name, obj in namespace.items():
        if isinstance(obj, value_class):
            found[name] = [(obj.data, obj.grad)]
        elif isinstance(obj, list) and obj and all(isinstance(v, value_class) for v in obj):
            found[name] = sorted((v.data, v.grad) for v in obj)  # (his _prev is a set: another order)
        elif hasattr(obj, 'parameters') and not isinstance(obj, type):
            found[name] = [(p.data, p.grad) for p in obj.parameters()]
    return found


def close(a: float, b: float) -> bool:  # to 1e-15, as the README says
    return math.isclose(a, b, rel_tol=1e-15, abs_tol=1e-15) or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize('half', ['first', 'second'], ids=['first half', 'second half'])
def test_every_cell_leaves_every_value_as_the_lectures_own_engine_does(half, monkeypatch):
    cells = cells_of(half)
    import matplotlib
    matplotlib.use('Agg')
    if any('import torch' in cell for cell in cells):
        pytest.importorskip('torch')
    theirs: dict[str, Any] = {'__name__': 'lecture'}
    ours: dict[str, Any] = {'__name__': 'lecture'}
    their_value, compared = None, set()
    for number, cell in enumerate(cells):
        for namespace, source in ((theirs, runnable(cell)), (ours, runnable(without_value_class(cell)))):
            random.seed(number)  # his MLP draws its weights: the same ones in both runs
            with redirect_stdout(io.StringIO()):
                exec(compile(source, f'<lecture cell {number}>', 'exec'), namespace)
        their_value = theirs.get('Value', their_value)
        if their_value is None:
            continue
        assert ours['Value'] is Value
        mine, his = values_in(ours, Value), values_in(theirs, their_value)
        assert mine.keys() == his.keys(), f"cell {number}: {cell}"
        for name in mine:
            compared.add(name)
            assert len(mine[name]) == len(his[name]), f"cell {number}, {name}"
            for (data, grad), (their_data, their_grad) in zip(mine[name], his[name]):
                assert close(data, their_data) and close(grad, their_grad), \
                    f"cell {number}: {name} is ({data}, {grad}), the lecture's ({their_data}, {their_grad})\n{cell}"
    assert {'o', 'n', 'b', 'x1', 'w1'} <= compared  # the neuron, in both halves


def test_the_lectures_neuron_backpropagated_by_hand_gives_his_gradients():
    x1, x2 = Value(2.0, label='x1'), Value(0.0, label='x2')
    w1, w2 = Value(-3.0, label='w1'), Value(1.0, label='w2')
    b = Value(6.8813735870195432, label='b')
    x1w1, x2w2 = x1 * w1, x2 * w2
    x1w1x2w2 = x1w1 + x2w2
    n = x1w1x2w2 + b
    o = n.tanh()
    o.grad = 1.0
    for node in (o, n, b, x1w1x2w2, x2w2, x1w1):
        node._backward()  # a leaf's (b's) does nothing, as his lambda: None
    assert n.grad == pytest.approx(0.5) and x1w1.grad == pytest.approx(0.5) and b.grad == pytest.approx(0.5)
    assert (x1.grad, w1.grad, x2.grad, w2.grad) == pytest.approx((-1.5, 1.0, 0.5, 0.0))


def cube(self: Value) -> Value:  # a custom op, as the lecture writes one
    out = Value(self.data ** 3, (self,), 'cube')

    def _backward():
        self.grad += 3 * self.data ** 2 * out.grad
    out._backward = _backward
    return out


def test_a_custom_op_written_the_lectures_way_works_in_backward_with_the_engines_ops():
    x = Value(2.0)
    y = cube(x * 3) + x  # (3x)**3 + x: d/dx = 81 x**2 + 1
    y.backward()
    assert x.grad == 81 * 4 + 1
    y.backward()  # a second call adds to the leaf, as every backward() does
    assert x.grad == 2 * (81 * 4 + 1)
