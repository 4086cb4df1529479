"""The tensor track's backward() exercise, checked on the record's graphs (backward_exercise.py) the way both
tracks check it (graphs.py): a wrong backward() is named by the slip that, planted in the library's, leaves the same
gradients; a slip of a rule the task states (RULES) is "correct ✓ — one step left", the gradients being right."""
from __future__ import annotations

import re
from itertools import chain
from typing import Any

import numpy as np

from micrograd.exercises import graphs
from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.lines import backward_line, where
from micrograd.exercises.result import CORRECT, DONE, GENERIC, NOT_STARTED, WRONG, Result
from micrograd.exercises.sandbox import paused, set_input
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.backward_exercise import RULES
from micrograd.exercises.tensor.cases import Graph
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import library_module
from micrograd.exercises.tensor.naming import planted
from micrograd.exercises.tensor.running import differing, shown


def backpropagated(graph: Graph, tensor: Any) -> graphs.Gradients | Exception:
    """Every node's gradient after backward() of tensor's engine on graph, built with its own '*', '+' and 'sum' (a
    node run before its gradient came passes nothing on), or the error it raised."""
    dtype = np.dtype(graph.dtype)

    def node(op: str, parents: list[Any]) -> Any:
        out = parents[0].sum() if op == 'sum' else graphs.OPS[op][0](*parents)
        backward = out._backward
        out._backward = lambda grad: None if grad is None else backward(grad)
        return out
    seed = () if graph.seed is None else (np.array(graph.seed),)
    try:
        nodes = graphs.make(graph, lambda v: tensor(np.asarray(v, dtype=dtype), requires_grad=True, dtype=dtype), node)
        return graphs.backpropagated(nodes, graph.root, graph.calls, *seed,
                                     read=lambda g: None if g is None else np.array(g))
    except Exception as error:  # noqa: BLE001 -- the learner's, a slip's, or the library refusing a rule's graph
        return error


def check_backward(exercise: Exercise, module: Any, backward: Any) -> Result:
    """backward() (the learner's function, in module) on the record's graphs, in order: the first graph whose
    gradients are not the library's is named by the slip that leaves the same ones, at the learner's line."""
    found: dict[str, str] = {}
    for graph in exercise.graphs:
        set_input(text := graph.text())
        # the library's run, the learner's, then each slip's: these only while a wrong one is named
        runs = (backpropagated(graph, tensor) for tensor in chain((library_module().Tensor, module.Tensor), (
            planted(exercise.number, n).Tensor for n in range(len(exercise.slips)))))
        want, got = next(runs), next(runs)
        if isinstance(got, Exception):
            if blank_raised(got, len(EXERCISES)) is not None:
                return Result.of(exercise, NOT_STARTED)
            if type(got) is not type(want):  # (a rule's graph: both refuse it)
                # (a loop over the order as it is walks from the leaves: the library's assert stops it)
                loop = backward_line(backward, 'backward_not_reversed').split(': ', 1)[-1]
                key = 'backward_not_reversed' if re.match(r'for\s+\w+\s+in\s+\w+\s*:', loop) else 'raises'
                found = {'diagnosis': key, 'input': text, 'expected': shown(want, graph.leaves),
                         'obtained': type(got).__name__, 'detail': where(got)}
        elif differ := differing(got, want, graph.dtype):
            with paused():  # (the checker's own work: not the learner's time)
                key = next((slip.key for slip, run in zip(exercise.slips, runs)
                            if not differing(got, run, graph.dtype)), 'wrong')
            names = list(graph.leaves) if set(differ) & set(graph.leaves) else differ  # (promoted: the root only)
            found = {'diagnosis': key, 'input': text, 'expected': shown(want, names), 'obtained': shown(got, names)}
        if found:  # (a slip of a rule the task states comes with the gradients right)
            says = {s.key: s.says for s in exercise.slips}.get(key) or GENERIC[key]
            left = "correct ✓ — every gradient is right; one step left to match the library: " if key in RULES else ''
            return Result.of(exercise, CORRECT if key in RULES else WRONG, why=left + says,
                             place=backward_line(backward, key), **found)
    return Result.of(exercise, DONE)
