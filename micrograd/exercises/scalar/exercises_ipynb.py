"""exercises.ipynb, made from the library's source like the workspace: one cell per exercise holding the methods
it blanks, each put on the notebook's Value (or Neuron) when the cell runs, and a check after it."""
from __future__ import annotations

import ast
import importlib
import textwrap
from typing import Any

from micrograd.exercises.cutting import dedented, library_source, named
from micrograd.exercises.notebook import free_names, markdown, notebook
from micrograd.exercises.scalar.blanks import CLASSES, blank_engine, blank_nn, blanked
from micrograd.exercises.scalar.exercises import EXERCISES, LEVELS, Exercise

INTRO = """\
# Learn backpropagation by writing it

Each code cell below holds methods of micrograd's `Value`, copied from `micrograd/engine.py`, with the
body of each `_backward` cut out: the formula is in the comment above the blank, the closure's signature
is there, and the body is `raise NotImplementedError(...)`. Write the body, run the cell (it puts the
method on `Value`), then run the check under it. The check compares your gradients with the library's
engine and with central differences, and when one is wrong it says on which input, what it expected,
what it got, and which classic mistake gives your numbers.

Order: {order}.
Stuck? `check(Value, Neuron, hint=True)` gives a stronger hint and the formula. The library is the answer:
`python -m micrograd.exercises solution tanh` prints its `tanh`.

{levels}

The same exercises as files, for your editor: `python -m micrograd.exercises start` (or `make exercises`),
then `python -m micrograd.exercises check`."""

SETUP_NOTE = """\
Run this first. It makes a fresh copy of micrograd's engine in which every exercise is blank (the
forward passes all work, so graphs can be built from the start), and the helper functions the ops call."""

FINALE = """\
## Done?

With every exercise written, this is the lecture's first example on your own engine. Next, the same engine
over arrays, where the new difficulty is shapes: `python -m micrograd.exercises start --track tensor`
(or `make exercises TRACK=tensor`)."""

FINALE_CODE = """\
a, b, c = Value(2.0), Value(-3.0), Value(10.0)
f = (a * b + c).relu() ** 2
f.backward()
print(f"df/da = {a.grad}, df/db = {b.grad}, df/dc = {c.grad}")  # -24.0 16.0 8.0"""

def exercise_cells(which: str, blank: bool = True) -> list[tuple[Exercise, str]]:
    """(exercise, the code of its cell) for engine.py's or nn.py's exercises (blank=False: the library's)."""
    text = blanked(which) if blank else library_source(f'micrograd.{which}')[0]
    class_name = CLASSES[which]
    lines, cls = text.splitlines(), named(ast.parse(text), class_name)
    library = vars(getattr(importlib.import_module(f'micrograd.{which}'), class_name))  # its names, in order
    cells = []
    for exercise in (e for e in EXERCISES if e.source == which):
        methods = [named(cls, name) for name in exercise.methods]
        attach = [' = '.join(f"{class_name}.{n}" for n in library if library[n] is library[m.name])  # __radd__ too
                  + f" = {m.name}" for m in methods]
        cells.append((exercise, '\n\n'.join(dedented(lines, m) for m in methods) + '\n\n' + '\n'.join(attach)))
    return cells


def _setup() -> str:
    lines = ["from micrograd.exercises import blank_engine, blank_nn, check", "",
             "engine = blank_engine()  # micrograd/engine.py, every exercise blank: your Value",
             "nn = blank_nn(engine)    # micrograd/nn.py on that Value: your Neuron",
             "Value, Neuron = engine.Value, nn.Neuron"]
    taken, engine = {'Value', 'Neuron'}, blank_engine()
    for module, says, names in (('engine', 'ops call', vars(engine)), ('nn', 'neuron calls', vars(blank_nn(engine)))):
        used = sorted({n for blank in (True, False) for _, code in exercise_cells(module, blank)  # blanks and answers
                       for n in free_names(code, set(names) - taken)})
        taken |= set(used)
        if used:
            values = ', '.join(f'{module}.{n}' for n in used)
            lines += [f"# what the {says}, from the same {module}", f"{', '.join(used)} = (",
                      textwrap.fill(values, 96, initial_indent='    ', subsequent_indent='    ') + ')']
    return '\n'.join(lines)


def _about(exercise: Exercise) -> str:
    rules = ''.join(f"{n}. {markdown(text)}\n" for n, (_, text) in enumerate(exercise.rules, 1))
    if rules:
        rules = ("Once your gradients are right, the library asks for more; each is checked, and named if "
                 f"missing:\n\n{rules}\n")
    return (f"## Exercise {exercise.number}: {markdown(exercise.title)}\n\n{markdown(exercise.what)}\n\n{rules}"
            f"{markdown(exercise.hint)}\n\n(From `micrograd/{exercise.source}.py`; the library's answer: "
            f"`python -m micrograd.exercises solution {exercise.name}`.)")


def build_notebook(blank: bool = True) -> Any:
    """The notebook, as an nbformat node without outputs; blank=False: the library's own bodies (a test runs it)."""
    order = ', '.join(f"`{e.name}`" for e in EXERCISES)  # as the list has them
    return notebook([INTRO.replace('{order}', order).replace('{levels}', LEVELS), SETUP_NOTE], _setup(),
                    [(_about(e), code) for e, code in exercise_cells('engine', blank) + exercise_cells('nn', blank)],
                    "check(Value, Neuron)", FINALE, FINALE_CODE)
