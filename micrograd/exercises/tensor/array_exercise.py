"""What a record of the tensor track holds: an Exercise, and the Slips it can name; and the sentences that several
records and the grader share."""
from __future__ import annotations

from dataclasses import dataclass

from micrograd.exercises.tensor.cases import Case, Graph

EVERY_OP = (" Hand `_add_grad` each tensor's gradient in that tensor's shape, or in the shape broadcasting stretched "
            "it to: it sums broadcast axes away, and reshapes nothing. Never write into `grad` or into the forward "
            "pass's arrays (another node may hold the same array): make a new one.")

INPLACE_DATA = ("the forward pass's data written in place: your backward changed an array of the graph (the output's "
                "or an input's data, as e or t), which must stay as the forward pass left it: a second backward() and "
                "every other node read it; make a new array")
INPLACE_SAVED = ("an array the forward pass saved written in place: your backward changed an array the forward pass "
                 "computed and left for it, which must stay as it was: a second backward() reads it again; make a new "
                 "array (np.exp(a), not np.exp(a, out=a); g = g - 1, not g -= 1 on it)")
KEEPDIMS = ("keepdims lost: the reduced axis is gone from the gradient, so it cannot broadcast back over the "
            "input (a (4,) gradient for a (4, 3) input summed over axis 1 lines up with the wrong axis); put the "
            "axis back with np.expand_dims(grad, axis) (or reshape) before broadcasting")
OUT_UNDEFINED = ("out is not the output here: each _backward(grad) is handed the output's gradient, so where the "
                 "lecture writes out.grad, write grad (the output's value is the forward pass's own variable: e in "
                 "exp, t in tanh, s in softmax)")
GRAD_NONE = (".grad is None until a gradient arrives (not 0): add to it with tensor._add_grad(g), which starts it, "
             "sums a broadcast gradient back to the tensor's shape, and keeps its dtype")
BATCH_T = ".T on a batch reverses every axis, the batch axis too: transpose the last two with swapaxes(-1, -2)"
INPLACE = ("a gradient array written in place: your backward changed `grad`, the array it was handed, while "
           "another node may still read it (x + y hands the same array to both parents); make a new array "
           "(grad * mask, not grad[mask] = 0; g = g * y, not g *= y)")


@dataclass(frozen=True)
class Slip:
    key: str      # how tests and reports refer to it: 'keepdims_lost'
    blank: str    # the blank it fills
    body: str     # what the learner typed there
    says: str     # the sentence that names it


@dataclass(frozen=True, eq=False)
class Exercise:
    name: str
    title: str
    ask: str        # what to write
    rules: str
    shapes: str
    hint: str
    stronger: str
    formula: str
    # Each body it cuts out, by name: 'unbroadcast' (a function's whole body), 'Tensor.__add__' (the `_backward`
    # closure in that method), 'Tensor.backward()' (a method's whole body), 'cross_entropy' (a function's closure).
    blanks: tuple[str, ...]
    cases: tuple[Case, ...]        # each seeded by its place in exercise_list.py
    slips: tuple[Slip, ...] = ()
    graphs: tuple[Graph, ...] = ()  # backward()'s exercise: graphs whose nodes the checker makes, for backward()
    prompts: tuple[str, ...] = ()   # a line above each blank: what that body does
    kind: str = 'op'     # 'op': cases are graphs; 'function': unbroadcast called directly; 'backward'
    math: str = ''       # the rule in LaTeX, for the notebook (G is the output's gradient)
    number: int = 0      # its place in the list, from 1: given by exercise_list.py, never written by hand

    @property
    def task(self) -> str:
        """What the report and the notebook say before anything else: what to write, its rules, its shapes."""
        return f"{self.ask}\nRules: {self.all_rules}\nChecked on: {self.shapes}"

    @property
    def all_rules(self) -> str:
        """The exercise's rules, and the two every op's backward keeps."""
        return self.rules + (EVERY_OP if self.kind == 'op' else '')
