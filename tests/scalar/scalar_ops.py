"""The table of scalar ops the sweeps in test_engine_sweep.py are generated from, as PyTorch's OpInfo.

One row per form of an op, as a user writes it: `x - y` (two Values), `x - k` (a Value and a number), `k - x`
(a number on the left, so Value.__rsub__). Each row has our call, the same number in plain Python float
arithmetic (with `math`), PyTorch's counterpart (float64), the Value method its errors name, its domain (what
it refuses, and with which exception), where ordinary samples come from (inside the domain, away from kinks),
and every deliberate difference from PyTorch with its reason. A new op is one new row; every check of the
sweep then runs on it.

Every row is called as f(a, b) with the operands in the order they are written: for `k - x`, a is the number
and b the Value; a unary row ignores b.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from micrograd import Value

Refusal = type[Exception] | None


@dataclass(frozen=True)
class ScalarOp:
    name: str  # as a user writes it: x, y are Values, k is a number
    form: str  # 'unary' (x), 'values' (x, y), 'number' (x, k: the number on the right), 'rnumber' (k, x)
    ours: Callable[[Any, Any], Value]
    reference: Callable[[float, float], float]  # plain Python floats and math: raises where Python refuses
    theirs: Callable[[Any, Any, Any], Any]  # (torch, a, b): a Value's place holds a float64 tensor, a number's a float
    method: str  # the Value method it calls
    refuses: Callable[[float, float], Refusal] = lambda a, b: None  # our domain: the error for these operands
    errors_name: str = ''  # a regular expression for what a domain error says (default: method)
    operand_named: str = ''  # a regular expression for what a refused operand's error names (default: method)
    interval: tuple[float, float] = (-3.0, 3.0)  # ordinary samples of x (and y): inside the domain
    number_interval: tuple[float, float] = (-3.0, 3.0)  # ordinary samples of k
    kinks: tuple[float, ...] = ()  # where the derivative jumps: no difference quotient there
    ulps: int = 0  # how many units in the last place PyTorch's forward may differ (differs['forward'] says why)
    torch_differs: Callable[[float, float], bool] = lambda a, b: False  # where PyTorch gives another number or
    # gradient, beyond ulps (differs['forward'] or differs['grad'] says why)
    differs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # 'refuses' / 'forward' / 'grad' -> why

    @property
    def values(self) -> tuple[bool, bool]:
        """Which operands are Values (a, b)."""
        return {'unary': (True, False), 'values': (True, True), 'number': (True, False),
                'rnumber': (False, True)}[self.form]

    @property
    def operand_pattern(self) -> str:
        return self.operand_named or self.method.replace('.', r'\.')

    @property
    def error_pattern(self) -> str:
        return self.errors_name or self.method.replace('.', r'\.')


# --- the domains: which operands each op refuses, and with which exception ---

def _pow_refusal(x: float, k: float) -> Refusal:
    """x ** k for a number k: not real, a division by zero, or too large for a float."""
    if x < 0 and math.isfinite(k) and not k.is_integer() or x < 0 and math.isnan(k):
        return ValueError  # a fractional power of a negative base is not real
    if x == 0 and k < 0:
        return ZeroDivisionError
    try:
        x ** k
    except OverflowError:
        return OverflowError
    return None


def _exp_refusal(x: float) -> Refusal:
    try:
        math.exp(x)
    except OverflowError:
        return OverflowError
    return None


def _divisor(k: float) -> Refusal:
    return ZeroDivisionError if k == 0 else None


# --- the references: plain Python float arithmetic ---

def _pow(x: float, k: float) -> float:
    out = x ** k
    if isinstance(out, complex):  # Python's answer to a fractional power of a negative base
        raise ValueError(f"{x} ** {k} is not real")
    return out


def _relu(x: float) -> float:
    return 0.0 if x < 0 else x  # nan stays nan, as PyTorch's


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))  # the form that cannot overflow


def _dot2(a: float, b: float) -> float:
    return 0.0 + a * b + b * a  # Value.dot([a, b], [b, a]): summed left to right from 0


# --- the deliberate differences from PyTorch, each said once ---

ZERO_DIVISION = ("division by zero is refused (ZeroDivisionError), as Python's float division refuses it; PyTorch "
                 "gives inf or nan")
ZERO_TO_NEGATIVE = ("0 ** k for a negative k is refused (ZeroDivisionError), as in Python; PyTorch gives inf")
FRACTIONAL = ("a fractional (or nan) power of a negative base is refused (ValueError): no real number; Python "
              "gives a complex number, PyTorch nan")
POW_OVERFLOW = "x ** k too large for a float is refused (OverflowError), as in Python; PyTorch gives inf"
EXP_OVERFLOW = "exp(x) too large for a float (x > 709.78) is refused (OverflowError), as math.exp; PyTorch gives inf"
LOG_DOMAIN = ("log(x) for x <= 0 or nan is refused (ValueError), as math.log for x <= 0 (math.log(nan) is nan); "
              "PyTorch gives -inf at 0 and nan below")
TORCH_RECIPROCAL = ("k / x is float division; PyTorch computes it as x.reciprocal() * k, which may differ in the "
                    "last bit, and gives inf, nan, 0 or an infinite gradient where 1/x or 1/x**2 overflows or "
                    "underflows (x = 1e-170, 1e300)")

DIVISION_DIFFERS = {'refuses': (ZERO_DIVISION,)}
# What Python's float arithmetic refuses in the lecture's ops is Python's own error, raised in the op's line:
# its message says what went wrong, and the traceback's last line is the op's.
PYTHONS_DIVISION = r'division by zero'
PYTHONS_POW = r'Value\.__pow__|out of range'  # x ** k for k >= 1 is the lecture's: an overflow is Python's
PYTHONS_EXP = r'math range error'
PYTHONS_POW_OPERAND = r'Value\.__pow__|int too large to convert to float'  # (x ** 10**400: Python's own)
POW_DIFFERS = {'refuses': (FRACTIONAL, ZERO_TO_NEGATIVE, POW_OVERFLOW)}
INTEGER_POW_DIFFERS = {'refuses': (ZERO_TO_NEGATIVE, POW_OVERFLOW)}
VALUE_POW_DIFFERS = {'refuses': (FRACTIONAL, ZERO_TO_NEGATIVE, POW_OVERFLOW)}


def _reciprocal_overflows(k: float, x: float) -> bool:
    """Where PyTorch's x.reciprocal() * k for k / x is not k / x: 1/x**2 (in its gradient) overflows or underflows,
    or k is not finite."""
    return not 2.0 ** -511 < abs(x) < 2.0 ** 511 or not math.isfinite(k)


OPS: list[ScalarOp] = [
    ScalarOp('x + y', 'values', lambda a, b: a + b, lambda a, b: a + b, lambda t, a, b: a + b, 'Value.__add__'),
    ScalarOp('x + k', 'number', lambda a, b: a + b, lambda a, b: a + b, lambda t, a, b: a + b, 'Value.__add__'),
    ScalarOp('k + x', 'rnumber', lambda a, b: a + b, lambda a, b: a + b, lambda t, a, b: a + b,
             'Value.__add__'),  # (__radd__ is __add__: addition commutes)
    ScalarOp('x - y', 'values', lambda a, b: a - b, lambda a, b: a - b, lambda t, a, b: a - b, 'Value.__sub__'),
    ScalarOp('x - k', 'number', lambda a, b: a - b, lambda a, b: a - b, lambda t, a, b: a - b, 'Value.__sub__'),
    ScalarOp('k - x', 'rnumber', lambda a, b: a - b, lambda a, b: a - b, lambda t, a, b: a - b, 'Value.__rsub__'),
    ScalarOp('x * y', 'values', lambda a, b: a * b, lambda a, b: a * b, lambda t, a, b: a * b, 'Value.__mul__'),
    ScalarOp('x * k', 'number', lambda a, b: a * b, lambda a, b: a * b, lambda t, a, b: a * b, 'Value.__mul__'),
    ScalarOp('k * x', 'rnumber', lambda a, b: a * b, lambda a, b: a * b, lambda t, a, b: a * b, 'Value.__mul__'),
    ScalarOp('x / y', 'values', lambda a, b: a / b, lambda a, b: a / b, lambda t, a, b: a / b, 'Value.__truediv__',
             refuses=lambda a, b: _divisor(b), errors_name=PYTHONS_DIVISION, interval=(0.5, 3.0),
             differs=DIVISION_DIFFERS),
    ScalarOp('x / k', 'number', lambda a, b: a / b, lambda a, b: a / b, lambda t, a, b: a / b, 'Value.__truediv__',
             refuses=lambda a, b: _divisor(b), errors_name=PYTHONS_DIVISION, number_interval=(0.5, 3.0),
             differs=DIVISION_DIFFERS),
    ScalarOp('k / x', 'rnumber', lambda a, b: a / b, lambda a, b: a / b, lambda t, a, b: a / b,
             'Value.__rtruediv__', refuses=lambda a, b: _divisor(b), errors_name=PYTHONS_DIVISION,
             interval=(0.5, 3.0), ulps=1, torch_differs=_reciprocal_overflows,
             differs={**DIVISION_DIFFERS, 'forward': (TORCH_RECIPROCAL,), 'grad': (TORCH_RECIPROCAL,)}),
    ScalarOp('x ** y', 'values', lambda a, b: a ** b, _pow, lambda t, a, b: a ** b, 'Value.__pow__',
             refuses=_pow_refusal, interval=(0.5, 3.0), differs=VALUE_POW_DIFFERS),
    ScalarOp('x ** k', 'number', lambda a, b: a ** b, _pow, lambda t, a, b: a ** b, 'Value.__pow__',
             refuses=_pow_refusal, errors_name=PYTHONS_POW, operand_named=PYTHONS_POW_OPERAND, interval=(0.5, 3.0),
             differs=POW_DIFFERS),
    ScalarOp('x ** 3', 'unary', lambda a, b: a ** 3, lambda a, b: _pow(a, 3), lambda t, a, b: a ** 3,
             'Value.__pow__', refuses=lambda a, b: _pow_refusal(a, 3.0), errors_name=PYTHONS_POW,
             differs=INTEGER_POW_DIFFERS),
    ScalarOp('x ** -2', 'unary', lambda a, b: a ** -2, lambda a, b: _pow(a, -2), lambda t, a, b: a ** -2,
             'Value.__pow__', refuses=lambda a, b: _pow_refusal(a, -2.0), interval=(0.5, 3.0),
             differs=INTEGER_POW_DIFFERS),
    ScalarOp('x ** 0.5', 'unary', lambda a, b: a ** 0.5, lambda a, b: _pow(a, 0.5), lambda t, a, b: a ** 0.5,
             'Value.__pow__', refuses=lambda a, b: _pow_refusal(a, 0.5), interval=(0.5, 3.0),
             differs={'refuses': (FRACTIONAL,)}),
    ScalarOp('k ** x', 'rnumber', lambda a, b: a ** b, _pow, lambda t, a, b: a ** b, 'Value.__rpow__',
             refuses=_pow_refusal, errors_name=r'Value\.__r?pow__', number_interval=(0.5, 3.0),
             differs=VALUE_POW_DIFFERS),
    ScalarOp('-x', 'unary', lambda a, b: -a, lambda a, b: -a, lambda t, a, b: -a, 'Value.__neg__'),
    ScalarOp('relu', 'unary', lambda a, b: a.relu(), lambda a, b: _relu(a), lambda t, a, b: a.relu(), 'Value.relu',
             kinks=(0.0,)),
    ScalarOp('tanh', 'unary', lambda a, b: a.tanh(), lambda a, b: math.tanh(a), lambda t, a, b: a.tanh(),
             'Value.tanh'),
    ScalarOp('exp', 'unary', lambda a, b: a.exp(), lambda a, b: math.exp(a), lambda t, a, b: a.exp(), 'Value.exp',
             refuses=lambda a, b: _exp_refusal(a), errors_name=PYTHONS_EXP, differs={'refuses': (EXP_OVERFLOW,)}),
    ScalarOp('log', 'unary', lambda a, b: a.log(), lambda a, b: math.log(a), lambda t, a, b: a.log(), 'Value.log',
             refuses=lambda a, b: None if a > 0 else ValueError, interval=(0.5, 3.0),
             differs={'refuses': (LOG_DOMAIN,)}),
    ScalarOp('sigmoid', 'unary', lambda a, b: a.sigmoid(), lambda a, b: _sigmoid(a), lambda t, a, b: a.sigmoid(),
             'Value.sigmoid'),
    ScalarOp('dot([x, y], [y, x])', 'values', lambda a, b: Value.dot([a, b], [b, a]), _dot2,
             lambda t, a, b: 0.0 + a * b + b * a, 'Value.dot'),
    ScalarOp('dot([x], [k])', 'number', lambda a, b: Value.dot([a], [b]), lambda a, b: 0.0 + a * b,
             lambda t, a, b: 0.0 + a * b, 'Value.dot'),
    ScalarOp('dot([x], [2], bias=k)', 'number', lambda a, b: Value.dot([a], [2.0], b),
             lambda a, b: b + a * 2.0, lambda t, a, b: b + a * 2.0, 'Value.dot'),
]

BY_NAME = {op.name: op for op in OPS}
WITH_A_NUMBER = [op.name for op in OPS if op.form in ('number', 'rnumber')]

# The numbers a Value meets at the edges: zeros of both signs (relu's tie at 0), infinities, nan, a tiny number
# whose reciprocal is still a float (1e-170) and one whose reciprocal is not (1e-310, subnormal), a huge one,
# and ordinary numbers of both signs.
SPECIALS: dict[str, float] = {
    '0': 0.0, '-0.0': -0.0, 'inf': math.inf, '-inf': -math.inf, 'nan': math.nan, '1e-170': 1e-170,
    '1e-310': 1e-310, '1e300': 1e300, '-2.5': -2.5, '-1': -1.0, '0.5': 0.5, '1': 1.0, '2': 2.0,
}
ORDINARY = ('-2.5', '-1', '0.5', '1', '2')  # where a difference quotient is a fair check

# Numbers of every kind an op takes: each becomes a Python float first (np.uint8(3) is 3.0, so `x - k` cannot
# wrap around; np.float16(0.1) is 0.0999755859375 and the op is computed in float64).
NUMBERS: dict[str, object] = {
    'int': 3, 'negative int': -3, 'float': 0.1, 'bool': True, 'False': False,
    **{f'np.{t}': getattr(np, t)(3) for t in ('int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
                                              'uint64')},
    'np.int8 negative': np.int8(-3),
    **{f'np.{t}': getattr(np, t)(0.1) for t in ('float16', 'float32', 'float64')},
    'np.longdouble': np.longdouble(0.1), 'np.bool_': np.bool_(True),
    '0-d array float64': np.array(0.1), '0-d array uint8': np.array(3, dtype=np.uint8),
    '0-d array float16': np.array(0.1, dtype=np.float16), '0-d array bool': np.array(True),
    'Fraction': Fraction(1, 3),
}

# Things an op refuses as an operand, with the error: no real number, or a real number too large for a float.
NOT_NUMBERS: dict[str, tuple[object, type[Exception]]] = {
    'Decimal': (Decimal('0.1'), TypeError),  # as float + Decimal is refused
    'complex': (1 + 2j, TypeError), 'np.complex128': (np.complex128(1 + 2j), TypeError),
    'str': ('3', TypeError), 'np.str_': (np.str_('3'), TypeError), 'None': (None, TypeError),
    'list': ([3.0], TypeError), 'tuple': ((3.0,), TypeError), 'array (2,)': (np.array([3.0, 3.0]), TypeError),
    '0-d array of str': (np.array('3'), TypeError), 'array of one': (np.array([3.0]), TypeError),
    'np.datetime64': (np.datetime64('2024-01-01'), TypeError), 'np.timedelta64': (np.timedelta64(3, 's'), TypeError),
    '0-d array of objects': (np.array(3.0, dtype=object), TypeError),
    'int too large for a float': (10 ** 400, OverflowError),
}

# Where an operand kind is taken by one engine and refused by the other: on which side, and why (checked
# against PyTorch's `+`).
FRACTION = "a fractions.Fraction takes part as its float, as in Python's float arithmetic; PyTorch refuses it"
ZERO_D_ARRAY = "a 0-d NumPy array takes part as its number on either side; PyTorch refuses one on the left of a tensor"
COMPLEX = "complex numbers are refused (TypeError), as in a float's arithmetic; PyTorch computes in complex"
ARRAY = "a NumPy array of shape (n,) is refused (TypeError): a Value is one number; PyTorch broadcasts it"
BOTH_SIDES = ('right', 'left')
OPERAND_DIFFERENCES: dict[str, tuple[tuple[str, ...], str]] = {
    'Fraction': (BOTH_SIDES, FRACTION), **{kind: (('left',), ZERO_D_ARRAY) for kind in NUMBERS if '0-d' in kind},
    'complex': (BOTH_SIDES, COMPLEX), 'np.complex128': (BOTH_SIDES, COMPLEX),
    'array (2,)': (('right',), ARRAY), 'array of one': (('right',), ARRAY),
}

# Every deliberate difference from PyTorch, once each, for the README.
DIFFERENCES = [ZERO_DIVISION, TORCH_RECIPROCAL, ZERO_TO_NEGATIVE, FRACTIONAL, POW_OVERFLOW,
               EXP_OVERFLOW, LOG_DOMAIN, FRACTION, ZERO_D_ARRAY, COMPLEX, ARRAY]


# --- calling a row ---

def operands(op: ScalarOp, a: Any, b: Any) -> tuple[Any, Any, list[Value]]:
    """The operands for our call, a Value where the row has one; and those Values (whose gradients we check)."""
    first, second = op.values
    a = Value(a) if first else a
    b = Value(b) if second else b
    return a, b, [v for v in (a, b) if isinstance(v, Value)]


def central_differences(op: ScalarOp, a: float, b: float, h: float = 1e-6) -> list[float]:
    """(f(v + h) - f(v - h)) / 2h for each operand v that is a Value, with h relative to |v| beyond 1."""
    slopes = []
    for i, is_value in enumerate(op.values):
        if not is_value:
            continue
        step = h * max(1.0, abs((a, b)[i]))
        up, down = [a, b], [a, b]
        up[i] += step
        down[i] -= step
        slopes.append((op.ours(*operands(op, *up)[:2]).data - op.ours(*operands(op, *down)[:2]).data) / (2 * step))
    return slopes


def samples(op: ScalarOp, a: float, b: float) -> tuple[float, float]:
    """Map a and b from [0, 1] into the row's intervals: the Values' and the number's."""
    def into(u: float, interval: tuple[float, float]) -> float:
        return interval[0] + u * (interval[1] - interval[0])
    first, second = op.values
    return (into(a, op.interval if first else op.number_interval),
            into(b, op.interval if second else op.number_interval))
