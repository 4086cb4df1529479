"""The same ideas as engine.py, over NumPy arrays: a Tensor, its ops, layers and optimizers.

Read engine.py first. A Tensor is a Value whose data is an ndarray: each op computes
its output and, right beneath, states its local derivative in a closure
`_backward(grad)` that holds the parents (never the output), and `backward()` walks
the graph in topological order applying the chain rule. Two things are new:

- Broadcasting. `x + b` with x of shape (64, 10) and b of shape (10,) uses each b[j]
  64 times, so b's gradient is the sum of those 64 contributions. `_add_grad` does
  that sum for every op, in one place.
- Only tensors that need gradients build a graph. Data (requires_grad=False, the
  default) goes through ops as plain NumPy and keeps no parents.

Training looks as in PyTorch:

    model = MLP(64, [128, 10])                  # Linear(64, 128), relu, Linear(128, 10)
    optimizer = Adam(model.parameters(), lr=3e-3)
    loss = cross_entropy(model(x_batch), y_batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

try:
    import numpy as np
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError("micrograd.tensor needs NumPy: pip install micrograd[tensor]") from None

from micrograd import engine
from micrograd.engine import _is_real, no_grad  # no_grad: one switch stops both Values and Tensors recording

__all__ = ['Tensor', 'no_grad', 'mse_loss', 'binary_cross_entropy', 'binary_cross_entropy_with_logits',
           'cross_entropy', 'Module', 'Linear', 'MLP', 'SGD', 'Adam']

ArrayLike = np.ndarray | float | list  # what a Tensor can be made from (besides a Tensor)


def _unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum grad over the axes that broadcasting stretched, so that it has `shape` again.

    Broadcasting (3,) against (2, 3) prepends an axis; (2, 1) against (2, 3) stretches
    an axis of length 1. An input used several times receives the sum of its uses.
    """
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)  # prepended axes
    stretched = tuple(i + extra for i, n in enumerate(shape) if n == 1 and grad.shape[i + extra] != 1)
    return grad.sum(axis=tuple(range(extra)) + stretched, keepdims=True).reshape(shape)


class Tensor:
    """An ndarray, its gradient, and the op and parents that produced it.

    `.data` is the ndarray and `.grad` is None until backward() reaches the tensor,
    then an ndarray of the same shape. Like Value, a leaf (a tensor you made, e.g. a
    weight) accumulates gradients across backward() calls; a tensor an op made holds
    the latest call's gradient only.

    A tensor with requires_grad=True gets its own copy of `data`, because optimizers
    update it in place; a data tensor shares the array it was given (no copy).
    """
    __slots__ = ('data', 'grad', 'requires_grad', '_prev', '_op', '_backward')
    __array_ufunc__ = None  # so `ndarray * tensor` asks Tensor.__rmul__ instead of NumPy

    def __init__(self, data: ArrayLike | Tensor, requires_grad: bool = False, dtype: type = np.float64):
        if isinstance(data, Tensor):
            data = data.data
        if not (isinstance(data, (np.ndarray, float, int, list, tuple)) or _is_real(data)):
            raise TypeError(f"Tensor() takes numbers, (nested) lists of numbers or an ndarray, "
                            f"got {type(data).__name__}")
        self.data = np.array(data, dtype=dtype) if requires_grad else np.asarray(data, dtype=dtype)
        if requires_grad and self.data.dtype.kind != 'f':
            raise TypeError(f"Tensor: only floating-point tensors can require gradients, got dtype {self.data.dtype}")
        self.grad: np.ndarray | None = None
        self.requires_grad = requires_grad
        self._prev: tuple[Tensor, ...] = ()
        self._op = ''
        self._backward = None

    @staticmethod
    def _result(data: np.ndarray, parents: tuple[Tensor, ...], op: str, backward) -> Tensor:
        """The output of an op. It joins the graph only if a parent needs gradients (and not under no_grad())."""
        out = Tensor.__new__(Tensor)  # data is already an ndarray of the right dtype: skip __init__'s checks
        out.data = data if type(data) is np.ndarray else np.asarray(data)  # 0-d results come back as NumPy scalars
        out.grad = None
        tracked = tuple(p for p in parents if p.requires_grad) if engine.is_grad_enabled() else ()
        out.requires_grad = bool(tracked)
        out._prev, out._op, out._backward = tracked, (op if tracked else ''), (backward if tracked else None)
        return out

    def _lift(self, other: object, op: str) -> Tensor:
        """A number or an ndarray takes part in an op as a constant tensor of self's dtype."""
        if isinstance(other, Tensor):
            return other
        if isinstance(other, (np.ndarray, float, int)) or _is_real(other):
            return Tensor(other, dtype=self.data.dtype)
        raise TypeError(f"unsupported operand for {op}: Tensor and {type(other).__name__} ({other!r})")

    def _add_grad(self, grad: np.ndarray) -> None:
        """self.grad += grad, after summing grad over the axes broadcasting stretched.

        Never writes into an array: the same one may be handed to several tensors.
        """
        if grad.shape != self.data.shape:
            grad = _unbroadcast(grad, self.data.shape)
        if self.grad is None:
            # A leaf's .grad is the user's to keep (and maybe scale in place): give it its own array.
            self.grad = np.array(grad, dtype=self.data.dtype) if not self._prev else np.asarray(grad)
        else:
            self.grad = self.grad + grad

    # --- element-wise arithmetic, with broadcasting ---

    def __add__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '+')

        def _backward(grad: np.ndarray) -> None:  # d(x+y)/dx = d(x+y)/dy = 1
            if self.requires_grad:
                self._add_grad(grad)
            if other.requires_grad:
                other._add_grad(grad)
        return Tensor._result(self.data + other.data, (self, other), '+', _backward)

    def __mul__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '*')

        def _backward(grad: np.ndarray) -> None:  # d(xy)/dx = y, d(xy)/dy = x
            if self.requires_grad:
                self._add_grad(grad * other.data)
            if other.requires_grad:
                other._add_grad(grad * self.data)
        return Tensor._result(self.data * other.data, (self, other), '*', _backward)

    def __truediv__(self, other: Tensor | ArrayLike) -> Tensor:  # self / other; dividing by 0 gives inf, as in NumPy
        other = self._lift(other, '/')
        x, y = self.data, other.data

        def _backward(grad: np.ndarray) -> None:  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2
            if self.requires_grad:
                self._add_grad(grad / y)
            if other.requires_grad:
                other._add_grad(-grad * x / (y * y))
        return Tensor._result(x / y, (self, other), '/', _backward)

    def __pow__(self, other: Tensor | ArrayLike) -> Tensor:  # self ** other
        other = self._lift(other, '**')
        x, k = self.data, other.data
        if np.any((x < 0) & (k != np.round(k))):
            raise ValueError("Tensor.__pow__: a fractional power of a negative base is not real")
        if other.requires_grad and np.any(x <= 0):
            raise ValueError(f"Tensor.__pow__: a tensor exponent needs a base > 0 (its gradient is "
                             f"base**k * log(base)), got a base of {x.min()}")
        out = x ** k

        def _backward(grad: np.ndarray) -> None:  # d(x**k)/dx = k x**(k-1), d(x**k)/dk = x**k log(x)
            if self.requires_grad:
                self._add_grad(grad * k * x ** (k - 1))
            if other.requires_grad:
                other._add_grad(grad * out * np.log(x))
        return Tensor._result(out, (self, other), '**', _backward)

    def __matmul__(self, other: Tensor | ArrayLike) -> Tensor:
        """Matrix product with NumPy's rules: batched over leading axes, 1-D operands as vectors."""
        other = self._lift(other, '@')
        a, b = self.data, other.data
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError(f"Tensor.matmul: needs at least 1-D operands, got shapes {a.shape} and {b.shape}")
        try:
            out = a @ b
        except ValueError:
            raise ValueError(f"Tensor.matmul: shapes {a.shape} and {b.shape} do not line up "
                             f"({a.shape[-1]} columns vs {b.shape[0 if b.ndim == 1 else -2]} rows, "
                             f"or batch axes that do not broadcast)") from None

        def _backward(grad: np.ndarray) -> None:  # d(AB)/dA = grad @ B^T, d(AB)/dB = A^T @ grad
            # A vector operand acts as a 1-row (a) or 1-column (b) matrix whose extra axis
            # the output dropped; put those axes back so the matrix rule applies as is.
            a2, b2 = (a[None, :] if a.ndim == 1 else a), (b[:, None] if b.ndim == 1 else b)
            g = grad[..., None] if b.ndim == 1 else grad
            g = g[..., None, :] if a.ndim == 1 else g
            if self.requires_grad:  # (_unbroadcast sums over batch axes that only the other operand had)
                self._add_grad(_unbroadcast(g @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape))
            if other.requires_grad:
                other._add_grad(_unbroadcast(a2.swapaxes(-1, -2) @ g, b2.shape).reshape(b.shape))
        return Tensor._result(out, (self, other), '@', _backward)

    def matmul(self, other: Tensor | ArrayLike) -> Tensor:
        return self @ other

    # --- reductions ---

    def sum(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        def _backward(grad: np.ndarray) -> None:  # d(sum x)/dx_i = 1: every summand gets the whole grad
            if not keepdims and axis is not None:
                grad = np.expand_dims(grad, axis)  # put the summed axes back, with length 1
            self._add_grad(np.broadcast_to(grad, self.data.shape))
        return Tensor._result(self.data.sum(axis=axis, keepdims=keepdims), (self,), 'sum', _backward)

    def mean(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        total = self.sum(axis, keepdims)
        return total * (total.data.size / self.data.size)  # sum / (number of elements averaged)

    def max(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The largest element(s). Tied maxima share the gradient evenly, as with torch.amax.

        (torch.max(x, dim) gives it all to one of them instead; torch.amax is the
        convention for every axis here, including axis=None.)
        """
        top = self.data.max(axis=axis, keepdims=True)

        def _backward(grad: np.ndarray) -> None:  # 1/(number of ties) at the maxima, 0 elsewhere
            grad = np.reshape(grad, top.shape)  # the reduced axes back, with length 1
            is_top = self.data == top
            self._add_grad(is_top * (grad / is_top.sum(axis=axis, keepdims=True)))
        out = top if keepdims else np.squeeze(top, axis=axis)  # axis=None: every axis was reduced
        return Tensor._result(out, (self,), 'max', _backward)

    # --- shapes and indexing ---

    def reshape(self, *shape: int | tuple[int, ...]) -> Tensor:
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape

        def _backward(grad: np.ndarray) -> None:  # the same numbers in another shape
            self._add_grad(grad.reshape(self.data.shape))
        return Tensor._result(self.data.reshape(shape), (self,), 'reshape', _backward)

    def transpose(self, *axes: int | tuple[int, ...]) -> Tensor:
        """Permute the axes, as ndarray.transpose: no axes reverses them all."""
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        axes = tuple(axes) if axes else tuple(reversed(range(self.data.ndim)))

        def _backward(grad: np.ndarray) -> None:  # undo the permutation
            self._add_grad(grad.transpose(np.argsort(axes)))
        return Tensor._result(self.data.transpose(axes), (self,), 'transpose', _backward)

    @property
    def T(self) -> Tensor:
        """All axes reversed, as NumPy's .T (PyTorch: x.permute(*reversed(range(x.ndim))); x.mT swaps the last two)."""
        return self.transpose()

    def __getitem__(self, index: object) -> Tensor:
        """Slices, integers and integer/boolean arrays, as NumPy indexing.

        The gradient goes back to the elements picked; an element picked twice gets both.
        """
        index = _plain_index(index)

        def _backward(grad: np.ndarray) -> None:
            full = np.zeros_like(self.data)
            np.add.at(full, index, grad)  # unlike full[index] += grad, adds once per repeated index
            self._add_grad(full)
        return Tensor._result(self.data[index], (self,), 'getitem', _backward)

    # --- element-wise functions ---

    def exp(self) -> Tensor:
        e = np.exp(self.data)

        def _backward(grad: np.ndarray) -> None:  # d e**x/dx = e**x
            self._add_grad(grad * e)
        return Tensor._result(e, (self,), 'exp', _backward)

    def log(self) -> Tensor:
        x = self.data
        if np.any(x <= 0):
            raise ValueError(f"Tensor.log: log is defined only for data > 0, got {x.min()}")

        def _backward(grad: np.ndarray) -> None:  # d log(x)/dx = 1/x
            self._add_grad(grad / x)
        return Tensor._result(np.log(x), (self,), 'log', _backward)

    def tanh(self) -> Tensor:
        t = np.tanh(self.data)

        def _backward(grad: np.ndarray) -> None:  # d tanh(x)/dx = 1 - tanh(x)**2
            self._add_grad(grad * (1 - t * t))
        return Tensor._result(t, (self,), 'tanh', _backward)

    def relu(self) -> Tensor:
        x = self.data

        def _backward(grad: np.ndarray) -> None:  # 1 for x > 0, else 0 (also at 0, as in PyTorch)
            self._add_grad(grad * (x > 0))
        return Tensor._result(np.maximum(x, 0), (self,), 'relu', _backward)

    def sigmoid(self) -> Tensor:
        s = _sigmoid(self.data)

        def _backward(grad: np.ndarray) -> None:  # d sigmoid(x)/dx = s (1 - s)
            self._add_grad(grad * s * (1 - s))
        return Tensor._result(s, (self,), 'sigmoid', _backward)

    def softmax(self, axis: int = -1) -> Tensor:
        """exp(x_i) / sum_j exp(x_j) along axis."""
        s = _softmax(self.data, axis)

        def _backward(grad: np.ndarray) -> None:  # ds_i/dx_j = s_i (1[i=j] - s_j)
            self._add_grad(s * (grad - (grad * s).sum(axis=axis, keepdims=True)))
        return Tensor._result(s, (self,), 'softmax', _backward)

    def log_softmax(self, axis: int = -1) -> Tensor:
        """x_i - log(sum_j exp(x_j)) along axis, without overflow for large x."""
        out = _log_softmax(self.data, axis)

        def _backward(grad: np.ndarray) -> None:  # d out_i/dx_j = 1[i=j] - softmax(x)_j
            self._add_grad(grad - np.exp(out) * grad.sum(axis=axis, keepdims=True))
        return Tensor._result(out, (self,), 'log_softmax', _backward)

    # --- backpropagation ---

    def backward(self, grad: Tensor | ArrayLike | None = None) -> None:
        """Fill in d(self)/d(t) in the .grad of every tensor t that self was made from.

        - A scalar (one-element) self needs no `grad`: d(self)/d(self) = 1. Otherwise pass
          `grad`, the gradient of some scalar with respect to self, shaped like self.
        - Leaves (tensors no op produced, e.g. weights) accumulate: each call adds to
          .grad, so call zero_grad() between training steps.
        - Intermediate tensors hold the gradients of the latest call only.
        """
        if not self.requires_grad:
            raise ValueError("Tensor.backward: this tensor does not require gradients (it was made from tensors "
                             "with requires_grad=False, or under no_grad()), so there is nothing to backpropagate")
        if grad is None:
            if self.data.size != 1:
                raise ValueError(f"Tensor.backward: the output has shape {self.data.shape}, not a single number, "
                                 f"so d(output)/d(output) is not a number to start from; reduce it to a scalar "
                                 f"(e.g. out.sum()) or pass grad= with shape {self.data.shape}")
            grad = np.ones_like(self.data)
        else:
            grad = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=self.data.dtype)
            if grad.shape != self.data.shape:
                raise ValueError(f"Tensor.backward: grad has shape {grad.shape} but the output has shape "
                                 f"{self.data.shape}")

        # Order the graph so that every tensor comes after the tensors it was made from,
        # with an explicit stack (as in engine.py) so deep graphs need no recursion.
        order, visited, stack = [], set(), [self]
        while stack:
            node = stack.pop()
            if node is None:  # the marker: all parents of the node beneath it are in order
                order.append(stack.pop())
            elif node._prev and node not in visited:  # leaves need no place: they only receive
                visited.add(node)
                node.grad = None
                stack.append(node)
                stack.append(None)
                stack.extend(node._prev)

        self._add_grad(grad)  # d(self)/d(self), or the gradient passed in
        for node in reversed(order):
            node._backward(node.grad)  # the chain rule: pass grad on to the parents

    # --- housekeeping ---

    def zero_grad(self) -> None:
        self.grad = None

    def detach(self) -> Tensor:
        """A new leaf sharing this data, cut off from the graph."""
        return Tensor(self.data, dtype=self.data.dtype)

    def item(self) -> float:
        if self.data.size != 1:
            raise ValueError(f"Tensor.item: only a one-element tensor is a number, this one has shape {self.shape}")
        return self.data.item()

    def numpy(self) -> np.ndarray:
        """The data itself, not a copy (as torch's .numpy())."""
        return self.data

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    def __len__(self) -> int:
        return len(self.data)

    # --- derived ops ---

    def __neg__(self) -> Tensor:  # -self
        return self * -1.0

    def __radd__(self, other: ArrayLike) -> Tensor:  # other + self
        return self + other

    def __sub__(self, other: Tensor | ArrayLike) -> Tensor:  # self - other
        return self + (-self._lift(other, '-'))

    def __rsub__(self, other: ArrayLike) -> Tensor:  # other - self
        return self._lift(other, '-') + (-self)

    def __rmul__(self, other: ArrayLike) -> Tensor:  # other * self
        return self * other

    def __rtruediv__(self, other: ArrayLike) -> Tensor:  # other / self
        return self._lift(other, '/') / self

    def __rpow__(self, other: ArrayLike) -> Tensor:  # other ** self
        return self._lift(other, '**') ** self

    def __rmatmul__(self, other: ArrayLike) -> Tensor:  # other @ self
        return self._lift(other, '@') @ self

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=', ', prefix='Tensor(')
        dtype = '' if self.data.dtype == np.float64 else f', dtype={self.data.dtype}'
        if self._prev:
            return f"Tensor({body}{dtype}, op='{self._op}')"
        return f"Tensor({body}{dtype}{', requires_grad=True' if self.requires_grad else ''})"


def _plain_index(index: object) -> object:
    """Tensors used as indices become their arrays: indices carry no gradient."""
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, tuple):
        return tuple(i.data if isinstance(i, Tensor) else i for i in index)
    return index


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # 1/(1+e^-x) for x >= 0 and e^x/(1+e^x) for x < 0: both only ever exponentiate -|x|, so nothing overflows.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    # Subtracting the max changes nothing mathematically but keeps exp() from overflowing.
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _target(target: Tensor | ArrayLike, like: Tensor, loss: str) -> np.ndarray:
    """Targets of the cross-entropies are data (no gradient): their array, checked to have the
    prediction's shape, because broadcasting (n, 1) against (n,) would silently compare all pairs."""
    if not isinstance(like, Tensor):
        raise TypeError(f"{loss}: the prediction must be a Tensor (the output of a model), got {type(like).__name__}")
    t = np.asarray(target.data if isinstance(target, Tensor) else target, dtype=like.data.dtype)
    if t.shape != like.data.shape:
        raise ValueError(f"{loss}: target shape {t.shape} differs from input shape {like.data.shape}")
    return t


# --- losses: functions of (prediction, target), averaged over all elements as in PyTorch ---

def mse_loss(pred: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """mean((pred - target)**2). A target tensor that requires gradients gets them too."""
    if not isinstance(target, Tensor) or not isinstance(pred, Tensor):
        target = _target(target, pred, 'mse_loss')
    elif target.shape != pred.shape:
        raise ValueError(f"mse_loss: target shape {target.shape} differs from input shape {pred.shape}")
    return ((pred - target) ** 2).mean()


def binary_cross_entropy(probs: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """mean(-(y log p + (1 - y) log(1 - p))) for probabilities p in [0, 1].

    As in PyTorch, each log is clamped at -100 so that p = 0 or 1 gives a large finite
    loss. Prefer binary_cross_entropy_with_logits on raw scores: it is exact there too.
    """
    p, y = probs.data, _target(target, probs, 'binary_cross_entropy')
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"binary_cross_entropy: probabilities must lie in [0, 1], got values in "
                         f"[{p.min()}, {p.max()}] (pass raw scores to binary_cross_entropy_with_logits)")
    with np.errstate(divide='ignore'):  # log(0) = -inf, clamped just below
        losses = -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log1p(-p), -100))

    def _backward(grad: np.ndarray) -> None:  # dL/dp = (p - y) / (p (1 - p)) / n, kept finite at p = 0 or 1
        probs._add_grad(grad * (p - y) / np.maximum(p * (1 - p), 1e-12) / p.size)
    return Tensor._result(losses.mean(), (probs,), 'binary_cross_entropy', _backward)


def binary_cross_entropy_with_logits(logits: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """binary_cross_entropy(sigmoid(z), y), computed from the scores z without overflow.

    -(y log s(z) + (1-y) log(1-s(z))) = max(z, 0) - z y + log(1 + e^-|z|).
    """
    z, y = logits.data, _target(target, logits, 'binary_cross_entropy_with_logits')
    losses = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))

    def _backward(grad: np.ndarray) -> None:  # dL/dz = (sigmoid(z) - y) / n
        logits._add_grad(grad * (_sigmoid(z) - y) / z.size)
    return Tensor._result(losses.mean(), (logits,), 'binary_cross_entropy_with_logits', _backward)


def cross_entropy(logits: Tensor, targets: Tensor | np.ndarray | list[int]) -> Tensor:
    """mean over rows of -log softmax(logits)[target]: logits (n, classes), targets n class indices."""
    t = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
    if not isinstance(logits, Tensor):
        raise TypeError(f"cross_entropy: logits must be a Tensor (the output of a model), got {type(logits).__name__}")
    if logits.data.ndim != 2:
        raise ValueError(f"cross_entropy: logits must have shape (batch, classes), got {logits.data.shape}")
    n, classes = logits.data.shape
    if t.shape != (n,) or (t.size and t.dtype.kind not in 'iu'):
        raise ValueError(f"cross_entropy: targets must be {n} integer class indices (shape ({n},)), "
                         f"got shape {t.shape} of dtype {t.dtype}")
    if t.size and (t.min() < 0 or t.max() >= classes):
        raise ValueError(f"cross_entropy: class indices must lie in [0, {classes}), got [{t.min()}, {t.max()}]")
    rows = np.arange(n)
    log_probs = _log_softmax(logits.data, axis=1)

    def _backward(grad: np.ndarray) -> None:  # dL/dlogits = (softmax - one_hot(target)) / n
        g = np.exp(log_probs)
        g[rows, t] -= 1
        logits._add_grad(g * (grad / n))
    return Tensor._result(-log_probs[rows, t].mean(), (logits,), 'cross_entropy', _backward)


# --- layers ---

class Module:
    """Anything with parameters. parameters() finds them in the attributes: trainable
    tensors, Modules, and lists or tuples of those, in the order they were assigned."""

    def named_parameters(self) -> list[tuple[str, Tensor]]:
        """('layers.0.weight', tensor) pairs: the names state_dict() uses."""
        return list(_named(self, ''))

    def parameters(self) -> list[Tensor]:
        return [p for _, p in self.named_parameters()]

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = None

    def state_dict(self) -> dict[str, np.ndarray]:
        """name -> a copy of that parameter's array: save it with np.savez(path, **state)."""
        return {name: p.data.copy() for name, p in self.named_parameters()}

    def load_state_dict(self, state: dict[str, np.ndarray]) -> None:
        """Copy saved arrays into the parameters, in place (optimizers keep working)."""
        params = dict(self.named_parameters())
        missing, unexpected = params.keys() - state.keys(), state.keys() - params.keys()
        if missing or unexpected:
            raise ValueError(f"{type(self).__name__}.load_state_dict: missing {sorted(missing)}, "
                             f"unexpected {sorted(unexpected)}")
        for name, p in params.items():
            value = np.asarray(state[name])
            if value.shape != p.data.shape:
                raise ValueError(f"{type(self).__name__}.load_state_dict: {name!r} has shape {value.shape}, "
                                 f"the model expects {p.data.shape}")
            p.data[...] = value

    def __call__(self, x: Tensor | np.ndarray) -> Tensor:
        return self.forward(x)

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError


def _named(value: object, name: str) -> Iterator[tuple[str, Tensor]]:
    if isinstance(value, Tensor):
        if value.requires_grad:
            yield name, value
    elif isinstance(value, Module):
        for attr, v in vars(value).items():
            yield from _named(v, f"{name}.{attr}" if name else attr)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _named(v, f"{name}.{i}")


class Linear(Module):
    """x @ weight + bias, with weight and bias drawn from uniform(-k, k), k = 1/sqrt(in_features).

    That is PyTorch's nn.Linear, except that weight has shape (in_features, out_features),
    so the forward pass needs no transpose (PyTorch stores weight.T).
    Pass rng (a np.random.Generator) for reproducible weights; otherwise np.random's global state is used.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 rng: np.random.Generator | None = None):
        uniform = (rng or np.random).uniform
        k = 1 / math.sqrt(in_features)
        self.weight = Tensor(uniform(-k, k, (in_features, out_features)), requires_grad=True)
        self.bias = Tensor(uniform(-k, k, out_features), requires_grad=True) if bias else None

    def forward(self, x: Tensor | np.ndarray) -> Tensor:
        out = _as_tensor(x, self.weight.data.dtype) @ self.weight
        return out if self.bias is None else out + self.bias

    def __repr__(self) -> str:
        n_in, n_out = self.weight.data.shape
        return f"Linear({n_in}, {n_out}{'' if self.bias is not None else ', bias=False'})"


ACTIVATIONS = ('relu', 'tanh', 'sigmoid')


class MLP(Module):
    """Linear layers of sizes nouts; every layer but the last applies the activation.

    MLP(64, [128, 10]) is Linear(64, 128), relu, Linear(128, 10), as nn.MLP(64, [128, 10]).
    """

    def __init__(self, nin: int, nouts: list[int], activation: str = 'relu', rng: np.random.Generator | None = None):
        if activation not in ACTIVATIONS:
            raise ValueError(f"MLP: activation must be one of {ACTIVATIONS}, got {activation!r}")
        sizes = [nin] + list(nouts)
        self.layers = [Linear(sizes[i], sizes[i + 1], rng=rng) for i in range(len(nouts))]
        self.activation = activation

    def forward(self, x: Tensor | np.ndarray) -> Tensor:
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = getattr(x, self.activation)()
        return x

    def __repr__(self) -> str:
        return f"MLP({', '.join(map(repr, self.layers))}, activation={self.activation!r})"


def _as_tensor(x: Tensor | np.ndarray, dtype: np.dtype) -> Tensor:
    """A layer takes an array input as a data tensor of its weights' dtype."""
    return x if isinstance(x, Tensor) else Tensor(x, dtype=dtype)


# --- optimizers: they update .data in place, from .grad ---

class SGD:
    """Gradient descent with optional momentum, as torch.optim.SGD:
    v = momentum * v + grad; p -= lr * v. (momentum=0 is plain p -= lr * grad.)
    Parameters whose .grad is None are skipped. Change .lr to decay it."""

    def __init__(self, params: Iterable[Tensor], lr: float = 0.01, momentum: float = 0.0):
        self.params = list(params)
        self.lr, self.momentum = lr, momentum
        self.velocities = [np.zeros_like(p.data) for p in self.params]

    def step(self) -> None:
        for p, v in zip(self.params, self.velocities):
            if p.grad is None:
                continue
            if self.momentum:  # v remembers past steps: a ball rolling downhill, slowed by (1 - momentum)
                v *= self.momentum
                v += p.grad
                p.data -= self.lr * v
            else:
                p.data -= self.lr * p.grad

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def __repr__(self) -> str:
        return f"SGD(lr={self.lr}, momentum={self.momentum}, params={len(self.params)})"


class Adam:
    """Adam, as torch.optim.Adam: running averages of the gradient (m) and of its square (v),
    corrected for starting at zero, give each number its own step size:
    p -= lr * m_hat / (sqrt(v_hat) + eps)."""

    def __init__(self, params: Iterable[Tensor], lr: float = 0.001, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8):
        self.params = list(params)
        self.lr, self.betas, self.eps = lr, betas, eps
        self.t = 0
        self.m = [np.zeros_like(p.data) for p in self.params]
        self.v = [np.zeros_like(p.data) for p in self.params]

    def step(self) -> None:
        self.t += 1
        b1, b2 = self.betas
        correction1, correction2 = 1 - b1 ** self.t, 1 - b2 ** self.t  # the averages start at 0: scale them up
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            g = p.grad
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            # In place and in PyTorch's order of operations, so both take the very same steps.
            denom = np.sqrt(v) / math.sqrt(correction2) + self.eps
            p.data -= (self.lr / correction1) * m / denom

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def __repr__(self) -> str:
        return f"Adam(lr={self.lr}, betas={self.betas}, eps={self.eps}, params={len(self.params)})"
