"""Tensor's changes in place, as PyTorch's: x += y (x.add_(y) and the other arithmetic in tensor.py), x.zero_(),
x.fill_(v), x.copy_(y), x[i] = v. The rules are PyTorch's, in `_in_place`:

- A leaf that requires grad (a parameter) changes in place only under no_grad(), the optimizer's step:
  `with no_grad(): p -= lr * p.grad`. Outside it, the change is refused: its gradient would no longer
  match its values (PyTorch: "a leaf Variable that requires grad is being used in an in-place operation").
- The result keeps the tensor's shape, and its dtype must fit (int += 1.5 is refused; copy_ and [] =
  convert anything, as in PyTorch).
- Recording (outside no_grad(), when the tensor or the other operand requires grad), the tensor
  becomes the op's output: its old values and history move to a new node, the op's parent, which the
  ops that took the tensor before keep (x += x; s = x.sum(); x += 1). A view (t[1:], t.reshape(...))
  changed so changes its base's history too: the base's old self with the view's places replaced.
- Each change is noted by the tensor that owns the memory (node.py): an op recorded earlier whose
  gradient reads the tensor makes backward() refuse, rather than compute it from the changed values.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from micrograd import engine
from micrograd.tensor.dtypes import Array, can_write
from micrograd.tensor.kernels import select, view_positions
from micrograd.tensor.node import Node, fill_value
from micrograd.tensor.shapes import index_tensors, plain_index

if TYPE_CHECKING:
    from typing_extensions import Self


def _as_called(message: str, op: str) -> str:
    """An error of the op doing the work ('Tensor.+: ...', 'unsupported operand for +: ...'), under the name
    the user called (+=)."""
    head, _, rest = message.partition(': ')
    if head.startswith(('Tensor.', 'where')):
        return f"Tensor.{op}: {rest}"
    if head.startswith('unsupported operand for '):
        return f"unsupported operand for {op}: {rest}"
    return message


def _replaced(base: Node, before: Node, at: Array, new: Node) -> Node:
    """base's history after a view of it was changed in place while recording: before (the base as it was)
    with the view's places (at: flat positions in base) replaced by new (the view's new values)."""
    def _backward(grad: Array) -> None:  # d base/d before = 1 but at the view's places; d base/d new = 1 there
        if before.requires_grad:
            kept = np.array(grad)
            np.put(kept, at, 0)
            before._add_grad(kept, own=True)
        if new.requires_grad:
            new._add_grad(np.take(grad, at))
    return base._result(base.data, (before, new), 'copy_slices', _backward, reads=())


class InPlace(Node):
    """The machinery of every change in place (`_in_place`), and the changes that are no arithmetic."""
    __slots__ = ()

    def _in_place(self, op: str, compute: Callable[[Self], Self], other: object = None,
                  converts: bool = False) -> Self:
        """self changed in place to compute(self) (for x += y, compute is `lambda t: t + y`), by PyTorch's rules
        (see the module's docstring). Everything is checked before anything changes. converts=True writes any
        dtype (copy_, [] =); other is the other operand, if any: whether it requires grad decides recording."""
        view_of = self._view_of
        is_leaf = self.requires_grad and not self._prev
        is_view_of_leaf = view_of is not None and view_of.requires_grad and not view_of._prev  # (p[0:2])
        grad_mode = engine.is_grad_enabled()
        if grad_mode and (is_leaf or is_view_of_leaf):
            what = 'a leaf' if is_leaf else 'a view of a leaf'
            raise RuntimeError(f"Tensor.{op}: {what} that requires grad can be changed in place only under no_grad() "
                               f"(as in PyTorch: 'a leaf Variable that requires grad is being used in an in-place "
                               f"operation'): its gradient would no longer match its values. An update step is "
                               f"`with no_grad(): p -= lr * p.grad`")
        if grad_mode and view_of is not None and view_of._rebased_at > self._ran_at:
            self._follow_base()  # (its base was changed while recording: first the view's new history)
        recording = grad_mode and (self.requires_grad or (isinstance(other, Node) and other.requires_grad))
        # Recording, self as it is now (values and history) becomes a new node, the op's input; for a view, its
        # base's history changes too (the base's old self, with the view's places replaced: PyTorch's CopySlices)
        source = self._snapshot(self.data.copy()) if recording else self
        base = view_of if recording else None
        try:
            new = compute(source)
        except (ValueError, TypeError) as e:  # the error of the op doing the work, under the name the user called
            raise type(e)(_as_called(str(e), op)) from None
        if new.data.shape != self.data.shape:
            raise ValueError(f"Tensor.{op}: the result has shape {new.data.shape}, which is not the tensor's shape "
                             f"{self.data.shape} (as in PyTorch: an op in place keeps the tensor's shape)")
        if not converts and not can_write(new.data.dtype, self.data.dtype):
            raise TypeError(f"Tensor.{op}: the result is {new.data.dtype}, which does not go into a tensor of "
                            f"{self.data.dtype} (as in PyTorch: 'result type can't be cast to the desired output "
                            f"type'); make a new tensor, which takes the result's dtype (x = x + y, not x += y)")
        if not self.data.flags.writeable:
            raise ValueError(f"Tensor.{op}: the tensor's memory is read-only (a broadcast array, or a read-only "
                             f"buffer): make it with np.array(...) to change it")
        if base is not None:
            at = view_positions(self.data, base.data)
            base_before = base._snapshot(base.data.copy())
        with np.errstate(invalid='ignore', over='ignore'):  # (a cast as PyTorch's: nan into an integer, quietly)
            np.copyto(self.data, new.data, casting='unsafe')
        tick = self._note_change(op)
        if base is not None:  # the base is its old self with the view's places replaced; the view follows it
            base._become(_replaced(base, base_before, at, new), base_before, tick)
            self._follow_base()
        elif recording:  # self is now the op's output
            self._become(new, source, tick)
        return self

    def zero_(self) -> Self:
        """Every element 0, in place, as PyTorch's zero_() (for a gradient: p.grad = None instead, as zero_grad())."""
        return self._fill('zero_', 0)

    def fill_(self, value: object) -> Self:
        """Every element set to value, in place, as PyTorch's fill_(). The value must fit the dtype (1.5 does not
        go into an integer tensor, which PyTorch would truncate, as in masked_fill)."""
        return self._fill('fill_', value)

    def _fill(self, op: str, value: object) -> Self:
        fill = fill_value(value, self.data.dtype, op)

        def compute(t: Self) -> Self:
            def _backward(grad: Array) -> None:  # the old values are gone: d out/d old = 0
                t._add_grad(np.zeros_like(grad))
            return t._result(np.full(t.data.shape, fill, dtype=t.data.dtype), (t,), op, _backward, reads=())
        return self._in_place(op, compute)

    def copy_(self, src: object) -> Self:
        """self's elements set to src's, in place, as PyTorch's copy_(): src broadcasts to self's shape and is
        converted to self's dtype (a float into an integer tensor rounds toward 0). The gradient goes to src."""
        def compute(t: Self) -> Self:
            s = t._lift(src, 'copy_')
            try:
                out = np.broadcast_to(s.data, t.data.shape).astype(t.data.dtype)
            except ValueError:
                raise ValueError(f"Tensor.copy_: a source of shape {s.data.shape} does not broadcast to the "
                                 f"tensor's shape {t.data.shape}") from None

            def _backward(grad: Array) -> None:  # d out/d src = 1 (summed where src was broadcast), d out/d old = 0
                if t.requires_grad:
                    t._add_grad(np.zeros_like(grad))
                if s.requires_grad:
                    s._add_grad(grad)
            return t._result(out, (t, s), 'copy_', _backward, reads=())
        return self._in_place('copy_', compute, src, converts=True)

    def __setitem__(self, index: object, value: object) -> None:
        """t[index] = value, in place, as in PyTorch: value (a number, an array or a tensor) broadcast to the shape
        of t[index] and converted to t's dtype. The gradient goes to value from the places written, to the old
        t from the others."""
        plain_index(index)  # (refused before anything else, if it is no index)

        def compute(t: Self) -> Self:
            v = t._lift(value, '__setitem__')
            # (an array in the index copied, if it may be changed before backward, which reads it)
            picked = plain_index(index, (v if v.requires_grad else t)._kept)
            out = t.data.copy()
            kept = np.ones(t.data.shape, dtype=bool)
            try:
                out[picked] = v.data
                kept[picked] = False
            except (IndexError, ValueError) as e:  # NumPy's words, with the op and the shape they are about
                raise type(e)(f"Tensor.__setitem__: {e} (the tensor has shape {t.data.shape})") from None

            def _backward(grad: Array) -> None:  # d out/d value = 1 where written, d out/d old = 1 elsewhere
                if t.requires_grad:
                    t._add_grad(select(kept, grad))
                if v.requires_grad:
                    written = grad[picked]
                    v._add_grad(written.reshape((1,) * (v.data.ndim - written.ndim) + written.shape))
            read = index_tensors(index)
            return t._result(out, (t, v), '__setitem__', _backward, reads=(read, read))
        self._in_place('__setitem__', compute, value, converts=True)
