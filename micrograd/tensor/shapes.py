"""Tensor's shapes, axes and indexing: reshape, clone, permute, transpose, swapaxes, T, [], masked_fill, len, iter."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from micrograd.tensor.checks import index, ints, permutation
from micrograd.tensor.dtypes import BOOL, Array
from micrograd.tensor.kernels import select, sum_into_rows
from micrograd.tensor.node import Node, fill_value

if TYPE_CHECKING:
    from typing_extensions import Self


class Shapes(Node):
    """Ops that move numbers around without changing them: the gradient goes back to where each came from."""
    __slots__ = ()

    def reshape(self, *shape: int | Sequence[int]) -> Self:
        """The same numbers in another shape: x.reshape(2, 3) or x.reshape((2, 3)); one length may be -1."""
        new_shape = ints(shape, 'reshape')
        try:
            out = self.data.reshape(new_shape)
        except ValueError:
            raise ValueError(f"Tensor.reshape: cannot put the {self.data.size} numbers of shape {self.data.shape} "
                             f"into shape {new_shape}") from None

        def _backward(grad: Array) -> None:  # the same numbers back in the old shape
            self._add_grad(grad.reshape(self.data.shape))
        return self._result(out, (self,), 'reshape', _backward, reads=())

    def clone(self) -> Self:
        """A copy of the numbers, with the gradient flowing back to self, as PyTorch's clone(): keep one before
        changing a tensor in place (detach() shares the numbers and cuts the graph instead)."""
        def _backward(grad: Array) -> None:  # d x/dx = 1
            self._add_grad(grad)
        return self._result(self.data.copy(), (self,), 'clone', _backward, reads=())

    def permute(self, *axes: int | Sequence[int]) -> Self:
        """The axes in a new order: axis i of the output is axis axes[i] of self (negative axes count
        from the end). As torch's x.permute(2, 0, 1) and NumPy's x.transpose(2, 0, 1)."""
        order = permutation(ints(axes, 'permute'), self.data.ndim, 'permute')
        undo = tuple(int(i) for i in np.argsort(order))  # output axis i came from axis order[i]: send it back

        def _backward(grad: Array) -> None:  # every number goes back to where it came from
            self._add_grad(grad.transpose(undo))
        return self._result(self.data.transpose(order), (self,), 'permute', _backward, reads=())

    def transpose(self, *axes: int | Sequence[int]) -> Self:
        """As ndarray.transpose: no axes reverses them all, otherwise the same as permute(*axes).

        PyTorch's x.transpose(1, 2) swaps two axes instead: here that is x.swapaxes(1, 2).
        """
        order = ints(axes, 'transpose')
        if not order:
            return self.permute(*reversed(range(self.data.ndim)))
        permutation(order, self.data.ndim, 'transpose')  # the error, if any, names transpose
        return self.permute(*order)

    def swapaxes(self, axis1: int, axis2: int) -> Self:
        """Axes axis1 and axis2 trade places, as in NumPy and PyTorch (PyTorch's transpose(axis1, axis2))."""
        ndim = self.data.ndim
        a1, a2 = index(axis1, 'Tensor.swapaxes'), index(axis2, 'Tensor.swapaxes')
        for a in (a1, a2):
            if not -max(ndim, 1) <= a < max(ndim, 1):  # (a 0-d tensor has one axis to name, 0 or -1, as in PyTorch)
                raise ValueError(f"Tensor.swapaxes: axis {a!r} is out of range for a tensor of shape {self.data.shape}")
        if ndim == 0:
            return self.reshape(())  # nothing to swap: the same number, as a new node (a view, as PyTorch's)

        def _backward(grad: Array) -> None:  # swapping the same two axes again puts every number back
            self._add_grad(grad.swapaxes(a1, a2))
        return self._result(self.data.swapaxes(a1, a2), (self,), 'swapaxes', _backward, reads=())

    @property
    def T(self) -> Self:
        """All axes reversed, as NumPy's .T (PyTorch: x.permute(*reversed(range(x.ndim))); x.mT swaps the last two)."""
        return self.transpose()

    def __getitem__(self, index: object) -> Self:
        """Slices, integers and integer/boolean arrays, as NumPy indexing.

        The gradient goes back to the elements picked (the others get 0); an element picked
        twice gets both.
        """
        picked = plain_index(index, self._kept)  # (an array in it copied, if it may be changed before backward)
        looks_up_rows = isinstance(picked, np.ndarray) and picked.dtype.kind in 'iu' and self.data.ndim > 0

        def _backward(grad: Array) -> None:
            if looks_up_rows:  # table[ids], as an Embedding does: the same sums as below, 3-4x faster
                self._add_grad(sum_into_rows(picked, grad, self.data.shape), own=True)
                return
            full = np.zeros_like(self.data)
            np.add.at(full, picked, grad)  # unlike full[index] += grad, adds once per repeated index
            self._add_grad(full)
        try:
            out = self.data[picked]
            if not isinstance(out, np.ndarray):  # one element: NumPy gives a copy, PyTorch a view (its changes seen)
                out = self.data[(*picked, ...) if isinstance(picked, tuple) else (picked, ...)]
        except (IndexError, ValueError) as e:  # NumPy's words, with the op and the shape they are about
            raise type(e)(f"Tensor.__getitem__: {e} (the tensor has shape {self.data.shape})") from None
        return self._result(out, (self,), 'getitem', _backward, reads=(index_tensors(index),))

    def masked_fill(self, mask: Array | Node, value: float | Node) -> Self:
        """value where mask is True, self where it is False, as torch's masked_fill.

        mask is a boolean array or Tensor (e.g. `ids == PAD`) that broadcasts to self's shape.
        The filled places hold a constant, so no gradient flows back through them (not even
        an inf or nan one). Filled with -inf before a softmax, they get probability 0: that
        is how causal attention hides later positions.
        """
        if isinstance(mask, np.bool_):  # what comparing 0-d arrays gives NumPy: a 0-d mask (Python's False is refused)
            mask = np.asarray(mask)
        if not isinstance(mask, (np.ndarray, Node)):
            raise TypeError(f"Tensor.masked_fill: the mask must be a boolean array or Tensor (True = fill), got "
                            f"{type(mask).__name__} {mask!r} (compare with ==, not `is`)")
        hide = mask.data if isinstance(mask, Node) else mask
        if hide.dtype != BOOL:
            raise TypeError(f"Tensor.masked_fill: the mask must be boolean (True = fill), got dtype {hide.dtype}")
        try:
            fits = np.broadcast_shapes(hide.shape, self.data.shape) == self.data.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"Tensor.masked_fill: a mask of shape {hide.shape} does not broadcast to the "
                             f"tensor's shape {self.data.shape}")
        fill = fill_value(value, self.data.dtype, 'masked_fill')
        keep = ~hide

        def _backward(grad: Array) -> None:  # d out/dx = 1 where kept, 0 where filled
            self._add_grad(select(keep, grad))
        read = (mask,) if isinstance(mask, Node) else ()  # (an array's mask is read as keep, a copy)
        return self._result(np.where(hide, fill, self.data), (self,), 'masked_fill', _backward, reads=(read,))

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.data)

    def __iter__(self) -> Iterator[Self]:  # its rows, each a Tensor (with gradients back to this one)
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self.data)))


def plain_index(index: object, kept: Callable[[Array], Array] | None = None) -> Any:  # what ndarray[...] takes
    """Tensors used as indices become their arrays: indices carry no gradient. A float array or Tensor is
    refused by name (Tensor([0, 2]) is float64 unless made with dtype=np.int64). kept (Node._kept), if given,
    is applied to each array (a list of numbers becomes one): a backward that reads the index reads that."""
    parts = index if isinstance(index, tuple) else (index,)
    plain = tuple(i.data if isinstance(i, Node) else i for i in parts)
    for i in plain:
        if isinstance(i, np.ndarray) and i.dtype.kind not in 'biu':
            raise IndexError(f"Tensor.__getitem__: indices must be integers or booleans, got a {i.dtype} "
                             "array or Tensor: make it with dtype=np.int64 (Tensor([0, 2]) is float64)")
        if isinstance(i, (float, np.floating)) or (isinstance(i, list) and any(isinstance(v, float) for v in i)):
            raise IndexError(f"Tensor.__getitem__: indices must be integers, slices, None or integer or boolean "
                             f"arrays, got {i!r}, a float")
    if kept is not None:
        plain = tuple(kept(_as_array(i)) if isinstance(i, (np.ndarray, list)) else i for i in plain)
    return plain if isinstance(index, tuple) else plain[0]


def _as_array(part: Array | list[Any]) -> Array:
    """A list of numbers in an index as the array NumPy would make of it (a list the user may change after)."""
    try:
        array = np.asarray(part)
    except ValueError:  # (a ragged list: NumPy refuses it as an index too, with its own words)
        return part  # type: ignore[return-value]
    return array if array.dtype.kind in 'biu' or isinstance(part, np.ndarray) else part  # type: ignore[return-value]


def index_tensors(index: object) -> tuple[Node, ...]:
    """The tensors in an index: what a backward that reads the index reads, as PyTorch saves them."""
    return tuple(i for i in (index if isinstance(index, tuple) else (index,)) if isinstance(i, Node))
