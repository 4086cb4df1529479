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
from collections.abc import Iterator
from functools import cache
from types import CodeType
from typing import Any

from micrograd.exercises.numbers import close, number

Env = dict[str, float]
# The names a form's text may use beside x, y, out and grad.
FUNCTIONS = {'exp': math.exp, 'log': math.log, 'tanh': math.tanh, 'cosh': math.cosh,
             'sigmoid': lambda v: 1 / (1 + math.exp(-v)) if v >= 0 else math.exp(v) / (1 + math.exp(v)),
             'sign': lambda v: math.copysign(1.0, v) if v else 0.0}
# The shapes of a local derivative in one quantity a, or two (a and b), as Python reads them.
UNARY = ['{a}', '-{a}', '{a}**2', '2*{a}', '-2*{a}', '1/{a}', '-1/{a}', '1/{a}**2', '-1/{a}**2', '1 - {a}', '1 + {a}',
         '{a} - 1', '1 - {a}**2', '1 + {a}**2', '{a}**2 - 1', '{a}*(1 - {a})', '{a}*(1 + {a})', '(1 - {a})**2',
         '{a}**2*(1 - {a})', '{a}*(1 - {a}**2)', '-2*{a}*(1 - {a}**2)', '1/(1 + {a})', 'exp({a})', 'exp(-{a})',
         'log({a})', 'tanh({a})', 'sigmoid({a})', '1/cosh({a})', 'cosh({a})', '({a} > 0)', '({a} >= 0)', '({a} < 0)',
         '({a} != 0)', 'sign({a})', '(1 if {a} > 0 else -1)']
BINARY = ['{a}*{b}', '{a}/{b}', '-{a}/{b}', '{a}/{b}**2', '-{a}/{b}**2', '{a}**2/{b}', '{a} + {b}', '{a} - {b}',
          '{a}*log({b})', '{a}**{b}']
# How grad enters: the chain rule's grad * f, f alone (the chain factor forgotten), f + grad, f / grad.
CHAIN = ['grad * ({f})', '-grad * ({f})', '{f}', '{f} + grad', '{f} / grad']


def forms(names: tuple[str, ...]) -> Iterator[str]:
    """Every local-derivative shape over the quantities named (x, y, out), with 1 for a constant."""
    atoms = [*names, *(['(y - 1)', '(y + 1)'] if 'y' in names else [])]  # (y: the power rule's exponents)
    yield '1'
    yield from (text.format(a=a) for text in UNARY for a in atoms)
    yield from (text.format(a=a, b=b) for text in BINARY for a in atoms for b in atoms if a != b)
    yield from (f"{a} * {b}**{d}" for a in atoms for b in atoms for d in atoms  # y * x**(y-1) and its slips
                if len({a, b, d}) == 3 or (a == d and a != b))


@cache
def _chained(names: tuple[str, ...]) -> list[tuple[str, CodeType]]:
    """Each form with grad entering each way: (as said, compiled)."""
    return [(chain.format(f=form), compile(chain.format(f=f"({form})"), '<form>', 'eval'))
            for form in forms(names) for chain in CHAIN]


def _follows(code: CodeType, samples: list[tuple[Env, float]]) -> bool:
    try:
        return all(close(eval(code, FUNCTIONS, env), value, rel=1e-6, abs_=1e-9)  # noqa: S307 -- the forms above
                   for env, value in samples)
    except (ArithmeticError, ValueError, TypeError, NameError):
        return False


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
    for said, code in _chained(tuple(names)) if len(samples) > 1 else ():
        if _follows(code, added):
            return f"`{leaf}` gets {said} on every input, where the derivative gives grad * ({right})"
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
