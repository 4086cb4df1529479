"""Checking a Value class, exercise by exercise, through what anyone can see of it: build a graph,
backpropagate, read the .grad of the leaves, and compare with the library's engine and with central
differences. When a gradient is wrong, find out why: reproduce the classic mistakes and name the one
that gives the learner's numbers.

It works for the workspace's my_engine.Value (whose _backward takes the output's grad) and for a Value
written while following the lecture (whose _backward() reads out.grad, with _prev a set) alike.
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import io
import linecache
import math
import os
import signal
import sysconfig
import threading
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from micrograd import engine as library
from micrograd.exercises import cases as C
from micrograd.exercises.catalog import DIAGNOSES, EXERCISES, Exercise
from micrograd.exercises.mistakes import variants

DONE, WRONG, NOT_STARTED, ABSENT, UNCHECKED = 'done', 'wrong', 'not started', 'absent', 'not checked'
# Code that is not the learner's: micrograd itself (the checker, numeric.py) and Python's standard library.
NOT_LEARNERS = tuple(str(Path(p).resolve()) + os.sep for p in [
    str(Path(__file__).parents[1]), *(sysconfig.get_paths()[k] for k in ('stdlib', 'purelib', 'platlib'))])


@dataclass
class Result:
    """How one exercise stands; for a wrong one, the input that shows it and what is wrong."""
    number: int
    status: str
    input: str = ''
    expected: str = ''
    obtained: str = ''
    diagnosis: str = ''   # a key of DIAGNOSES
    detail: str = ''      # what this case adds: the exception and the line that raised it, ...
    note: str = ''        # how it was checked, when that is worth saying
    also: str = ''        # the other inputs it is wrong on
    printed: str = ''     # what the learner's code printed meanwhile

    @property
    def exercise(self) -> Exercise:
        return EXERCISES[self.number - 1]

    @property
    def explanation(self) -> str:
        return DIAGNOSES.get(self.diagnosis, '')


class Timeout(BaseException):  # a BaseException, so that the learner's `except Exception` lets it through
    pass


class NotWritten(Exception):
    """A blank of another exercise was reached (its message names it)."""


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after seconds, where signals allow it (the main thread, not on Windows);
    elsewhere run it without a limit."""
    usable = (seconds and hasattr(signal, 'setitimer') and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Timeout(f"did not finish in {seconds:g} s")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)  # type: ignore[arg-type]
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- Driving a learner's graph -------------------------------------------------------------------

def _takes_grad(fn: Callable[..., Any]) -> bool:
    """Whether a node's _backward wants the output's grad (this library) or reads out.grad (the lecture)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def order_of(root: Any) -> list[Any]:
    """The library's sort, on any Value-like object: nodes with parents, each after its parents."""
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, placed = stack.pop()
        if placed:
            order.append(node)
        elif id(node) not in visited and node._prev:
            visited.add(id(node))
            stack.append((node, True))
            stack.extend((parent, False) for parent in node._prev)
    return order


def backpropagate(out: Any, grad: float = 1.0) -> None:
    """The chain rule from out, with the checker's own sort and loop, calling each node's _backward in
    whichever convention it has: so an op is checked before (and whatever) the learner's backward()."""
    order = order_of(out)
    for node in order:
        node.grad = 0.0
    out.grad = grad
    for node in reversed(order):
        fn = node._backward
        fn(node.grad) if _takes_grad(fn) else fn()


def close(a: object, b: object, rel: float = 1e-6, abs_: float = 1e-9) -> bool:
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def number(v: object) -> str:
    """A float as Python prints it, unless that takes more than 12 significant digits."""
    text = repr(v)
    return f"{v:.12g}" if isinstance(v, float) and len(text) > 14 else text


def _learners(error: BaseException) -> list[tuple[types.CodeType, int]]:
    """The frames of error's traceback in the learner's code (their file, their notebook cell), outermost first."""
    frames, tb = [], error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        name = code.co_filename
        if name != '<string>' and not str(Path(name).resolve()).startswith(NOT_LEARNERS):
            frames.append((code, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def _function(code: types.CodeType) -> str:
    """'_backward in Value.__mul__' for the closure inside __mul__."""
    parts = getattr(code, 'co_qualname', None) or _qualname_from_source(code)
    return ' in '.join(reversed(parts.split('.<locals>.')))


def _qualname_from_source(code: types.CodeType) -> str:
    """code's qualified name found in its file (Python 3.10 has no co_qualname): the classes and functions
    whose bodies hold the def that starts on its first line, written as Python 3.11 writes them."""
    try:  # linecache: also a workspace or notebook source the checker compiled itself
        tree = ast.parse(''.join(linecache.getlines(code.co_filename)))
    except (SyntaxError, ValueError):
        return code.co_name
    name, node = '', cast(ast.AST, tree)
    while True:
        inner = [child for child in ast.iter_child_nodes(node)
                 if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                 and child.lineno <= code.co_firstlineno <= (child.end_lineno or child.lineno)]
        if not inner:
            return name or code.co_name
        child = inner[0]
        if name:
            name += '.<locals>.' if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else '.'
        name, node = name + child.name, child
        if child.name == code.co_name and child.lineno == code.co_firstlineno:
            return name


def where(error: BaseException) -> str:
    """The error, and the function and line of the learner's code that raised it: the innermost frame they wrote,
    not one of micrograd's (numeric.py) nor the checker's."""
    message = f"{type(error).__name__}: {error}".rstrip(': ')
    frames = _learners(error)
    if frames:
        code, line = frames[-1]
        text = linecache.getline(code.co_filename, line).strip()
        message += f" (in {_function(code)}, {Path(code.co_filename).name} line {line}: {text})"
    return message


def _line_of(error: BaseException) -> str:
    """Where the learner's code raised error: 'the blank in _backward in Value.__mul__, my_engine.py line 184'."""
    frames = _learners(error)
    if not frames:
        return str(error)
    code, line = frames[-1]
    return f"the blank in {_function(code)}, {Path(code.co_filename).name} line {line}"


def _blank_of(error: BaseException) -> int | None:
    """For a NotImplementedError from a blank, the exercise it belongs to; else None."""
    text = str(error)
    if isinstance(error, NotImplementedError):
        for e in EXERCISES:
            if text.startswith(f'exercise {e.number} '):
                return e.number
        return 0  # the learner's own NotImplementedError: a blank of some exercise
    return None


# --- The ops -------------------------------------------------------------------------------------

OP_ATTRIBUTE = {'+': '__add__', '*': '__mul__', '**': '__pow__', '/': '__truediv__'}


@dataclass
class Run:
    """One case run with one Value class."""
    grads: dict[str, float] | None = None
    data: float | None = None
    error: BaseException | None = None
    built: bool = True


def run_case(case: C.Case, value_class: Any) -> Run:
    try:
        leaves, out = case.build(value_class)
    except Exception as error:  # noqa: BLE001 -- a Value that cannot make this input
        return Run(error=error, built=False)
    try:
        backpropagate(out, case.grad)
        return Run({name: leaf.grad for name, leaf in leaves.items()}, out.data)
    except RecursionError as error:
        return Run(error=error, data=out.data)
    except Exception as error:  # noqa: BLE001 -- reported with the line that raised it
        return Run(error=error, data=out.data)


_EXPECTED: dict[tuple[str, int], tuple[Run, dict[str, float]]] = {}


def expected(name: str, index: int) -> tuple[Run, dict[str, float]]:
    """The library's gradients for a case, and the central differences of its forward pass."""
    if (name, index) not in _EXPECTED:
        case = C.OP_CASES[name][index]
        run = run_case(case, library.Value)
        fd: dict[str, float] = {}
        for leaf, x in case.leaves.items():
            h = 1e-6 * (abs(x) or 1.0)  # relative to x: a fixed step suits no input far from 1
            up = case.build(library.Value, {**case.leaves, leaf: x + h})[1].data
            down = case.build(library.Value, {**case.leaves, leaf: x - h})[1].data
            fd[leaf] = case.grad * (up - down) / (2 * h) + case.prior.get(leaf, 0.0)
        _EXPECTED[name, index] = run, fd
    return _EXPECTED[name, index]


def _grads(grads: dict[str, float] | None) -> str:
    return ', '.join(f"{leaf}.grad = {number(g)}" for leaf, g in (grads or {}).items())


def _same(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    return a is not None and b is not None and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)


def _compared(run: Run) -> bool:
    """Whether a learner's run says something about this exercise: it built the input, and it did not stop
    at a blank (of this exercise or another)."""
    return run.built and (run.error is None or _blank_of(run.error) is None)


def _agree(mine: Run, theirs: Run | None) -> bool:
    """The same gradients, or an exception of the same type (an overflow where the mistake overflows)."""
    if theirs is None:
        return False
    if mine.error is not None or theirs.error is not None:
        return mine.error is not None and theirs.error is not None and type(mine.error) is type(theirs.error)
    return _same(mine.grads, theirs.grads)


def _refused(case: C.Case, run: Run) -> bool:
    """A right formula that Python refuses to evaluate on an extreme input (an overflow, y**2 underflowing to 0):
    accepted, with a note."""
    return case.extreme and isinstance(run.error, (OverflowError, ZeroDivisionError))


def diagnose_op(name: str, runs: list[Run], failing: list[int]) -> str:
    """The classic mistake that gives the learner's gradients (or exception) on the first failing case: the one
    that also matches every other case the learner's code ran, else the one matching the most failing cases."""
    cases, first = C.OP_CASES[name], failing[0]
    error = runs[first].error
    if error is not None and _lecture_reflex(error):
        return 'out_undefined'
    scored = []
    for n, (key, module) in enumerate(variants(name)):
        theirs = [run_case(case, module.Value) if _compared(runs[i]) else None for i, case in enumerate(cases)]
        if not _agree(runs[first], theirs[first]):
            continue
        everywhere = all(not _compared(mine) or _refused(case, mine) or _agree(mine, t)
                         for case, mine, t in zip(cases, runs, theirs))
        agreed = sum(_compared(mine) and _agree(mine, t) for mine, t in zip(runs, theirs))
        scored.append((everywhere, sum(_agree(runs[i], theirs[i]) for i in failing), agreed, -n, key))
    if scored:
        return max(scored)[-1]
    if error is not None:
        return 'raises'
    case, grads = cases[first], runs[first].grads or {}
    if all(close(g, case.prior.get(leaf, 0.0)) for leaf, g in grads.items()):
        return 'nothing'
    return 'wrong'


def _lecture_reflex(error: BaseException) -> bool:
    """The lecture's out.grad (or out.data) in a workspace closure, where out is undefined (or, in **, a float)."""
    frames = _learners(error)
    line = linecache.getline(frames[-1][0].co_filename, frames[-1][1]) if frames else ''
    return isinstance(error, (NameError, AttributeError)) and ('out.grad' in line or 'out.data' in line)


def _missing(exercise: Exercise, what: str, text: str = '') -> Result:
    return Result(exercise.number, WRONG, text, f"{what}, as the library has it", f"no {what}", 'missing')


def check_op(exercise: Exercise, value_class: Any, strict: bool) -> Result:
    name = exercise.name
    cases = C.OP_CASES[name]
    attribute = OP_ATTRIBUTE.get(name, name)
    if not hasattr(value_class, attribute):  # a workspace's Value has them all: one missing was renamed
        return _missing(exercise, f"Value.{attribute}", cases[0].text()) if strict else Result(exercise.number, ABSENT)
    runs = []
    for case in cases:
        set_input(case.text())
        runs.append(run_case(case, value_class))
    blanks = [r for r in runs if r.error is not None and _blank_of(r.error) is not None]
    if all(not r.built for r in runs):
        if strict:
            return _raised(exercise, cases[0].text(), runs[0].error)
        return Result(exercise.number, ABSENT)
    if blanks and all(not r.built or (r.error is not None and _blank_of(r.error) is not None) for r in runs):
        return Result(exercise.number, NOT_STARTED)
    unfinished, notes = None, []
    wrong: list[tuple[int, Result]] = []  # (case, what is wrong there), every case: a mistake is named by all
    for i, (case, run) in enumerate(zip(cases, runs)):
        if not run.built:
            if strict:
                return _raised(exercise, case.text(), run.error)
            continue  # this Value does not take this input (say, a Value exponent): nothing to check
        want, fd = expected(name, i)
        text = case.text()
        if _refused(case, run):
            assert run.error is not None
            notes.append(f"on `{text}` your formula raises {where(run.error)}, where the library's gives "
                         f"{_grads(want.grads)}: accepted, since Python refuses rather than answering wrong, "
                         "but see the hint")
            continue
        if run.error is not None:
            if _blank_of(run.error) is not None:  # a blank still to write: said after any wrong gradient
                unfinished = unfinished or Result(exercise.number, WRONG, text, _grads(want.grads),
                                                  'NotImplementedError', 'unfinished', _line_of(run.error))
                continue
            if isinstance(run.error, RecursionError):
                wrong.append((i, Result(exercise.number, WRONG, text, _grads(want.grads), 'RecursionError',
                                        'raises', 'RecursionError: maximum recursion depth exceeded')))
            else:
                wrong.append((i, Result(exercise.number, WRONG, text, _grads(want.grads), type(run.error).__name__,
                                        '', where(run.error))))
            continue
        if not close(run.data, want.data):
            return Result(exercise.number, WRONG, text, f"out.data = {number(want.data)}",
                          f"out.data = {number(run.data)}", 'forward')
        assert run.grads is not None and want.grads is not None
        good = all(close(run.grads[k], want.grads[k]) and
                   (case.kink or close(run.grads[k], fd[k], rel=1e-4, abs_=1e-6)) for k in run.grads)
        if not good:
            shown = _grads(want.grads)
            if not case.kink:
                differences = ', '.join(number(round(v, 8)) for v in fd.values())
                shown += f"   (the library's engine; central differences give {differences})"
            wrong.append((i, Result(exercise.number, WRONG, text, shown, _grads(run.grads))))
    if wrong:
        first = wrong[0][1]
        if not first.diagnosis:
            first.diagnosis = diagnose_op(name, runs, [i for i, _ in wrong])
        first.also = '\n'.join(r.input for _, r in wrong[1:])
        return first
    return unfinished or Result(exercise.number, DONE, note='\n'.join(notes))


def _raised(exercise: Exercise, text: str, error: BaseException | None, want: str = '') -> Result:
    return Result(exercise.number, WRONG, text, want, type(error).__name__, 'raises',
                  where(error) if error is not None else '')


# --- The sort and backward(), on graphs the checker makes node by node ---------------------------

def _forward(op: str, values: list[float]) -> tuple[float, list[float]]:
    """A node's data and the local derivatives for its parents."""
    if op == '*':
        return values[0] * values[1], [values[1], values[0]]
    if op == '+1':
        return values[0] + 1.0, [1.0]
    return sum(values), [1.0] * len(values)


def make(graph: C.Graph, value_class: Any) -> dict[str, Any]:
    """graph built of value_class(data, children, op), each node with a _backward of the checker's."""
    nodes = {name: value_class(v) for name, v in graph.leaves.items()}
    for name, op, parent_names in graph.nodes:
        parents = [nodes[p] for p in parent_names]
        data, local = _forward(op, [p.data for p in parents])
        node = value_class(data, tuple(parents), '+' if op == '+1' else op)
        if isinstance(inspect.getattr_static(value_class, '_backward', None), property):
            node._grad_fn = _hand_backward(node, parents, local)  # the workspace's: it takes the grad it is given
        else:
            node._backward = _hand_backward(node, parents, local)
        nodes[name] = node
    return nodes


def _hand_backward(node: Any, parents: list[Any], local: list[float]) -> Callable[..., None]:
    def _backward(*grad: float) -> None:  # either convention: _backward(grad) or _backward()
        g = grad[0] if grad else node.grad
        for parent, d in zip(parents, local):
            parent.grad += d * g
    return _backward


def simulate(graph: C.Graph, calls: int = 1, reverse: bool = True, seed: str = '+=', unit: bool = False,
             zero: str = 'order', repeat: int = 1, paths: bool = False) -> dict[str, float]:
    """The gradients a backward() of a given kind leaves in graph: the library's by default. repeat: each node's
    backward run that many times; paths: the order of a sort without a visited set (a node once per path)."""
    data = dict(graph.leaves)
    local: dict[str, list[float]] = {}
    for name, op, parents in graph.nodes:
        data[name], local[name] = _forward(op, [data[p] for p in parents])
    grads = {name: 0.0 for name in data}
    order = [name for name, _, _ in graph.nodes]
    parents_of = {name: parents for name, _, parents in graph.nodes}
    if paths:
        order = []
        def visit(name: str) -> None:  # the lecture's build_topo, without its visited set
            for p in parents_of.get(name, ()):
                visit(p)
            if name in parents_of:
                order.append(name)
        visit(graph.root)
    for _ in range(calls):
        for name in order if zero == 'order' else data if zero == 'all' else []:
            grads[name] = 0.0
        if seed == '+=':
            grads[graph.root] += 1.0
        elif seed == '=':
            grads[graph.root] = 1.0
        for name in reversed(order) if reverse else order:
            for _ in range(repeat):
                g = 1.0 if unit else grads[name]
                for p, d in zip(parents_of[name], local[name]):
                    grads[p] += d * g
    return grads


def _names(order: object, names: dict[int, str]) -> str:
    items = [names.get(id(n), '?') for n in order]  # type: ignore[attr-defined]
    if len(items) > 8:
        return f"[{', '.join(items[:3])}, ..., {', '.join(items[-2:])}] ({len(items):,} nodes)"
    return f"[{', '.join(items)}]"


def _sort_problem(order: object, graph: C.Graph, nodes: dict[str, Any]) -> str:
    """What is wrong with a learner's order for graph, as a diagnosis key ('' when it is right)."""
    if not isinstance(order, (list, tuple)):
        return 'sort_not_list'
    names = {id(v): k for k, v in nodes.items()}
    got = [names.get(id(n)) for n in order]
    made = [name for name, _, _ in graph.nodes]
    if None in got:
        return 'sort_foreign'
    if any(name in graph.leaves for name in got):
        return 'sort_leaves'
    if len(set(got)) != len(got):
        return 'sort_duplicate'
    if graph.root not in got:
        return 'sort_missing_root'
    if set(got) != set(made):
        return 'sort_missing'
    position = {name: i for i, name in enumerate(got)}
    for name, _, parents in graph.nodes:
        if any(p in position and position[p] > position[name] for p in parents):
            return 'sort_order'
    return ''


def check_sort(exercise: Exercise, value_class: Any, strict: bool = False) -> Result:
    if not hasattr(value_class, '_topological_order'):
        return _missing(exercise, "Value._topological_order") if strict else Result(exercise.number, ABSENT)
    deep = C.chain()
    for graph, text in ((C.REUSED, C.REUSED.text('_topological_order()')),
                        (C.BRANCHES, C.BRANCHES.text('_topological_order()')),
                        (C.LECTURE, C.LECTURE.text('_topological_order()')),
                        (deep, C.chain_text() + '; n._topological_order()')):
        set_input(text)
        nodes = make(graph, value_class)
        made = [name for name, _, _ in graph.nodes]
        want = (f"{_names([nodes[n] for n in made], {id(v): k for k, v in nodes.items()})}: every node an op "
                "made, each after its parents, no leaves")
        try:
            order = nodes[graph.root]._topological_order()
        except RecursionError:
            return Result(exercise.number, WRONG, text, want, 'RecursionError', 'sort_recursion')
        except Exception as error:  # noqa: BLE001
            if _blank_of(error) == exercise.number or _blank_of(error) == 0:
                return Result(exercise.number, NOT_STARTED)
            return _raised(exercise, text, error, want)
        problem = _sort_problem(order, graph, nodes)
        if problem:
            shown = _names(order, {id(v): k for k, v in nodes.items()}) if isinstance(order, (list, tuple)) \
                else repr(order)[:200]
            return Result(exercise.number, WRONG, text, want, shown, problem)
    return Result(exercise.number, DONE)


def _all_grads(nodes: dict[str, Any]) -> dict[str, float]:
    return {name: node.grad for name, node in nodes.items()}


def diagnose_backward(graph: C.Graph, calls: int, obtained: dict[str, float]) -> str:
    kinds = [('backward_no_seed', {'seed': ''}), ('backward_not_reversed', {'reverse': False}),
             ('backward_unit_grad', {'unit': True}), ('backward_twice', {'repeat': 2}),
             ('backward_twice', {'paths': True})]
    if calls > 1:
        kinds += [('backward_no_zeroing', {'zero': 'none'}), ('backward_no_zeroing', {'zero': 'none', 'seed': '='}),
                  ('backward_zeroes_leaves', {'zero': 'all'})]
    for key, how in kinds:
        if _same(obtained, simulate(graph, calls, **how)):  # type: ignore[arg-type]
            return key
    return 'wrong'


def check_backward(exercise: Exercise, value_class: Any, sort_done: bool, done: frozenset[str] = frozenset(),
                   strict: bool = False) -> Result:
    """backward() on graphs the checker makes node by node, then on the learner's own ops that are done."""
    if not hasattr(value_class, 'backward'):
        return _missing(exercise, "Value.backward") if strict else Result(exercise.number, ABSENT)
    note = ''
    own_sort = getattr(value_class, '_topological_order', None)
    if own_sort is not None and not sort_done:  # the sort is not done: check backward() on the library's sort
        value_class._topological_order = order_of
        sort = next(e for e in EXERCISES if e.name == 'sort')
        note = f"checked with the library's sort, since exercise {sort.number} (sort) is not done yet"
    try:
        return _check_backward(exercise, value_class, note, done)
    finally:
        if own_sort is not None and not sort_done:
            value_class._topological_order = own_sort


def _check_backward(exercise: Exercise, value_class: Any, note: str, done: frozenset[str]) -> Result:
    deep = C.chain()
    plan = [(C.LECTURE, 1, C.LECTURE.text('backward()')), (C.REUSED, 1, C.REUSED.text('backward()')),
            (C.DOUBLED, 1, C.DOUBLED.text('backward()')),
            (C.REUSED, 2, C.REUSED.text('backward()') + '; z.backward()   (a second time)'),
            (deep, 1, C.chain_text() + '; n.backward()')]
    for graph, calls, text in plan:
        set_input(text)
        nodes = make(graph, value_class)
        want = simulate(graph, calls)
        shown = {k: want[k] for k in nodes} if len(nodes) < 20 else {'x': want['x']}
        try:
            for _ in range(calls):
                nodes[graph.root].backward()
        except RecursionError:
            return Result(exercise.number, WRONG, text, _grads(shown), 'RecursionError', 'backward_recursion',
                          note=note)
        except Exception as error:  # noqa: BLE001
            if _blank_of(error) in (exercise.number, 0):
                return Result(exercise.number, NOT_STARTED, note=note)
            return Result(exercise.number, WRONG, text, _grads(shown), type(error).__name__,
                          _call_mismatch(error) or 'raises', where(error), note)
        got = _all_grads(nodes)
        if not _same({k: got[k] for k in shown}, shown):
            key = diagnose_backward(graph, calls, got) if len(nodes) < 20 else 'wrong'
            return Result(exercise.number, WRONG, text, _grads(shown), _grads({k: got[k] for k in shown}), key,
                          note=note)
        if calls == 2:  # before the deep chain: a root that is a leaf, and the learner's own ops
            result = _leaf_root(exercise, value_class, note) or _own_ops(exercise, value_class, note, done)
            if result is not None:
                return result
    return Result(exercise.number, DONE, note=note)


def _call_mismatch(error: BaseException) -> str:
    """For a TypeError from calling a node's backward the wrong way, which way ('' for any other error)."""
    message = str(error) if isinstance(error, TypeError) else ''
    if 'takes 0 positional arguments but 1 was given' in message:
        return 'backward_extra_grad'
    if 'missing 1 required positional argument' in message:
        return 'backward_no_grad'
    return ''


def _leaf_root(exercise: Exercise, value_class: Any, note: str) -> Result | None:
    """x.backward() on a leaf x holding a gradient already: d(x)/d(x) = 1 is added to it, as in PyTorch."""
    text = "x = Value(2.0); x.grad = 0.5; x.backward()   (x is a leaf: its gradient accumulates)"
    set_input(text)
    x = value_class(2.0)
    x.grad = 0.5
    try:
        x.backward()
    except Exception as error:  # noqa: BLE001
        return Result(exercise.number, WRONG, text, "x.grad = 1.5", type(error).__name__, 'raises', where(error), note)
    if close(x.grad, 1.5):
        return None
    key = 'backward_seed_overwrites' if close(x.grad, 1.0) else 'wrong'
    return Result(exercise.number, WRONG, text, "x.grad = 1.5", f"x.grad = {number(x.grad)}", key, note=note)


def _own_ops(exercise: Exercise, value_class: Any, note: str, done: frozenset[str]) -> Result | None:
    """backward() on a graph of each of the learner's ops that is done: the checker's graphs accept either way of
    calling a node's backward, the learner's own closures may take only one."""
    for name in (n for n in C.OP_CASES if n in done):
        index, case = next((i, c) for i, c in enumerate(C.OP_CASES[name])
                           if c.grad == 1.0 and not c.prior and not c.extreme)  # what out.backward() does
        text = case.text() + "; out.backward()"
        set_input(text)
        want = expected(name, index)[0].grads
        leaves, out = case.build(value_class)
        try:
            out.backward()
        except Exception as error:  # noqa: BLE001
            key = _call_mismatch(error) or 'backward_own_ops'
            return Result(exercise.number, WRONG, text, _grads(want), type(error).__name__, key, where(error), note)
        got = {k: leaf.grad for k, leaf in leaves.items()}
        if not _same(got, want):
            return Result(exercise.number, WRONG, text, _grads(want), _grads(got), 'backward_own_ops', note=note)
    return None


# --- The neuron ----------------------------------------------------------------------------------

def _neuron(neuron_class: Any, nin: int, **kw: Any) -> Any:
    n = neuron_class(nin, **kw)
    for w, v in zip(n.w, C.WEIGHTS):
        w.data = v
    n.b.data = C.BIAS
    return n


def _reaches(out: Any, targets: list[Any]) -> bool:
    """Whether every target is in the graph out was made from."""
    seen, stack = set(), [out]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(getattr(node, '_prev', ()))
    return all(id(t) in seen for t in targets)


def check_neuron(exercise: Exercise, value_class: Any, neuron_class: Any, strict: bool) -> Result:
    if neuron_class is None:
        return _missing(exercise, "class Neuron (in my_nn.py)") if strict else Result(exercise.number, ABSENT)
    setting = f"n = Neuron(3); weights {C.WEIGHTS}, bias {C.BIAS} (set on n.w[i].data, n.b.data)"
    pos, neg = 3.25, -2.25  # w . x + b for the two inputs
    plan: list[tuple[dict[str, Any], Any, float | None, dict[float, str]]] = [
        ({}, C.POSITIVE, pos, {pos - C.BIAS: 'neuron_no_bias'}),
        ({}, C.NEGATIVE, 0.0, {neg: 'neuron_no_activation'}),
        ({'nonlin': False}, C.NEGATIVE, neg, {0.0: 'neuron_activation_when_linear'}),
        ({'activation': 'tanh'}, C.POSITIVE, math.tanh(pos), {pos: 'neuron_wrong_activation'}),
    ]
    outcomes: list[Result | None] = []
    set_input(setting + "; n.parameters()")
    outcomes.append(_check_parameters(exercise, neuron_class, setting))
    for kw, x, want, known in plan:
        args = ''.join(f", {k}={v!r}" for k, v in kw.items())
        text = setting.replace('Neuron(3)', f'Neuron(3{args})') + f"; out = n({x})"
        set_input(text)
        try:
            n = _neuron(neuron_class, 3, **kw)
        except Exception as error:  # noqa: BLE001 -- a lecture Neuron without this option
            if strict:
                outcomes.append(_raised(exercise, text, error))
            continue
        try:
            out = n(list(x))
        except Exception as error:  # noqa: BLE001
            outcomes.append(_neuron_error(exercise, text, error, f"out.data = {number(want)}"))
            continue
        data = getattr(out, 'data', out)
        if not close(data, want):
            key = next((k for v, k in known.items() if close(data, v)), 'wrong')
            outcomes.append(Result(exercise.number, WRONG, text, f"out.data = {number(want)}",
                                   f"out.data = {number(data)}", key))
        elif not isinstance(out, value_class) or not _reaches(out, [*n.w, n.b]):
            outcomes.append(Result(exercise.number, WRONG, text, "out, a Value made from n.w and n.b",
                                   f"{type(out).__name__} {out!r}"[:120], 'neuron_detached'))
        else:
            outcomes.append(None)
    if strict:
        outcomes += _check_neuron_inputs(exercise, value_class, neuron_class)
    results = [r for r in outcomes if r is not None]
    if results and all(r.diagnosis == 'unfinished' for r in results) and len(results) == len(outcomes):
        return Result(exercise.number, NOT_STARTED)
    return results[0] if results else Result(exercise.number, DONE)


def _neuron_error(exercise: Exercise, text: str, error: Exception, want: str) -> Result:
    if _blank_of(error) is not None:
        return Result(exercise.number, WRONG, text, want, 'NotImplementedError', 'unfinished', _line_of(error))
    return _raised(exercise, text, error, want)


def _check_parameters(exercise: Exercise, neuron_class: Any, setting: str) -> Result | None:
    text = setting + "; n.parameters()"
    n = _neuron(neuron_class, 3)
    want = "[n.w[0], n.w[1], n.w[2], n.b]"
    try:
        params = n.parameters()
    except Exception as error:  # noqa: BLE001
        return _neuron_error(exercise, text, error, want)
    if not isinstance(params, list):
        return Result(exercise.number, WRONG, text, want, type(params).__name__, 'params_not_list')
    own = {id(w): f'n.w[{i}]' for i, w in enumerate(n.w)} | {id(n.b): 'n.b'}
    got = [own.get(id(p), repr(p)) for p in params]
    shown = f"[{', '.join(got)}]"
    if len(set(got)) != len(got):
        return Result(exercise.number, WRONG, text, want, shown, 'params_twice')
    if any(id(p) not in own for p in params):
        return Result(exercise.number, WRONG, text, want, shown, 'params_extra')
    if 'n.b' not in got:
        return Result(exercise.number, WRONG, text, want, shown, 'params_no_bias')
    if len(got) < len(own):
        return Result(exercise.number, WRONG, text, want, shown, 'params_no_weights')
    return None


def _check_neuron_inputs(exercise: Exercise, value_class: Any, neuron_class: Any) -> list[Result | None]:
    """What the library's Neuron also takes: one Value (from a one-neuron Layer), and inputs of the wrong
    number refused."""
    results: list[Result | None] = []
    text = "n = Neuron(1); weight 0.5, bias 0.25; out = n(Value(2.0))"
    set_input(text)
    n = _neuron(neuron_class, 1)
    try:
        out = n(value_class(2.0))
        ok = close(getattr(out, 'data', None), 1.25)
        results.append(None if ok else Result(exercise.number, WRONG, text, "out.data = 1.25",
                                              f"out.data = {number(getattr(out, 'data', out))}", 'neuron_single_value'))
    except Exception as error:  # noqa: BLE001
        results.append(Result(exercise.number, WRONG, text, "out.data = 1.25", where(error), 'neuron_single_value')
                       if _blank_of(error) is None else _neuron_error(exercise, text, error, "out.data = 1.25"))
    text = "n = Neuron(3); n([1.0, 2.0])"
    set_input(text)
    try:
        out = _neuron(neuron_class, 3)([1.0, 2.0])
        results.append(Result(exercise.number, WRONG, text, "ValueError (3 weights, 2 inputs)",
                              f"out.data = {number(getattr(out, 'data', out))}", 'neuron_length'))
    except ValueError:
        results.append(None)
    except Exception as error:  # noqa: BLE001
        results.append(_neuron_error(exercise, text, error, "ValueError (3 weights, 2 inputs)")
                       if _blank_of(error) is not None else
                       Result(exercise.number, WRONG, text, "ValueError", where(error), 'neuron_length'))
    return results


# --- All of them ---------------------------------------------------------------------------------

_input = ['']


def set_input(text: str) -> None:
    """The case being run, for a report of a timeout."""
    _input[0] = text


def check_one(exercise: Exercise, value_class: Any, neuron_class: Any = None, *, strict: bool = False,
              sort_done: bool = True, done: frozenset[str] = frozenset(), timeout: float | None = 10.0) -> Result:
    """One exercise, with a time limit; what the learner's code prints is kept, not shown in between. strict: the
    class is a workspace's, which has every method (a missing one was renamed); done: the ops done so far."""
    printed = io.StringIO()
    set_input('')
    try:
        with contextlib.redirect_stdout(printed), time_limit(timeout):
            if exercise.name == 'sort':
                result = check_sort(exercise, value_class, strict)
            elif exercise.name == 'backward':
                result = check_backward(exercise, value_class, sort_done, done, strict)
            elif exercise.name == 'neuron':
                result = check_neuron(exercise, value_class, neuron_class, strict)
            else:
                result = check_op(exercise, value_class, strict)
    except Timeout as error:
        result = Result(exercise.number, WRONG, _input[0], '', str(error), 'timeout',
                        "the checker stopped it: look for a loop that never ends (a stack that is never "
                        "emptied, a node pushed again and again)")
    except SystemExit as error:  # sys.exit() in the learner's code: said as such, and the checking goes on
        result = Result(exercise.number, WRONG, _input[0], '', f"SystemExit({error.code!r})", 'exits', where(error))
    result.printed = printed.getvalue()[-2000:]
    return result


def check_all(value_class: Any, neuron_class: Any = None, *, strict: bool = False,
              timeout: float | None = 10.0, before: Callable[[int], None] | None = None) -> Iterator[Result]:
    """Every exercise, in order; before(number) is called as each begins."""
    sort_done, done = True, frozenset[str]()
    for exercise in EXERCISES:
        if before is not None:
            before(exercise.number)
        result = check_one(exercise, value_class, neuron_class, strict=strict, sort_done=sort_done, done=done,
                           timeout=timeout)
        if exercise.name == 'sort':
            sort_done = result.status == DONE
        if result.status == DONE:
            done |= {exercise.name}
        yield result
