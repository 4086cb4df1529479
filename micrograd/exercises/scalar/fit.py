"""Naming a wrong gradient from its numbers alone, when no slip the rules derive (slips.py) gives them.

A leaf's gradient is what the learner's closure added to it: grad times some local derivative. Read off the
cases, that addition is a function of the op's input x (and y), its output `out` and the upstream `grad`. This
module tries the shapes a learner's formula takes (a power, a reciprocal, 1 - a, a * (1 - a), a product or a
quotient of the operands, a function applied to one) and says which one the learner's numbers follow on every
input, beside the derivative the op has. Before that, the plainest stories: a leaf that gets nothing, or a
constant times its gradient.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from micrograd.exercises.numbers import close, number

Env = dict[str, float]
Form = tuple[str, Callable[[Env], float]]


def _sigmoid(v: float) -> float:
    return 1 / (1 + math.exp(-v)) if v >= 0 else math.exp(v) / (1 + math.exp(v))


# The shapes of a local derivative in one quantity a: (text with {a}, function of a).
UNARY: list[tuple[str, Callable[[float], float]]] = [
    ('{a}', lambda a: a), ('-{a}', lambda a: -a), ('{a}**2', lambda a: a * a), ('2*{a}', lambda a: 2 * a),
    ('-2*{a}', lambda a: -2 * a), ('1/{a}', lambda a: 1 / a), ('-1/{a}', lambda a: -1 / a),
    ('1/{a}**2', lambda a: 1 / (a * a)), ('-1/{a}**2', lambda a: -1 / (a * a)), ('1 - {a}', lambda a: 1 - a),
    ('1 + {a}', lambda a: 1 + a), ('{a} - 1', lambda a: a - 1), ('1 - {a}**2', lambda a: 1 - a * a),
    ('1 + {a}**2', lambda a: 1 + a * a), ('{a}**2 - 1', lambda a: a * a - 1), ('{a}*(1 - {a})', lambda a: a * (1 - a)),
    ('{a}*(1 + {a})', lambda a: a * (1 + a)), ('(1 - {a})**2', lambda a: (1 - a) ** 2),
    ('{a}**2*(1 - {a})', lambda a: a * a * (1 - a)), ('{a}*(1 - {a}**2)', lambda a: a * (1 - a * a)),
    ('-2*{a}*(1 - {a}**2)', lambda a: -2 * a * (1 - a * a)), ('1/(1 + {a})', lambda a: 1 / (1 + a)),
    ('exp({a})', math.exp), ('exp(-{a})', lambda a: math.exp(-a)), ('log({a})', math.log), ('tanh({a})', math.tanh),
    ('sigmoid({a})', _sigmoid), ('1/cosh({a})', lambda a: 1 / math.cosh(a)), ('cosh({a})', math.cosh),
    ('({a} > 0)', lambda a: float(a > 0)), ('({a} >= 0)', lambda a: float(a >= 0)),
    ('({a} < 0)', lambda a: float(a < 0)),
    ('({a} != 0)', lambda a: float(a != 0)), ('sign({a})', lambda a: math.copysign(1.0, a) if a else 0.0),
    ('(1 if {a} > 0 else -1)', lambda a: 1.0 if a > 0 else -1.0),
]
BINARY: list[tuple[str, Callable[[float, float], float]]] = [
    ('{a}*{b}', lambda a, b: a * b), ('{a}/{b}', lambda a, b: a / b), ('-{a}/{b}', lambda a, b: -a / b),
    ('{a}/{b}**2', lambda a, b: a / (b * b)), ('-{a}/{b}**2', lambda a, b: -a / (b * b)),
    ('{a}**2/{b}', lambda a, b: a * a / b), ('{a} + {b}', lambda a, b: a + b), ('{a} - {b}', lambda a, b: a - b),
    ('{a}*log({b})', lambda a, b: a * math.log(b)), ('{a}**{b}', lambda a, b: a ** b),
]
# How grad enters: the chain rule's grad * f, f alone (the chain factor forgotten), f + grad, f / grad.
CHAIN: list[tuple[str, Callable[[float, float], float]]] = [
    ('grad * ({f})', lambda f, g: g * f), ('-grad * ({f})', lambda f, g: -g * f), ('{f}', lambda f, g: f),
    ('{f} + grad', lambda f, g: f + g),
    ('{f} / grad', lambda f, g: f / g),
]


def _atoms(names: list[str]) -> list[Form]:
    out: list[Form] = [(n, (lambda n: lambda env: env[n])(n)) for n in names]
    if 'y' in names:  # the power rule's exponents
        out += [('(y - 1)', lambda env: env['y'] - 1), ('(y + 1)', lambda env: env['y'] + 1)]
    return out


def forms(names: list[str]) -> Iterator[Form]:
    """Every local-derivative shape over the quantities named (x, y, out), with 1 for a constant."""
    atoms = _atoms(names)
    yield '1', lambda env: 1.0
    for text, f in UNARY:
        for a, fa in atoms:
            yield text.format(a=a), (lambda f, fa: lambda env: f(fa(env)))(f, fa)
    for text, g in BINARY:
        for a, fa in atoms:
            for b, fb in atoms:
                if a != b:
                    yield text.format(a=a, b=b), (lambda g, fa, fb: lambda env: g(fa(env), fb(env)))(g, fa, fb)
    for a, fa in atoms:  # y * x**(y-1) and its slips: c * b**d
        for b, fb in atoms:
            for d, fd in atoms:
                if len({a, b, d}) == 3 or (a == d and a != b):
                    yield (f"{a} * {b}**{d}",
                           (lambda fa, fb, fd: lambda env: fa(env) * fb(env) ** fd(env))(fa, fb, fd))


def _follows(f: Callable[[Env], float], samples: list[tuple[Env, float]]) -> bool:
    try:
        return all(close(f(env), value, rel=1e-6, abs_=1e-9) for env, value in samples)
    except (ArithmeticError, ValueError, TypeError, KeyError):
        return False


def _chained(f: Callable[[Env], float], how: Callable[[float, float], float]) -> Callable[[Env], float]:
    return lambda env: how(f(env), env['grad'])


def story(leaf: str, samples: list[tuple[Env, float, float]], names: list[str], right: str) -> str:
    """What a leaf's wrong gradient follows, said plainly ('' when nothing fits). samples: per case, the case's
    quantities (x, y, out, grad), what the learner added to the leaf, and what the library adds."""
    added = [(env, got) for env, got, _ in samples]
    if all(close(got, 0.0) for _, got in added):
        return f"`{leaf}` gets no gradient at all"
    ratios = [got / want for _, got, want in samples if want]
    scaled = len(ratios) == len(samples) and all(close(r, ratios[0]) for r in ratios)
    if scaled and close(ratios[0], -1.0):
        return f"`{leaf}` gets minus its gradient (a sign flipped)"
    nice = scaled and any(close(ratios[0], c) for c in (2, 3, 4, 0.5, 1 / 3, 0.25, -2, -0.5))
    if nice and len(samples) < 3:  # too few inputs to tell a formula: the factor is the story
        return f"`{leaf}` gets {number(round(ratios[0], 6))} times its gradient"
    for text, f in forms(names) if len(samples) > 1 else ():
        for chain, how in CHAIN:
            if _follows(_chained(f, how), added):
                return (f"`{leaf}` gets {chain.format(f=text)} on every input, where the derivative gives "
                        f"grad * ({right})")
    if scaled:
        return f"`{leaf}` gets {number(round(ratios[0], 6))} times its gradient" + ('' if nice else " on these inputs")
    return ''


def roles_of(case: Any) -> dict[str, str] | None:
    """For a case `out = x OP y` or `out = x.f()`: which leaf is the op's x and which its y; for the dot each leaf
    its own ('w1', 'b'); None otherwise."""
    code, leaves = case.code, list(case.leaves)
    if code.startswith('out = Value.dot('):
        return {leaf: leaf for leaf in leaves}
    binary = re.fullmatch(r'out = (\w+) \S+ ([\w.\-]+)', code)
    if binary and binary.group(1) in leaves:
        roles = {binary.group(1): 'x'}
        if binary.group(2) in leaves and binary.group(2) != binary.group(1):
            roles[binary.group(2)] = 'y'
        return roles
    unary = re.fullmatch(r'out = (\w+)\.\w+\(\)', code)
    if unary and unary.group(1) in leaves:
        return {unary.group(1): 'x'}
    return None


def explain(cases: list[Any], runs: list[Any], wants: list[Any], right: dict[str, str], binary: bool) -> str:
    """The stories of every wrong leaf, over the cases whose code is `out = x OP y` or `out = x.f()` (no value used
    twice, no extreme input); '' when a wrong leaf has none."""
    by_role: dict[str, list[tuple[Env, float, float]]] = {}
    for case, run, want in zip(cases, runs, wants):
        roles = roles_of(case)  # (the dot's leaves: each its own story, no formula to fit)
        if roles is None or case.reuses or case.extreme or run.error is not None or None in (run.grads, want.grads):
            continue
        env = {'out': want.data, 'grad': case.grad}
        if 'x' in roles.values():
            env['x'] = case.leaves[next(k for k, r in roles.items() if r == 'x')]
            constant = case.code.split()[-1]
            env['y'] = case.leaves.get(constant, 0.0) if 'y' in roles.values() else _number(constant)
        for leaf, role in roles.items():
            prior = case.prior.get(leaf, 0.0)
            by_role.setdefault(role, []).append((env, run.grads[leaf] - prior, want.grads[leaf] - prior))
    names = ['x', 'y', 'out'] if binary else ['x', 'out']
    stories = []
    for role, samples in by_role.items():
        if all(close(got, want) for _, got, want in samples):
            continue
        said = story(role, samples, names, right.get(role, '?'))
        if not said:
            return ''
        stories.append(said)
    return '; '.join(stories)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0
