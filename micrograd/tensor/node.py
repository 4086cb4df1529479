"""A tensor as a node of the graph: what every op of every family builds on.

Tensor (tensor.py) is this Node plus its ops, grouped in families, one module each, as mixins
(tinygrad's way of keeping a large Tensor navigable): the arithmetic and backward() in tensor.py,
then comparisons.py, reductions.py, shapes.py, unary.py, inplace.py, protocols.py. Each op calls
three things defined here: `_lift` (a number or array as an operand), `_result` (the op's output,
joining the graph if a parent needs gradients) and `_add_grad` (a gradient added into .grad, summed
over the axes broadcasting stretched). The op families return `Self`, which is the Tensor they were
called on.

Changes in place (x += 1, x.zero_(): inplace.py) are noted, as PyTorch counts them, by the tensor
that owns the memory changed (a view, such as a reshape, a slice or detach(), names its owner). An
op that joins the graph notes when it ran, and backward() refuses to compute a gradient from values
changed since: those of its inputs (but for the ops in READS_NO_INPUT), and of its output for the
ops in READS_OUTPUT. It also refuses an op whose input was changed while recording, which made that
tensor a new node: the op would pass its gradient into the new history.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from micrograd import engine
from micrograd.tensor.checks import real_array, refuse_value
from micrograd.tensor.dtypes import BOOL, Array, is_number, number_operand
from micrograd.tensor.kernels import unbroadcast

if TYPE_CHECKING:  # (typing_extensions for the type checker only: typing.Self is new in Python 3.11)
    from typing_extensions import Self

ArrayLike = Array | float | int | Sequence[Any]  # what a Tensor can be made from (besides a Tensor)
Backward = Callable[[Array], None]

# What each op's backward reads, as PyTorch saves it for backward: changing it in place before backward() is refused.
# Every op reads its inputs (x * y's slope is y), but for these, which read only shapes, masks or their output:
READS_NO_INPUT = frozenset({'+', '-', 'neg', 'sum', 'mean', 'reshape', 'clone', 'permute', 'swapaxes', 'getitem',
                            'masked_fill', 'astype', 'where', 'copy_', 'fill_', 'zero_', '__setitem__',
                            'exp', 'tanh', 'relu', 'sigmoid', 'softmax', 'log_softmax'})
# and these read their own output (e**x's slope is e**x):
READS_OUTPUT = frozenset({'exp', 'tanh', 'relu', 'sigmoid', 'softmax', 'log_softmax', 'max', 'min'})

# The last change in place of a memory: the clock's tick, how many changes so far, the op that made it, and the
# tick of the last one made while recording (0: none), which made the tensor a new node of the graph.
Change = tuple[int, int, str, int]


class Node:
    """An ndarray, its gradient, and the op and parents that produced it (see Tensor)."""
    __slots__ = ('data', 'grad', 'requires_grad', '_prev', '_op', '_backward', '_base', '_changed', '_inputs',
                 '_ran_at')
    data: Array
    grad: Array | None
    requires_grad: bool
    _prev: tuple[Self, ...]
    _op: str
    _backward: Backward | None
    # Changes in place. The tensor that owns a memory notes the last one; a view (a reshape, a slice, detach())
    # names the owner. An op that joins the graph keeps all its inputs and the clock's tick when it ran.
    _base: Node | None  # for a view, the tensor whose memory it shows; None: its own memory
    _changed: Change | None  # on the owner: the last change in place of its memory (None: never changed)
    _inputs: tuple[Node, ...]  # every input of the op, requiring grad or not (set only if it joined the graph)
    _ran_at: int  # the clock's tick when the op ran (set only if it joined the graph)
    _clock: ClassVar[int] = 0  # ticks once for every change in place, of any tensor

    @classmethod
    def _result(cls, data: Array | np.generic, parents: tuple[Self, ...], op: str, backward: Backward) -> Self:
        """The output of an op. It joins the graph only if a parent needs gradients (and not under no_grad())."""
        out = cls.__new__(cls)  # data is already an ndarray of the right dtype: skip __init__'s checks
        out.data = data if type(data) is np.ndarray else np.asarray(data)  # 0-d results come back as NumPy scalars
        out.grad = None
        tracked = tuple(p for p in parents if p.requires_grad) if engine.is_grad_enabled() else ()
        out.requires_grad = bool(tracked)
        out._prev, out._op, out._backward = tracked, (op if tracked else ''), (backward if tracked else None)
        out._base, out._changed = None, None
        if out.data.base is not None:  # a view (a reshape, a slice): if of a parent's memory, it names its owner
            for p in parents:
                if np.may_share_memory(out.data, p.data):
                    out._base = p if p._base is None else p._base
                    break
        if tracked:  # for backward(), which refuses if one of them was changed in place since
            out._inputs, out._ran_at = parents, Node._clock
        return out

    @classmethod
    def _constant(cls, data: Array) -> Self:
        """A tensor that is data: no gradient, no parents (skips __init__'s checks: data is a real array)."""
        out = cls.__new__(cls)
        out.data, out.grad, out.requires_grad, out._prev, out._op, out._backward = data, None, False, (), '', None
        out._base, out._changed = None, None
        return out

    @property
    def is_leaf(self) -> bool:
        """Whether no recorded op made this tensor (a tensor you made, a parameter, data), as PyTorch's is_leaf.
        A leaf accumulates gradients across backward() calls; a tensor an op made holds the latest call's only."""
        return not self._prev

    def _last_change(self) -> Change | None:
        """The last change in place of this tensor's memory, made through it or any view of it."""
        return (self if self._base is None else self._base)._changed

    def _note_change(self, op: str, recorded: bool = False) -> None:
        """Note a change in place of this tensor's memory, made by op (recorded: while recording, which made the
        tensor a new node), for backward()'s check. inplace.py notes each of its changes; code that writes into
        .data itself, such as an optimizer's step, may note its own."""
        owner = self if self._base is None else self._base
        Node._clock += 1
        count, recorded_at = (0, 0) if owner._changed is None else owner._changed[1::2]
        owner._changed = (Node._clock, count + 1, op, Node._clock if recorded else recorded_at)

    def _check_unchanged(self) -> None:
        """Refuse to run this op's backward if a tensor it reads was changed in place after the op ran: the gradient
        would come from the changed values (PyTorch: "modified by an inplace operation")."""
        if self._ran_at == Node._clock:  # nothing anywhere was changed in place since the op ran
            return
        reads_input = self._op not in READS_NO_INPUT
        for i, tensor in enumerate(self._inputs):
            change = tensor._last_change()
            if change is not None and change[0] > self._ran_at and reads_input:
                self._refuse(f'its input {i + 1}', change)
            if change is not None and change[3] > self._ran_at:
                raise RuntimeError(
                    f"Tensor.backward: '{self._op}' took its input {i + 1}, which was changed in place afterwards "
                    f"while recording (by {change[2]}): that made it a new node of the graph, so '{self._op}' would "
                    f"pass its gradient into the new history (PyTorch keeps the two apart; here a tensor is one "
                    f"node). Change it under no_grad(), or make a new tensor (x = x + y instead of x += y)")
        change = self._last_change()
        if self._op in READS_OUTPUT and change is not None and change[0] > self._ran_at:
            self._refuse('its output', change)

    def _refuse(self, what: str, change: Change) -> None:
        raise RuntimeError(
            f"Tensor.backward: '{self._op}' reads {what} for its gradient, and that tensor was changed in place "
            f"afterwards (by {change[2]}: change {change[1]} of its memory), so the gradient would come from the "
            f"changed values (PyTorch refuses it too: 'modified by an inplace operation'). Change it after "
            f"backward(), or keep a copy first (x.clone())")

    def _lift(self, other: object, op: str) -> Self:
        """A number or an ndarray takes part in an op as a constant tensor.

        An array keeps its dtype. A number takes the dtype the result will have (an int32
        tensor times 2 stays int32, times 2.5 is float64): like PyTorch, a number counts
        only by its kind, whether it is Python's or NumPy's (dtypes.number_operand).
        """
        if isinstance(other, Node):
            return other  # type: ignore[return-value]  # (a Node is always a Tensor)
        if isinstance(other, np.ndarray):
            return self._constant(real_array(other, f"Tensor.{op}"))
        if not is_number(other):
            refuse_value(other, f"Tensor.{op}")  # (a micrograd Value, or a list of them: by name, with a hint)
            raise TypeError(f"unsupported operand for {op}: Tensor and {type(other).__name__} ({other!r})")
        return self._constant(number_operand(self.data, other, op))

    def _add_grad(self, grad: Array, own: bool = False) -> None:
        """self.grad += grad, after summing grad over the axes broadcasting stretched.

        The gradient takes self's dtype (a float32 weight times a float64 input still has
        a float32 gradient). Never writes into an array it may not own: the same one may be
        handed to several tensors. own=True promises that grad is a new array made for self
        alone, as a weight's gradient from matmul is: a leaf may then keep it without a copy,
        and a second gradient is added into it instead of into a new array.
        """
        if type(grad) is not np.ndarray:  # a 0-d result of NumPy arithmetic is a NumPy scalar: an array again
            grad = np.asarray(grad)
        if grad.shape != self.data.shape:
            grad = unbroadcast(grad, self.data.shape)
        dtype = self.data.dtype
        if self.grad is None:
            # A leaf's .grad is the user's to keep (and maybe scale in place): give it its own array.
            self.grad = grad.astype(dtype, copy=False) if self._prev or own else np.array(grad, dtype=dtype)
        elif own and grad.dtype == dtype:  # grad is ours: add into it, one new array fewer
            grad += self.grad
            self.grad = grad
        else:
            total = self.grad + grad.astype(dtype, copy=False)
            self.grad = total if type(total) is np.ndarray else np.asarray(total)  # (0-d + 0-d is a NumPy scalar)


def fill_value(value: object, dtype: np.dtype[Any], op: str) -> Array:
    """A number to write into a tensor of dtype: it must fit (PyTorch truncates 1.5 into an integer tensor)."""
    if isinstance(value, Node):
        if value.requires_grad or value.data.size != 1:
            raise TypeError(f"Tensor.{op}: value must be a number (or a one-element tensor without gradient)")
        value = value.data.reshape(-1)[0]
    if isinstance(value, np.ndarray) and value.ndim == 0:  # a 0-d array is its number, as a 0-d tensor in PyTorch
        value = value.item()
    if not is_number(value):
        refuse_value(value, f"Tensor.{op}")
        raise TypeError(f"Tensor.{op}: value must be a number, got {type(value).__name__}")
    v: Any = value.item() if isinstance(value, np.generic) else value
    if dtype.kind == 'f':
        try:
            number = float(v)
        except OverflowError:  # an int past any float
            raise ValueError(f"Tensor.{op}: {v!r} does not fit in {dtype}") from None
        if math.isfinite(number) and abs(number) > float(np.finfo(dtype).max):
            raise ValueError(f"Tensor.{op}: {v!r} does not fit in {dtype}")
        return np.asarray(number, dtype=dtype)
    if isinstance(v, float) and not v.is_integer():
        raise ValueError(f"Tensor.{op}: {v!r} is not a whole number, so it does not fit in a {dtype} tensor")
    whole = int(v)
    lo, hi = (0, 1) if dtype == BOOL else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    if not lo <= whole <= hi:
        raise ValueError(f"Tensor.{op}: {v!r} does not fit in a {dtype} tensor")
    return np.asarray(whole, dtype=dtype)
