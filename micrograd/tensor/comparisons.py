"""Tensor's comparisons and logic: == != < <= > >=, & | ^ ~, truth, any, all, in. Bool results: data, no gradient."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from micrograd.tensor.checks import refuse_value
from micrograd.tensor.dtypes import Array, is_number, promoted
from micrograd.tensor.node import ArrayLike, Node

if TYPE_CHECKING:
    from typing_extensions import Self


_COMPARISONS: dict[str, Callable[[Array, Array], Any]] = {
    '==': np.equal, '!=': np.not_equal, '<': np.less, '<=': np.less_equal, '>': np.greater, '>=': np.greater_equal}
_LOGIC: dict[str, Callable[[Array, Array], Any]] = {'&': np.bitwise_and, '|': np.bitwise_or, '^': np.bitwise_xor}


class Comparisons(Node):
    """The ops whose results are bools (or, for & | ^ ~ on integers, bits): they carry no gradient."""
    __slots__ = ()
    __hash__ = object.__hash__  # == compares elementwise; a tensor is still hashed by identity, as in PyTorch

    def _compare(self, other: object, op: str) -> Any:
        """self <op> other elementwise, in the dtype both promote to, as a bool tensor (data: no gradient).
        Comparing with something that is no number or array is left to Python (== gives False)."""
        if not isinstance(other, (Node, np.ndarray)) and not is_number(other):
            refuse_value(other, f"Tensor.{op}")  # (t == v would be False, whatever v holds)
            return NotImplemented
        x, y = promoted(self.data, self._lift(other, op).data)
        try:
            return self._constant(np.asarray(_COMPARISONS[op](x, y)))
        except ValueError as e:  # shapes that do not broadcast: NumPy's words, with the op's name
            raise ValueError(f"Tensor.{op}: {e}".rstrip()) from None

    def __eq__(self, other: object) -> Any:  # Any: a Tensor, where object.__eq__ promises a bool
        return self._compare(other, '==')

    def __ne__(self, other: object) -> Any:
        return self._compare(other, '!=')

    def __lt__(self, other: object) -> Any:
        return self._compare(other, '<')

    def __le__(self, other: object) -> Any:
        return self._compare(other, '<=')

    def __gt__(self, other: object) -> Any:
        return self._compare(other, '>')

    def __ge__(self, other: object) -> Any:
        return self._compare(other, '>=')

    def _logic(self, other: object, op: str) -> Self:
        """self & other, self | other, self ^ other on bools (logical) or integers (bitwise): data, no gradient."""
        x, y = promoted(self.data, self._lift(other, op).data)
        if x.dtype.kind not in 'biu':
            raise TypeError(f"Tensor.{op}: only bool and integer tensors, as in PyTorch; got {x.dtype}")
        try:
            return self._constant(np.asarray(_LOGIC[op](x, y)))
        except ValueError as e:  # (as in _compare)
            raise ValueError(f"Tensor.{op}: {e}".rstrip()) from None

    def __and__(self, other: Self | ArrayLike) -> Self:
        return self._logic(other, '&')

    def __or__(self, other: Self | ArrayLike) -> Self:
        return self._logic(other, '|')

    def __xor__(self, other: Self | ArrayLike) -> Self:
        return self._logic(other, '^')

    def __rand__(self, other: ArrayLike) -> Self:  # other & self
        return self & other

    def __ror__(self, other: ArrayLike) -> Self:  # other | self
        return self | other

    def __rxor__(self, other: ArrayLike) -> Self:  # other ^ self
        return self ^ other

    def __invert__(self) -> Self:  # ~mask: not, for bools; bitwise not for integers
        if self.data.dtype.kind not in 'biu':
            raise TypeError(f"Tensor.~: only bool and integer tensors, as in PyTorch; got {self.data.dtype}")
        return self._constant(np.asarray(~self.data))

    def __bool__(self) -> bool:
        """The truth of a one-element tensor, as in PyTorch; for more elements (or none) it is ambiguous."""
        if self.data.size != 1:
            what = 'no values' if self.data.size == 0 else 'more than one value'
            raise RuntimeError(f"Tensor: the truth value of a tensor with {what} (shape {self.data.shape}) is "
                               f"ambiguous; use (x == y).all() or .any()")
        return bool(self.data.reshape(-1)[0])

    def any(self) -> Self:
        """Whether any element is true (not 0): a 0-d bool tensor, data."""
        return self._constant(np.asarray(self.data.any()))

    def all(self) -> Self:
        """Whether every element is true (not 0): a 0-d bool tensor, data."""
        return self._constant(np.asarray(self.data.all()))

    def __contains__(self, element: object) -> bool:
        """element in t: whether any element of t equals it, as in PyTorch (not a search of t's rows)."""
        if not (isinstance(element, (Node, np.ndarray)) or is_number(element)):
            raise TypeError(f"Tensor.__contains__: takes a number, an array or a Tensor, got {type(element).__name__}")
        return bool((self == element).data.any())
