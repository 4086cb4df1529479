"""Whether an op wires its output into the graph: every operand among its parents (`_prev`), the op's name (`_op`),
its closure attached. Each operand is made by an op here (`x = x0 + 0`), so only a graph holding it passes x0 on."""
from __future__ import annotations

import re
import types
from typing import Any

from micrograd import ops
from micrograd.exercises.numbers import grads, same
from micrograd.exercises.result import Result
from micrograd.exercises.sandbox import set_input
from micrograd.exercises.scalar import outcome
from micrograd.exercises.scalar.blanks import blanks_of
from micrograd.exercises.scalar.drive import Run, closure_of, library_numbers, reaches
from micrograd.exercises.scalar.exercises import Case, Exercise
from micrograd.exercises.scalar.fit import roles_of
from micrograd.exercises.scalar.places import line_with


def probes(exercise: Exercise) -> list[Case]:
    """The cases an op is wired on: the first of each form (x OP y, x OP k, x.f()), none reused, prior or extreme."""
    plain = [case for case in exercise.cases
             if not (case.prior or case.extreme or case.reuses or roles_of(case) is None)]
    return sorted({case.code: case for case in reversed(plain)}.values(), key=plain.index)  # in their order


def wired_text(case: Case, then: str = '') -> str:
    """The case with each leaf made by an op, as a learner can paste it (then: a statement after it)."""
    made = '; '.join(f"{name}0 = Value({v!r}); {name} = {name}0 + 0" for name, v in case.leaves.items())
    code = '; '.join(case.code.split('\n') + ([then] if then else []))
    grad = f", backpropagating out.grad = {case.grad!r}" if case.grad != 1.0 else ''
    return f"{made}; {code}   ({' and '.join(case.leaves)} made by an op, not leaves{grad})"


def _name(role: str, exercise: Exercise, parents: tuple[str, ...]) -> str:
    """An operand as the library's code calls it: x is self (the first parent), y is other; the dot's ws, xs, b."""
    if exercise.attribute == 'dot':
        return {'w': 'a weight in `ws`', 'x': 'an input in `xs`', 'b': 'the bias `b`'}[role[:1]]
    return "`" + {'x': parents[0], 'y': parents[-1]}.get(role, role) + "`"


def behind(gradients: dict[str, float] | None) -> str:
    """The gradients of the leaves behind operands made by an op, as a report shows them: x0.grad = ..."""
    return grads({f"{name}0": g for name, g in (gradients or {}).items()})


def wiring(exercise: Exercise, value_class: Any, own: set[types.CodeType], made: list[Run],
           through: bool = False) -> Result | None:
    """What is wrong with how the op puts its output in the graph, at the line that made (or returned) it, or None.
    own: the op's closures; made: the probes' runs; through: whether the library's gradients must reach the leaves
    behind the operands too."""
    if (kept := _constructor(exercise, value_class)) is not None:
        return kept
    parents = max((b.parents for b in blanks_of(exercise)), key=len, default=('self',))  # (x ** y's: self, other)
    further = None
    op = ops.BY_METHOD.get(exercise.attribute)  # the library's _op: the op table's name; x ** k's '**k', k as written
    for case, run in zip(probes(exercise), made):
        called = {leaf: _name(role, exercise, parents) for leaf, role in (roles_of(case) or {}).items()}  # (its words)
        if not run.built:  # a Value that does not take this input: its cases say so
            continue
        (made_at, returned_at), (_, operands, out) = run.lines, run.graphs[0]
        fields = {'input': wired_text(case), 'place': made_at}
        lost = [leaf for leaf in case.leaves if not reaches(out, [operands[leaf]])]
        closure, held = closure_of(out), {name: closure_of(node) for name, node in operands.items()}
        here, elsewhere = made_by(closure, own), [name for name, fn in held.items() if made_by(fn, own)]
        if through and further is None:  # (the checker's backpropagation: whether x0 behind x gets its gradient)
            right = library_numbers(case)[0].grads
            if run.grads is not None and not same(run.grads, right):  # (an exception: said by the cases)
                further = {'input': fields['input'], 'expected': behind(right), 'obtained': behind(run.grads)}
        if lost:
            prev = list(getattr(out, '_prev', ()) or ())
            said = ' and '.join(dict.fromkeys(called[leaf] for leaf in lost))
            who = {id(node): name for name, node in operands.items()}
            return outcome.wrong(exercise, 'not_in_graph', why=(
                f"your `{exercise.name}` leaves {said} out of the graph: the output's parents (`_prev`) must hold "
                f"every operand, or backward() never reaches what made {said}"),
                expected=f"out._prev holding {', '.join(case.leaves)}", **fields,
                obtained=f"out._prev = ({', '.join(who.get(id(p), type(p).__name__) for p in prev)}"
                         f"{',' if len(prev) == 1 else ''})")
        if not here and (closure is not None or not own):
            continue  # made by other ops (the lecture's x * y**-1): their labels and closures are theirs
        if closure is None and elsewhere:  # attached, but to an operand: `other._backward = _backward`
            holders = ' and '.join(dict.fromkeys(called[leaf] for leaf in elsewhere))
            attached = next((found for method in exercise.methods if (found := line_with(
                value_class, method, re.compile(r'\w+\.(_backward|_grad_fn)\s*=(?!=)')))), fields['place'])
            return outcome.wrong(exercise, 'closure_on_operand', why=(
                f"your `{exercise.name}` attaches its closure to {holders}, not to its output: backward() runs each "
                "node's own closure, so the output passes nothing on"),
                expected="out with its _backward", obtained=f"{holders} with it, out with none",
                **fields | {'place': attached})
        if closure is None:
            return outcome.wrong(exercise, 'closure_not_attached', why=(  # (said so in either convention)
                "`out._backward = _backward` is missing: the closure is never attached, so backward() has nothing "
                "to run for this op"), expected="out with its _backward", obtained="out with none",
                **fields | {'place': returned_at})
        exponent = case.code.split('**')[-1].strip() if exercise.attribute == '__pow__' else ''
        label, named = getattr(out, '_op', None), op.name + ('' if exponent in case.leaves else exponent) if op else ''
        if label is not None and named and label != named:
            return outcome.wrong(exercise, 'op_label', why=(
                f"your `{exercise.name}` labels its output {label!r}, where the library's is {named!r}: `_op` "
                "names the op that made a node, as the drawings show it"),
                expected=f"out._op = {named!r}", obtained=f"out._op = {label!r}", **fields)
    return outcome.wrong(exercise, 'through_ops', **further) if further is not None else None


def made_by(closure: Any, codes: set[types.CodeType]) -> bool:
    """Whether a node's closure (closure_of's) is one of codes, or wraps one (out._backward = f keeps f in a lambda)."""
    inner = [getattr(cell.cell_contents, '__code__', None) for cell in getattr(closure, '__closure__', None) or ()]
    return any(code in codes for code in [getattr(closure, '__code__', None), *inner])


def _constructor(exercise: Exercise, value_class: Any) -> Result | None:
    """Whether Value(data, children, op) keeps its parents in _prev and its op in _op, as every op's output needs."""
    set_input(text := "a, b = Value(1.0), Value(2.0); out = Value(3.0, (a, b), '+')")
    try:
        a, b = value_class(1.0), value_class(2.0)
        out = value_class(3.0, (a, b), '+')
    except Exception:  # noqa: BLE001 -- a Value made otherwise: its ops are checked as they are
        return None
    prev = list(getattr(out, '_prev', ()) or ())
    for key, kept, attribute, said, obtained in (
            ('constructor_prev', any(p is a for p in prev) and any(p is b for p in prev), '_prev',
             "its parents (_children) in `_prev`", f"out._prev = {prev!r}"[:120]),
            ('constructor_op', getattr(out, '_op', '+') == '+', '_op', "the op's name (_op) in `_op`",
             f"out._op = {getattr(out, '_op', None)!r}")):
        if not kept:
            return outcome.wrong(exercise, key, input=text, expected=f"out.{attribute} as given", obtained=obtained,
                                 why=f"`Value(data, children, op)` does not keep {said}: `Value.__init__` must, or "
                                     "no op's output is in the graph as it should be",
                                 place=line_with(value_class, '__init__', f"self.{attribute}"))
    return None
