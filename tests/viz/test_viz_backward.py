"""draw_backward: backward() one node at a time, with a frame and a caption a learner checks by hand per step."""
import base64
import io
import math
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from PIL import Image

from micrograd import Value
from micrograd.ops import BY_NAME, OPS, evaluate
from micrograd.viz import HIGHLIGHT, MAX_NODES, BackwardPass, draw_backward, draw_dot, trace
from micrograd.viz.drawing import number
from tests.support.graphs import graphs, micrograd_graph


def labelled(value, label):
    value.label = label
    return value


def labelled_f():
    """f = (a*b + c)**2 at a=2, b=-3, c=10: e = a*b = -6, d = e + c = 4, f = 16."""
    a, b, c = Value(2.0, label='a'), Value(-3.0, label='b'), Value(10.0, label='c')
    e = labelled(a * b, 'e')
    d = labelled(e + c, 'd')
    return labelled(d ** 2, 'f'), (a, b, c)


def neuron():
    """o = tanh(w1*x1 + w2*x2 + b) with the numbers of Karpathy's lecture: n = 0.8814, o = 0.7071."""
    x1, x2 = Value(2.0, label='x1'), Value(0.0, label='x2')
    w1, w2 = Value(-3.0, label='w1'), Value(1.0, label='w2')
    b = Value(6.8813735870195432, label='b')
    n = labelled(Value.dot([w1, w2], [x1, x2], b), 'n')
    return labelled(n.tanh(), 'o'), (w1, w2, x1, x2, b)


def step_captions(root):
    """The captions of the steps after the first frame, which only starts backward()."""
    return draw_backward(root).captions[1:]


def dot_nodes(source):
    """{name: attribute text} for every node statement in DOT source."""
    return dict(re.findall(r'^\t(\w+) \[(.*)\]$', source, re.M))


def dot_edges(source):
    """{(tail, head): attribute text} for every edge statement in DOT source."""
    return {(t, h): attrs for t, h, attrs in re.findall(r'^\t(\w+) -> (\w+)(?: \[(.*)\])?$', source, re.M)}


def record_fills(source):
    return [re.search(r'fillcolor="([^"]*)"', attrs).group(1) for attrs in dot_nodes(source).values()
            if 'shape=record' in attrs and 'fillcolor' in attrs]


def record_labels(source):
    return sorted(re.search(r'label="([^"]*)"', attrs).group(1) for attrs in dot_nodes(source).values()
                  if 'shape=record' in attrs)


# --- f = (a*b + c)**2, the lecture's first example ---------------------------------------------

def test_f_takes_three_steps_from_f_back_to_the_leaves():
    f, _ = labelled_f()
    steps = draw_backward(f)
    assert len(steps.frames) == len(steps.captions) == 1 + 3
    assert [step.node.label for step in steps.steps] == ['f', 'd', 'e']  # f's op first, then d's, then e's


def test_f_captions_are_the_hand_computed_chain_rule():
    f, _ = labelled_f()
    assert draw_backward(f).captions == [
        'step 0/3 · f.grad = 1.0, as df/df = 1: backward() starts here · the grads still to compute show as ?',
        'step 1/3 · f = d ** 2 · f.grad = 1.0000 · '
        'd.grad += 2 * d.data**(2 - 1) * f.grad = 2 * 4.0000**(2 - 1) * 1.0000 → 8.0000',
        'step 2/3 · d = e + c · d.grad = 8.0000 · e.grad += d.grad = 8.0000 → 8.0000 · '
        'c.grad += d.grad = 8.0000 → 8.0000',
        'step 3/3 · e = a * b · e.grad = 8.0000 · '
        'a.grad += b.data * e.grad = -3.0000 * 8.0000 → -24.0000 · '
        'b.grad += a.data * e.grad = 2.0000 * 8.0000 → 16.0000',
    ]


def test_f_ends_with_the_gradients_backward_gives():
    f, (a, b, c) = labelled_f()
    draw_backward(f)
    g, leaves = labelled_f()
    g.backward()
    assert [a.grad, b.grad, c.grad] == [leaf.grad for leaf in leaves] == [-24.0, 16.0, 8.0]


def test_grads_not_computed_yet_are_unknown_not_zero():
    f, _ = labelled_f()
    steps = draw_backward(f)
    assert record_labels(steps.frames[0].source) == [
        '{ a | data 2.0000 | grad ? }', '{ b | data -3.0000 | grad ? }', '{ c | data 10.0000 | grad ? }',
        '{ d | data 4.0000 | grad ? }', '{ e | data -6.0000 | grad ? }', '{ f | data 16.0000 | grad 1.0000 }']
    assert record_labels(steps.frames[2].source) == [  # after d's step: e and c known, a and b not yet
        '{ a | data 2.0000 | grad ? }', '{ b | data -3.0000 | grad ? }', '{ c | data 10.0000 | grad 8.0000 }',
        '{ d | data 4.0000 | grad 8.0000 }', '{ e | data -6.0000 | grad 8.0000 }',
        '{ f | data 16.0000 | grad 1.0000 }']
    assert 'grad ?' not in steps.frames[-1].source
    assert 'call backward()' not in steps.frames[0].source  # draw_dot's note is for forgotten backward() calls


def test_the_last_frame_shows_what_draw_dot_shows_after_backward():
    f, _ = labelled_f()
    last = draw_backward(f).frames[-1].source
    assert record_labels(last) == record_labels(draw_dot(f).source)
    assert record_fills(last) == record_fills(draw_dot(f).source)


def test_a_frame_highlights_the_node_its_op_and_the_arrows_the_gradient_flows_along():
    f, _ = labelled_f()
    source = draw_backward(f).frames[2].source  # d = e + c passes d.grad to e and c
    nodes, edges = dot_nodes(source), dot_edges(source)
    names = {re.search(r'label="\{ (\w)', attrs).group(1): name for name, attrs in nodes.items()
             if 'shape=record' in attrs}
    d, e, c, a = names['d'], names['e'], names['c'], names['a']
    assert f'color="{HIGHLIGHT}"' in nodes[d] and 'penwidth=3' in nodes[d]
    assert f'color="{HIGHLIGHT}"' in nodes[d + '_op']
    assert all(f'color="{HIGHLIGHT}"' in edges[edge] for edge in [(d + '_op', d), (e, d + '_op'), (c, d + '_op')])
    assert f'color="{HIGHLIGHT}"' in nodes[e] and f'color="{HIGHLIGHT}"' in nodes[c]  # they receive it
    assert HIGHLIGHT not in nodes[a] and HIGHLIGHT not in edges[(a, names['e'] + '_op')]


def test_the_first_frame_highlights_only_the_output():
    f, _ = labelled_f()
    source = draw_backward(f).frames[0].source
    assert source.count(HIGHLIGHT) == 1 and 'label="{ f |' in next(line for line in source.splitlines()
                                                                  if HIGHLIGHT in line)


# --- the other ops ------------------------------------------------------------------------------

def test_the_neuron_dot_op_passes_its_gradient_to_every_weight_input_and_the_bias():
    o, (w1, w2, x1, x2, b) = neuron()
    t = o.data  # tanh(0.8813735870195432), 1/sqrt(2) to the last bit or two
    g = (1 - t * t) * 1.0  # o's backward: n.grad, about 0.5
    assert step_captions(o) == [
        f'step 1/2 · o = tanh(n) · o.grad = 1.0000 · t = tanh(n.data) = {number(t)} · '
        f'n.grad += (1 - t * t) * o.grad = (1 - {number(t)} * {number(t)}) * 1.0000 → {number(g)}',
        f'step 2/2 · n = w1 * x1 + w2 * x2 + b · n.grad = {number(g)} · '
        f'w1.grad += x1.data * n.grad = 2.0000 * {number(g)} → {number(2 * g)} · '
        f'x1.grad += w1.data * n.grad = -3.0000 * {number(g)} → {number(-3 * g)} · '
        f'w2.grad += x2.data * n.grad = 0.0000 * {number(g)} → 0.0000 · '
        f'x2.grad += w2.data * n.grad = 1.0000 * {number(g)} → {number(g)} · '
        f'b.grad += n.grad = {number(g)} → {number(g)}',
    ]
    assert [v.grad for v in (w1, w2, x1, x2, b)] == [2 * g, 0.0, -3 * g, g, g]
    assert g == pytest.approx(0.5)


def test_a_value_used_twice_in_one_op_gets_both_terms_and_the_grad_they_make_together():
    a = Value(3.0, label='a')
    b = labelled(a * a, 'b')
    steps = draw_backward(b)
    assert steps.captions[1:] == [
        'step 1/1 · b = a * a · b.grad = 1.0000 · a.grad += a.data * b.grad = 3.0000 * 1.0000 · '
        'a.grad += a.data * b.grad = 3.0000 * 1.0000 → 6.0000']
    assert a.grad == 6.0 and [(c.parent, c.before, c.after) for c in steps.steps[0].changes] == [(a, None, 6.0)]


def test_a_value_used_by_two_ops_accumulates_across_steps():
    a, b = Value(2.0, label='a'), Value(5.0, label='b')
    p = labelled(a * b, 'p')
    y = labelled(p + a, 'y')
    steps = draw_backward(y)
    assert steps.captions[1:] == [
        'step 1/2 · y = p + a · y.grad = 1.0000 · p.grad += y.grad = 1.0000 → 1.0000 · '
        'a.grad += y.grad = 1.0000 → 1.0000',
        'step 2/2 · p = a * b · p.grad = 1.0000 · a.grad += b.data * p.grad = 5.0000 * 1.0000 → 6.0000 (was 1.0000) · '
        'b.grad += a.data * p.grad = 2.0000 * 1.0000 → 2.0000']
    assert steps.grads[1][a] == 1.0 and steps.grads[2][a] == 6.0 == a.grad  # the frames show the running sum


def test_tanh():
    x = Value(math.log(2.0), label='x')  # tanh(ln 2) = 3/5
    assert step_captions(labelled(x.tanh(), 'y')) == [
        'step 1/1 · y = tanh(x) · y.grad = 1.0000 · t = tanh(x.data) = 0.6000 · '
        'x.grad += (1 - t * t) * y.grad = (1 - 0.6000 * 0.6000) * 1.0000 → 0.6400']


def test_exp_and_multiplying_by_a_number():
    x = Value(math.log(2.0), label='x')
    e = labelled(x.exp(), 'e')
    assert step_captions(labelled(e * 3, 'y')) == [  # the number 3 is a leaf of its own, named v2
        'step 1/2 · y = e * v2 · y.grad = 1.0000 · e.grad += v2.data * y.grad = 3.0000 * 1.0000 → 3.0000 · '
        'v2.grad += e.data * y.grad = 2.0000 * 1.0000 → 2.0000',
        'step 2/2 · e = exp(x) · e.grad = 3.0000 · e = exp(x.data) = 2.0000 · '
        'x.grad += e * e.grad = 2.0000 * 3.0000 → 6.0000']
    assert x.grad == 6.0


def test_log_and_dividing_by_a_number():
    x = Value(4.0, label='x')
    y = labelled(x.log(), 'y')
    z = labelled(y / 2, 'z')
    captions = step_captions(z)
    assert captions[0] == ('step 1/2 · z = y / v2 · z.grad = 1.0000 · '
                           'y.grad += z.grad / v2.data = 1.0000 / 2.0000 → 0.5000 · '
                           f'v2.grad -= z.grad * (y.data / v2.data / v2.data) = 1.0000 * ({number(math.log(4.0))} / '
                           '2.0000 / 2.0000) '
                           f'→ {number(-math.log(4.0) / 2.0 / 2.0)}')
    assert captions[1] == ('step 2/2 · y = log(x) · y.grad = 0.5000 · '
                           'x.grad += y.grad / x.data = 0.5000 / 4.0000 → 0.1250')
    assert x.grad == 0.125


def test_a_power_with_a_number_exponent_writes_it_as_the_user_did():
    x = Value(3.0, label='x')
    assert step_captions(labelled(x ** 2, 'y')) == [
        'step 1/1 · y = x ** 2 · y.grad = 1.0000 · '
        'x.grad += 2 * x.data**(2 - 1) * y.grad = 2 * 3.0000**(2 - 1) * 1.0000 → 6.0000']
    x = Value(3.0, label='x')  # a new leaf: x's grad would add to the last one's
    assert step_captions(labelled(x ** -1.0, 'y')) == [
        'step 1/1 · y = x ** -1.0 · y.grad = 1.0000 · '
        'x.grad += -1.0 * x.data**(-1.0 - 1) * y.grad = -1.0 * 3.0000**(-1.0 - 1) * 1.0000 → -0.1111']


def test_a_power_of_zero_takes_the_branch_engine_py_takes():
    x = Value(0.0, label='x')  # 0 * 0.0**-1 would be nan: engine.py's `if y else 0.0` gives 0
    assert step_captions(labelled(x ** 0, 'y')) == [
        'step 1/1 · y = x ** 0 · y.grad = 1.0000 · x.grad += 0.0 = 0.0 → 0.0000']


def test_a_power_with_a_value_exponent_gives_both_gradients():
    x, k = Value(2.0, label='x'), Value(3.0, label='k')
    p = labelled(x ** k, 'p')
    dy = 8.0 * math.log(2.0)  # d(x**k)/dk = x**k log(x)
    assert step_captions(p) == [
        f'step 1/1 · p = x ** k · p.grad = 1.0000 · '
        f'x.grad += k.data * x.data**(k.data - 1) * p.grad = 3.0000 * 2.0000**(3.0000 - 1) * 1.0000 → 12.0000 · '
        f'k.grad += p.data * log(x.data) * p.grad = 8.0000 * log(2.0000) * 1.0000 → {number(dy)}']
    assert (x.grad, k.grad) == (12.0, dy)


def test_dividing_by_a_value_gives_the_divisor_minus_the_quotient_over_itself():
    x, y = Value(6.0, label='x'), Value(3.0, label='y')
    q = labelled(x / y, 'q')
    third = 1 / 3
    assert step_captions(q) == [
        f'step 1/1 · q = x / y · q.grad = 1.0000 · x.grad += q.grad / y.data = 1.0000 / 3.0000 → {number(third)} · '
        f'y.grad -= q.grad * (x.data / y.data / y.data) = 1.0000 * (6.0000 / 3.0000 / 3.0000) → {number(-2 / 3)}']
    assert (x.grad, y.grad) == (third, -2 / 3)


def test_a_number_divided_by_a_value():
    y = Value(2.0, label='y')
    q = labelled(1 / y, 'q')
    assert step_captions(q) == [
        'step 1/1 · q = v0 / y · q.grad = 1.0000 · v0.grad += q.grad / y.data = 1.0000 / 2.0000 → 0.5000 · '
        'y.grad -= q.grad * (v0.data / y.data / y.data) = 1.0000 * (1.0000 / 2.0000 / 2.0000) → -0.2500']
    assert y.grad == -0.25


def test_relu_passes_the_gradient_on_only_where_its_input_is_positive():
    x = Value(2.0, label='x')
    assert step_captions(labelled(x.relu(), 'y')) == [
        'step 1/1 · y = max(x, 0) · y.grad = 1.0000 · '
        'x.grad += 0.0 if x.data <= 0 else y.grad = 0.0 if 2.0000 <= 0 else 1.0000 → 1.0000']
    x = Value(-1.0, label='x')
    steps = draw_backward(labelled(x.relu(), 'y'))
    assert steps.captions[1] == ('step 1/1 · y = max(x, 0) · y.grad = 1.0000 · '
                                 'x.grad += 0.0 if x.data <= 0 else y.grad = 0.0 if -1.0000 <= 0 else 1.0000 → 0.0000')
    assert steps.grads[0][x] is None and steps.grads[1][x] == 0.0  # computed, and it is 0


def test_relu_at_nan_passes_the_gradient_as_the_engine_and_pytorch_do():
    x = Value(math.nan, label='x')
    assert step_captions(labelled(x.relu(), 'y')) == [  # nan <= 0 is false
        'step 1/1 · y = max(x, 0) · y.grad = 1.0000 · '
        'x.grad += 0.0 if x.data <= 0 else y.grad = 0.0 if nan <= 0 else 1.0000 → 1.0000']
    assert x.grad == 1.0


def test_sigmoid():
    x = Value(0.0, label='x')
    assert step_captions(labelled(x.sigmoid(), 'y')) == [
        'step 1/1 · y = 1 / (1 + exp(-x)) · y.grad = 1.0000 · s = 1 / (1 + exp(-x.data)) = 0.5000 · '
        'x.grad += s * (1 - s) * y.grad = 0.5000 * (1 - 0.5000) * 1.0000 → 0.2500']


def test_subtracting_and_negating_are_adding_and_multiplying_by_numbers():
    x = Value(5.0, label='x')
    y = labelled(x - 3, 'y')  # x + Value(-3.0), as the lecture's x + (-3)
    assert step_captions(labelled(-y, 'z')) == [  # y * Value(-1.0)
        'step 1/2 · z = y * v3 · z.grad = 1.0000 · y.grad += v3.data * z.grad = -1.0000 * 1.0000 → -1.0000 · '
        'v3.grad += y.data * z.grad = 2.0000 * 1.0000 → 2.0000',
        'step 2/2 · y = x + v1 · y.grad = -1.0000 · x.grad += y.grad = -1.0000 → -1.0000 · '
        'v1.grad += y.grad = -1.0000 → -1.0000']


def test_a_long_dot_op_is_summarised_in_its_caption_but_every_change_is_recorded():
    ws = [Value(float(i), label=f'w{i}') for i in range(1, 7)]
    xs = [Value(1.0, label=f'x{i}') for i in range(1, 7)]
    y = labelled(Value.dot(ws, xs, Value(0.5, label='b')), 'y')
    steps = draw_backward(y)
    assert steps.captions[1] == (
        'step 1/1 · y = w1 * x1 + ... + w6 * x6 + b · y.grad = 1.0000 · '
        'w1.grad += x1.data * y.grad = 1.0000 * 1.0000 → 1.0000 · '
        'x1.grad += w1.data * y.grad = 1.0000 * 1.0000 → 1.0000 · '
        '... 4 more pairs alike ... · '
        'w6.grad += x6.data * y.grad = 1.0000 * 1.0000 → 1.0000 · '
        'x6.grad += w6.data * y.grad = 6.0000 * 1.0000 → 6.0000 · '
        'b.grad += y.grad = 1.0000 → 1.0000')
    assert [change.parent for change in steps.steps[0].changes] == list(y._prev)  # ws, xs, then the bias
    assert [change.after for change in steps.steps[0].changes] == [1.0] * 6 + [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] + [1.0]


def test_values_without_a_label_are_named_by_their_place_in_the_drawing():
    a, b = Value(2.0), Value(-3.0)
    y = a * b + 1
    assert trace(y)[0][:2] == [a, b]  # v0 and v1
    steps = draw_backward(y)
    assert steps.captions[2] == (
        'step 2/2 · v2 = v0 * v1 · v2.grad = 1.0000 · '
        'v0.grad += v1.data * v2.grad = -3.0000 * 1.0000 → -3.0000 · '
        'v1.grad += v0.data * v2.grad = 2.0000 * 1.0000 → 2.0000')
    assert '{ v0 | data 2.0000 | grad ? }' in record_labels(steps.frames[0].source)


def test_an_op_without_a_rule_here_still_steps_and_says_what_its_backward_did():
    x = Value(2.0, label='x')
    y = Value(6.0, (x,), 'triple', label='y')  # a custom op, written the lecture's way

    def _backward():
        x.grad += 3.0 * y.grad
    y._backward = _backward
    z = labelled(y * 2, 'z')
    assert step_captions(z)[1] == 'step 2/2 · y = triple(x) · y.grad = 2.0000 · x.grad → 6.0000'
    assert x.grad == 6.0


@pytest.mark.parametrize('op, parents', [('*', 2), ('+', 2), ('/', 2), ('**', 2), ('**2', 1), ('**2.0', 1),
                                          ('tanh', 1), ('ReLU', 1), ('exp', 1), ('log', 1), ('sigmoid', 1), ('dot', 3)])
def test_a_custom_op_named_as_an_engine_op_is_captioned_by_what_its_backward_did(op, parents):
    # Only the engine's own backward gets the engine's formula: this one does something else entirely.
    xs = [Value(float(i + 2), label=f'x{i}') for i in range(parents)]
    y = Value(1.0, tuple(xs), op, label='y')

    def _backward():
        xs[0].grad += 7.0 * y.grad
    y._backward = _backward
    [caption] = step_captions(y)
    assert caption.endswith('x0.grad → 7.0000' + ''.join(f' · x{i}.grad → 0.0000' for i in range(1, parents)))
    assert '+=' not in caption and 'slope' not in caption and 't =' not in caption


def test_the_lectures_labels_with_operators_are_parenthesised_in_captions():
    x1, w1, x2, w2 = Value(2.0, label='x1'), Value(-3.0, label='w1'), Value(0.0, label='x2'), Value(1.0, label='w2')
    s = labelled(labelled(x1 * w1, 'x1*w1') + labelled(x2 * w2, 'x2*w2'), 'x1*w1 + x2*w2')
    n = labelled(s + Value(6.0, label='b'), 'n')
    captions = step_captions(n)
    assert captions[0] == ('step 1/4 · n = (x1*w1 + x2*w2) + b · n.grad = 1.0000 · '
                           '(x1*w1 + x2*w2).grad += n.grad = 1.0000 → 1.0000 · b.grad += n.grad = 1.0000 → 1.0000')
    assert captions[1].startswith('step 2/4 · (x1*w1 + x2*w2) = (x1*w1) + (x2*w2) · (x1*w1 + x2*w2).grad = 1.0000 · '
                                  '(x1*w1).grad += (x1*w1 + x2*w2).grad = 1.0000 → 1.0000')
    assert captions[2] == ('step 3/4 · (x1*w1) = x1 * w1 · (x1*w1).grad = 1.0000 · '
                           'x1.grad += w1.data * (x1*w1).grad = -3.0000 * 1.0000 → -3.0000 · '
                           'w1.grad += x1.data * (x1*w1).grad = 2.0000 * 1.0000 → 2.0000')


@pytest.mark.parametrize('base, by_exponent, note', [
    (0.0, '0.0000 * 1.0000 → 0.0000', 'x.data is 0.0000, not > 0: y.data * log(x.data) counts as 0.0000, as in '
          'PyTorch'),
    (-2.0, 'nan * 1.0000 → nan', 'x.data is -2.0000, not > 0: y.data * log(x.data) counts as nan, as in PyTorch'),
])
def test_a_value_power_of_a_base_at_or_below_zero_says_what_the_engine_takes_for_log(base, by_exponent, note):
    x, k = Value(base, label='x'), Value(2.0, label='k')
    [caption] = step_captions(labelled(x ** k, 'y'))
    assert note in caption and caption.endswith(f'k.grad += y.data * log(x.data) * y.grad = {by_exponent}')
    assert 'log(0.0)' not in caption and 'log(-2.0)' not in caption


def test_a_value_built_by_hand_without_a_backward_is_a_leaf_to_backward():
    a, b = Value(6.0, label='a'), Value(3.0, label='b')
    q = Value(2.0, (a, b), '/', label='q')  # Value(data, parents, op): no _backward, nothing to pass on
    r = labelled(q * 2, 'r')
    steps = draw_backward(r)
    assert len(steps.steps) == 1 and steps.steps[0].node is r  # backward() does not step through q
    assert (q.grad, a.grad, b.grad) == (2.0, 0.0, 0.0)


def test_numbers_are_shown_as_the_boxes_show_them_and_exponents_as_written():
    x = Value(3.0, label='x')
    y = labelled(x ** 1.23456789, 'y')
    z = labelled(y * 1000, 'z')
    steps = draw_backward(z)
    slope = 1.23456789 * 3.0 ** (1.23456789 - 1)  # as the engine computes it
    assert steps.captions[2] == ('step 2/2 · y = x ** 1.23456789 · y.grad = 1000.0000 · '
                                 'x.grad += 1.23456789 * x.data**(1.23456789 - 1) * y.grad = '
                                 f'1.23456789 * 3.0000**(1.23456789 - 1) * 1000.0000 → {number(x.grad)}')
    assert x.grad == slope * 1000.0


# --- the rules come from micrograd.ops, and compute what engine.py's closures compute ---------

def made_by_the_engine():
    """(its record, a Value it made) for every op of the table, made by the engine's own method, at inputs
    where each rule is an ordinary number (x ** k and x ** y both, ReLU on either side of 0; any other op of
    one or two parents as x.tanh() or x / y)."""
    x, y = Value(1.7), Value(0.6)
    ws, xs, b = [Value(1.5), Value(-2.0)], [Value(0.3), Value(0.7)], Value(0.2)
    made = {'**': [x ** y, x ** 3, x ** 0.5], 'ReLU': [x.relu(), (-x).relu()], 'dot': [Value.dot(ws, xs, b)]}
    for op in (op for op in OPS if op.name not in made):
        made[op.name] = [getattr(x, op.method)(*[y][:op.parents - 1])]
    for name, outs in made.items():
        for out in outs:
            yield BY_NAME[name], out


@pytest.mark.parametrize('op, out', list(made_by_the_engine()), ids=lambda v: getattr(v, '_op', ''))
def test_each_backward_line_of_the_table_computes_what_the_engines_closure_adds(op, out):
    """The captions quote micrograd.ops's lines; run as Python, each gives the engine's gradient, bit for bit."""
    from micrograd.viz.which_op import engine_op, exponent
    assert engine_op(out) is op
    grad = 0.37
    for parent in out._prev:
        parent.grad = 0.0
    out._grad_fn(grad)
    k = exponent(out._op)
    common = {'out': out.data, 'grad': grad, **({op.saved: out.data} if op.saved else {})}
    if op.name == 'dot':
        n = len(out._prev) // 2
        roles = [{'w': w, 'x': x} for w, x in zip(out._prev[:n], out._prev[n:2 * n])] + [{'b': out._prev[-1]}]
    else:
        roles = [dict(zip('xy', out._prev))]
    for role in roles:
        names = {**common, **({'y': float(k)} if k is not None else {}), **{r: v.data for r, v in role.items()}}
        for line in op.backward:
            target, sign, rule = line.split(' ', 2)
            if target.removesuffix('.grad') in role:
                added = evaluate(rule, **names)  # the record's own namespace: no math.e behind an e
                assert role[target.removesuffix('.grad')].grad == (added if sign == '+=' else 0.0 - added), line


# --- it is backward() ---------------------------------------------------------------------------

def test_it_steps_through_the_engines_own_topological_order():
    o, _ = neuron()
    order = o._topological_order()
    assert [step.node for step in draw_backward(o).steps] == order[::-1]


def test_on_a_graph_that_already_has_gradients_leaves_accumulate_as_with_backward():
    f, (a, b, c) = labelled_f()
    f.backward()
    steps = draw_backward(f)
    assert (a.grad, b.grad, c.grad) == (-48.0, 32.0, 16.0)  # twice backward()'s, as a second backward() gives
    assert steps.captions[0].endswith('a.grad, b.grad, c.grad keep their earlier values and add to them '
                                      '(leaves accumulate)')
    assert 'a.grad += b.data * e.grad = -3.0000 * 8.0000 → -48.0000 (was -24.0000)' in steps.captions[3]
    assert steps.grads[0][a] == -24.0 and steps.grads[0][steps.steps[1].node] is None  # d was reset


def test_a_leaf_on_its_own_takes_no_step():
    x = Value(2.0, label='x')
    steps = draw_backward(x)
    assert steps.captions == ['step 0/0 · x is a leaf: x.grad += 1.0 → 1.0000'] and len(steps.frames) == 1
    assert x.grad == 1.0


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_graphs_end_with_backwards_gradients_and_each_step_records_what_the_engine_did(recipe):
    leaves, out = micrograd_graph(recipe)
    steps = draw_backward(out, max_nodes=10_000)
    same_leaves, same_out = micrograd_graph(recipe)
    same_out.backward()
    assert [v.grad for v in leaves] == [v.grad for v in same_leaves]  # bit for bit: the same closures, same order
    assert len(steps.frames) == len(steps.captions) == len(steps.steps) + 1
    for i, step in enumerate(steps.steps, start=1):
        assert [change.parent for change in step.changes] == list(dict.fromkeys(step.node._prev))
        for change in step.changes:
            assert change.after == steps.grads[i][change.parent]
            assert (change.before is None) == (steps.grads[i - 1][change.parent] is None)
            assert f'→ {number(change.after)}' in steps.captions[i]  # the grad the engine gave, as its box shows it


def test_a_graph_above_max_nodes_is_refused_as_draw_dot_refuses_it():
    total = sum((Value(float(i)) * Value(2.0) for i in range(100)), Value(0.0))  # 401 Values
    with pytest.raises(ValueError, match=r"draw_backward: this graph has 401 Values.*max_nodes=401"):
        draw_backward(total)
    assert total.grad == 0.0  # refused before any step
    small = Value(1.0) * Value(2.0) + Value(3.0)  # 5 Values
    with pytest.raises(ValueError, match=r"max_nodes=5 to draw it anyway"):
        draw_backward(small, max_nodes=4)
    assert len(draw_backward(small, max_nodes=5).frames) == 3
    assert MAX_NODES == 300


def test_options_are_draw_dots():
    f, _ = labelled_f()
    steps = draw_backward(f, rankdir='TB', color=False, format='png')
    assert all('rankdir=TB' in frame.source and record_fills(frame.source) == [] for frame in steps.frames)
    with pytest.raises(ValueError, match="draw_backward: rankdir"):
        draw_backward(f, rankdir='sideways')


# --- drawn for real, the player and the GIF -----------------------------------------------------

SVG = '{http://www.w3.org/2000/svg}'


def boxes(svg):
    """The outline of every Value's box, which must not move from frame to frame."""
    root = ET.fromstring(svg)
    return [g.find(SVG + 'polygon').get('points') for g in root.iter(SVG + 'g') if g.get('class') == 'node'
            and g.find(SVG + 'polygon') is not None]


def test_every_frame_has_the_same_size_and_layout():
    o, _ = neuron()
    svgs = draw_backward(o).svgs()
    assert len({re.search(r'viewBox="[^"]*"', svg).group() for svg in svgs}) == 1
    assert len({tuple(boxes(svg)) for svg in svgs}) == 1


def texts(svg):
    return [text.text for text in ET.fromstring(svg).iter(SVG + 'text')]


def frame_images(page):
    """The SVG text of every frame of a player, from its data: URLs."""
    return [base64.b64decode(data).decode() for data in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)]


def test_the_player_is_self_contained_html_with_every_frame_in_it():
    f, _ = labelled_f()
    steps = draw_backward(f)
    page = steps._repr_html_()
    images = frame_images(page)
    assert len(images) == page.count('<figure') == page.count('<img ') == 4
    assert [texts(svg) for svg in images] == [texts(svg) for svg in steps.svgs()]
    assert all(ET.fromstring(svg).tag == SVG + 'svg' and '<title>' not in svg for svg in images)
    assert page.count('<figcaption') == 4 and 'a.grad += b.data * e.grad = -3.0000 * 8.0000 → -24.0000' in page
    assert '<script>' in page and 'data-go="next"' in page and 'type="range"' in page
    assert re.findall(r'\b(?:src|href)="(\w+):', page) == ['data'] * 4  # no address to fetch anything from
    assert '<svg' not in page  # JupyterLab would strip inline SVG from an untrusted notebook


def test_the_player_uses_only_elements_jupyterlab_keeps_in_notebooks_it_does_not_trust():
    # JupyterLab removes scripts from the outputs of untrusted notebooks and keeps only some elements
    # (its Sanitizer's allowedTags): with these, the frames and captions still show, one under the other.
    f, _ = labelled_f()
    page = draw_backward(f)._repr_html_()
    assert set(re.findall(r'<(\w+)', page)) == {'div', 'figure', 'img', 'figcaption', 'button', 'input', 'span',
                                                 'script'}
    assert re.search(r'<div class="mg-controls" hidden\s+style="display: none;', page)  # shown by the script


def test_two_players_on_one_page_do_not_share_ids():
    f, _ = labelled_f()
    steps = draw_backward(f)
    first, second = steps._repr_html_(), steps._repr_html_()
    ids = [re.search(r'<div id="([^"]+)"', page).group(1) for page in (first, second)]
    assert ids[0] != ids[1] and f'getElementById("{ids[1]}")' in second


def test_captions_are_escaped_in_html():
    x = Value(1.0, label='<x & y>')
    page = draw_backward(labelled(x * 2, 'z'))._repr_html_()
    assert '(&lt;x &amp; y&gt;).grad += v1.data * z.grad' in page and '<x & y>' not in page


def test_save_writes_a_standalone_html_page(tmp_path):
    f, _ = labelled_f()
    path = draw_backward(f).save(tmp_path / 'f.html')
    page = path.read_text(encoding='utf-8')
    assert page.startswith('<!DOCTYPE html>') and '<meta charset="utf-8">' in page and len(frame_images(page)) == 4


def test_save_writes_a_gif_with_one_image_per_frame(tmp_path):
    f, _ = labelled_f()
    steps = draw_backward(f)
    with Image.open(steps.save(tmp_path / 'f.gif')) as gif:
        assert gif.format == 'GIF' and gif.n_frames == len(steps.frames) == 4
        assert gif.info['loop'] == 0 and gif.info['duration'] == 2500


def test_save_refuses_other_formats_and_frames_without_time(tmp_path):
    f, _ = labelled_f()
    with pytest.raises(ValueError, match=r"\.html.*\.gif.*'f\.pdf'"):
        draw_backward(f).save(tmp_path / 'f.pdf')
    with pytest.raises(ValueError, match=r"seconds_per_frame must be > 0, got 0"):
        draw_backward(f).save(tmp_path / 'f.gif', seconds_per_frame=0)


def test_repr_names_the_output_and_counts_steps():
    f, _ = labelled_f()
    steps = draw_backward(f)
    assert repr(steps) == '<backward pass of f: 3 steps, 4 frames>' and isinstance(steps, BackwardPass)
    assert len(steps) == 4


def test_a_gif_frame_is_the_picture_with_its_caption_beneath(tmp_path):
    f, _ = labelled_f()
    steps = draw_backward(f)
    picture = Image.open(io.BytesIO(steps.frames[0].pipe(format='png')))
    with Image.open(steps.save(tmp_path / 'f.gif')) as gif:
        assert gif.width >= picture.width and gif.height > picture.height + 3 * 15  # three caption lines below
