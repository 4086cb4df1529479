"""Running a case with some engine (the learner's, the library's, a slip's), backpropagated by the checker's own loop,
which also watches for a `_backward` writing into an array another node may hold (x + y hands one to both parents)."""
from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from micrograd.engine import topological_order
from micrograd.exercises.lines import swapped
from micrograd.exercises.numbers import central_difference
from micrograd.exercises.tensor.cases import Array, Case
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import library_module


@dataclass
class Run:
    """One case run with one engine."""
    grads: dict[str, Array | None] = field(default_factory=dict)
    out: Array | None = None          # the output's data
    error: BaseException | None = None
    built: bool = True                # False: the forward pass raised (nothing to compare)
    inplace: str = ''                 # a write in place by a _backward: 'inplace' (into the grad it was handed),
    inplace_op: str = ''              # 'inplace_data' (a tensor's data), 'inplace_saved' (an array the forward
    inplace_name: str = ''            # pass saved for it); the op, and the name the closure gives the array
    handed: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    # ^ each _add_grad call: (the tensor's name, or its shape in brackets; its shape; the shape of the array handed)
    given: dict[str, Any] = field(default_factory=dict)   # data tensors of the case: any .grad they got

    @property
    def misshaped(self) -> tuple[str, tuple[int, ...], tuple[int, ...]] | None:
        """The last array handed to _add_grad not of its tensor's shape or a broadcast of it (_add_grad may hide it)."""
        return next((h for h in reversed(self.handed) if not fits(h[1], h[2])), None)


def fits(shape: tuple[int, ...], given: tuple[int, ...]) -> bool:
    """Whether an array of shape `given` is a gradient for a tensor of `shape`, as it is or broadcast."""
    try:
        return given == shape or np.broadcast_shapes(shape, given) == given
    except ValueError:
        return False


def forward(case: Case, module: Any, leaves: dict[str, Any]) -> dict[str, Any]:
    """The names case's code leaves (out too), run on leaves with module's Tensor (and module as F: F.rms_norm)."""
    namespace = {'Tensor': module.Tensor, 'np': np, 'F': module, **case.given, **leaves}
    exec(case.code, namespace)
    return namespace


def _saved(backward: Any) -> dict[str, Array]:
    """The arrays a _backward closure holds (what the forward pass saved for it), by the closure's names."""
    try:
        held = inspect.getclosurevars(backward).nonlocals
    except (TypeError, ValueError):  # (not a function, or a cell not filled yet)
        return {}
    return {name: value for name, value in held.items() if isinstance(value, np.ndarray)}


def backpropagate(out: Any, upstream: Array) -> tuple[str, str, str]:
    """The chain rule from out, seeded with upstream: Run's (inplace, inplace_op, inplace_name) of its first write."""
    order: list[Any] = topological_order(out)  # (tensors: the engine's sort works on any node with _prev)
    for node in order:
        node.grad = None
    out.grad = upstream.copy()
    tensors = {id(t): t for node in order for t in (node, *node._prev)}
    data = {key: np.array(t.data, copy=True) for key, t in tensors.items()}
    with np.errstate(all='ignore'):
        for node in reversed(order):
            op, watched = node._op or '?', {'grad': node.grad, **_saved(node._backward)}
            kept = {name: np.array(a, copy=True) for name, a in watched.items()}
            node._backward(node.grad)
            for name, a in watched.items():
                if not np.array_equal(kept[name], a, equal_nan=True):
                    of_data = any(np.shares_memory(a, t.data) for t in tensors.values())
                    return ('inplace' if name == 'grad' else 'inplace_data' if of_data else 'inplace_saved'), op, name
            if any(not np.array_equal(data[key], tensors[key].data, equal_nan=True) for key in data):
                return 'inplace_data', op, ''
    return '', '', ''


def run_case(case: Case, module: Any) -> Run:
    """case built with module's Tensor and backpropagated from its upstream gradient, noting the shape of every
    array handed to _add_grad (a shape error is then said in the operand's terms)."""
    data = case.data()
    if 'unbroadcast' in case.code:  # unbroadcast: a function of arrays
        try:
            out = forward(case, module, {'unbroadcast': module.unbroadcast, **data})['out']
        except Exception as error:  # noqa: BLE001 -- reported with the line that raised it
            return Run(error=error)
        return Run({'out': np.asarray(out) if isinstance(out, (np.ndarray, np.generic)) else out})
    Tensor = module.Tensor
    try:
        leaves = {name: Tensor(x, requires_grad=True, dtype=x.dtype) for name, x in data.items()}
        namespace = forward(case, module, leaves)
        out = namespace['out']
    except Exception as error:  # noqa: BLE001 -- an engine that cannot make this input
        return Run(error=error, built=False)
    given = {k: v for k, v in namespace.items() if isinstance(v, Tensor) and k not in leaves and k != 'out'}
    names = {id(t): name for name, t in leaves.items()}
    handed: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []
    holder = next(c for c in Tensor.__mro__ if '_add_grad' in vars(c))
    original = vars(holder)['_add_grad']

    def _add_grad(self: Any, grad: Any, *args: Any, **kwargs: Any) -> Any:
        shape = tuple(self.data.shape)
        handed.append((names.get(id(self), f"[{shape}]"), shape, tuple(np.shape(grad))))
        return original(self, grad, *args, **kwargs)
    try:
        with swapped([(holder, '_add_grad', _add_grad)]):
            kind, op, array = backpropagate(out, case.upstream(out.data.shape))
    except Exception as error:  # noqa: BLE001
        return Run(out=out.data, error=error, given=given, handed=handed)
    grads = {name: (None if t.grad is None else np.array(t.grad)) for name, t in leaves.items()}
    return Run(grads, out.data, inplace=kind, inplace_op=op, inplace_name=array, given=given, handed=handed)


# --- what the right answer is ------------------------------------------------------------------------

@cache
def expected(number: int, index: int) -> tuple[Run, dict[str, Array]]:
    """The library's run of a case, and the central differences of its forward pass (float64)."""
    exercise = EXERCISES[number - 1]
    case = exercise.cases[index]
    run = run_case(case, library_module())
    return run, central_differences(case) if exercise.kind == 'op' and not case.kink and run.error is None else {}


def central_differences(case: Case) -> dict[str, Array]:
    """d(sum(upstream * out))/d(leaf), each element nudged both ways, in float64 with the library's forward."""
    tensor = importlib.import_module('micrograd.tensor')
    data = {k: v.astype(np.float64) for k, v in case.data().items()}

    def loss(name: str, i: tuple[int, ...], value: float) -> float:
        values = {**data, name: data[name].copy()}
        values[name][i] = value
        out = forward(case, tensor, {k: tensor.Tensor(v) for k, v in values.items()})['out'].data.astype(np.float64)
        return float(np.sum(case.upstream(out.shape).astype(np.float64) * out))
    return {name: np.array([central_difference(lambda v: loss(name, i, v), float(x[i])) for i in np.ndindex(*x.shape)]
                           ).reshape(x.shape) for name, x in data.items()}


@cache
def torch_grads(number: int, index: int) -> dict[str, Array] | None:
    """PyTorch's gradients for an op's case, where PyTorch is installed (None where it is not, or cannot run it)."""
    case = EXERCISES[number - 1].cases[index]
    code = case.torch or case.code.replace('axis=', 'dim=').replace('keepdims=', 'keepdim=')
    try:
        torch = importlib.import_module('torch')
        leaves = {k: torch.tensor(v, requires_grad=True) for k, v in case.data().items()}
        namespace = {'torch': torch, 'np': np, 'F': torch.nn.functional, 'Tensor': torch.tensor, **case.given, **leaves}
        exec(code, namespace)
        out = namespace['out']
        out.backward(torch.tensor(case.upstream(tuple(out.shape))))
    except Exception:  # noqa: BLE001 -- no PyTorch, or a case it spells otherwise: central differences still check it
        return None
    return {k: t.grad.numpy().copy() if t.grad is not None else np.zeros_like(case.data()[k])
            for k, t in leaves.items()}


def tolerance(dtype: Any) -> tuple[float, float]:
    return (2e-4, 1e-5) if np.dtype(dtype) == np.float32 else (1e-7, 1e-10)


def close(a: Array | None, b: Array | None, dtype: Any = np.float64, loose: bool = False) -> bool:
    """Same shape and the same numbers (within dtype's rounding; loose: central differences' error)."""
    if a is None or b is None or not isinstance(a, np.ndarray) or np.shape(a) != np.shape(b):
        return False
    rtol, atol = (1e-4, 1e-6) if loose else tolerance(dtype)
    scale = float(np.max(np.abs(b))) if np.size(b) else 1.0
    return bool(np.allclose(a, b, rtol=rtol, atol=atol * max(1.0, scale), equal_nan=True))


def differing(got: dict[str, Any], want: dict[str, Any] | Exception, dtype: Any) -> list[str]:
    """The tensors whose gradients in got differ from want's in numbers or dtype (all, where want is an error)."""
    if isinstance(want, Exception):
        return list(got)
    return [k for k, g in got.items() if not (g is want.get(k) is None or close(g, want.get(k), dtype)
                                              and g.dtype == want[k].dtype)]


def shown(gradients: dict[str, Any] | Exception, names: Iterable[str]) -> str:
    """Gradients as a report shows them (those of names), or the type of the error raised instead."""
    if isinstance(gradients, Exception):
        return type(gradients).__name__
    return '; '.join(summary(n, gradients.get(n)) for n in names)


def summary(name: str, g: Any) -> str:
    """'b.grad = [0.52, -1.3, 0.8] (3,)': a gradient as a report shows it."""
    if g is None:
        return f"{name}.grad = None"
    if not isinstance(g, np.ndarray):
        return f"{name} = {type(g).__name__} {g!r}"[:100]
    numbers = ', '.join(f"{v:.4g}" for v in g.flat[:8]) + (', ...' if g.size > 8 else '')
    dtype = '' if g.dtype == np.float64 else f" {g.dtype}"
    return f"{name}.grad = [{numbers}] {g.shape}{dtype}" if name != 'out' else f"[{numbers}] {g.shape}{dtype}"
