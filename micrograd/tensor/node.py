"""A tensor as a node of the graph: what every op of every family builds on.

Tensor (tensor.py) is this Node plus its ops, grouped in families, one module each, as mixins
(tinygrad's way of keeping a large Tensor navigable): the arithmetic and backward() in tensor.py,
then comparisons.py, reductions.py, shapes.py, unary.py, inplace.py, protocols.py. Each op calls
three things defined here: `_lift` (a number or array as an operand), `_result` (the op's output,
joining the graph if a parent needs gradients) and `_add_grad` (a gradient added into .grad, summed
over the axes broadcasting stretched). The op families return `Self`, which is the Tensor they were
called on.

Changes in place (x += 1, x.zero_(): inplace.py) follow PyTorch's rules, in three parts:

- Versions. A change in place is noted by the tensor that owns the memory changed (a view, such as a
  reshape, a slice or detach(), names its owner), at a tick of one clock. backward() refuses to compute
  a gradient from values changed since the op ran (PyTorch: "modified by an inplace operation").
- What a backward reads, the one rule: every array an op's backward reads is either a tensor's, which
  the op names in `reads=` when it makes its output (`_result`), and backward() checks its version; or
  a copy of the op's own. An op's output is made in one place, `_result`, whose `reads=` has no default:
  no op can leave it out. An ndarray given to an op (an operand, a condition, an index, a target) has no
  version to check (its owner may change it with NumPy), so it is copied when the op records
  (`_lift` and `_kept`).
- Histories. A tensor changed in place while recording becomes the output of that change, a new node;
  the node it was before is kept (`_older`), and an op that took the tensor before the change gets it
  (`_as_of`): its gradient goes into the old history, as PyTorch keeps the versions apart. A view (a
  slice, a reshape: `_view_of`) changed in place while recording changes its base's history too (the
  base becomes its old self with the view's places replaced, PyTorch's CopySlices), and a view whose
  base was so changed follows it the next time it is used (`_follow_base`).

Threads. A graph built and differentiated in one thread sees nothing of another's: what backward() is
reading (`_READING`, the tick of the op whose gradient is being passed on) is a ContextVar, as grad mode
is, so each thread and asyncio task has its own. The one clock is shared, as versions must be (a tensor
may be changed in one thread and read in another): it ticks under a lock (`_tick`), and only ever
forward, so another thread's ticks can cost a check, never skip one. A gradient is added into a .grad under a
lock too: threads differentiating graphs that share a parameter each add theirs, as PyTorch's do.
"""
from __future__ import annotations

import contextvars
import math
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from micrograd import engine
from micrograd.tensor.checks import real_array, refuse_value
from micrograd.tensor.dtypes import BOOL, Array, is_number, number_operand
from micrograd.tensor.kernels import unbroadcast, view_positions

if TYPE_CHECKING:  # (typing_extensions for the type checker only: typing.Self is new in Python 3.11)
    from typing_extensions import Self

ArrayLike = Array | float | int | Sequence[Any]  # what a Tensor can be made from (besides a Tensor)
Backward = Callable[[Array], None]

# In an op's reads=: its backward reads its own output (e**x's slope is e**x).
OUTPUT = 'output'
# What an op's backward reads, for each of its parents in turn: what the gradient of that parent needs (x * y:
# x's gradient reads y, y's reads x, so reads=((y,), (x,))). Only what the parents that need gradients need
# is checked, as PyTorch saves only that. () for an op whose backward reads nothing of its tensors (x + y).
Reads = tuple[tuple['Node | str', ...], ...]

# The last change in place of a memory: the clock's tick, how many changes so far, and the op that made it.
Change = tuple[int, int, str]

# While backward() runs the backward of an op that took a tensor since changed in place while recording, the
# tick when that op ran (its gradient goes to the tensor as it was then); otherwise sys.maxsize. Per thread
# and asyncio task: another thread's backward must not route this one's gradients.
_READING: contextvars.ContextVar[int] = contextvars.ContextVar('reading', default=sys.maxsize)
_CLOCK_LOCK = threading.Lock()  # the clock's tick and its record of the last change while recording
_GRAD_LOCK = threading.Lock()  # a gradient added into a .grad: read, add, write back, one thread at a time


class Node:
    """An ndarray, its gradient, and the op and parents that produced it (see Tensor)."""
    __slots__ = ('data', '_grad', 'requires_grad', '_prev', '_op', '_backward', '_base', '_changed', '_inputs',
                 '_reads', '_ran_at', '_view_of', '_older', '_rebased_at', '_stale', '_by_op')
    data: Array
    _grad: Array | None  # .grad (see grad)
    requires_grad: bool
    _prev: tuple[Self, ...]
    _op: str
    _backward: Backward | None
    # Whether an op made it, recorded or not: an output made under no_grad() is a leaf, but no parameter
    # (a Module does not save one it keeps, as PyTorch saves registered parameters and buffers only).
    _by_op: bool
    # Versions (see the module's docstring). The tensor that owns a memory notes its last change in place;
    # a view (a reshape, a slice, detach()) names the owner. An op notes when it ran and what it reads.
    _base: Node | None  # for a view, the tensor whose memory it shows; None: its own memory
    _changed: Change | None  # on the owner: the last change in place of its memory (None: never changed)
    _inputs: tuple[Node, ...]  # every input of the op, requiring grad or not (for _reads)
    _reads: Reads  # what the backward reads, for each input's gradient: the op's reads= (see _read)
    _ran_at: int  # the clock's tick when the op that made it ran (0 for a leaf)
    _stale: Change | None  # for an old node (_older) whose backward read its output: the change that hit it
    # Histories: what an op that took this tensor earlier sees, if it was changed in place while recording since.
    _view_of: Node | None  # for a view an op made (a slice, a reshape), the tensor it shows: its history's base
    _older: Self | None  # the node this tensor was before its last change in place while recording
    _rebased_at: int  # the tick of that change (0: none)
    # The clock and its last change while recording are shared by every thread; they change only in _tick.
    _clock: ClassVar[int] = 0  # ticks once for every change in place, of any tensor
    _last_rebase: ClassVar[int] = 0  # the tick of the last change in place while recording, of any tensor

    def _fields(self, data: Array, by_op: bool = False) -> None:
        """The fields of a tensor with no history yet: data, no gradient, its own memory (by_op: an op made it)."""
        self.data, self._grad, self.requires_grad, self._by_op = data, None, False, by_op
        self._prev, self._op, self._backward = (), '', None
        self._base, self._changed, self._inputs, self._reads, self._ran_at = None, None, (), (), 0
        self._stale, self._view_of, self._older, self._rebased_at = None, None, None, 0

    @property
    def grad(self) -> Array | None:
        """The gradient: None until backward() reaches this tensor, then an ndarray of its shape and dtype (yours to
        change in place: x.grad *= 0.5). Set by hand (x.grad = g), it is kept as an ndarray too (as_grad)."""
        return self._grad

    @grad.setter
    def grad(self, value: object) -> None:
        self._grad = None if value is None else as_grad(value, self.data)

    @classmethod
    def _result(cls, data: Array | np.generic, parents: tuple[Self, ...], op: str, backward: Backward, *,
                reads: Reads) -> Self:
        """The output of an op. It joins the graph only if a parent needs gradients (and not under no_grad()).
        reads= says which tensors its backward reads, for each parent's gradient (see Reads): no default, so
        that no op can leave it out."""
        recording = engine.is_grad_enabled()
        if recording and Node._last_rebase:
            for p in parents:  # a view whose base was changed in place while recording: first its new history
                if p._view_of is not None and p._view_of._rebased_at > p._ran_at:
                    p._follow_base()
        out = cls.__new__(cls)  # data is already an ndarray of the right dtype: skip __init__'s checks
        out._fields(data if type(data) is np.ndarray else np.asarray(data), True)  # (0-d results: NumPy scalars)
        tracked = tuple(p for p in parents if p.requires_grad) if recording else ()
        if out.data.base is not None:  # a view (a reshape, a slice): if of a parent's memory, it names its owner
            for p in parents:
                if np.may_share_memory(out.data, p.data):
                    out._base = p if p._base is None else p._base
                    out._view_of = p if p._view_of is None else p._view_of
                    break
        out._ran_at = Node._clock
        if tracked:
            out.requires_grad, out._prev, out._op, out._backward = True, tracked, op, backward
            out._inputs, out._reads = parents, reads  # (what is read is worked out if backward() must check it)
        return out

    @classmethod
    def _constant(cls, data: Array) -> Self:
        """A tensor that is data: no gradient, no parents (skips __init__'s checks: data is a real array)."""
        out = cls.__new__(cls)
        out._fields(data)
        return out

    @property
    def is_leaf(self) -> bool:
        """Whether no recorded op made this tensor (a tensor you made, a parameter, data), as PyTorch's is_leaf.
        A leaf accumulates gradients across backward() calls; a tensor an op made holds the latest call's only."""
        return not self._prev

    def _kept(self, array: Array) -> Array:
        """An ndarray given to an op that joins the graph with self, as its backward may read it: a copy, as its
        owner may change it with NumPy, which no version counts. (A tensor's array is checked instead.)"""
        return array.copy() if self.requires_grad and engine.is_grad_enabled() else array

    def _check_grad(self) -> None:
        """Refuse a .grad set by hand of another shape than this tensor's: backward() would broadcast its gradient
        into it (x.grad = np.array([1.]) would add 1 to every element). PyTorch refuses it when it is assigned;
        here backward() refuses it before any gradient changes."""
        assert self._grad is not None  # (called where there is one)
        shape = self._grad.shape
        if shape != self.data.shape:
            what = f"made by '{self._op}'" if self._prev else 'a leaf'
            raise RuntimeError(
                f"Tensor.backward: the .grad of a tensor of shape {self.data.shape} ({what}) has shape {shape}, and "
                f"backward() would add a gradient of shape {self.data.shape} into it (PyTorch refuses to assign it: "
                f"'attempting to assign a gradient of size ... to a tensor of size ...'). Set .grad to None (or "
                f"zero_grad()) or to an array of shape {self.data.shape}")

    # --- versions: what backward() refuses ---

    def _last_change(self) -> Change | None:
        """The last change in place of this tensor's memory, made through it or any view of it."""
        return (self if self._base is None else self._base)._changed

    def _note_change(self, op: str) -> int:
        """Note a change in place of this tensor's memory, made by op, for backward()'s check, and return its tick.
        inplace.py notes each of its changes; code that writes into .data itself, such as an optimizer's step,
        notes its own."""
        owner = self if self._base is None else self._base
        with _CLOCK_LOCK:  # (the count too: two threads changing one memory each add theirs)
            tick = Node._clock = Node._clock + 1
            owner._changed = (tick, 1 if owner._changed is None else owner._changed[1] + 1, op)
        return tick

    @staticmethod
    def _tick() -> int:
        """The clock's next tick, taken under its lock: no two threads get the same one."""
        with _CLOCK_LOCK:
            Node._clock += 1
            return Node._clock

    def _check_unchanged(self) -> None:
        """Refuse to run this op's backward if an array it reads was changed in place after the op ran: the gradient
        would come from the changed values (PyTorch: "modified by an inplace operation")."""
        if self._stale is not None:
            self._refuse('its output', self._stale)
        if self._ran_at == Node._clock:  # nothing anywhere was changed in place since the op ran
            return
        for tensor in self._read():
            change = (self if tensor is OUTPUT else tensor)._last_change()  # type: ignore[union-attr]
            if change is not None and change[0] > self._ran_at:
                where = [i for i, p in enumerate(self._inputs) if p is tensor]
                what = 'its output' if tensor is OUTPUT else f'its input {where[0] + 1}' if where else \
                    'a tensor it does not differentiate (a condition, an index, a mask, a target)'
                self._refuse(what, change)

    def _read(self) -> list[Node | str]:
        """What the backward reads: for each input that needs a gradient, what its reads= names."""
        return [r for p, needs in zip(self._inputs, self._reads) if p.requires_grad for r in needs]

    def _refuse(self, what: str, change: Change) -> None:
        raise RuntimeError(
            f"Tensor.backward: '{self._op}' reads {what} for its gradient, and that tensor was changed in place "
            f"afterwards (by {change[2]}: change {change[1]} of its memory), so the gradient would come from the "
            f"changed values (PyTorch refuses it too: 'modified by an inplace operation'). Change it after "
            f"backward(), or keep a copy first (x.clone())")

    # --- histories: a tensor changed in place while recording, and the ops that took it before ---

    def _as_of(self, tick: int) -> Self:
        """The node this tensor was at tick: itself, or the one it was before a change in place while recording."""
        node = self
        while node._rebased_at > tick:
            assert node._older is not None
            node = node._older
        return node

    def _parents(self) -> tuple[Self, ...]:
        """The tensors this op took, each as it was when the op ran."""
        if self._ran_at >= Node._last_rebase or all(p._rebased_at <= self._ran_at for p in self._prev):
            return self._prev
        return tuple(p._as_of(self._ran_at) for p in self._prev)

    def _keep_versions_apart(self) -> bool:
        """If a tensor this op took was changed in place while recording since, point the op at the node the tensor
        was then: its parents, and its backward, whose gradient for that tensor _add_grad passes on to that node
        (the closure holds the tensor, so the tick when the op ran tells which node it meant). backward()'s sort
        calls it on every op, before any backward runs; it changes nothing the second time. Returns whether it
        changed the op."""
        parents = self._parents()
        if parents is self._prev:
            return False
        backward, tick = self._backward, self._ran_at
        assert backward is not None

        def routed(grad: Array) -> None:
            token = _READING.set(tick)
            try:
                backward(grad)
            finally:
                _READING.reset(token)
        self._prev, self._backward = parents, routed  # type: ignore[assignment]  # (the same class of node)
        return True

    def _snapshot(self, data: Array) -> Self:
        """A new node holding this tensor's history as it is now, with data as its values: what the tensor was,
        for the ops that took it before the change in place about to be made."""
        old = self._constant(data)
        old.requires_grad, old._prev, old._op, old._backward = self.requires_grad, self._prev, self._op, self._backward
        old._inputs, old._reads, old._ran_at, old._stale = self._inputs, self._reads, self._ran_at, self._stale
        old._older, old._rebased_at = self._older, self._rebased_at
        return old

    def _become(self, node: Self, older: Self, tick: int) -> None:
        """This tensor is now node's output (its history, not its data); older is what it was before, until tick.
        Called after the change is noted: if the old backward read this memory, it is refused if backward()
        reaches it."""
        if any(r is OUTPUT for r in self._read()):
            older._stale = self._last_change()
        self.requires_grad, self._prev, self._op, self._backward = (
            node.requires_grad, node._prev, node._op, node._backward)
        # (node's output is its own array, copied into self's memory: what node reads of it is no memory of self's)
        reads = tuple(tuple(r for r in needs if r is not OUTPUT) for needs in node._reads)
        self._inputs, self._reads, self._ran_at, self._stale = node._inputs, reads, node._ran_at, None
        self._older, self._rebased_at = older, tick
        with _CLOCK_LOCK:  # (only ever forward: a tick noted after a later one's must not hide that one)
            Node._last_rebase = max(Node._last_rebase, tick)
        self._keep_versions_apart()  # (x += x: the op took x as it was before)

    def _follow_base(self) -> None:
        """This view's base was changed in place while recording since the view was made: the view's numbers are
        the base's new ones at the same places, and so is its history from now on (as PyTorch regenerates a
        view's grad_fn). Ops that took the view before keep its old history."""
        base = self._view_of
        assert base is not None
        at = view_positions(self.data, base.data)
        older = self._snapshot(self.data)
        tick = self._tick()

        def _backward(grad: Array) -> None:  # the view's numbers are the base's at those places: d view/d base = 1
            full = np.zeros(base.data.shape, dtype=grad.dtype)
            np.put(full, at, grad)
            base._add_grad(full, own=True)
        node = self._result(self.data, (base,), 'view', _backward, reads=())
        self._become(node, older, tick)
        self._ran_at = tick

    def _lift(self, other: object, op: str) -> Self:
        """A number or an ndarray takes part in an op as a constant tensor.

        An array keeps its dtype. A number takes the dtype the result will have (an int32
        tensor times 2 stays int32, times 2.5 is float64): like PyTorch, a number counts
        only by its kind, whether it is Python's or NumPy's (dtypes.number_operand).
        """
        if isinstance(other, Node):
            return other  # type: ignore[return-value]  # (a Node is always a Tensor)
        if isinstance(other, np.ndarray):
            array = real_array(other, f"Tensor.{op}")
            return self._constant(self._kept(array) if np.may_share_memory(array, other) else array)
        if not is_number(other):
            refuse_value(other, f"Tensor.{op}")  # (a micrograd Value, or a list of them: by name, with a hint)
            raise TypeError(f"unsupported operand for {op}: Tensor and {type(other).__name__} ({other!r})")
        return self._constant(number_operand(self.data, other, op))

    def _add_grad(self, grad: Array, own: bool = False) -> None:
        """self.grad += grad, after summing grad over the axes broadcasting stretched.

        The gradient takes self's dtype (a float32 weight times a float64 input still has
        a float32 gradient). A leaf's .grad is added into in place, as PyTorch's (g = x.grad,
        or a g set by hand as x.grad, follows); otherwise it never writes into an array it may
        not own: the same one may be handed to several tensors. own=True promises that grad is a new array made for self
        alone, as a weight's gradient from matmul is: a leaf may then keep it without a copy,
        and a second gradient is added into it instead of into a new array.
        """
        if self._rebased_at and self._rebased_at > (reading := _READING.get()):  # a gradient for what this tensor
            self._as_of(reading)._add_grad(grad, own)  # was before a change in place while recording
            return
        if type(grad) is not np.ndarray:  # a 0-d result of NumPy arithmetic is a NumPy scalar: an array again
            grad = np.asarray(grad)
        if grad.shape != self.data.shape:
            grad = unbroadcast(grad, self.data.shape)
        dtype = self.data.dtype
        with _GRAD_LOCK:  # (a parameter shared by graphs that threads differentiate at once gets every gradient)
            if self._grad is None:
                # A leaf's .grad is the user's to keep (and maybe scale in place): give it its own array.
                self._grad = grad.astype(dtype, copy=False) if self._prev or own else np.array(grad, dtype=dtype)
            elif not self._prev and self._grad.dtype == dtype:  # a leaf's .grad (its own, or the array or tensor set
                np.add(self._grad, grad.astype(dtype, copy=False), out=self._grad)  # by hand): added into, as PyTorch
            elif own and grad.dtype == dtype:  # grad is ours: add into it, one new array fewer
                grad += self._grad
                self._grad = grad
            else:  # (0-d + 0-d is a NumPy scalar; a .grad set by hand may have another dtype: the sum takes self's)
                total = self._grad + grad.astype(dtype, copy=False)
                self._grad = total if type(total) is np.ndarray and total.dtype == dtype else np.asarray(total, dtype)


def as_grad(value: object, data: Array) -> Array:
    """A gradient set by hand (x.grad = g) as this engine keeps one: an ndarray, which an optimizer's step and the
    user's x.grad *= 0.5 change in place. A tensor gives its array (shared, as PyTorch's x.grad = g is g) and an
    array of floats is kept as it is (a read-only one copied), its dtype too, as an array operand keeps its dtype
    (backward() adds into it, and a step reads it, in the tensor's dtype); numbers, lists and integers become an
    array of the tensor's dtype. Bools and what is no numbers are refused. Another shape is kept: backward() and
    an optimizer's step refuse it, naming the tensor (broadcast into the tensor's, it would be wrong)."""
    given = value.data if isinstance(value, Node) else value
    if not (isinstance(given, (np.ndarray, list, tuple)) or is_number(given)):
        refuse_value(given, 'Tensor.grad')
        raise TypeError(f"Tensor.grad: a gradient is an array, a Tensor, numbers or None, got "
                        f"{type(value).__name__}")
    array = real_array(given, 'Tensor.grad')
    if array.dtype == BOOL and data.dtype != BOOL:
        raise TypeError(f"Tensor.grad: a gradient is numbers, got bools for a {data.dtype} tensor")
    if data.dtype.kind == 'f' and (array.dtype.kind != 'f' or not isinstance(given, np.ndarray)):
        return array.astype(data.dtype, copy=False)  # (numbers, lists: an array of their own; integers: a copy)
    return array if array.flags.writeable else array.copy()


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
