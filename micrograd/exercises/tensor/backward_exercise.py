"""The tensor track's last exercise: backward() itself, checked on graphs whose nodes the checker makes
(backward_on_graphs.py), so that it is checked whatever the ops' exercises are."""
from __future__ import annotations

from micrograd.exercises import graphs
from micrograd.exercises.tensor.array_exercise import Exercise, Slip
from micrograd.exercises.tensor.cases import Graph

# Tensor.backward() as a learner writes it: the slips below are changes to its statements (graphs.changed).
BODY = '''\
if grad is None:
    if self.data.size != 1:
        raise ValueError('backward: a non-scalar output needs grad=')
    start = np.ones_like(self.data)
else:
    start = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=self.data.dtype)
    if start.shape != self.data.shape:
        raise ValueError('backward: grad has the wrong shape')
order = self._topological_order()
for node in order:
    node.grad = None
self._add_grad(start)
for node in reversed(order):
    node._backward(node.grad)'''
# The slips of a rule the task states, not of the chain rule: named on the last graphs, as "correct, one step left".
RULES = ('backward_seed_overwrites', 'backward_nonscalar_seeded')
SEED, CALL = 'self._add_grad(start)', 'node._backward(node.grad)'
GIVEN = 'start = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=self.data.dtype)'
REFUSALS = ('if self.data.size != 1:', "raise ValueError('backward: a non-scalar output needs grad=')",
            'if start.shape != self.data.shape:', "raise ValueError('backward: grad has the wrong shape')")
XW: dict[str, list[float] | float] = {'x': [0.5, -1.5, 2.0], 'w': [1.25, 0.75, -0.5]}
PRODUCT = (('m', '*', ('x', 'w')), ('s', 'sum', ('m',)))
# m is used twice, and reached first through u: a walk from the leaves runs u before m has all of its gradient
REUSED = (('m', '*', ('x', 'w')), ('u', '*', ('m', 'm')), ('z', '+', ('u', 'm')), ('s', 'sum', ('z',)))
VECTOR = (('m', '*', ('x', 'w')), ('u', '+', ('m', 'x')))  # u has shape (3,)


def _slip(key: str, changes: dict[str, list[str]], says: str) -> Slip:
    return Slip(key, 'Tensor.backward()', graphs.changed(BODY, changes), says)


BACKWARD = Exercise(
    'backward', "backward(): the chain rule over the graph, from a seed of any shape",
    "Write the body of `Tensor.backward(grad=None)`: sort the graph (`self._topological_order()`, written for "
    "you), reset the gradients of the nodes in the order, seed `self` with its gradient, then call each node's "
    "`_backward(node.grad)`, the output first.",
    "A one-element output needs no `grad` (the seed is ones); any other output needs `grad=` of its own shape, "
    "and without it backward() raises ValueError, as PyTorch does. Reset only the nodes in the order: leaves "
    "accumulate across calls. Seed with `self._add_grad(start)`, so a float32 output keeps a float32 gradient "
    "and a leaf output adds to the gradient it holds.",
    "graphs of tensors (3,) and () whose nodes the checker makes (so your ops need not be done); a second "
    "backward(); a float32 graph; out (3,) with grad= given; a leaf as the output",
    "The seed is d(out)/d(out): ones of out's shape for a scalar, or the `grad` given. Then walk "
    "`reversed(order)`: a node's gradient is complete once every node made from it has passed its share on.",
    "`for node in order: node.grad = None`; `self._add_grad(start)`; `for node in reversed(order): "
    "node._backward(node.grad)`. Check `grad`'s shape against `self.data.shape`.",
    "seed: out.grad += (ones or grad);  for node in reversed(topological order): node._backward(node.grad)",
    ('Tensor.backward()',),
    (),
    (_slip('backward_not_reversed', {'for node in reversed(order):': ['for node in order:']},
           "the order is walked from the leaves: run the output's _backward first (for node in reversed(order)), "
           "else a node passes its gradient on before it has received all of it"),
     _slip('backward_ignores_grad', {GIVEN: ['start = np.ones_like(self.data)']},
           "the upstream gradient passed to backward(grad) is ignored: a non-scalar output is seeded with the "
           "grad given, not with ones"),
     _slip('backward_no_reset', {'for node in order:': [], 'node.grad = None': []},
           "the nodes' gradients are not reset: a second backward() adds to what the first left in the "
           "intermediate nodes, and the leaves get more than twice the gradient; set node.grad = None for the "
           "nodes in the order first"),
     _slip('backward_seed_overwrites', {SEED: ['self.grad = start']},
           "self.grad = start instead of self._add_grad(start): for an output that is a leaf holding a gradient "
           "already, that gradient is lost; backward() adds, as PyTorch's does"),
     _slip('promoted', {SEED: ['self.grad = np.ones(self.data.shape) if grad is None else start']},
           "float32 promoted to float64: np.ones(shape) is float64, so a float32 output's gradient became float64; "
           "seed with np.ones_like(self.data) through self._add_grad"),
     _slip('backward_resets_leaves', {'node.grad = None': ['node.grad = None', 'for p in node._prev:',
                                                          '    p.grad = None']},
           "the leaves' gradients are reset too: a second backward() must add to what the leaves hold (they "
           "accumulate, as in PyTorch); reset only the nodes in the order, the ones ops made"),
     _slip('backward_no_seed', {SEED: ['pass']},
           "the output is never seeded: its gradient is d(out)/d(out), ones of its shape (or the grad given), "
           "added with self._add_grad(start) before the loop; without it no node has a gradient to pass on"),
     _slip('backward_sort_revisits', {'order = self._topological_order()': graphs.revisiting_sort('order')},
           "the sort has no visited set: a node reached along two paths is listed twice, and its _backward runs "
           "twice, passing its gradient on twice (the second time with more); keep a set of the nodes visited "
           "(by id), as the lecture's build_topo does"),
     _slip('backward_unit_grad', {CALL: ['node._backward(np.ones_like(node.grad))']},
           "each node is passed ones instead of its own gradient: call node._backward(node.grad)"),
     _slip('backward_nonscalar_seeded', dict.fromkeys(REFUSALS, []),
           "a non-scalar output without grad= is seeded with ones instead of refused: that computes the gradient "
           "of out.sum(), which is not what was asked; raise ValueError, as PyTorch does")),
    graphs=(Graph(XW, PRODUCT, 's'),
            Graph(XW, REUSED, 's', note="m is used twice"),
            Graph(XW, VECTOR, 'u', seed=(0.5, -2.0, 1.5), note="u is no scalar: its gradient is given"),
            Graph(XW, REUSED, 's', calls=2, note="a second backward(): the leaves accumulate"),
            Graph(XW, PRODUCT, 's', 'float32'),
            # the library's rules (RULES), once the gradients are right
            Graph({'x': 2.0}, (), 'x', calls=2, note="x is a leaf: each backward() adds 1 to its gradient"),
            Graph(XW, VECTOR, 'u', note="u has shape (3,) and no grad= is given: backward() raises ValueError")),
    kind='backward',
    prompts=("seed self, then run each node's _backward(node.grad), the output first",),
    math=(r"\bar{\mathrm{out}} \mathrel{+}= \mathrm{seed};\quad \text{for each node } v \text{ from the output down: } "
          r"\bar p \mathrel{+}= \frac{\partial v}{\partial p}^{\!\top} \bar v \ \text{ for each parent } p"))
