"""Grading the sort and backward() on graphs the checker makes node by node (graphs.py): the idea first (the lecture's
build_topo and `self.grad = 1` pass), then the rules the task states (no recursion, no leaves, zeroing, `+= 1`)."""
from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from contextlib import nullcontext, suppress
from functools import cache
from typing import Any
from unittest.mock import patch

from micrograd import engine as library
from micrograd.engine import topological_order
from micrograd.exercises import graphs
from micrograd.exercises.cutting import blank_raised, library_source, load, splice
from micrograd.exercises.graphs import OPS
from micrograd.exercises.lines import backward_line, where
from micrograd.exercises.numbers import close, grads, number, same
from micrograd.exercises.result import NOT_STARTED, Result
from micrograd.exercises.sandbox import set_input
from micrograd.exercises.scalar import outcome
from micrograd.exercises.scalar.blanks import blanks_of
from micrograd.exercises.scalar.drive import Run, hand_node, library_numbers
from micrograd.exercises.scalar.exercises import EXERCISES, Exercise, Graph, find
from micrograd.exercises.scalar.op_wiring import behind, probes, wired_text


def graph_node(op: str, parents: list[Any]) -> Any:
    """A node of the checker's graphs, made with its parents' Value class and given a _backward of the checker's."""
    forward, backward = OPS[op]
    data = [p.data for p in parents]
    return hand_node(type(parents[0]), forward(*data), parents, backward(1.0, *data), op.removesuffix('1'))


def _gradients(value_class: Any, graph: Graph, calls: int) -> graphs.Gradients | None:
    """Every node's gradient after backward() of value_class is called calls times (None where a slip's raises)."""
    with suppress(Exception):
        return graphs.backpropagated(graphs.make(graph, value_class, graph_node), graph.root, calls)
    return None


class Finding(dict[str, str]):
    """A mistake found, as the fields of its Result (its key as diagnosis; a status other than wrong as status)."""


# The slips of backward(), changes to the library's body, tried in order (the last three show on a second call).
_CALL = 'node._grad_fn(node.grad)'
SLIPS: tuple[tuple[str, dict[str, list[str]]], ...] = (
    ('backward_no_seed', {'self.grad += 1.0': ['pass']}),
    ('backward_not_called', {_CALL: ['pass']}),
    ('backward_not_reversed', {'for node in reversed(topo):': ['for node in topo:']}),
    ('backward_unit_grad', {_CALL: ['node._grad_fn(1.0)']}),
    ('backward_twice', {_CALL: [_CALL, _CALL]}),
    ('backward_twice', {'topo = self._topological_order()': graphs.revisiting_sort('topo')}),
    ('backward_zeroed_after', {_CALL: [_CALL, 'node.grad = 0.0']}),
    ('backward_no_zeroing', {'node.grad = 0.0': ['pass']}),
    ('backward_no_zeroing', {'node.grad = 0.0': ['pass'], 'self.grad += 1.0': ['self.grad = 1.0']}),
    ('backward_zeroes_leaves', {'node.grad = 0.0': ['node.grad = 0.0', 'for p in node._prev:', '    p.grad = 0.0']}),
)


@cache
def planted(index: int) -> Any:
    """The library's Value with slip index of SLIPS planted in its backward()."""
    blank = blanks_of(find('backward'))[0]
    body = graphs.changed(ast.unparse(ast.parse(textwrap.dedent(blank.indent + blank.solution))), SLIPS[index][1])
    spliced = splice(library_source('micrograd.engine')[0], {blank: textwrap.indent(body, blank.indent).lstrip()})
    return load(spliced, f'backward_slip_{index}', f'<backward slip {index}>').Value


def ran(exercise_number: int, text: str, run: Callable[[], Any], want: str = '') -> Any:
    """run(), the learner's code on text: what it returns or the RecursionError it raises, else a Finding."""
    set_input(text)
    try:
        return run()
    except RecursionError as error:
        return error
    except Exception as error:  # noqa: BLE001
        if blank_raised(error, len(EXERCISES)) in (exercise_number, 0):
            return Finding(status=NOT_STARTED)
        return _raised(text, error, _call_mismatch(error) or 'raises', want)


def _raised(text: str, error: BaseException, key: str, want: str) -> Finding:
    return Finding(diagnosis=key, input=text, expected=want, obtained=type(error).__name__, detail=where(error))


def check_backward(exercise: Exercise, value_class: Any, sort_done: bool, made: dict[str, list[Run]],
                   built: list[dict[str, Any]]) -> Result:
    """backward() on the checker's graphs (built: their nodes), then on the learner's own ops done (made)."""
    swapped = getattr(value_class, '_topological_order', None) is not None and not sort_done
    with patch.object(value_class, '_topological_order', topological_order) if swapped else nullcontext():
        failed, missing, shown = _check_backward(exercise.number, [*zip(exercise.graphs, built)], value_class, made)
    if failed.get('diagnosis') == 'backward_no_seed' and backward_line(value_class.backward, 'backward_zeroed_in_loop'):
        failed['diagnosis'] = 'backward_zeroed_in_loop'
    result = outcome.verdict(exercise, failed, "your backward() gives the right gradients", missing, **shown)
    if swapped:
        result.note = f"checked with the library's sort, since exercise {find('sort').number} (sort) is not done yet"
    result.place = result.place or backward_line(value_class.backward, result.diagnosis)  # the slip's line
    return result


def _check_backward(exercise_number: int, graphs_: list[tuple[Graph, dict[str, Any]]], value_class: Any,
                    made: dict[str, list[Run]]) -> tuple[Finding, list[tuple[str, str]], dict[str, str]]:
    """The first mistake (none: empty), the idea first; else the rules missed (key, what shows it), the first shown."""
    twice = graphs_[1][0].text('backward()') + '; z.backward()   (a second time)'  # (the reused graph's nodes, again)
    runs = [*((graph, nodes, 1, graph.text('backward()')) for graph, nodes in graphs_), (*graphs_[1], 2, twice)]
    leaf = _leaf_root(value_class)  # (said last)
    missing, shown = list[tuple[str, str]](), dict[str, str]()
    for graph, nodes, calls, text in runs:
        got = _run(exercise_number, graph, nodes, calls, text)
        if isinstance(got, Finding) and calls == 1:
            return got, [], {}
        if isinstance(got, RecursionError) and calls == 1:
            missing.append(('backward_recursion', f"on `{text}`: RecursionError"))
        if isinstance(got, tuple) and calls == 2:  # right on one backward(), not on two: the zeroing rule
            rule, grads_, want = got
            said = "leaves were zeroed too, so they do not accumulate: " if rule == 'backward_zeroes_leaves' else ''
            missing.append(('backward_no_zeroing', f"{said}after `{text}`, a = {number(want['a'])} is expected"))
            shown = {'input': text, 'expected': grads({k: want[k] for k in ('a', 'b')}),
                     'obtained': grads({k: grads_[k] for k in graph.leaves})}
    for failed in (_own_ops(made), got, leaf):  # the idea on the learner's own ops, then the rules
        if isinstance(failed, Finding) and failed:
            return failed, [], {}
    if isinstance(leaf, str) and leaf:
        missing.append((leaf, "x = Value(2.0); x.grad = 0.5; x.backward() must leave x.grad = 1.5"))
    return Finding(), missing, shown


def _run(exercise_number: int, graph: Graph, nodes: dict[str, Any], calls: int, text: str) -> Any:
    """backward() called on graph's nodes (the calls-th time): the gradients it leaves (or its RecursionError), a
    Finding when they are wrong, or (key, them, the right ones) when they miss only the zeroing rule."""
    want = _gradients(library.Value, graph, calls)
    assert want is not None  # (the library's backward() raises on none of the checker's graphs)
    shown = want if len(want) < 20 else {'x': want['x']}  # the deep chain: its leaf only
    got = ran(exercise_number, text, lambda: graphs.backpropagated(nodes, graph.root), grads(shown))
    if isinstance(got, (Finding, RecursionError)) or same(mine := {k: got[k] for k in shown}, shown):
        return got
    slips = (key for n, (key, _) in enumerate(SLIPS) if same(mine, _gradients(planted(n), graph, calls)))
    key = next(slips, 'wrong') if len(want) < 20 else 'wrong'  # (the deep chain: no slip tried)
    if key in ('backward_no_zeroing', 'backward_zeroes_leaves'):  # the zeroing rule: right on one call
        return key, got, want
    return Finding(diagnosis=key, input=text, expected=grads(shown), obtained=grads(mine))


def _call_mismatch(error: BaseException) -> str:
    """For a TypeError from calling a node's backward the wrong way, which way ('' for any other error)."""
    called = {'backward_extra_grad': 'takes 0 positional arguments but 1 was given',
              'backward_no_grad': 'missing 1 required positional argument'}
    return next((key for key, says in called.items() if isinstance(error, TypeError) and says in str(error)), '')


def _leaf_root(value_class: Any) -> Finding | str:
    """x.backward() on a leaf x holding a gradient, which it adds 1 to (as PyTorch): the rule missed ('' for none)."""
    set_input(text := "x = Value(2.0); x.grad = 0.5; x.backward()   (x is a leaf: its gradient accumulates)")
    x = value_class(2.0)
    x.grad = 0.5
    try:
        x.backward()
    except Exception as error:  # noqa: BLE001
        return _raised(text, error, 'raises', "x.grad = 1.5")
    if close(x.grad, 1.5) or close(x.grad, 1.0):  # right, or the root's 1 set with `=`
        return '' if close(x.grad, 1.5) else 'backward_seed_overwrites'
    return Finding(diagnosis='wrong', input=text, expected="x.grad = 1.5", obtained=f"x.grad = {number(x.grad)}")


def _own_ops(made: dict[str, list[Run]]) -> Finding:
    """The first mistake (none: empty) of backward() on the learner's own ops done (made), operands made by ops."""
    for op in (e for e in EXERCISES if e.name in made):
        for case, run in zip(probes(op), made[op.name]):
            if case.grad != 1.0 or not run.built:  # what out.backward() does; a Value that does not take this input
                continue
            set_input(text := wired_text(case, then="out.backward()"))
            want, (leaves, _, out) = library_numbers(case)[0], run.graphs[1]
            try:
                out.backward()
            except RecursionError:  # (the deep chain says it)
                continue
            except Exception as error:  # noqa: BLE001
                return _raised(text, error, _call_mismatch(error) or 'backward_own_ops', behind(want.grads))
            if not same(got := {name: leaf.grad for name, leaf in leaves.items()}, want.grads):
                return Finding(diagnosis='backward_own_ops', input=text, expected=behind(want.grads),
                               obtained=behind(got))
    return Finding()


def _listed(items: list[str]) -> str:
    if len(items) > 8:
        return f"[{', '.join(items[:3])}, ..., {', '.join(items[-2:])}] ({len(items):,} nodes)"
    return f"[{', '.join(items)}]"


def _sort_problem(order: object, graph: Graph, names: dict[int, str]) -> str:
    """What is wrong with a learner's order (names: its nodes' by id), as a key ('' when the idea is right)."""
    if not isinstance(order, (list, tuple)):
        return 'sort_not_list'
    got = [names.get(id(n)) for n in order]
    if None in got:
        return 'sort_foreign'
    if len(set(got)) != len(got):
        return 'sort_duplicate'
    if graph.root not in got:
        return 'sort_missing_root'
    if {name for name in got if name not in graph.leaves} != {name for name, _, _ in graph.nodes}:
        return 'sort_missing'
    position = {name: i for i, name in enumerate(got)}
    if any(p in position and position[p] > position[name] for name, _, parents in graph.nodes for p in parents):
        return 'sort_order'
    return ''


def check_sort(exercise: Exercise, built: list[dict[str, Any]]) -> Result:
    """The sort's verdict, from _topological_order() on each of the exercise's graphs (built: its nodes, by name)."""
    failed, missing, shown = Finding(), list[tuple[str, str]](), dict[str, str]()
    for graph, nodes in zip(exercise.graphs, built):
        text = graph.text('_topological_order()')
        names = {id(v): k for k, v in nodes.items()}
        want = f"{_listed([n for n, _, _ in graph.nodes])}: every node an op made, each after its parents, no leaves"
        order = ran(exercise.number, text, nodes[graph.root]._topological_order, want)
        if isinstance(order, RecursionError):
            missing.append(('sort_recursion', f"on `{text}`: RecursionError"))
            continue
        got = _listed([names.get(id(n), '?') for n in order]) if isinstance(order, (list, tuple)) else repr(order)[:200]
        problem = '' if isinstance(order, Finding) else _sort_problem(order, graph, names)
        if problem or isinstance(order, Finding):  # (a Finding: it raised)
            failed = Finding(diagnosis=problem, input=text, expected=want, obtained=got) if problem else order
            break
        if any(names[id(n)] in graph.leaves for n in order) and 'sort_leaves' not in dict(missing):
            missing.append(('sort_leaves', f"on `{text}` your order is {got}"))
            shown = {'input': text, 'expected': want, 'obtained': got}
    return outcome.verdict(exercise, failed, "every node once, after its parents", missing, **shown)
