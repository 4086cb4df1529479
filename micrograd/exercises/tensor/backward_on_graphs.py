"""Checking the backward() exercise on graphs whose nodes the checker makes: each node's _backward is the
checker's, so backward() is checked before (and whatever) the ops' exercises are.

The graphs are the record's (backward_exercise.py): a few leaves and nodes (name, op, parents), '*' and '+'
elementwise and 'sum' to 0-d. The checker knows the gradients each kind of backward() leaves (the right one and each
slip's), computes them itself, and names the slip whose numbers the learner's are.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.lines import backward_line, where
from micrograd.exercises.result import CORRECT, DONE, GENERIC, NOT_STARTED, WRONG, Result
from micrograd.exercises.sandbox import learners_time, set_input
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.cases import Array, Graph
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.running import summary
from micrograd.exercises.tensor.wrong_line import forwards, learners_function


def _forward(op: str, values: list[Array]) -> Array:
    if op == '*':
        return values[0] * values[1]
    if op == '+':
        return values[0] + values[1]
    return np.asarray(values[0].sum())


def _local(op: str, values: list[Array], grad: Array) -> list[Array]:
    """What each parent gets from a node's gradient."""
    if op == '*':
        return [grad * values[1], grad * values[0]]
    if op == '+':
        return [grad, grad]
    return [np.broadcast_to(grad, values[0].shape).copy()]


def make(graph: Graph, tensor: Any) -> dict[str, Any]:
    """graph built of the learner's Tensors, each node with a _backward of the checker's."""
    dtype = np.dtype(graph.dtype)
    nodes = {n: tensor(np.asarray(v, dtype=dtype), requires_grad=True, dtype=dtype) for n, v in graph.leaves.items()}
    for name, op, parent_names in graph.nodes:
        parents = [nodes[p] for p in parent_names]
        data = _forward(op, [p.data for p in parents])
        nodes[name] = tensor._result(np.asarray(data, dtype=dtype), tuple(parents), op, _hand(op, parents),
                                     reads=())
    return nodes


def _hand(op: str, parents: list[Any]) -> Any:
    def _backward(grad: Array) -> None:
        if grad is None:  # (a backward() that runs a node before its gradient came: it passes nothing on)
            return
        for parent, g in zip(parents, _local(op, [p.data for p in parents], grad)):
            g = np.asarray(g, dtype=parent.data.dtype)
            parent.grad = g if parent.grad is None else parent.grad + g
    return _backward


def simulate(graph: Graph, calls: int = 1, seed: Array | None = None, reverse: bool = True, reset: bool = True,
             unit: bool = False, ignore_seed: bool = False, seeded: bool = True,
             leaves_too: bool = False, revisit: bool = False) -> dict[str, Array]:
    """The gradients a backward() of a given kind leaves: the library's by default (revisit: a sort without a
    visited set, which lists a node once for every path to it)."""
    dtype = np.dtype(graph.dtype)
    data = {n: np.asarray(v, dtype=dtype) for n, v in graph.leaves.items()}
    for name, op, parents in graph.nodes:
        data[name] = _forward(op, [data[p] for p in parents]).astype(dtype)
    grads: dict[str, Array | None] = {n: None for n in data}
    parents_of = {n: (op, ps) for n, op, ps in graph.nodes}
    order = [n for n, _, _ in graph.nodes] if not revisit else _every_path(graph.root, parents_of)
    start = np.ones_like(data[graph.root]) if seed is None or ignore_seed else np.asarray(seed, dtype=dtype)
    for _ in range(calls):
        if reset:
            for n in (list(grads) if leaves_too else order):
                grads[n] = None
        g0 = grads[graph.root]
        if seeded:
            grads[graph.root] = start.copy() if g0 is None else g0 + start
        for n in (reversed(order) if reverse else order):
            g = grads[n]
            if g is None:
                continue
            op, ps = parents_of[n]
            for p, share in zip(ps, _local(op, [data[q] for q in ps], np.ones_like(g) if unit else g)):
                gp = grads[p]
                grads[p] = share.astype(dtype) if gp is None else gp + share
    return {n: g for n, g in grads.items() if g is not None}


def _every_path(node: str, parents_of: dict[str, tuple[str, tuple[str, ...]]]) -> list[str]:
    """The nodes below node in a depth-first order without a visited set: each once for every path to it."""
    if node not in parents_of:
        return []
    return [n for p in parents_of[node][1] for n in _every_path(p, parents_of)] + [node]


def _grads(nodes: dict[str, Any], names: list[str]) -> dict[str, Array | None]:
    return {n: (None if nodes[n].grad is None else np.array(nodes[n].grad)) for n in names}


def _same(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """The same gradients on every tensor either names (a tensor one leaves without a gradient is None)."""
    for k in set(got) | set(want):
        g, w = got.get(k), want.get(k)
        if (g is None) != (w is None):
            return False
        if g is not None and w is not None and (np.shape(g) != np.shape(w) or not np.allclose(g, w, 1e-6, 1e-9)):
            return False
    return True


def _name(graph: Graph, calls: int, seed: Array | None, got: dict[str, Any], slips: dict[str, str]) -> tuple[str, str]:
    kinds: list[tuple[str, dict[str, bool]]] = [
        ('backward_not_reversed', {'reverse': False}), ('backward_unit_grad', {'unit': True}),
        ('backward_ignores_grad', {'ignore_seed': True}), ('backward_no_reset', {'reset': False}),
        ('backward_no_seed', {'seeded': False}), ('backward_resets_leaves', {'leaves_too': True}),
        ('backward_sort_revisits', {'revisit': True})]
    for key, how in kinds:
        if _same(got, simulate(graph, calls, seed, **how)):
            return key, slips[key]
    return 'wrong', "the gradients differ from the chain rule's, and it is none of the slips the checker knows"


def check_backward(exercise: Exercise, module: Any) -> Any:
    with learners_time(module):  # (nearly all of it is the learner's backward(): the time limit covers it all)
        return _check(exercise, module)


def _check(exercise: Exercise, module: Any) -> Any:
    slips = {s.key: s.says for s in exercise.slips}
    tensor = module.Tensor
    for graph in exercise.graphs:
        calls, text = graph.calls, graph.text()
        seed = None if graph.seed is None else np.array(graph.seed)
        set_input(text)
        nodes = make(graph, tensor)
        want = simulate(graph, calls, seed)
        names = list(nodes)
        shown = '; '.join(summary(n, want[n]) for n in graph.leaves)
        try:
            for _ in range(calls):
                nodes[graph.root].backward() if seed is None else nodes[graph.root].backward(seed)
        except Exception as error:  # noqa: BLE001
            if blank_raised(error, len(EXERCISES)) is not None:
                return Result.of(exercise, NOT_STARTED)
            if forwards(module, exercise):  # (the library's assert, kept: a node reached before its gradient came)
                return Result.of(exercise, WRONG, input=text, expected=shown, obtained=type(error).__name__,
                                 diagnosis='backward_not_reversed', why=slips['backward_not_reversed'],
                                 detail=where(error), place=_place(module, exercise, 'backward_not_reversed'))
            return Result.of(exercise, WRONG, input=text, expected=shown, obtained=type(error).__name__,
                             diagnosis='raises', why=GENERIC['raises'], detail=where(error))
        got = _grads(nodes, names)
        root = got.get(graph.root)
        if root is not None and _same(got, want) and root.dtype != np.dtype(graph.dtype):
            return Result.of(exercise, WRONG, input=text, expected=f"{graph.root}.grad of dtype {graph.dtype}",
                             obtained=f"{graph.root}.grad of dtype {root.dtype}", diagnosis='promoted',
                             why=slips['promoted'], place=_place(module, exercise, 'promoted'))
        if not _same(got, want):
            key, says = _name(graph, calls, seed, got, slips)
            obtained = '; '.join(summary(n, got[n]) for n in graph.leaves)
            return Result.of(exercise, WRONG, input=text, expected=shown, obtained=obtained, diagnosis=key, why=says,
                             place=_place(module, exercise, key))
    return _rules(exercise, module, slips) or Result.of(exercise, DONE)


def _place(module: Any, exercise: Exercise, key: str) -> str:
    """The learner's line in backward() that the slip named is about: 'my_tensor.py, line 1250: for ...'."""
    return backward_line(learners_function(module, exercise.blanks[0]), key)


def _rules(exercise: Exercise, module: Any, slips: dict[str, str]) -> Any:
    """The library's rules the task states, checked once the gradients are right: a leaf output adds to its
    gradient; a non-scalar output needs grad=."""
    tensor = module.Tensor
    text = "x = Tensor(2.0, requires_grad=True); x.grad = np.array(0.5); x.backward()   (x is a leaf: it accumulates)"
    set_input(text)
    x = tensor(2.0, requires_grad=True)
    x.grad = np.array(0.5)
    try:
        x.backward()
    except Exception as error:  # noqa: BLE001
        return Result.of(exercise, WRONG, input=text, expected="x.grad = 1.5", obtained=type(error).__name__,
                         diagnosis='raises', why=GENERIC['raises'], detail=where(error))
    if not np.allclose(x.grad, 1.5):
        if np.allclose(x.grad, 1.0):  # the lecture's self.grad = 1: right on every graph an op made
            return Result.of(exercise, CORRECT, input=text, expected="x.grad = 1.5", obtained=f"x.grad = {x.grad}",
                             diagnosis='backward_seed_overwrites', why="correct ✓ — every gradient is right; one "
                             "step left to match the library: " + slips['backward_seed_overwrites'],
                             place=_place(module, exercise, 'backward_seed_overwrites'))
        return Result.of(exercise, WRONG, input=text, expected="x.grad = 1.5", obtained=f"x.grad = {x.grad}",
                         diagnosis='wrong',
                         why="a leaf output's gradient must grow by 1 (d x/d x), added to what it has")
    vector = next(g for g in exercise.graphs if g.seed is not None)
    text = vector.text('backward()') + f"   ({vector.root} has shape {vector.shape} and no grad= is given)"
    set_input(text)
    nodes = make(vector, tensor)
    try:
        nodes['u'].backward()
    except ValueError:
        return None
    except Exception as error:  # noqa: BLE001
        return Result.of(exercise, WRONG, input=text, expected="ValueError", obtained=type(error).__name__,
                         diagnosis='raises', why=GENERIC['raises'], detail=where(error))
    return Result.of(exercise, CORRECT, input=text, expected="ValueError (a non-scalar output needs grad=)",
                     obtained="no error", diagnosis='backward_nonscalar_seeded',
                     why="correct ✓ — every gradient is right; one step left to match the library: "
                         + slips['backward_nonscalar_seeded'],
                     place=_place(module, exercise, 'backward_nonscalar_seeded'))
