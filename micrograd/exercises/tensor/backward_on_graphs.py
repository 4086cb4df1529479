"""Checking the backward() exercise on graphs whose nodes the checker makes: each node's _backward is the
checker's, so backward() is checked before (and whatever) the ops' exercises are.

The graphs are the record's (backward_exercise.py): a few leaves and nodes (name, op, parents), '*' and '+'
elementwise and 'sum' to 0-d. The right gradients are the library's backward()'s on the same graph; wrong ones are
named by the record's slip that, planted in the library's backward(), leaves the same numbers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from micrograd.exercises.blame import where
from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.result import CORRECT, DONE, GENERIC, NOT_STARTED, WRONG, Result
from micrograd.exercises.sandbox import learners_time, set_input
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.cases import Array, Graph
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import library_module
from micrograd.exercises.tensor.naming import planted
from micrograd.exercises.tensor.running import summary
from micrograd.exercises.tensor.wrong_line import backward_line, forwards


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


def backpropagated(graph: Graph, tensor: Any) -> dict[str, Array | None]:
    """Every node's gradient after backward() of tensor's engine, called on graph as the check calls it."""
    nodes = make(graph, tensor)
    for _ in range(graph.calls):
        nodes[graph.root].backward() if graph.seed is None else nodes[graph.root].backward(np.array(graph.seed))
    return {n: (None if t.grad is None else np.array(t.grad)) for n, t in nodes.items()}


def _same(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """The same gradients on every tensor either names (a tensor one leaves without a gradient is None)."""
    for k in set(got) | set(want):
        g, w = got.get(k), want.get(k)
        if (g is None) != (w is None):
            return False
        if g is not None and w is not None and (np.shape(g) != np.shape(w) or not np.allclose(g, w, 1e-6, 1e-9)):
            return False
    return True


def _name(exercise: Exercise, graph: Graph, got: dict[str, Any]) -> tuple[str, str]:
    """The record's slip that, planted in the library's backward(), leaves the learner's gradients on graph."""
    for n, slip in enumerate(exercise.slips):
        module = planted(exercise.number, n)
        try:
            if module is not None and _same(got, backpropagated(graph, module.Tensor)):
                return slip.key, slip.says
        except Exception:  # noqa: BLE001 -- a slip that raises on this graph is not the learner's
            continue
    return 'wrong', "the gradients differ from the chain rule's, and it is none of the slips the checker knows"


def check_backward(exercise: Exercise, module: Any) -> Any:
    slips = {s.key: s.says for s in exercise.slips}
    for graph in exercise.graphs:
        text = graph.text()
        set_input(text)
        want = backpropagated(graph, library_module().Tensor)
        shown = '; '.join(summary(n, want[n]) for n in graph.leaves)
        try:
            with learners_time(module):
                got = backpropagated(graph, module.Tensor)
        except Exception as error:  # noqa: BLE001
            if blank_raised(error, len(EXERCISES)) is not None:
                return Result.of(exercise, NOT_STARTED)
            if forwards(module, exercise):  # (the library's assert, kept: a node reached before its gradient came)
                return Result.of(exercise, WRONG, input=text, expected=shown, obtained=type(error).__name__,
                                 diagnosis='backward_not_reversed', why=slips['backward_not_reversed'],
                                 detail=where(error), place=_place(module, exercise, 'backward_not_reversed'))
            return Result.of(exercise, WRONG, input=text, expected=shown, obtained=type(error).__name__,
                             diagnosis='raises', why=GENERIC['raises'], detail=where(error))
        root = got.get(graph.root)
        if root is not None and _same(got, want) and root.dtype != np.dtype(graph.dtype):
            return Result.of(exercise, WRONG, input=text, expected=f"{graph.root}.grad of dtype {graph.dtype}",
                             obtained=f"{graph.root}.grad of dtype {root.dtype}", diagnosis='promoted',
                             why=slips['promoted'], place=_place(module, exercise, 'promoted'))
        if not _same(got, want):
            key, says = _name(exercise, graph, got)
            obtained = '; '.join(summary(n, got[n]) for n in graph.leaves)
            return Result.of(exercise, WRONG, input=text, expected=shown, obtained=obtained, diagnosis=key, why=says,
                             place=_place(module, exercise, key))
    with learners_time(module):
        return _rules(exercise, module, slips) or Result.of(exercise, DONE)


def _place(module: Any, exercise: Exercise, key: str) -> str:
    """The learner's line in backward() that the slip named is about: 'my_tensor.py, line 1250: for ...'."""
    found = backward_line(module, exercise.blanks[0], key)
    return f"{Path(found[0]).name}, line {found[1]}: {found[2]}" if found else ''


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
