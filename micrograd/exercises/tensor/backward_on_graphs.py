"""The tensor track's backward() exercise on graphs the checker makes (the way both tracks check it: graphs.py):
the record's graphs (backward_exercise.py), their ops '*' and '+' elementwise and 'sum' to 0-d, and its slips,
planted in the library's backward() to name a wrong one. Then the library's rules the task states."""
from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.exercises import graphs
from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.graphs import Gradients, Op
from micrograd.exercises.lines import backward_line, where
from micrograd.exercises.result import CORRECT, DONE, GENERIC, NOT_STARTED, WRONG, Result
from micrograd.exercises.sandbox import learners_time, set_input
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.cases import Array, Graph
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import library_module
from micrograd.exercises.tensor.naming import planted
from micrograd.exercises.tensor.running import close, summary
from micrograd.exercises.tensor.wrong_line import forwards, learners_function

# The ops of the tensor track's graphs: both tracks', and 'sum' to 0-d.
OPS: dict[str, Op] = {**graphs.OPS, 'sum': (lambda a: a.sum(), lambda g, a: [np.broadcast_to(g, a.shape).copy()])}


def make(graph: Graph, tensor: Any) -> dict[str, Any]:
    """graph built of tensor's Tensors, each node with a _backward of the checker's."""
    dtype = np.dtype(graph.dtype)

    def node(op: str, parents: list[Any]) -> Any:
        data = np.asarray(OPS[op][0](*(p.data for p in parents)), dtype=dtype)
        return tensor._result(data, tuple(parents), op, _hand(op, parents), reads=())
    return graphs.make(graph, lambda v: tensor(np.asarray(v, dtype=dtype), requires_grad=True, dtype=dtype), node)


def _hand(op: str, parents: list[Any]) -> Any:
    def _backward(grad: Array) -> None:
        if grad is None:  # (a backward() that runs a node before its gradient came: it passes nothing on)
            return
        for parent, g in zip(parents, OPS[op][1](grad, *(p.data for p in parents))):
            g = np.asarray(g, dtype=parent.data.dtype)
            parent.grad = g if parent.grad is None else parent.grad + g
    return _backward


def backpropagated(graph: Graph, tensor: Any) -> Gradients:
    """Every node's gradient after backward() of tensor's engine, called on graph as the check calls it."""
    seed = () if graph.seed is None else (np.array(graph.seed),)
    return graphs.backpropagated(make(graph, tensor), graph.root, graph.calls, *seed,
                                 read=lambda g: None if g is None else np.array(g))


def _same(got: Gradients, want: Gradients, dtype: str) -> bool:
    """The same gradients on every tensor either names (a tensor one leaves without a gradient is None)."""
    return all(got.get(k) is want.get(k) is None or close(got.get(k), want.get(k), dtype) for k in {*got, *want})


def _name(exercise: Exercise, graph: Graph, got: Gradients) -> str:
    """The record's slip that, planted in the library's backward(), leaves the learner's gradients on graph."""
    slips = ((slip.key, lambda n=n: backpropagated(graph, planted(exercise.number, n).Tensor))
             for n, slip in enumerate(exercise.slips))
    return graphs.named(got, slips, lambda a, b: _same(a, b, graph.dtype))


def check_backward(exercise: Exercise, module: Any) -> Result:
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
                return _named(exercise, module, WRONG, 'backward_not_reversed', input=text, expected=shown,
                              obtained=type(error).__name__, detail=where(error))
            return _raised(exercise, text, shown, error)
        root = got.get(graph.root)
        if root is not None and _same(got, want, graph.dtype) and root.dtype != np.dtype(graph.dtype):
            return _named(exercise, module, WRONG, 'promoted', input=text,
                          expected=f"{graph.root}.grad of dtype {graph.dtype}",
                          obtained=f"{graph.root}.grad of dtype {root.dtype}")
        if not _same(got, want, graph.dtype):
            return _named(exercise, module, WRONG, _name(exercise, graph, got), input=text, expected=shown,
                          obtained='; '.join(summary(n, got[n]) for n in graph.leaves))
    with learners_time(module):
        return _rules(exercise, module) or Result.of(exercise, DONE)


def _named(exercise: Exercise, module: Any, status: str, key: str, **shown: str) -> Result:
    """A result that names slip key (a correct one: a rule the task states), in its record's sentence, at the
    learner's line in backward() it is about ('my_tensor.py, line 1250: for ...')."""
    place = backward_line(learners_function(module, exercise.blanks[0]), key)
    says = {s.key: s.says for s in exercise.slips}.get(key, NONE_KNOWN)
    return Result.of(exercise, status, diagnosis=key, why=LEFT + says if status == CORRECT else says, place=place,
                     **shown)


NONE_KNOWN = "the gradients differ from the chain rule's, and it is none of the slips the checker knows"


def _raised(exercise: Exercise, text: str, expected: str, error: Exception) -> Result:
    return Result.of(exercise, WRONG, input=text, expected=expected, obtained=type(error).__name__,
                     diagnosis='raises', why=GENERIC['raises'], detail=where(error))


LEFT = "correct ✓ — every gradient is right; one step left to match the library: "


def _rules(exercise: Exercise, module: Any) -> Result | None:
    """The library's rules the task states, checked once the gradients are right: a leaf output adds to its
    gradient; a non-scalar output needs grad=."""
    text = "x = Tensor(2.0, requires_grad=True); x.grad = np.array(0.5); x.backward()   (x is a leaf: it accumulates)"
    set_input(text)
    x = module.Tensor(2.0, requires_grad=True)
    x.grad = np.array(0.5)
    try:
        x.backward()
    except Exception as error:  # noqa: BLE001
        return _raised(exercise, text, "x.grad = 1.5", error)
    if not np.allclose(x.grad, 1.5):
        shown = {'input': text, 'expected': "x.grad = 1.5", 'obtained': f"x.grad = {x.grad}"}
        if np.allclose(x.grad, 1.0):  # the lecture's self.grad = 1: right on every graph an op made
            return _named(exercise, module, CORRECT, 'backward_seed_overwrites', **shown)
        return Result.of(exercise, WRONG, diagnosis='wrong',
                         why="a leaf output's gradient must grow by 1 (d x/d x), added to what it has", **shown)
    vector = next(g for g in exercise.graphs if g.seed is not None)
    shape = np.shape(vector.seed or ())
    text = vector.text('backward()') + f"   ({vector.root} has shape {shape} and no grad= is given)"
    set_input(text)
    try:
        make(vector, module.Tensor)[vector.root].backward()
    except ValueError:
        return None
    except Exception as error:  # noqa: BLE001
        return _raised(exercise, text, "ValueError", error)
    return _named(exercise, module, CORRECT, 'backward_nonscalar_seeded', input=text,
                  expected="ValueError (a non-scalar output needs grad=)", obtained="no error")
