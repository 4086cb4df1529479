"""Grading a Value class (and a Neuron class) exercise by exercise, in order, each under a time limit and by the
grader its kind names; once every exercise of the engine is right, the whole engine, as one more Result (0)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from micrograd.exercises import graphs
from micrograd.exercises.result import ABSENT, CORRECT, DONE, Result
from micrograd.exercises.sandbox import guarded, paused
from micrograd.exercises.scalar.backprop_grading import check_backward, check_sort, graph_node
from micrograd.exercises.scalar.drive import Run
from micrograd.exercises.scalar.exercises import EXERCISES, Exercise
from micrograd.exercises.scalar.neuron_grading import check_neuron
from micrograd.exercises.scalar.op_grading import check_op
from micrograd.exercises.scalar.outcome import raised, wrong
from micrograd.exercises.scalar.whole_engine import check_engine


def check_one(exercise: Exercise, value_class: Any, neuron_class: Any = None, *, strict: bool = False,
              sort_done: bool = True, made: dict[str, list[Run]] | None = None, timeout: float | None = 10.0) -> Result:
    """One exercise. strict: the class is a workspace's, with every method (a lecture's may have fewer); sort_done:
    whether backward() may use the learner's sort; made: the runs of the learner's ops done so far, for backward()."""
    made = {} if made is None else made
    neuron = exercise.kind == 'neuron'
    owner = neuron_class if neuron else value_class
    if owner is None or not hasattr(owner, exercise.attribute):
        if not strict:
            return Result.of(exercise, ABSENT)
        what = "class Neuron (in my_nn.py)" if neuron else f"Value.{exercise.attribute}"
        return wrong(exercise, 'missing', input=exercise.cases[0].text() if exercise.cases else '',
                     expected=f"{what}, as the library has it", obtained=f"no {what}")
    def grade() -> Result:
        try:
            with paused():  # the graphs the sort and backward() run on: the checker's work, though each node is a Value
                nodes = [graphs.make(graph, value_class, graph_node) for graph in exercise.graphs]
        except Exception as error:  # noqa: BLE001 -- a Value that cannot be made as Value(data, children, op)
            return raised(exercise, exercise.graphs[0].text(f'{exercise.attribute}()'), error)
        if exercise.kind == 'op':
            return check_op(exercise, value_class, strict, made)
        if exercise.kind == 'sort':
            return check_sort(exercise, nodes)
        if exercise.kind == 'backward':
            return check_backward(exercise, value_class, sort_done, made, nodes)
        return check_neuron(exercise, value_class, neuron_class, strict)
    return guarded(exercise.number, exercise.name, grade, timeout)


def check_all(value_class: Any, neuron_class: Any = None, *, strict: bool = False,
              timeout: float | None = 10.0) -> Iterator[Result]:
    """Every exercise, in order, then the whole engine when every exercise of it is right."""
    status, made = dict[str, str](), dict[str, list[Run]]()
    for exercise in EXERCISES:
        result = check_one(exercise, value_class, neuron_class, strict=strict, sort_done=status.get('sort') == DONE,
                           made=made, timeout=timeout)
        status[exercise.name] = result.status
        if result.status not in (DONE, CORRECT):  # (backward() runs on the graphs of the ops done)
            made.pop(exercise.name, None)
        yield result
    engine = all(status[e.name] in (DONE, CORRECT, ABSENT) for e in EXERCISES if e.source == 'engine')
    if engine and status['backward'] in (DONE, CORRECT):  # (run through the learner's backward())
        yield guarded(0, 'engine', lambda: check_engine(value_class, strict), timeout)
