"""How a Tensor behaves as a Python object: as a number, as an array, copied, pickled, printed."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from micrograd.tensor.dtypes import Array
from micrograd.tensor.node import Node

if TYPE_CHECKING:
    from typing_extensions import Self


class Protocols(Node):
    """Python's and NumPy's protocols: float(t), int(t), an index, np.asarray(t), .shape, copy, pickle, repr."""
    __slots__ = ()

    def item(self) -> float:
        if self.data.size != 1:
            raise ValueError(f"Tensor.item: only a one-element tensor is a number, this one has shape {self.shape}")
        number: float = self.data.item()
        return number

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """A one-element integer tensor as an index or a size ([10, 20][t], range(t)), as in PyTorch."""
        if self.data.dtype.kind not in 'iu' or self.data.size != 1:
            raise TypeError(f"Tensor.__index__: only an integer tensor of one element is an index, this one has "
                            f"dtype {self.data.dtype} and shape {self.data.shape}")
        return int(self.data.reshape(-1)[0])

    def numpy(self) -> Array:
        """The data, not a copy, as torch's .numpy(), but read-only: see __array__."""
        return self._read_only()

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> Array:
        """np.asarray(t) is t's data, as for a PyTorch tensor (without it, NumPy would read a Tensor as a sequence
        and make an array of 0-d Tensor objects). The graph stays behind: the array carries no gradient.

        It is a read-only view: a backward may read these values, and a write through NumPy would change them
        unseen by backward()'s check of versions (PyTorch refuses .numpy() of a tensor that requires grad for
        that reason). Reading and plotting work as for any array; a write is refused by NumPy ("assignment
        destination is read-only"). Change a tensor through the tensor (t[0] = 0, t += 1, whose changes
        backward() sees), or take a copy of your own: np.array(t)."""
        if dtype is not None and np.dtype(dtype) != self.data.dtype:
            if copy is False:
                raise ValueError(f"Tensor.__array__: a {self.data.dtype} tensor as {np.dtype(dtype)} needs a copy")
            return self.data.astype(dtype)
        return self.data.copy() if copy else self._read_only()

    def _read_only(self) -> Array:
        view = self.data.view()
        view.flags.writeable = False
        return view

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.data.dtype

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """A copy of a leaf: its data and grad copied, requires_grad kept. A tensor an op made is refused, as in
        PyTorch: its backward would still write into the original graph's leaves, not the copies'."""
        if self._prev:
            raise RuntimeError("Tensor.__deepcopy__: only leaves can be deep-copied (as in PyTorch): "
                               "detach() it, or copy the leaves and build it again")
        copy = self._constant(self.data.copy())
        copy.grad, copy.requires_grad = None if self.grad is None else self.grad.copy(), self.requires_grad
        copy._by_op = self._by_op  # (an output made under no_grad() stays no parameter)
        memo[id(self)] = copy
        return copy

    def __copy__(self) -> Self:
        """copy.copy(t): a new leaf sharing t's data and grad, requires_grad kept, as PyTorch's. It shares t's changes
        in place too: changing one changes the other, and a gradient that read t's values is refused afterwards."""
        copy = self._constant(self.data)
        copy.grad, copy.requires_grad = self.grad, self.requires_grad
        copy._base = self if self._base is None else self._base
        return copy

    def __getstate__(self) -> dict[str, Any]:
        """What pickle keeps: data, grad and requires_grad, not the graph (an op's backward is a
        closure, which pickle cannot store). A tensor an op made comes back as a leaf, as in PyTorch, and
        still as one an op made (no parameter of a Module that keeps it)."""
        return {'data': self.data, 'grad': self.grad, 'requires_grad': self.requires_grad, 'by_op': self._by_op}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._fields(state['data'], state.get('by_op', False))
        self.grad, self.requires_grad = state['grad'], state['requires_grad']

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=', ', prefix='Tensor(')
        dtype = '' if self.data.dtype == np.float64 else f', dtype={self.data.dtype}'
        if self._prev:
            return f"Tensor({body}{dtype}, op='{self._op}')"
        return f"Tensor({body}{dtype}{', requires_grad=True' if self.requires_grad else ''})"
