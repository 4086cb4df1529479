"""Grading the sort on graphs the checker makes node by node (graphs.py), the idea first: an order in which every
node comes once, after its parents, is a correct sort. Then the library's rules the task states (no recursion,
leaves out of the order)."""
from __future__ import annotations

from typing import Any

from micrograd.exercises.result import Result
from micrograd.exercises.scalar import outcome
from micrograd.exercises.scalar.backprop_grading import Finding, ran
from micrograd.exercises.scalar.exercises import Exercise, Graph


def _listed(items: list[str]) -> str:
    if len(items) > 8:
        return f"[{', '.join(items[:3])}, ..., {', '.join(items[-2:])}] ({len(items):,} nodes)"
    return f"[{', '.join(items)}]"


def _sort_problem(order: object, graph: Graph, names: dict[int, str]) -> str:
    """What is wrong with a learner's order for graph (its nodes' names by id), as a key ('' when the idea is right,
    leaves listed or not)."""
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
