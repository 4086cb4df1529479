"""Naming a wrong gradient from the learner's numbers: the slip (slips.py) that gives them, else the formula in the
op's x (and y), `out` and `grad` they follow: its derivative at the wrong place (misplaced()), or one of forms()."""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from functools import cache
from types import CodeType
from typing import Any

from micrograd import ops
from micrograd.exercises.derived_slips import reproducing
from micrograd.exercises.lines import place_of
from micrograd.exercises.numbers import close, number, same
from micrograd.exercises.scalar.drive import Run, expected, run_case
from micrograd.exercises.scalar.exercises import Case, Exercise
from micrograd.exercises.scalar.slips import RULES, variants

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
         '({a} != 0)', 'sign({a})', '(1 if {a} > 0 else -1)', '1 - tanh({a})**2']
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
        return all(close(eval(code, FUNCTIONS, env), value) for env, value in samples)  # noqa: S307 -- the forms above
    except (ArithmeticError, ValueError, TypeError, NameError):
        return False


def local_form(names: tuple[str, ...], samples: list[tuple[Env, float]], right: list[tuple[Env, float]]) -> str:
    """The first form a local derivative's samples follow where the right one's do not ('' when none does)."""
    codes = ((form, compile(f"({form})", '<form>', 'eval')) for form in forms(names))
    return next((form for form, code in codes if _follows(code, samples) and not _follows(code, right)), '')


def misplaced(right: str, forward: str, one_operand: bool) -> list[tuple[str, str]]:
    """The derivative right taken at the wrong place, as slips name it: (key, its form): 1 - out**2 as 1 - x**2."""
    def put(name: str, value: str, formula: str) -> str:
        return re.sub(rf'\b{name}\b', value, formula)
    if re.search(r'\bout\b', right):
        again = put('x', 'out', forward)  # f(out), in parentheses where it is more than a call
        again = f"({again})" if ' ' in again else again
        return [('at_input', put('out', 'x', right)), ('applied_twice', put('out', again, right))]
    return [('at_output', put('x', 'out', right))] if one_operand and re.search(r'\bx\b', right) else []


def story(leaf: str, samples: list[tuple[Env, float, float]], names: list[str], right: str,
          forward: str, one_operand: bool) -> tuple[str, str]:
    """The key and what a leaf's wrong gradient follows ('' when nothing fits). samples: per case, its quantities
    (x, y, out, grad), what the learner added to the leaf, and what the library adds."""
    added = [(env, got) for env, got, _ in samples]
    if all(close(got, 0.0) for _, got in added):
        return 'formula', f"`{leaf}` gets no gradient at all"
    wrong_place = [(key, f"grad * ({form})") for key, form in misplaced(right, forward, one_operand)]
    candidates = [(key, said, compile(said, '<form>', 'eval')) for key, said in wrong_place]
    candidates += [('formula', said, code) for said, code in _chained(tuple(names))]
    for key, said, code in candidates if len(samples) > 1 else ():
        if _follows(code, added):
            return key, f"`{leaf}` gets {said} on every input, where the derivative gives grad * ({right})"
    ratio = next((got / want for _, got, want in samples if want), None)  # (0 where the library's is 0 too)
    if ratio is not None and all(close(got, ratio * want) for _, got, want in samples):
        return 'formula', f"`{leaf}` gets {number(round(ratio, 6))} times its gradient on these inputs"
    return 'formula', ''


def roles_of(case: Case) -> dict[str, str] | None:
    """For `out = x OP y` or `out = x.f()`: which leaf is the op's x and which its y (the dot's: its own); else None."""
    code, leaves = case.code, list(case.leaves)
    if code.startswith('out = Value.dot('):
        return {leaf: leaf for leaf in leaves}
    binary = re.fullmatch(r'out = (\w+) \S+ ([\w.\-]+)', code)
    if binary and binary.group(1) in leaves:
        x, y = binary.groups()
        return {x: 'x'} | ({y: 'y'} if y in leaves and y != x else {})
    unary = re.fullmatch(r'out = (\w+)\.\w+\(\)', code)
    if unary and unary.group(1) in leaves:
        return {unary.group(1): 'x'}
    return None


def explain(cases: list[Case], runs: list[Run], wants: list[Run], op: ops.Op) -> tuple[str, str]:
    """The wrong leaves' stories over the cases `out = x OP y` or `out = x.f()`, and their key ('' if one has none)."""
    by_role: dict[str, list[tuple[Env, float, float]]] = {}
    for case, run, want in zip(cases, runs, wants):
        roles = roles_of(case)  # (the dot's leaves: each its own story, no formula to fit)
        if roles is None or case.reuses or case.extreme or run.grads is None or want.grads is None:  # (or it raised)
            continue
        env: Env = {'out': float(want.data or 0.0), 'grad': case.grad}
        if 'x' in roles.values():
            env['x'] = case.leaves[next(k for k, r in roles.items() if r == 'x')]
            constant = case.code.split()[-1]
            literal = re.fullmatch(r'-?\d+(\.\d*)?', constant)  # x OP k: y is k
            env['y'] = case.leaves.get(constant, 0.0) if 'y' in roles.values() else float(constant) if literal else 0.0
        for leaf, role in roles.items():
            prior = case.prior.get(leaf, 0.0)
            by_role.setdefault(role, []).append((env, run.grads[leaf] - prior, want.grads[leaf] - prior))
    names, right = ['x', 'y', 'out'] if op.parents != 1 else ['x', 'out'], dict(zip('xy', op.derivatives))
    stories = [story(role, samples, names, right.get(role, '?'), op.forward, 'y' not in by_role)
               for role, samples in by_role.items() if not all(close(got, want) for _, got, want in samples)]
    if not all(said for _, said in stories):
        return '', ''
    keys = {key for key, _ in stories}
    return (keys.pop() if len(keys) == 1 else 'formula'), '; '.join(said for _, said in stories)


def _leaky(exercise: Exercise, runs: list[Run], cases: tuple[Case, ...]) -> bool:
    """relu with a slope below zero: where the input is negative, a fraction of grad passes; elsewhere right."""
    negative = [(c, r.grads) for c, r in zip(cases, runs) if c.leaves.get('x', 1.0) < 0 and r.grads]
    return 'relu_leaky' in exercise.mistakes and bool(negative) and all(
        0 < abs((g['x'] - c.prior.get('x', 0.0)) / c.grad) < 1 for c, g in negative)


def holds_out(closures: set[CodeType], error: BaseException | None) -> bool:
    """The lecture's out.grad in one of an op's closures handed grad: read from the output (a cycle), or raising
    where it is not."""
    reflex = isinstance(error, (NameError, AttributeError)) and any(
        s in place_of(error) for s in ('out.grad', 'out.data'))
    return reflex or any(code.co_argcount and 'out' in code.co_freevars for code in closures)


def diagnose(exercise: Exercise, runs: list[Run], failing: list[int], closures: set[CodeType],
             accepted: frozenset[int] = frozenset()) -> tuple[str, str]:
    """The slip (key, sentence) that gives the learner's gradients (or exception) on every case (but those
    accepted), else the formula they follow, else the slip matching the most failing cases."""
    cases, first, error = exercise.cases, failing[0], runs[failing[0]].error
    if holds_out(closures, error):
        return 'holds_out', ''

    def agrees(i: int, module: Any) -> bool | None:  # (None where the learner's code did not build the input)
        """The same gradients as the slip's, or an exception of the same type (an overflow where it overflows)."""
        mine, theirs = runs[i], run_case(cases[i], module.Value) if runs[i].built else None
        return None if theirs is None else type(mine.error) is type(theirs.error) and (
            mine.error is not None or same(mine.grads, theirs.grads))
    scored = [(all(a is not False or i in accepted for i, a in enumerate(agreed)),
               sum(bool(agreed[i]) for i in failing), sum(map(bool, agreed)), -n, slip)
              for n, slip, agreed in reproducing(variants(exercise.name), first, len(cases), agrees)]
    best = max(scored, key=lambda s: s[:4]) if scored else None
    if best is not None and best[0]:  # a slip that gives the learner's numbers on every input
        return best[-1].key, best[-1].says
    if error is None and all(cases[i].reuses for i in failing):
        return 'reused_leaf', ''
    if error is None and _leaky(exercise, runs, cases):
        return 'relu_leaky', ''
    if best is not None and best[1] == len(failing):  # a slip that gives them wherever the learner's are wrong
        return best[-1].key, best[-1].says
    if error is None:  # no slip gives these numbers: say what formula they follow
        alike = failing if len(exercise.methods) > 1 else range(len(cases))  # (x ** y's failing, not x ** k's too)
        key, said = explain([cases[i] for i in alike], [runs[i] for i in alike],
                            [expected(exercise.name, i)[0] for i in alike], ops.BY_METHOD[exercise.attribute])
        if said:
            return key, said if key == 'formula' else f"{RULES[key]}: {said}"
    if best is not None:  # else the one that gives them on the most inputs that fail, said so
        return best[-1].key, (f"{best[-1].says} (this gives your numbers on {best[1]} of the {len(failing)} "
                               "inputs where yours are wrong)")
    return ('raises' if error is not None else 'wrong'), ''
