"""The tensor track's last exercise: backward() itself, the chain rule over the graph, checked on graphs whose
nodes the checker makes (backward_on_graphs.py), so that it is checked whatever the ops' exercises are.
"""
from __future__ import annotations

from micrograd.exercises.tensor.array_exercise import Exercise, Slip
from micrograd.exercises.tensor.cases import Graph


def _backward_body(seed: str = "self._add_grad(start)", start: str = "np.ones_like(self.data)",
                   walk: str = "reversed(order)", reset: bool = True, call: str = "node._backward(node.grad)",
                   refuse: bool = True) -> str:
    """A body of Tensor.backward(), the library's by default, with one thing changed (the slips below)."""
    check = ("    if self.data.size != 1:\n        raise ValueError('backward: a non-scalar output needs grad=')\n"
             if refuse else "")
    shape = ("    if start.shape != self.data.shape:\n        raise ValueError('backward: grad has the wrong shape')\n"
             if refuse else "")
    zero = "for node in order:\n    node.grad = None\n" if reset else ""
    return (f"if grad is None:\n{check}    start = {start}\nelse:\n"
            f"    start = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=self.data.dtype)\n"
            f"{shape}order = self._topological_order()\n{zero}{seed}\nfor node in {walk}:\n    {call}")


V, W = [0.5, -1.5, 2.0], [1.25, 0.75, -0.5]
PRODUCT = (('m', '*', ('x', 'w')), ('s', 'sum', ('m',)))
# m is used twice, and reached first through u: a walk from the leaves runs u before m has all of its gradient
REUSED = (('m', '*', ('x', 'w')), ('u', '*', ('m', 'm')), ('z', '+', ('u', 'm')), ('s', 'sum', ('z',)))

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
    (Slip('backward_not_reversed', 'Tensor.backward()', _backward_body(walk="order"),
          "the order is walked from the leaves: run the output's _backward first (for node in reversed(order)), "
          "else a node passes its gradient on before it has received all of it"),
     Slip('backward_ignores_grad', 'Tensor.backward()',
          _backward_body().replace("    start = np.asarray(grad.data if isinstance(grad, Tensor) else grad, "
                                   "dtype=self.data.dtype)\n", "    start = np.ones_like(self.data)\n"),
          "the upstream gradient passed to backward(grad) is ignored: a non-scalar output is seeded with the "
          "grad given, not with ones"),
     Slip('backward_no_reset', 'Tensor.backward()', _backward_body(reset=False),
          "the nodes' gradients are not reset: a second backward() adds to what the first left in the "
          "intermediate nodes, and the leaves get more than twice the gradient; set node.grad = None for the "
          "nodes in the order first"),
     Slip('promoted', 'Tensor.backward()', _backward_body(seed="self.grad = np.ones(self.data.shape) if grad "
                                                               "is None else start"),
          "float32 promoted to float64: np.ones(shape) is float64, so a float32 output's gradient became float64; "
          "seed with np.ones_like(self.data) through self._add_grad"),
     Slip('backward_seed_overwrites', 'Tensor.backward()', _backward_body(seed="self.grad = start"),
          "self.grad = start instead of self._add_grad(start): for an output that is a leaf holding a gradient "
          "already, that gradient is lost; backward() adds, as PyTorch's does"),
     Slip('backward_resets_leaves', 'Tensor.backward()',
          _backward_body().replace("for node in order:\n    node.grad = None\n",
                                   "for node in order:\n    node.grad = None\n    for p in node._prev:\n"
                                   "        p.grad = None\n"),
          "the leaves' gradients are reset too: a second backward() must add to what the leaves hold (they "
          "accumulate, as in PyTorch); reset only the nodes in the order, the ones ops made"),
     Slip('backward_no_seed', 'Tensor.backward()', _backward_body(seed="pass"),
          "the output is never seeded: its gradient is d(out)/d(out), ones of its shape (or the grad given), "
          "added with self._add_grad(start) before the loop; without it no node has a gradient to pass on"),
     Slip('backward_sort_revisits', 'Tensor.backward()',
          _backward_body().replace("order = self._topological_order()\n",
                                   "order = []\ndef build(v):\n    for p in v._prev:\n        build(p)\n"
                                   "    if v._prev:\n        order.append(v)\nbuild(self)\n"),
          "the sort has no visited set: a node reached along two paths is listed twice, and its _backward runs "
          "twice, passing its gradient on twice (the second time with more); keep a set of the nodes visited "
          "(by id), as the lecture's build_topo does"),
     Slip('backward_unit_grad', 'Tensor.backward()', _backward_body(call="node._backward(np.ones_like(node.grad))"),
          "each node is passed ones instead of its own gradient: call node._backward(node.grad)"),
     Slip('backward_nonscalar_seeded', 'Tensor.backward()', _backward_body(refuse=False),
          "a non-scalar output without grad= is seeded with ones instead of refused: that computes the gradient "
          "of out.sum(), which is not what was asked; raise ValueError, as PyTorch does")),
    graphs=(Graph({'x': V, 'w': W}, PRODUCT, 's'),
            Graph({'x': V, 'w': W}, REUSED, 's', note="m is used twice"),
            Graph({'x': V, 'w': W}, (('m', '*', ('x', 'w')), ('u', '+', ('m', 'x'))), 'u', seed=(0.5, -2.0, 1.5),
                  note="u is no scalar: its gradient is given"),
            Graph({'x': V, 'w': W}, REUSED, 's', calls=2, note="a second backward(): the leaves accumulate"),
            Graph({'x': V, 'w': W}, PRODUCT, 's', 'float32')),
    kind='backward',
    prompts=("seed self, then run each node's _backward(node.grad), the output first",),
    math=(r"\bar{\mathrm{out}} \mathrel{+}= \mathrm{seed};\quad \text{for each node } v \text{ from the output "
          r"down: } \bar p \mathrel{+}= \frac{\partial v}{\partial p}^{\!\top} \bar v \ \text{ for each parent "
          r"} p"))
