"""The inputs of the tensor track: a few tensors and a line of code building `out` from them, run with the
learner's Tensor and the library's, backpropagated from a random upstream gradient. Each case is made to expose a
slip: shapes that broadcast (a size-1 axis, a missing leading axis, 0-d, empty), non-square matrices beside a
square one, random non-symmetric upstream gradients (all ones hide a dropped chain factor), float32 and float64."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


@dataclass(frozen=True, eq=False)
class Case:
    leaves: dict[str, tuple[int, ...]]   # the tensors that require gradients, by name: their shapes
    code: str                            # statements that end by binding out (Tensor, np and F are known)
    torch: str = ''                      # the same in PyTorch, where code does not read as PyTorch
    dtype: str = 'float64'
    values: str = 'normal'               # 'normal', 'positive' (log), 'ties' (max), 'away' (no 0: relu)
    given: dict[str, Any] = field(default_factory=dict)  # data the code reads: indices, targets, masks
    kink: bool = False                   # central differences do not apply (relu at 0, tied maxima)
    ones: bool = False                   # an upstream gradient of ones (the case the ones hide)
    seed: int = 0
    note: str = ''                       # what the case is for, said beside it in a report
    fixed: dict[str, Any] = field(default_factory=dict)  # leaves whose numbers are given, not drawn

    def data(self) -> dict[str, Array]:
        """The leaves' numbers, rounded to 2 decimals (a report shows them), from the case's own seed (or fixed)."""
        rng = np.random.default_rng(1000 + self.seed)
        out = {}
        for name, shape in self.leaves.items():
            if name in self.fixed:
                x = np.reshape(self.fixed[name], shape)
            elif self.values == 'positive':
                x = rng.uniform(0.3, 3.0, shape)
            elif self.values == 'ties':
                x = rng.integers(0, 3, shape).astype(float)
            else:
                x = rng.normal(0.0, 1.0, shape)
                if self.values == 'away':
                    x = np.where(x >= 0, x + 0.2, x - 0.2)
            out[name] = np.asarray(np.round(x, 2), dtype=self.dtype)
        return out

    def upstream(self, shape: tuple[int, ...]) -> Array:
        """The gradient arriving at out: random and non-symmetric (or ones)."""
        if self.ones:
            return np.ones(shape, dtype=self.dtype)
        rng = np.random.default_rng(2000 + self.seed)
        return np.asarray(np.round(rng.normal(0.0, 1.0, shape) + 0.3, 2), dtype=self.dtype)

    def text(self) -> str:
        """The case as a learner reads it: shapes and the code."""
        dtype = '' if self.dtype == 'float64' else f" {self.dtype}"
        shapes = ', '.join(f"{name} {shape}{dtype}" for name, shape in self.leaves.items())
        given = ''.join(f", {name} = {_given(v)}" for name, v in self.given.items())
        code = self.code.replace(chr(10), '; ')
        if 'unbroadcast' in self.code:  # a function of arrays: g is the gradient, shown when it is small
            g = self.data()['g']
            numbers = f" = {np.array2string(g, separator=', ')}".replace('\n', '') if 0 < g.size <= 12 else ''
            text = f"g {g.shape}{dtype}{numbers}: {code}"
        else:
            text = f"{shapes}{given}: {code}   (upstream gradient: {'ones' if self.ones else 'random'})"
        return f"{text}   [{self.note}]" if self.note else text


@dataclass(frozen=True)
class Graph:
    leaves: dict[str, list[float] | float]
    nodes: tuple[tuple[str, str, tuple[str, ...]], ...]   # (name, op, parents), each after its parents
    root: str
    dtype: str = 'float64'
    calls: int = 1                                  # backward() called this many times
    seed: tuple[float, ...] | None = None           # backward(grad=seed), for a root that is no scalar
    note: str = ''

    def text(self) -> str:
        """The graph as a learner can paste it, and the backward() call(s) the check makes."""
        dtype = '' if self.dtype == 'float64' else f", dtype=np.{self.dtype}"
        lines = [f"{n} = Tensor({v!r}, requires_grad=True{dtype})" for n, v in self.leaves.items()]
        for name, op, parents in self.nodes:
            lines.append(f"{name} = {parents[0]}.sum()" if op == 'sum' else f"{name} = {f' {op} '.join(parents)}")
        call = f"backward({list(self.seed) if self.seed is not None else ''})"
        return '; '.join(lines) + f"; {self.root}.{call}" * self.calls + (f"   [{self.note}]" if self.note else '')


def _given(v: Any) -> str:
    if isinstance(v, np.ndarray):
        text = str(v.tolist()) if v.dtype.kind in 'iub' else np.array2string(v, separator=', ')
        return text if len(text) < 60 else f"array of shape {v.shape}"
    return repr(v)


def case(leaves: str, code: str, **kw: Any) -> Case:
    """case('x 4,3; b 3', 'out = x + b'): the leaves as `name shape` pairs ('-' is 0-d)."""
    shapes = {}
    for part in leaves.split(';'):
        name, _, shape = part.strip().partition(' ')
        shapes[name] = () if shape.strip() in ('-', '') else tuple(int(n) for n in shape.split(','))
    return Case(shapes, code, **kw)


def reduced_axes(big: tuple[int, ...], small: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of `big` that broadcasting `small` to it stretched: those to sum over to come back."""
    extra = len(big) - len(small)
    if extra < 0:
        return ()
    return tuple(range(extra)) + tuple(i + extra for i, n in enumerate(small) if n == 1 and big[i + extra] != 1)

