"""The tensor track's backward() exercise on graphs the checker makes (the way both tracks check it: graphs.py):
the record's graphs (backward_exercise.py), made with the library's ops '*', '+' and 'sum' to 0-d, and its slips,
planted in the library's backward() to name a wrong one. The library's rules the task states have graphs of their
own, last: a slip of one of them (RULES) is "correct ✓ — one step left", the gradients being right."""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from micrograd.exercises import graphs
from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.graphs import Gradients
from micrograd.exercises.lines import backward_line, where
from micrograd.exercises.result import CORRECT, DONE, GENERIC, NOT_STARTED, WRONG, Result
from micrograd.exercises.sandbox import paused, set_input
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.backward_exercise import RULES
from micrograd.exercises.tensor.cases import Graph
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import library_module
from micrograd.exercises.tensor.naming import planted
from micrograd.exercises.tensor.running import close, summary


def make(graph: Graph, tensor: Any) -> dict[str, Any]:
    """graph built with tensor's own ops '*', '+' and 'sum' (the library's while backward() is checked: the other
    exercises' bodies are), each node passing nothing on when its _backward is handed no gradient (a backward()
    that runs a node before its gradient came)."""
    dtype = np.dtype(graph.dtype)

    def node(op: str, parents: list[Any]) -> Any:
        out = parents[0].sum() if op == 'sum' else graphs.OPS[op][0](*parents)
        backward = out._backward
        out._backward = lambda grad: None if grad is None else backward(grad)
        return out
    return graphs.make(graph, lambda v: tensor(np.asarray(v, dtype=dtype), requires_grad=True, dtype=dtype), node)


def backpropagated(graph: Graph, tensor: Any) -> Gradients:
    """Every node's gradient after backward() of tensor's engine, called on graph as the check calls it."""
    nodes = make(graph, tensor)
    seed = () if graph.seed is None else (np.array(graph.seed),)
    return graphs.backpropagated(nodes, graph.root, graph.calls, *seed,
                                 read=lambda g: None if g is None else np.array(g))


def _same(got: Gradients, want: Gradients | Exception, dtype: str) -> bool:
    """The same gradients, of the same dtypes, on every tensor either names (one left without a gradient is None)."""
    if isinstance(want, Exception):
        return False
    pairs: list[tuple[Any, Any]] = [(got.get(k), want.get(k)) for k in {*got, *want}]
    return all(a is b is None or close(a, b, dtype) and a.dtype == b.dtype for a, b in pairs)


def _name(exercise: Exercise, graph: Graph, got: Gradients) -> str:
    """The record's slip that, planted in the library's backward(), leaves the learner's gradients on graph."""
    slips = ((slip.key, lambda n=n: backpropagated(graph, planted(exercise.number, n).Tensor))
             for n, slip in enumerate(exercise.slips))
    with paused():  # (the checker's own work: not the learner's time)
        return graphs.named(got, slips, lambda a, b: _same(a, b, graph.dtype))


def _shown(outcome: Gradients | Exception, names: list[str]) -> str:
    """Gradients as a report shows them (those of names), or the type of the error raised instead."""
    if isinstance(outcome, Exception):
        return type(outcome).__name__
    return '; '.join(summary(n, outcome.get(n)) for n in names)


def check_backward(exercise: Exercise, module: Any, backward: Any) -> Result:
    """backward() (the learner's function, in module) on the record's graphs, in order."""
    for graph in exercise.graphs:
        text = graph.text()
        set_input(text)
        try:
            want: Gradients | Exception = backpropagated(graph, library_module().Tensor)
        except ValueError as refused:  # (a rule's graph: the library refuses it)
            want = refused
        try:
            got = backpropagated(graph, module.Tensor)
        except Exception as error:  # noqa: BLE001
            if blank_raised(error, len(EXERCISES)) is not None:
                return Result.of(exercise, NOT_STARTED)
            if type(error) is type(want):
                continue
            key = 'backward_not_reversed' if _forwards(backward) else 'raises'  # (the library's assert, kept)
            return _named(exercise, backward, WRONG, key, input=text, expected=_shown(want, list(graph.leaves)),
                          obtained=type(error).__name__, detail=where(error))
        if not _same(got, want, graph.dtype):
            key = _name(exercise, graph, got)
            differ = [n for n in got if not _same({n: got[n]}, want if isinstance(want, Exception) else
                                                  {n: want.get(n)}, graph.dtype)]
            names = list(graph.leaves) if set(differ) & set(graph.leaves) else differ  # (promoted: the root only)
            return _named(exercise, backward, CORRECT if key in RULES else WRONG, key, input=text,
                          expected=_shown(want, names), obtained=_shown(got, names))
    return Result.of(exercise, DONE)


def _forwards(backward: Any) -> bool:
    """Whether the learner's backward() walks the order from the leaves (a node reached before its gradient came
    is what the library's assert stops): its loop that calls _backward goes over the order as it is."""
    found = backward_line(backward, 'backward_not_reversed')
    return re.match(r'for\s+\w+\s+in\s+\w+\s*:', found.split(': ', 1)[-1]) is not None


def _named(exercise: Exercise, backward: Any, status: str, key: str, **shown: str) -> Result:
    """A result that names slip key (a correct one: a rule the task states), in its record's sentence, at the
    learner's line in backward() it is about ('my_tensor.py, line 1250: for ...')."""
    says = {s.key: s.says for s in exercise.slips}.get(key) or GENERIC[key]
    return Result.of(exercise, status, diagnosis=key, why=LEFT + says if status == CORRECT else says,
                     place=backward_line(backward, key), **shown)


LEFT = "correct ✓ — every gradient is right; one step left to match the library: "
