"""The table of tensor ops the sweeps in test_tensor_sweep.py are generated from, as PyTorch's OpInfo.

One row per op: ours and PyTorch's counterpart (both called on the same sample inputs), the
shapes of those inputs, the dtypes each engine takes (the others are refused), the interval the
sample values come from, whether it has gradients, and every deliberate difference from PyTorch
with its reason. A new op is one new row; every check of the sweep then runs on it.

PyTorch runs with float64 as its default dtype (torch.set_default_dtype): ours is float64, so
`int_tensor * 1.5` is float64 in both.

The sweeps over OPS: test_tensor_sweep.py (dtypes, gradients, special values, operands, empty shapes),
test_tensor_half.py (float16 to 2 units in the last place, numbers with float16, counts past 65,504),
test_tensor_zero_d.py and test_tensor_edges.py (0-d inputs), test_tensor_mixed.py (an input that is data).
Four more tables, each with its sweep: ARGUMENTS, every numeric argument of the public functions and layer
constructors (test_tensor_arguments.py: given as NumPy scalars and 0-d arrays); LAYERS, each layer with the
PyTorch module holding its weights (test_tensor_layers.py; also each parameter frozen); LOSSES, each loss with
its targets (test_tensor_losses.py: targets that require grad, predictions that are data, 0-d and empty batches);
IN_PLACE, each change in place (test_tensor_inplace.py: every dtype by every kind of operand, and PyTorch's
habits: leaves under and outside no_grad, recording, backward after a change).
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import micrograd.tensor as mt

DTYPES = ('bool', 'int32', 'int64', 'float16', 'float32', 'float64')
FLOATS = frozenset({'float16', 'float32', 'float64'})
INTEGERS = frozenset({'int32', 'int64'})
ALL = frozenset(DTYPES)
NUMBERS = ALL - {'bool'}


@dataclass(frozen=True)
class Operand:
    """An array an op's backward reads that is no input it differentiates (a condition, an index, a mask; the
    losses' targets are LOSSES'), given to the op as an argument so that a sweep can change it after the forward
    (test_tensor_versions.py): ours(operand, *inputs) and theirs(torch, operand, *inputs) are the op."""
    what: str
    make: Callable[[tuple[int, ...]], np.ndarray]  # the operand, from the first input's shape
    change: Callable[[np.ndarray], np.ndarray]  # other values of it, to write into it after the forward
    ours: Callable[..., Any]
    theirs: Callable[..., Any]


def _first_flipped(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out.reshape(-1)[0] = ~out.reshape(-1)[0] if a.dtype == bool else out.reshape(-1)[0] + 1
    return out


@dataclass(frozen=True)
class Op:
    name: str
    ours: Callable[..., Any]
    theirs: Callable[..., Any]  # called with `torch` first, then the same inputs as torch tensors
    shapes: tuple[tuple[int, ...], ...]  # one shape per tensor input
    dtypes: frozenset[str] = ALL  # the dtypes we take (the others we refuse)
    torch_dtypes: frozenset[str] | None = None  # the dtypes PyTorch takes, if not the same: see differs
    interval: tuple[float, float] = (-3.0, 3.0)  # where sample values come from (integers: rounded)
    grad: bool = True  # gradients for float inputs
    binary: bool = False  # the second input may also be a number, a NumPy scalar or an array
    specials: bool = True  # try 0, -0, +-inf, nan and ties as inputs
    masks: bool = False  # backward selects (mask or branch): an inf/nan upstream gives 0 where PyTorch gives 0
    empty: tuple[tuple[int, ...], ...] = ()  # shapes with a 0 to try (one per tensor input)
    differs: dict[str, str] = field(default_factory=dict)  # check -> why we deliberately differ from PyTorch
    operand: Operand | None = None  # an array its backward reads besides the inputs (the op given it as an argument)

    def torch_takes(self, dtype: str) -> bool:
        return dtype in (self.dtypes if self.torch_dtypes is None else self.torch_dtypes)


def _ce_targets(n: int) -> np.ndarray:
    return np.arange(n) % 3


REFUSES_LOG = "log of data <= 0 is refused (ValueError); PyTorch gives -inf or nan"
REFUSES_FRACTIONAL = "a fractional power of a negative base is refused (ValueError); PyTorch gives nan"
SOFTMAX_INTS = "softmax of integers or bools is the softmax of their float64 values; PyTorch refuses them"
AMAX_NAN = ("a nan or an inf upstream gradient reaches only the extreme elements (torch.max(x)'s rule, also "
            "along an axis); torch.amax multiplies by the mask and spreads nan everywhere")
ABS_AT_0 = "|x|'s gradient at 0 is selected as 0 even for an inf upstream gradient; PyTorch multiplies: nan"
MIXED_MATMUL = "operands of different dtypes are promoted as for *; PyTorch's matmul refuses to mix dtypes"
NEGATIVE_POWER = ("an integer to a negative integer power is refused (ValueError): it is no integer; PyTorch "
                  "refuses int_tensor ** -1 but gives 2 ** int_tensor([-1]) = 0")
NUMPY_BOOL = ("np.bool_ takes part as a bool, as Python's True does; PyTorch takes it as a float "
              "(bool_tensor + np.bool_(True) is float64 there)")
FILL_FITS = ("the fill value must fit the dtype exactly; PyTorch truncates 1.5 into an integer tensor and "
             "turns -inf into True in a bool tensor")

OPS: list[Op] = [
    # --- element-wise, one input ---
    Op('neg', lambda x: -x, lambda t, x: -x, ((3, 4),), dtypes=NUMBERS),
    Op('abs', lambda x: x.abs(), lambda t, x: x.abs(), ((3, 4),), dtypes=NUMBERS, masks=True,
       differs={'upstream inf': ABS_AT_0}),
    Op('exp', lambda x: x.exp(), lambda t, x: x.exp(), ((3, 4),)),
    Op('log', lambda x: x.log(), lambda t, x: x.log(), ((3, 4),), interval=(0.5, 3.0),
       differs={'specials': REFUSES_LOG}),
    Op('tanh', lambda x: x.tanh(), lambda t, x: x.tanh(), ((3, 4),)),
    Op('sigmoid', lambda x: x.sigmoid(), lambda t, x: x.sigmoid(), ((3, 4),)),
    Op('relu', lambda x: x.relu(), lambda t, x: x.relu(), ((3, 4),), dtypes=NUMBERS, masks=True),
    Op('clamp', lambda x: x.clamp(-1, 1), lambda t, x: x.clamp(-1, 1), ((3, 4),), masks=True),
    Op('clamp min float', lambda x: x.clamp(min=0.5), lambda t, x: x.clamp(min=0.5), ((3, 4),), masks=True),
    Op('clip max', lambda x: x.clip(max=1), lambda t, x: x.clamp(max=1), ((3, 4),), masks=True),
    Op('pow 2', lambda x: x ** 2, lambda t, x: x ** 2, ((3, 4),)),
    Op('pow 0.5', lambda x: x ** 0.5, lambda t, x: x ** 0.5, ((3, 4),), interval=(0.5, 3.0),
       differs={'specials': REFUSES_FRACTIONAL}),
    Op('pow 0', lambda x: x ** 0, lambda t, x: x ** 0, ((3, 4),)),
    Op('rpow', lambda x: 2 ** x, lambda t, x: 2 ** x, ((3, 4),), dtypes=FLOATS | {'bool'}, torch_dtypes=ALL,
       differs={'dtypes': NEGATIVE_POWER}),
    Op('rsub', lambda x: 1 - x, lambda t, x: 1 - x, ((3, 4),), dtypes=NUMBERS),
    Op('rdiv', lambda x: 1 / x, lambda t, x: 1 / x, ((3, 4),)),
    Op('invert', lambda x: ~x, lambda t, x: ~x, ((3, 4),), dtypes=frozenset({'bool', 'int32', 'int64'}), grad=False),
    Op('softmax', lambda x: x.softmax(axis=-1), lambda t, x: x.softmax(dim=-1), ((3, 4),),
       torch_dtypes=FLOATS, empty=((2, 0),), differs={'dtypes': SOFTMAX_INTS}),
    Op('log_softmax', lambda x: x.log_softmax(axis=0), lambda t, x: x.log_softmax(dim=0), ((3, 4),),
       torch_dtypes=FLOATS, empty=((0, 3),), differs={'dtypes': SOFTMAX_INTS}),
    Op('astype float32', lambda x: x.astype(np.float32), lambda t, x: x.to(t.float32), ((3, 4),)),

    # --- element-wise, two inputs (with broadcasting; the second may be a number or an array) ---
    Op('add', lambda x, y: x + y, lambda t, x, y: x + y, ((3, 4), (4,)), binary=True, empty=((0, 4), (4,))),
    Op('sub', lambda x, y: x - y, lambda t, x, y: x - y, ((3, 4), (3, 1)), dtypes=NUMBERS, binary=True),
    Op('mul', lambda x, y: x * y, lambda t, x, y: x * y, ((2, 3, 4), (3, 1)), binary=True),
    Op('div', lambda x, y: x / y, lambda t, x, y: x / y, ((3, 4), (4,)), binary=True),
    Op('pow', lambda x, y: x ** y, lambda t, x, y: x ** y, ((3, 4), (4,)), dtypes=NUMBERS, interval=(0.5, 2.0),
       binary=True,
       differs={'specials': REFUSES_FRACTIONAL}),
    Op('eq', lambda x, y: x == y, lambda t, x, y: x == y, ((3, 4), (4,)), grad=False, binary=True),
    Op('ne', lambda x, y: x != y, lambda t, x, y: x != y, ((3, 4), (4,)), grad=False, binary=True),
    Op('lt', lambda x, y: x < y, lambda t, x, y: x < y, ((3, 4), (4,)), grad=False, binary=True),
    Op('le', lambda x, y: x <= y, lambda t, x, y: x <= y, ((3, 4), (4,)), grad=False, binary=True),
    Op('gt', lambda x, y: x > y, lambda t, x, y: x > y, ((3, 4), (4,)), grad=False, binary=True),
    Op('ge', lambda x, y: x >= y, lambda t, x, y: x >= y, ((3, 4), (4,)), grad=False, binary=True),
    Op('and', lambda x, y: x & y, lambda t, x, y: x & y, ((3, 4), (4,)), dtypes=frozenset({'bool', 'int32', 'int64'}),
       grad=False, binary=True, specials=False),
    Op('or', lambda x, y: x | y, lambda t, x, y: x | y, ((3, 4), (4,)), dtypes=frozenset({'bool', 'int32', 'int64'}),
       grad=False, binary=True, specials=False),
    Op('xor', lambda x, y: x ^ y, lambda t, x, y: x ^ y, ((3, 4), (4,)), dtypes=frozenset({'bool', 'int32', 'int64'}),
       grad=False, binary=True, specials=False),
    Op('where', lambda x, y: mt.where(x > 0, x, y), lambda t, x, y: t.where(x > 0, x, y), ((3, 4), (4,)),
       masks=True, binary=True,
       operand=Operand('condition', lambda shape: np.arange(np.prod(shape)).reshape(shape) % 3 == 0, _first_flipped,
                       lambda c, x, y: mt.where(c, x, y), lambda t, c, x, y: t.where(c, x, y))),
    Op('matmul', lambda x, y: x @ y, lambda t, x, y: x @ y, ((3, 4), (4, 2)), dtypes=NUMBERS,
       empty=((0, 4), (4, 2)), differs={'operands': MIXED_MATMUL}),
    Op('matmul batched', lambda x, y: x @ y, lambda t, x, y: x @ y, ((2, 3, 4), (4,)), dtypes=NUMBERS),
    Op('matmul rows', lambda x, y: x @ y, lambda t, x, y: x @ y, ((2, 3, 4), (4, 2)), dtypes=NUMBERS),

    # --- reductions ---
    Op('sum', lambda x: x.sum(), lambda t, x: x.sum(), ((3, 4),), empty=((0, 3),)),
    Op('sum axis', lambda x: x.sum(axis=1), lambda t, x: x.sum(dim=1), ((3, 4),), empty=((0, 3),)),
    Op('sum axes keepdims', lambda x: x.sum(axis=(0, -1), keepdims=True),
       lambda t, x: x.sum(dim=(0, -1), keepdim=True), ((2, 3, 4),)),
    Op('sum 0-d axis 0', lambda x: x.sum(axis=0), lambda t, x: x.sum(dim=0), ((),)),
    Op('sum numpy axis', lambda x: x.sum(axis=np.int64(1)), lambda t, x: x.sum(dim=1), ((3, 4),)),
    Op('mean', lambda x: x.mean(), lambda t, x: x.mean(), ((3, 4),), dtypes=FLOATS, empty=((0, 3),)),
    Op('mean axis', lambda x: x.mean(axis=1), lambda t, x: x.mean(dim=1), ((3, 4),), dtypes=FLOATS,
       empty=((0, 3),)),
    Op('mean axis 0 keepdims', lambda x: x.mean(axis=0, keepdims=True), lambda t, x: x.mean(dim=0, keepdim=True),
       ((3, 4),), dtypes=FLOATS, empty=((0, 3),)),
    Op('max', lambda x: x.max(), lambda t, x: x.max(), ((3, 4),), masks=True),
    Op('max axis', lambda x: x.max(axis=1), lambda t, x: x.amax(dim=1), ((3, 4),), masks=True, empty=((0, 3),),
       differs={'upstream inf': AMAX_NAN, 'specials grad': AMAX_NAN}),
    Op('min', lambda x: x.min(), lambda t, x: x.min(), ((3, 4),), masks=True),
    Op('min axis keepdims', lambda x: x.min(axis=0, keepdims=True), lambda t, x: x.amin(dim=0, keepdim=True),
       ((3, 4),), masks=True, differs={'upstream inf': AMAX_NAN, 'specials grad': AMAX_NAN}),

    # --- shapes and indexing ---
    Op('reshape', lambda x: x.reshape(np.int64(4), 3), lambda t, x: x.reshape(4, 3), ((3, 4),), specials=False),
    Op('clone', lambda x: x.clone(), lambda t, x: x.clone(), ((3, 4),)),
    Op('reshape numpy size', lambda x: x.reshape(np.prod(x.shape)), lambda t, x: x.reshape(-1), ((3, 4),),
       specials=False),
    Op('permute', lambda x: x.permute(np.int64(2), 0, 1), lambda t, x: x.permute(2, 0, 1), ((2, 3, 4),),
       specials=False),
    Op('permute 1-d', lambda x: x.permute(np.int64(0)), lambda t, x: x.permute(0), ((4,),), specials=False),
    Op('swapaxes', lambda x: x.swapaxes(0, -1), lambda t, x: x.transpose(0, -1), ((2, 3, 4),), specials=False),
    Op('T', lambda x: x.T, lambda t, x: x.permute(1, 0), ((3, 4),), specials=False),
    Op('getitem int', lambda x: x[1], lambda t, x: x[1], ((3, 4),), masks=True),
    Op('getitem slice', lambda x: x[1:, ::2], lambda t, x: x[1:, ::2], ((3, 4),), masks=True),
    Op('getitem rows', lambda x: x[np.array([0, 2, 0, -1])], lambda t, x: x[t.tensor([0, 2, 0, -1])], ((3, 4),),
       masks=True, operand=Operand('index', lambda shape: np.array([0, 2, 0, -1]), _first_flipped,
                                   lambda i, x: x[i], lambda t, i, x: x[i])),
    Op('getitem mask', lambda x: x[x > 0], lambda t, x: x[x > 0], ((3, 4),), masks=True, specials=False),
    Op('masked_fill', lambda x: x.masked_fill(np.array([True, False, False, True]), 0),
       lambda t, x: x.masked_fill(t.tensor([True, False, False, True]), 0), ((3, 4),), masks=True,
       operand=Operand('mask', lambda shape: np.array([True, False, False, True]), _first_flipped,
                       lambda m, x: x.masked_fill(m, 0), lambda t, m, x: x.masked_fill(m, 0))),
    Op('masked_fill -inf', lambda x: x.masked_fill(x > 1, -np.inf),
       lambda t, x: x.masked_fill(x > 1, -np.inf), ((3, 4),), dtypes=FLOATS, torch_dtypes=FLOATS | {'bool'}, masks=True,
       differs={'dtypes': FILL_FITS}),
    Op('masked_fill by a comparison', lambda x: x.masked_fill(x == 0, 7), lambda t, x: x.masked_fill(x == 0, 7),
       ((3, 4),), dtypes=NUMBERS, torch_dtypes=ALL, masks=True, differs={'dtypes': FILL_FITS}),

    # --- losses and the functional ops of the layers ---
    Op('mse_loss', lambda x, y: mt.mse_loss(x, y), lambda t, x, y: t.nn.functional.mse_loss(x, y), ((3, 4), (3, 4)),
       dtypes=FLOATS, empty=((0, 4), (0, 4))),
    Op('binary_cross_entropy', lambda p: mt.binary_cross_entropy(p, np.full(p.shape, 0.25)),
       lambda t, p: t.nn.functional.binary_cross_entropy(p, t.full(p.shape, 0.25, dtype=p.dtype)), ((3, 4),),
       dtypes=FLOATS, interval=(0.05, 0.95), specials=False),
    Op('binary_cross_entropy_with_logits', lambda z: mt.binary_cross_entropy_with_logits(z, np.full(z.shape, 0.25)),
       lambda t, z: t.nn.functional.binary_cross_entropy_with_logits(z, t.full(z.shape, 0.25, dtype=z.dtype)),
       ((3, 4),), dtypes=FLOATS),
    Op('cross_entropy', lambda x: mt.cross_entropy(x, _ce_targets(x.shape[0])),
       lambda t, x: t.nn.functional.cross_entropy(x, t.from_numpy(_ce_targets(x.shape[0]))), ((4, 3),),
       dtypes=FLOATS, specials=False),
    Op('rms_norm', lambda x: mt.rms_norm(x), lambda t, x: t.nn.functional.rms_norm(x, (x.shape[-1],), eps=1e-5),
       ((3, 4),), dtypes=FLOATS, specials=False),
    Op('scaled_dot_product_attention', lambda q, k, v: mt.scaled_dot_product_attention(q, k, v, is_causal=True),
       lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
       ((2, 3, 4), (2, 3, 4), (2, 3, 2)), dtypes=FLOATS, specials=False),
]

OP_NAMES = [op.name for op in OPS]
BY_NAME = {op.name: op for op in OPS}

# The operand kinds a binary op's second input can be, each made for a given dtype where it has one.
NUMBER_OPERANDS: dict[str, object] = {
    'int': 2, 'float': 1.5, 'bool': True, 'negative int': -1,
    'np.bool_': np.bool_(True), 'np.int8': np.int8(2), 'np.int32': np.int32(2), 'np.int64': np.int64(2),
    'np.uint8': np.uint8(2), 'np.float16': np.float16(1.5), 'np.float32': np.float32(1.5),
    'np.float64': np.float64(1.5),
}

# Things that are no numbers: every op refuses them as an operand (== and != answer False, as PyTorch does).
NOT_NUMBERS: dict[str, object] = {
    'None': None, 'str': '1.5', 'complex': 1 + 2j, 'list of str': ['1', '2', '3', '4'],
    'array of str': np.array(['1', '2', '3', '4']), 'array of objects': np.array([1.0, None, 2.0, 3.0], dtype=object),
    'array of complex': np.ones(4, dtype=complex),
    'array of dates': np.array(['2024-01-01'] * 4, dtype='datetime64[D]'),
}

# Values a float input may hold at the edges: zeros of both signs, infinities, nan, ties, and ordinary numbers.
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0, 2.0, -1.5, 0.5, 1.0, 3.0, -2.0])


# --- numeric arguments: each one of a public function or layer constructor, with a call that passes it ---

@dataclass(frozen=True)
class Argument:
    """A numeric argument (a limit, eps, an axis, a size, ...) and a call passing it: (the argument, a float
    input x of shape (3, 4) that requires grad) -> a Tensor. A NumPy scalar or 0-d array given in place of the
    Python number must give the same result, dtype and gradients."""
    name: str
    value: float | int | bool  # the Python number; the sweep also passes it as each NumPy form of its type
    call: Callable[[Any, mt.Tensor], mt.Tensor]


def _like(layer: Any, x: mt.Tensor) -> Any:
    """The layer with its parameters in x's dtype (a float32 model), made from the same random numbers."""
    for p in layer.parameters():
        p.data = p.data.astype(x.dtype)
    return layer


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


ARGUMENTS: list[Argument] = [
    # Tensor methods
    Argument('clamp min', 0.5, lambda v, x: x.clamp(min=v)),
    Argument('clamp max', 1, lambda v, x: x.clamp(max=v)),
    Argument('clip min', -0.25, lambda v, x: x.clip(v, 2.0)),
    Argument('masked_fill value', 1e-8, lambda v, x: x.masked_fill(x.data > 0, v)),
    Argument('masked_fill int value', 7, lambda v, x: x.masked_fill(x.data > 0, v)),
    Argument('pow exponent', 2.5, lambda v, x: (x * x + 1) ** v),
    Argument('rpow base', 1.5, lambda v, x: v ** x),
    Argument('mul', 1e-8, lambda v, x: x * v),
    Argument('div', 70000.0, lambda v, x: x / v),
    Argument('rdiv', 3.0, lambda v, x: v / (x * x + 1)),
    Argument('add', 1e-4, lambda v, x: x + v),
    Argument('rsub int', 3, lambda v, x: v - x),
    Argument('where', 1e-8, lambda v, x: mt.where(x.data > 0, x, v)),
    Argument('sum axis', 1, lambda v, x: x.sum(axis=v)),
    Argument('mean axis', -1, lambda v, x: x.mean(axis=v, keepdims=True)),
    Argument('max axis', 0, lambda v, x: x.max(axis=v)),
    Argument('min axes', 1, lambda v, x: x.min(axis=(0, v))),
    Argument('softmax axis', 0, lambda v, x: x.softmax(v)),
    Argument('log_softmax axis', -1, lambda v, x: x.log_softmax(axis=v)),
    Argument('reshape size', 12, lambda v, x: x.reshape(v)),
    Argument('reshape sizes', 4, lambda v, x: x.reshape(v, -1)),
    Argument('permute', 1, lambda v, x: x.permute(v, 0)),
    Argument('transpose', 1, lambda v, x: x.transpose((v, 0))),
    Argument('swapaxes', -1, lambda v, x: x.swapaxes(0, v)),
    Argument('getitem', 2, lambda v, x: x[v]),
    Argument('getitem negative', -1, lambda v, x: x[:, v]),
    # functions
    Argument('rms_norm eps', 1e-3, lambda v, x: mt.rms_norm(x, eps=v)),
    Argument('rms_norm eps 0', 0.0, lambda v, x: mt.rms_norm(x, v)),
    Argument('cross_entropy ignore_index', 1, lambda v, x: mt.cross_entropy(x, [0, 1, 2], ignore_index=v)),
    Argument('causal_mask size', 3, lambda v, x: x[:, :3].masked_fill(mt.causal_mask(v), 0.0)),
    Argument('mse_loss target', 0.25, lambda v, x: mt.mse_loss(x.mean(), v)),
    Argument('binary_cross_entropy target', 0.25, lambda v, x: mt.binary_cross_entropy(x.mean().sigmoid(), v)),
    Argument('binary_cross_entropy_with_logits target', 0.75,
             lambda v, x: mt.binary_cross_entropy_with_logits(x.mean(), v)),
    Argument('sum keepdims', True, lambda v, x: x.sum(axis=0, keepdims=v)),
    Argument('max keepdims', True, lambda v, x: x.max(axis=1, keepdims=v)),
    Argument('scaled_dot_product_attention is_causal', True,
             lambda v, x: mt.scaled_dot_product_attention(x, x, x, is_causal=v)),
    # layer constructors
    Argument('Linear bias', False, lambda v, x: _like(mt.Linear(4, 2, bias=v, rng=_rng()), x)(x)),
    Argument('MLP bias', False, lambda v, x: _like(mt.MLP(4, [3, 2], bias=v, rng=_rng()), x)(x)),
    Argument('RMSNorm elementwise_affine', False, lambda v, x: mt.RMSNorm(4, elementwise_affine=v)(x)),
    Argument('Linear in_features', 4, lambda v, x: _like(mt.Linear(v, 2, rng=_rng()), x)(x)),
    Argument('Linear out_features', 2, lambda v, x: _like(mt.Linear(4, v, rng=_rng()), x)(x)),
    Argument('MLP nin', 4, lambda v, x: _like(mt.MLP(v, [3, 1], rng=_rng()), x)(x)),
    Argument('MLP nouts', 3, lambda v, x: _like(mt.MLP(4, [v, 1], activation='tanh', rng=_rng()), x)(x)),
    Argument('Embedding num_embeddings', 5,
             lambda v, x: _like(mt.Embedding(v, 4, rng=_rng()), x)(np.array([0, 4, 2])) * x),
    Argument('Embedding embedding_dim', 4, lambda v, x: _like(mt.Embedding(3, v, rng=_rng()), x)([2, 1, 0]) * x),
    Argument('RMSNorm dim', 4, lambda v, x: _like(mt.RMSNorm(v), x)(x)),
    Argument('RMSNorm eps', 1e-3, lambda v, x: _like(mt.RMSNorm(4, eps=v), x)(x)),
    Argument('RMSNorm eps without weight', 1e-3, lambda v, x: mt.RMSNorm(4, eps=v, elementwise_affine=False)(x)),
    Argument('CausalSelfAttention n_embd', 4, lambda v, x: _like(mt.CausalSelfAttention(v, 2, rng=_rng()), x)(x)),
    Argument('CausalSelfAttention n_head', 2, lambda v, x: _like(mt.CausalSelfAttention(4, v, rng=_rng()), x)(x)),
]

# Each NumPy form a number of a kind can be given in.
BOOL_FORMS: dict[str, Callable[[bool], Any]] = {'np.bool_': np.bool_, '0-d bool array': lambda v: np.array(v)}
FLOAT_FORMS: dict[str, Callable[[float], Any]] = {
    'np.float64': np.float64, 'np.float32': np.float32, 'np.float16': np.float16,
    '0-d float64 array': lambda v: np.array(v, dtype=np.float64),
    '0-d float32 array': lambda v: np.array(v, dtype=np.float32),
}
INT_FORMS: dict[str, Callable[[int], Any]] = {
    'np.int64': np.int64, 'np.int32': np.int32, 'np.int8': np.int8, 'np.uint8': np.uint8,
    '0-d int64 array': lambda v: np.array(v, dtype=np.int64), '0-d int32 array': lambda v: np.array(v, dtype=np.int32),
}


# --- layers: each with the PyTorch module that computes the same, given the same weights ---

@dataclass(frozen=True)
class Layer:
    """A layer, made from seeded random weights, and PyTorch's module holding the same weights.

    theirs(torch, ours) builds the module from our layer's parameters (torch in float64, the caller
    converts both to the dtype under test). inputs: the shape of a float input, or 'indices'."""
    name: str
    ours: Callable[[], Any]
    theirs: Callable[[Any, Any], Any]
    shape: tuple[int, ...] | str


def _torch_linear(torch: Any, layer: Any) -> Any:
    module = torch.nn.Linear(*layer.weight.data.shape, bias=layer.bias is not None)
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(layer.weight.data.T.copy()))
        if layer.bias is not None:
            module.bias.copy_(torch.from_numpy(layer.bias.data.copy()))
    return module


_TORCH_ACTIVATIONS = {'relu': 'ReLU', 'tanh': 'Tanh', 'sigmoid': 'Sigmoid', 'linear': 'Identity'}


def _torch_mlp(torch: Any, mlp: Any) -> Any:
    parts: list[Any] = []
    for layer in mlp.layers:
        parts += [_torch_linear(torch, layer), getattr(torch.nn, _TORCH_ACTIVATIONS[mlp.activation])()]
    return torch.nn.Sequential(*parts[:-1])


def _torch_embedding(torch: Any, layer: Any) -> Any:
    return torch.nn.Embedding.from_pretrained(torch.from_numpy(layer.weight.data.copy()), freeze=False)


def _torch_rms_norm(torch: Any, layer: Any) -> Any:
    module = torch.nn.RMSNorm(layer.dim, eps=layer.eps, elementwise_affine=layer.weight is not None)
    if layer.weight is not None:
        with torch.no_grad():
            module.weight.copy_(torch.from_numpy(layer.weight.data.copy()))
    return module


def _torch_attention(torch: Any, layer: Any) -> Any:
    q, k, v, o = (_torch_linear(torch, part) for part in (layer.q, layer.k, layer.v, layer.o))
    n_head = layer.n_head

    class Attention(torch.nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.q, self.k, self.v, self.o = q, k, v, o

        def forward(self, x: Any) -> Any:
            *batch, T, C = x.shape

            def heads(t: Any) -> Any:
                return t.reshape(*batch, T, n_head, C // n_head).transpose(-3, -2)
            y = torch.nn.functional.scaled_dot_product_attention(heads(self.q(x)), heads(self.k(x)), heads(self.v(x)),
                                                                 is_causal=True)
            return self.o(y.transpose(-3, -2).reshape(x.shape))
    return Attention()


LAYERS: list[Layer] = [
    Layer('Linear', lambda: mt.Linear(4, 3, rng=_rng()), _torch_linear, (5, 4)),
    Layer('Linear without bias, batched', lambda: mt.Linear(4, 3, bias=False, rng=_rng()), _torch_linear, (2, 5, 4)),
    Layer('Linear of one vector', lambda: mt.Linear(4, 3, rng=_rng()), _torch_linear, (4,)),
    Layer('MLP relu', lambda: mt.MLP(4, [6, 3], rng=_rng()), _torch_mlp, (5, 4)),
    Layer('MLP tanh', lambda: mt.MLP(4, [6, 3], activation='tanh', rng=_rng()), _torch_mlp, (5, 4)),
    Layer('MLP sigmoid', lambda: mt.MLP(4, [6, 2, 3], activation='sigmoid', rng=_rng()), _torch_mlp, (5, 4)),
    Layer('Embedding', lambda: mt.Embedding(6, 4, rng=_rng()), _torch_embedding, 'indices'),
    Layer('RMSNorm', lambda: mt.RMSNorm(4), _torch_rms_norm, (2, 5, 4)),
    Layer('RMSNorm eps, no weight', lambda: mt.RMSNorm(4, eps=1e-2, elementwise_affine=False), _torch_rms_norm,
          (5, 4)),
    Layer('CausalSelfAttention', lambda: mt.CausalSelfAttention(8, 2, rng=_rng()), _torch_attention, (2, 5, 8)),
    Layer('CausalSelfAttention of one sequence', lambda: mt.CausalSelfAttention(8, 4, rng=_rng()), _torch_attention,
          (5, 8)),
]


# --- losses: each with PyTorch's, and how its inputs and targets are made ---

@dataclass(frozen=True)
class Loss:
    """A loss, PyTorch's (called with torch.nn.functional first), and its sample prediction and target for a
    shape: prediction(rng, shape) and target(rng, shape) as float64 arrays (or integer class indices)."""
    name: str
    ours: Callable[[Any, Any], Any]
    theirs: Callable[[Any, Any, Any], Any]
    prediction: Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]
    target: Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]
    shapes: tuple[tuple[int, ...], ...] = ((4, 3), (), (0, 3))  # a batch, 0-d, empty


def _normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.asarray(rng.normal(size=shape))


def _probability(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.asarray(rng.uniform(0.05, 0.95, size=shape))


def _class_indices(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.asarray(rng.integers(0, shape[-1], size=shape[:-1]))


LOSSES: list[Loss] = [
    Loss('mse_loss', mt.mse_loss, lambda F, p, t: F.mse_loss(p, t), _normal, _normal),
    Loss('binary_cross_entropy', mt.binary_cross_entropy, lambda F, p, t: F.binary_cross_entropy(p, t),
         _probability, _probability),
    Loss('binary_cross_entropy_with_logits', mt.binary_cross_entropy_with_logits,
         lambda F, p, t: F.binary_cross_entropy_with_logits(p, t), _normal, _probability),
    Loss('cross_entropy, probabilities', mt.cross_entropy, lambda F, p, t: F.cross_entropy(p, t), _normal,
         _probability, shapes=((4, 3), (3,), (0, 3))),  # (3,): one row, PyTorch's unbatched input
    Loss('cross_entropy, class indices', mt.cross_entropy, lambda F, p, t: F.cross_entropy(p, t), _normal,
         _class_indices, shapes=((4, 3), (3,), (0, 3))),
]


# --- changes in place: each with PyTorch's counterpart (test_tensor_inplace.py) ---

@dataclass(frozen=True)
class InPlace:
    """A change in place of x (shape (3, 4)) by y, ours and PyTorch's, written as a user writes them. y is a tensor of
    shape (4,) (it broadcasts), or a number for the ops that take one."""
    name: str
    ours: Callable[[Any, Any], Any]
    theirs: Callable[[Any, Any], Any]  # the same, on torch tensors
    takes: str = 'tensor'  # what y is: 'tensor', 'number' or 'nothing'
    dtypes: frozenset[str] = ALL  # the dtypes of x whose values the sweep compares (PyTorch may refuse some)
    grad: bool = True  # gradients flow through it
    differs: dict[str, str] = field(default_factory=dict)  # check -> why we deliberately differ from PyTorch


def _set(x: Any, y: Any) -> Any:
    x[1:, ::2] = y[::2] if hasattr(y, 'shape') and y.shape == (4,) else y  # t[index] = value
    return x


FILL_REFUSES = "a fill value must fit the dtype exactly (1.5 into an integer tensor is refused); PyTorch truncates"

IN_PLACE: list[InPlace] = [
    InPlace('+=', operator.iadd, operator.iadd),
    InPlace('-=', operator.isub, operator.isub, dtypes=NUMBERS),
    InPlace('*=', operator.imul, operator.imul),
    InPlace('/=', operator.itruediv, operator.itruediv),
    InPlace('**=', operator.ipow, operator.ipow, takes='number', dtypes=NUMBERS),
    InPlace('&=', operator.iand, operator.iand, dtypes=frozenset({'bool', 'int32', 'int64'}), grad=False),
    InPlace('|=', operator.ior, operator.ior, dtypes=frozenset({'bool', 'int32', 'int64'}), grad=False),
    InPlace('^=', operator.ixor, operator.ixor, dtypes=frozenset({'bool', 'int32', 'int64'}), grad=False),
    InPlace('add_', lambda x, y: x.add_(y), lambda x, y: x.add_(y)),
    InPlace('add_ alpha', lambda x, y: x.add_(y, alpha=-0.5), lambda x, y: x.add_(y, alpha=-0.5), dtypes=FLOATS),
    InPlace('sub_', lambda x, y: x.sub_(y), lambda x, y: x.sub_(y), dtypes=NUMBERS),
    InPlace('sub_ alpha', lambda x, y: x.sub_(y, alpha=2), lambda x, y: x.sub_(y, alpha=2), dtypes=NUMBERS),
    InPlace('mul_', lambda x, y: x.mul_(y), lambda x, y: x.mul_(y)),
    InPlace('div_', lambda x, y: x.div_(y), lambda x, y: x.div_(y)),
    InPlace('zero_', lambda x, y: x.zero_(), lambda x, y: x.zero_(), takes='nothing'),
    InPlace('fill_', lambda x, y: x.fill_(y), lambda x, y: x.fill_(y), takes='number',
            differs={'values': FILL_REFUSES}),
    InPlace('copy_', lambda x, y: x.copy_(y), lambda x, y: x.copy_(y)),
    InPlace('[] =', _set, _set),
]
IN_PLACE_NAMES = [op.name for op in IN_PLACE]
