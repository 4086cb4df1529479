"""The whole engine, once each of its exercises is right: every op the Value defines, given or written, on a table
of forms through its own backward(), named if it differs by the form it gives (`2 - x` as `x - 2`), at its line."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from micrograd import ops
from micrograd.exercises.lines import place_of, run_traced, where
from micrograd.exercises.numbers import close, grads, number, same
from micrograd.exercises.result import DONE, WRONG, Result
from micrograd.exercises.sandbox import paused, set_input
from micrograd.exercises.scalar.drive import Run, library_numbers, run_case, wrong_leaves
from micrograd.exercises.scalar.exercises import Case
from micrograd.exercises.scalar.places import alias_line, closures, output_lines, wrong_line

# Python's operator protocol: an op's symbol, the method x <op> other calls, and the one k <op> x calls.
PROTOCOL = (('+', '__add__', '__radd__'), ('-', '__sub__', '__rsub__'), ('*', '__mul__', '__rmul__'),
            ('/', '__truediv__', '__rtruediv__'), ('**', '__pow__', '__rpow__'))
LEAVES = {'x': 1.5, 'y': -0.75}  # in every op's domain; y negative, so a sign dropped shows
NUMBERS = (2, 0.5)               # the int and the float operand


@dataclass(frozen=True)
class Form:
    code: str      # as the learner writes it: 'x - y', '2 - x', 'x.tanh()'
    method: str    # the method of Value Python calls for it ('' for x itself, a form only to name others by)

    @property
    def leaves(self) -> list[str]:
        return [name for name in LEAVES if re.search(rf'\b{name}\b', self.code)]

    @property
    def case(self) -> Case:
        return Case({name: LEAVES[name] for name in self.leaves}, f"out = {self.code}")

    def text(self) -> str:
        return f"{self.case.text()}; out.backward()"

    def run(self, value_class: Any) -> Run:
        """The form run with value_class, through the learner's own backward()."""
        return run_case(self.case, value_class, lambda out, grad: out.backward())


def forms() -> list[Form]:
    """The table: -x, each op of the protocol with y, with x, with a number on either side, then ops.py's others."""
    table = [Form('-x', '__neg__')]
    for symbol, method, reflected in PROTOCOL:
        table += [Form(f"x {symbol} y", method), Form(f"x {symbol} x", method)]
        table += [f for k in NUMBERS for f in (Form(f"x {symbol} {k!r}", method), Form(f"{k!r} {symbol} x", reflected))]
    protocol = {method for _, method, _ in PROTOCOL}
    named = {1: "x.{}()", 2: "x.{}(y)", 0: "Value.{}([x, y], [y, x])"}  # by how many parents (0: any number)
    return table + [Form(named[op.parents].format(op.method), op.method) for op in ops.OPS if op.method not in protocol]


def _shown(r: Run) -> str:
    return f"out.data = {number(r.data)}, {grads(r.grads)}"


def _like(form: Form, mine: Run, table: list[Form]) -> str:
    """The form whose numbers the learner's gives, the nearest in leaves and in what is written: `x - 2` for a
    `2 - x` with its operands swapped, the gradients of `x + y` for an `x - y` with a sign lost."""
    value = not close(mine.data, library_numbers(form.case)[0].data)

    def gives(other: Form) -> bool:
        theirs = library_numbers(other.case)[0]
        return close(mine.data, theirs.data) if value else same(mine.grads, theirs.grads)
    words = set(form.code.split())
    like = sorted((f for f in [Form('x', ''), *table] if f.code != form.code and gives(f)),
                  key=lambda f: (f.leaves != form.leaves, -len(words & set(f.code.split())),
                                 f.code.split()[0] != form.code.split()[0]))  # then the operands' order kept
    if value:
        return (f"`{form.code}` gives the value of `{like[0].code}`" if like
                else f"`{form.code}` gives a value the library's does not")
    said = f"the gradients of `{like[0].code}`" if like else "other gradients"
    return f"`{form.code}` gives the right value, but {said}"


def _place(value_class: Any, form: Form, mine: Run) -> str:
    """The learner's line: an alias (`__rmul__ = __add__`), the line giving a wrong gradient, or the return that ran."""
    if mine.error is not None:
        return place_of(mine.error)
    bad = wrong_leaves(form.case, mine.grads)
    line = alias_line(value_class, form.method)
    if not line and bad and close(mine.data, library_numbers(form.case)[0].data):
        events = run_traced(closures(value_class, (form.method,)), lambda: form.run(value_class))
        line = wrong_line((form.method,), events, form.run, LEAVES[bad[0]])
    return line or output_lines(value_class, (form.method,), lambda: form.run(value_class))[1]


def check_engine(value_class: Any, strict: bool) -> Result:
    """The whole engine's verdict: done, or the first form that differs, named, at its line."""
    table = [f for f in forms() if hasattr(value_class, f.method)]
    differing: list[tuple[Form, Run]] = []
    for form in table:
        set_input(form.text())
        mine = form.run(value_class)
        with paused():  # the checker's own work: not the learner's time
            if not strict and mine.error is not None:
                continue  # a lecture's Value without this form (x ** y of two Values)
            want = library_numbers(form.case)[0]
            if mine.error is not None or not close(mine.data, want.data) or wrong_leaves(form.case, mine.grads):
                differing.append((form, mine))
    if not differing:
        return Result(number=0, name='engine', status=DONE)
    form, mine = differing[0]
    with paused():  # (the line that ran: the learner's code run again, traced, for the checker)
        want = library_numbers(form.case)[0]
        if mine.error is not None:
            diagnosis, said, obtained = 'raises', f"`{form.code}` raises {where(mine.error)}", type(mine.error).__name__
        else:
            diagnosis = 'engine_grad' if close(mine.data, want.data) else 'engine_value'
            said, obtained = _like(form, mine, table), _shown(mine)
        return Result(number=0, name='engine', status=WRONG, input=form.text(), expected=_shown(want),
                      obtained=obtained, diagnosis=diagnosis, why=said, place=_place(value_class, form, mine),
                      also='\n'.join(f.text() for f, _ in differing[1:]))
