"""exercises_tensor.ipynb, made from the records and the library's source like the workspace: per exercise, its
task, rules, shapes, hint and formula, a cell with what it blanks (put on the engine as it runs), and a check.
"""
from __future__ import annotations

import builtins
from typing import Any

from micrograd.exercises.notebook import markdown, notebook
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.my_tensor_file import definitions, library_bodies, library_module

INTRO = """\
# Build the tensor engine yourself: backpropagation over arrays

The second track of micrograd's exercises, after the scalar one (`exercises.ipynb`). Each code cell below holds
methods of `micrograd.tensor`'s Tensor (or one of its functions), copied from the library, with the body of each
`_backward` cut out. Write the body, run the cell (it puts the method on the engine), then run the check under
it. The check compares your gradients with the library's, with central differences and, where it is installed,
with PyTorch, on shapes chosen to expose a slip: operands that broadcast, 0-d and empty tensors, non-square and
square matrices, float32, random upstream gradients. When one is wrong it says on which input, what it expected,
what it got, and which slip gives your numbers ("keepdims lost", "ties each given the full gradient", ...).

A `_backward(grad)` is handed the output's gradient `grad`, an array of the output's shape, and passes it on with
`parent._add_grad(...)`, which sums it back to the parent's shape (your `unbroadcast`) and adds it to `parent.grad`; it
never writes into `grad`, which another node may hold too. In the formulas, $G$ is that upstream gradient and
$\\bar x$ the gradient of the loss with respect to $x$.

Stuck? `check(my_tensor, hint=True)` gives a stronger hint and the formula in words. The library is the answer:
`python -m micrograd.exercises solution --track tensor softmax` prints its softmax. The same exercises as a file,
for your editor: `python -m micrograd.exercises start --track tensor DIR` (or `make exercises TRACK=tensor`)."""

SETUP_NOTE = """\
Run this first. It makes a fresh copy of micrograd's tensor engine in which every exercise is blank (the
forward passes all work), and brings in the names the cells below use."""

SETUP = """\
from __future__ import annotations  # (the annotations in the cells below stay text, as in the library)

import numpy as np

from micrograd.exercises.tensor import blank_tensor, check

my_tensor = blank_tensor()  # micrograd.tensor in one module, every exercise blank: your engine
# The cells below are copied from that module: they read its names (Tensor, unbroadcast, wide, ...)
globals().update((name, value) for name, value in vars(my_tensor).items() if not name.startswith('__'))"""

FINALE = """\
## Done?

With every exercise written, a two-layer network and its loss on your own engine, against the library's."""

FINALE_CODE = """\
import micrograd.tensor as mt

rng = np.random.default_rng(0)
x, W1, W2 = rng.normal(size=(8, 5)), rng.normal(size=(5, 16)), rng.normal(size=(16, 3))
y = np.array([0, 2, 1, 1, 0, 2, 2, 1])
for T, ce in ((Tensor, cross_entropy), (mt.Tensor, mt.cross_entropy)):
    w1, w2 = T(W1, requires_grad=True), T(W2, requires_grad=True)
    loss = ce((T(x) @ w1).relu() @ w2, y)
    loss.backward()
    print(f"loss {loss.item():.6f}   |dW1| {np.abs(w1.grad).sum():.6f}   |dW2| {np.abs(w2.grad).sum():.6f}")"""


def exercise_cells(blank: bool = True) -> list[tuple[Exercise, str]]:
    """(exercise, its cell): the functions and methods it blanks (blank=False: written), then lines putting them on."""
    cells = []
    for exercise, texts in definitions(None if blank else library_bodies()):
        attach = []
        for owner, _ in texts:
            name = owner.split('.')[-1]
            attach.append(f"my_tensor.{owner} = {name}")  # (owner: 'Unary.exp', or 'cross_entropy')
            if '.' in owner and name in vars(library_module()):  # (the method hid a function of the same name)
                attach.append(f"{name} = my_tensor.{name}  # the name is the engine's function again")
            elif hasattr(builtins, name):  # (def sum hid Python's own sum)
                attach.append(f"del {name}  # the name is Python's own {name} again")
        cells.append((exercise, '\n\n'.join(text for _, text in texts) + '\n\n' + '\n'.join(attach)))
    return cells


def _about(exercise: Exercise) -> str:
    return (f"## Exercise {exercise.number}: {markdown(exercise.title)}\n\n{markdown(exercise.ask)}\n\n"
            f"**Rules.** {markdown(exercise.all_rules)}\n\n**Checked on:** {markdown(exercise.shapes)}\n\n"
            f"$$ {exercise.math} $$\n\n**Hint.** {markdown(exercise.hint)}\n\n"
            f"(The library's answer: `python -m micrograd.exercises solution --track tensor {exercise.number}`.)")


def build_notebook(blank: bool = True) -> Any:
    """The notebook as an nbformat node, without outputs; blank=False: the library's bodies (for a test to run)."""
    return notebook([INTRO, SETUP_NOTE], SETUP, [(_about(e), cell) for e, cell in exercise_cells(blank)],
                    "check(my_tensor)", FINALE, FINALE_CODE)
