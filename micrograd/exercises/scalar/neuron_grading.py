"""Grading the neuron, the idea first: parameters() lists w and b, and activation(w . x + b) is made from Values
(the lecture's tanh neuron passes). Then the library's rules: ReLU by default, a single Value, inputs counted."""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from operator import mul
from typing import Any

from micrograd.exercises.cutting import blank_raised
from micrograd.exercises.numbers import close, number
from micrograd.exercises.result import NOT_STARTED, Result
from micrograd.exercises.sandbox import set_input
from micrograd.exercises.scalar import outcome
from micrograd.exercises.scalar.drive import reaches
from micrograd.exercises.scalar.exercises import BIAS, EXERCISES, NEGATIVE, POSITIVE, WEIGHTS, Exercise
from micrograd.exercises.scalar.places import line_with, method_place

SETTING = f"n = Neuron(3); weights {list(WEIGHTS)}, bias {BIAS} (set on n.w[i].data, n.b.data)"
ACTIVATIONS: dict[str, Callable[[float], float]] = {'relu': lambda v: max(v, 0.0), 'tanh': math.tanh,
                                                    'linear': lambda v: v, 'sigmoid': lambda v: 1 / (1 + math.exp(-v))}


def _slipped(x: tuple[float, ...]) -> list[tuple[str, float, re.Pattern[str] | None]]:
    """w . x + b by each slip (the bias dropped, added per input, an operand squared), and what its line holds."""
    squared = re.compile(r'\b([\w.]+(\[\w+\])?)\s*\*\s*\1\b')  # wi * wi, self.w[i] * self.w[i]
    return [('neuron_no_bias', sum(map(mul, WEIGHTS, x)), None),
            ('neuron_bias_per_input', sum(map(mul, WEIGHTS, x)) + len(x) * BIAS, re.compile(r'self\.b\b')),
            *(('neuron_squared', sum(map(mul, v, v)) + BIAS, squared) for v in (WEIGHTS, x))]


def _neuron(neuron_class: Any, nin: int, **kw: Any) -> Any:
    n = neuron_class(nin, **kw)
    for w, v in zip(n.w, WEIGHTS):
        w.data = v
    n.b.data = BIAS
    return n


def _error(exercise: Exercise, neuron_class: Any, method: str, text: str, error: BaseException, want: str) -> Result:
    place = method_place(neuron_class, method)
    if blank_raised(error, len(EXERCISES)) is not None:
        return outcome.wrong(exercise, 'unfinished', input=text, expected=want, obtained='NotImplementedError',
                             place=place)
    return outcome.raised(exercise, text, error, want, place=place)


def _check_parameters(exercise: Exercise, neuron_class: Any) -> Result | None:
    set_input(text := SETTING + "; n.parameters()")
    n = _neuron(neuron_class, 3)
    want = "[n.w[0], n.w[1], n.w[2], n.b]"
    try:
        params = n.parameters()
    except Exception as error:  # noqa: BLE001
        return _error(exercise, neuron_class, 'parameters', text, error, want)
    fields = {'input': text, 'expected': want, 'place': method_place(neuron_class, 'parameters')}
    if not isinstance(params, list):
        return outcome.wrong(exercise, 'params_not_list', obtained=type(params).__name__, **fields)
    own = {id(w): f'n.w[{i}]' for i, w in enumerate(n.w)} | {id(n.b): 'n.b'}
    got = [own.get(id(p), repr(p)) for p in params]
    for key, wrong in (('params_nested', any(isinstance(p, (list, tuple)) for p in params)),
                       ('params_twice', len(set(got)) != len(got)),
                       ('params_extra', any(id(p) not in own for p in params)),
                       ('params_no_bias', 'n.b' not in got), ('params_no_weights', len(got) < len(own))):
        if wrong:
            return outcome.wrong(exercise, key, obtained=f"[{', '.join(got)}]", **fields)
    return None


def _forward(exercise: Exercise, value_class: Any, neuron_class: Any, kw: dict[str, Any],
             x: tuple[float, ...]) -> tuple[Result | None, str]:
    """The neuron made with kw, on x: a Result when it goes wrong (else None), and the activation its value is."""
    args = ''.join(f", {k}={v!r}" for k, v in kw.items())
    set_input(text := SETTING.replace('Neuron(3)', f'Neuron(3{args})') + f"; out = n({list(x)})")
    activation = 'linear' if kw.get('nonlin') is False else kw.get('activation', 'relu')
    act = sum(map(mul, WEIGHTS, x)) + BIAS
    want = ACTIVATIONS[activation](act)
    described = 'no activation' if activation == 'linear' else activation
    shown = f"out.data = {number(want)}   ({described} of w . x + b = {number(act)})"
    n = _neuron(neuron_class, 3, **kw)
    try:
        out = n(list(x))
    except Exception as error:  # noqa: BLE001
        return _error(exercise, neuron_class, '__call__', text, error, shown), ''
    data = getattr(out, 'data', out)
    place = method_place(neuron_class, '__call__')
    if not close(data, want):  # the sum a slip makes (named at its line), else the right one, under an activation
        found = ((key, name, needle) for key, total, needle in [*_slipped(x), ('neuron_forward', act, None)]
                 for name, f in ACTIVATIONS.items() if close(data, f(total)))
        key, applied, needle = next(found, ('neuron_forward', '', None))
        return outcome.wrong(exercise, key, input=text, expected=shown, obtained=f"out.data = {number(data)}",
                             place=line_with(neuron_class, '__call__', needle) if needle else place), applied
    if not isinstance(out, value_class) or not reaches(out, [*n.w, n.b]):
        return outcome.wrong(exercise, 'neuron_detached', input=text, expected="out, a Value made from n.w and n.b",
                             obtained=f"{type(out).__name__} {out!r}"[:120], place=place), ''
    return None, ''


def check_neuron(exercise: Exercise, value_class: Any, neuron_class: Any, strict: bool) -> Result:
    outcomes: list[Result | None] = [_check_parameters(exercise, neuron_class)]
    # The idea: activation(w . x + b) for the activation of the library's default (relu) or the lecture's (tanh)
    plan: list[tuple[dict[str, Any], tuple[float, ...]]] = [
        ({}, POSITIVE), ({}, NEGATIVE), ({'activation': 'tanh'}, POSITIVE), ({'nonlin': False}, NEGATIVE),
        ({'activation': 'sigmoid'}, NEGATIVE)]
    ran: list[tuple[Result | None, str]] = []
    for kw, x in plan:
        try:
            ran.append(_forward(exercise, value_class, neuron_class, kw, x))
        except TypeError as error:  # a lecture Neuron without this option: nothing to check
            if strict:
                outcomes.append(outcome.raised(exercise, f"Neuron(3, {kw})", error))
    if all(r is not None and r.diagnosis == 'unfinished' for r in [*outcomes, *(r for r, _ in ran)]):
        return Result.of(exercise, NOT_STARTED)
    if failed := next((r for r in outcomes if r is not None), None):
        return failed
    missing, shown = list[tuple[str, str]](), dict[str, str]()
    if wrong := [(r, applied) for r, applied in ran if r is not None]:  # a forward value differs: said first
        result, applied = wrong[0]
        if len(wrong) == len(ran) or result.diagnosis != 'neuron_forward' or not applied:
            return result
        did = f"{applied}(w . x + b)" if applied != 'linear' else "w . x + b itself, with no activation"
        said = f"your {result.obtained} is {did}; this Neuron gives {result.expected}"
        missing.append(('neuron_activation', f"on `{result.input}` {said}"))
        shown = {'input': result.input, 'expected': result.expected, 'obtained': result.obtained,
                 'place': line_with(neuron_class, '__call__', f'.{applied}(') if applied != 'linear' else ''}
    missing += _inputs(exercise, value_class, neuron_class)
    shown['place'] = shown.get('place') or method_place(neuron_class, '__call__')
    return outcome.verdict(exercise, {}, "activation(w . x + b), built from Values", missing, **shown)


def _inputs(exercise: Exercise, value_class: Any, neuron_class: Any) -> list[tuple[str, str]]:
    """The rules about inputs: one Value taken (from a one-neuron Layer), inputs of the wrong number refused."""
    missing = []
    set_input(text := "n = Neuron(1); weight 0.5, bias 0.25; out = n(Value(2.0))")
    try:
        n = _neuron(neuron_class, 1)
        out = n(value_class(2.0))
        if not close(getattr(out, 'data', None), ACTIVATIONS[getattr(n, 'activation', 'relu')](1.25)):
            missing.append(('neuron_single_value', f"`{text}` gives out.data = {number(getattr(out, 'data', out))}"))
    except Exception as error:  # noqa: BLE001
        missing.append(('neuron_single_value', f"`{text}` raises {type(error).__name__}"))
    set_input(text := "n = Neuron(3); n([1.0, 2.0])")
    try:
        _neuron(neuron_class, 3)([1.0, 2.0])
        missing.append(('neuron_length', f"`{text}` gives an output instead of ValueError"))
    except Exception as error:  # noqa: BLE001
        if not isinstance(error, ValueError):
            missing.append(('neuron_length', f"`{text}` raises {type(error).__name__}, not ValueError"))
    return missing
