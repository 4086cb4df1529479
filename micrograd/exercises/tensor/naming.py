"""Naming a slip: the planted slip (the record's, or one derived from the library's body) that gives the learner's
gradients on the most cases; else what the numbers say (axes summed over, a misfit for _add_grad, the local
derivative, a factor), or a NumPy shape error said in the case's terms."""
from __future__ import annotations

import ast
import dataclasses
import re
import textwrap
import types
from collections.abc import Iterator
from functools import cache
from typing import Any

import numpy as np

from micrograd.exercises.derived_slips import handing, negated, parent_of, replace, reproducing, text, upstream_dropped
from micrograd.exercises.lines import where
from micrograd.exercises.result import GENERIC
from micrograd.exercises.scalar.fit import local_form
from micrograd.exercises.tensor import array_exercise
from micrograd.exercises.tensor.array_exercise import Exercise, Slip
from micrograd.exercises.tensor.cases import Array, Case, reduced_axes
from micrograd.exercises.tensor.exercise_list import EXERCISES
from micrograd.exercises.tensor.my_tensor_file import blanks, library_module, with_bodies
from micrograd.exercises.tensor.running import Run, close, differing, expected, run_case

DERIVED: dict[str, str] = {  # the sentences of the slips generic() derives from the library's bodies, by key
    'upstream': "the upstream gradient is dropped: multiply the local derivative by grad (the chain rule); with "
                "an all-ones upstream gradient, as many tests use, this slip does not show",
    'sign': "sign error: the gradient is minus the right one",
    'nothing': "no gradient reaches the input: the _backward must pass grad on with parent._add_grad(...)",
    'one_parent': "only one operand gets a gradient: every parent that requires gradients gets its share",
    'wrong_axis': "the wrong axis: a sum runs along the op's own axes, ax, and a reduced axis goes back where it "
                  "was (np.expand_dims(grad, ax)); a fixed axis=-1 or axis=0 is right for some cases only",
}


def generic(blank: str, body: list[ast.stmt]) -> list[Slip]:
    """The slips any backward can make, made from the library's own body of blank (also in one parent's only)."""
    handed = handing(body)
    whole: dict[str, list[ast.stmt]] = {'upstream': upstream_dropped(body, 'np.ones_like(grad)'),
                                        'sign': replace(body, dict.fromkeys(handed, negated)), 'nothing': [ast.Pass()]}
    found = [(key, new, '') for key, new in whole.items()]
    found += [('wrong_axis', replace(body, dict.fromkeys(ax, lambda _: ast.Constant(a))), '')
              for ax in _own_axes(body) for a in (-1, 0)]
    parents = list(dict.fromkeys(map(parent_of, handed)))
    found += [('one_parent', replace(body, {s: lambda _: None for s in handed if parent_of(s) == p}), '')
              for p in parents if len(parents) >= 2]
    found += [(key, half, f" (in {p}'s gradient)") for key, new in whole.items() for p, half in halves(body, new)]
    return [Slip(key, blank, text(new), DERIVED[key] + said) for key, new, said in found]


def _own_axes(body: list[ast.stmt]) -> list[list[ast.expr]]:
    """The op's own axes, ax, where a sum reads them (axis=ax), and where np.expand_dims puts them back."""
    nodes = list(ast.walk(ast.Module(body, [])))
    read = [k.value for k in nodes if isinstance(k, ast.keyword) and k.arg == 'axis' and ast.unparse(k.value) == 'ax']
    put = [c.args[1] for c in nodes if isinstance(c, ast.Call) and ast.unparse(c.func).endswith('expand_dims')
           and len(c.args) == 2 and ast.unparse(c.args[1]) == 'ax']
    return [ax for ax in (read, put) if ax]


def halves(body: list[ast.stmt], slip: list[ast.stmt]) -> list[tuple[str, list[ast.stmt]]]:
    """A slip in several parents' gradients made in one parent's only (other._add_grad(grad * y) is half of x * y's
    swap): (p, the half) for each parent p whose gradient slip and body each hand in one call, differently."""
    parents = list(dict.fromkeys(parent_of(s) for s in handing(slip) if isinstance(s, ast.Expr)))
    found = []
    for p in parents if len(parents) >= 2 else []:
        own, library = ([s for s in handing(b) if parent_of(s) == p] for b in (slip, body))
        if len(own) == 1 and len(library) == 1 and ast.dump(own[0]) != ast.dump(library[0]):
            found.append((p, replace(body, {library[0]: lambda _: own[0]})))
    return [(p, half) for p, half in found if text(half) != text(slip)]


def _splits(slip: Slip) -> bool:
    """Whether a record's slip is only _add_grad calls (in ifs), so it splits into halves (grad *= y does not)."""
    mine = ast.parse(slip.body).body
    handed = [s for s in handing(mine) if isinstance(s, ast.Expr)]
    return all(isinstance(s, ast.If) or s in handed for n in mine for s in ast.walk(n) if isinstance(s, ast.stmt))


@cache
def slips_of(exercise: Exercise) -> tuple[Slip, ...]:
    """Every slip the checker can name for an exercise: its record's (each also in one parent's only), then generic."""
    own = list(exercise.slips)
    for b in blanks():
        if b.exercise is exercise and exercise.kind == 'op':
            body = ast.parse(textwrap.dedent(b.indent + b.solution)).body  # the library's: what the slips edit
            own += [Slip(slip.key, b.name, text(half), f"{slip.says} (here in {p}'s gradient)")
                    for slip in exercise.slips if slip.blank == b.name and _splits(slip)
                    for p, half in halves(body, ast.parse(slip.body).body)]
            own += generic(b.name, body)
    return tuple(own)


@cache
def planted(number: int, index: int) -> types.ModuleType:
    """The library's engine with slip `index` of exercise `number` planted."""
    slip = slips_of(EXERCISES[number - 1])[index]
    return with_bodies({slip.blank: slip.body}, f'tensor_slip_{number}_{index}')


def agree(mine: Run, theirs: Run, dtype: Any) -> bool:
    """The same gradients (shapes, numbers and dtypes), or an error of the same type, or the same in-place write."""
    if mine.error is not None or theirs.error is not None:
        return (mine.error is not None and theirs.error is not None and type(mine.error) is type(theirs.error)
                and numbers_in(str(mine.error)) == numbers_in(str(theirs.error)))
    return (mine.inplace == theirs.inplace and bool(mine.misshaped) == bool(theirs.misshaped)
            and mine.grads.keys() == theirs.grads.keys() and not differing(mine.grads, theirs.grads, dtype))


def numbers_in(message: str) -> set[str]:
    """The shapes and sizes an error names, but (): NumPy words one mismatch with or without a 0-d scalar's shape."""
    return {re.sub(r'\s', '', m) for m in re.findall(r'\([\d,\s]*\)|\b\d+\b', message)} - {'()'}


def _candidates(exercise: Exercise) -> Iterator[tuple[Slip, types.ModuleType]]:
    """The slips that may explain the learner's numbers, each planted."""
    for n, slip in enumerate(slips_of(exercise)):
        yield slip, planted(exercise.number, n)


def reproduce(exercise: Exercise, runs: list[Run | None], failing: list[int]) -> tuple[Slip | None, bool]:
    """The slip giving the learner's gradients on the first failing case and most others; whether on all both ran."""
    cases = exercise.cases

    def agrees(i: int, module: types.ModuleType) -> bool | None:
        return None if (mine := runs[i]) is None else agree(mine, run_case(cases[i], module), cases[i].dtype)
    scored = [(all(a is not False for a in agreed), sum(map(bool, agreed)), -n, slip)  # (a tie: the slip listed first)
              for n, slip, agreed in reproducing(_candidates(exercise), failing[0], len(cases), agrees)]
    best = max(scored, key=lambda s: s[:3], default=None)
    return (best[3], best[0]) if best else (None, False)


def per_leaf(exercise: Exercise, runs: list[Run | None], wrong: list[str]) -> list[tuple[str, Slip]]:
    """For two slips at once (k's and v's both untransposed): each wrong leaf's slip, giving its gradient everywhere."""
    found: list[tuple[str, Slip]] = []
    for leaf in wrong:
        for slip, module in _candidates(exercise):
            if all(r is None or r.error is not None or close(
                    r.grads.get(leaf), (t := run_case(c, module)).grads.get(leaf), c.dtype) and t.error is None
                   for c, r in zip(exercise.cases, runs)):
                found.append((leaf, slip))
                break
    return found if len(found) == len(wrong) else []


# --- the slip named ------------------------------------------------------------------------------------

def diagnose(exercise: Exercise, runs: list[Run | None], failing: list[int], raised: str = '') -> tuple[str, str, str]:
    """(key, sentence, the blank it is in if known) for the first failing case; raised: the line that raised."""
    case, run = exercise.cases[failing[0]], runs[failing[0]]
    assert run is not None
    want = expected(exercise.number, failing[0])[0]
    out_shape = None if want.out is None else tuple(want.out.shape)
    wrong = [k for k, w in want.grads.items() if not close(run.grads.get(k), w, case.dtype)]  # (the leaves)
    if run.inplace:
        said = getattr(array_exercise, run.inplace.upper())  # (INPLACE, INPLACE_DATA or INPLACE_SAVED)
        array = f"`{run.inplace_name}` " if run.inplace_name and run.inplace_name != 'grad' else ''
        return run.inplace, f"{said} (here {array}in the backward of '{run.inplace_op}')", ''
    slip, everywhere = reproduce(exercise, runs, failing)
    got, right = run.grads.get('out'), want.grads.get('out')
    if not everywhere and isinstance(got, np.ndarray) and isinstance(right, np.ndarray) and run.error is None:
        key, story = summed_story(case.data()['g'], got, right)  # (unbroadcast's result: out)
        if key:
            return key, story, ''
    told, handed = where(run.error) if run.error is not None else '', handed_story(run, out_shape)
    name = next(iter(wrong), '')
    g, w, misshaped = run.grads.get(name), want.grads.get(name), ''  # (misshaped: a gradient in the wrong shape)
    if not handed and isinstance(g, np.ndarray) and isinstance(w, np.ndarray) and g.shape != w.shape:
        label = 'the result' if exercise.kind == 'function' else name
        misshaped = shape_story(label, g, w, out_shape or (case.leaves['g'] if 'g' in case.leaves else g.shape))
    if slip is not None and run.error is not None:
        return slip.key, f"{slip.says}.\n{_here(case, out_shape)}. It raised {handed or told}", slip.blank
    if slip is not None and handed:
        return slip.key, f"{slip.says}.\nHere {handed}", slip.blank
    if slip is not None:
        said = misshaped.removeprefix('the broadcast gradient is not reduced: ')
        return slip.key, f"{slip.says}. Here {said}" if misshaped else slip.says, slip.blank
    if isinstance(run.error, (NameError, AttributeError)) and re.search(r'\bout\.(grad|data)\b', raised):
        return 'out_undefined', f"{array_exercise.OUT_UNDEFINED}. It raised {told}", ''
    if isinstance(run.error, TypeError) and 'NoneType' in str(run.error) and '.grad' in raised:
        return 'grad_none', f"{array_exercise.GRAD_NONE}. It raised {told}", ''
    if handed:
        return 'handed_wrong_shape', f"{handed}\n{told}".rstrip('\n'), ''
    if isinstance(run.error, ValueError) and re.search(r'shapes? \(|core dimension|cannot reshape|broadcast',
                                                       str(run.error)):
        numpy_says = str(run.error).splitlines()[0][:160]  # (a NumPy shape error, said in the case's terms)
        return 'shape', f"a shape error: NumPy says '{numpy_says}'. {_here(case, out_shape)}\n{told}", ''
    if run.error is not None:
        return 'raises', f"your code raised {told}", ''
    if len(found := per_leaf(exercise, runs, wrong)) > 1:  # two slips at once, one in each leaf
        said = '; '.join(f"{leaf}: {slip.says}" for leaf, slip in found)
        return found[0][1].key, f"two slips: {said}", found[0][1].blank
    return *_from_numbers(exercise, case, name, g, w, misshaped, out_shape), ''


def _from_numbers(exercise: Exercise, case: Case, name: str, g: Array | None, w: Array | None, misshaped: str,
                  out_shape: tuple[int, ...] | None) -> tuple[str, str]:
    """What the wrong gradient g (against w) says: its shape, grad left out, the local derivative, a factor."""
    if g is None and w is not None:
        return 'nothing', f"no gradient reaches {name}: {name}.grad is None (pass grad on with _add_grad)"
    if isinstance(g, np.ndarray) and isinstance(w, np.ndarray):
        if misshaped:
            return ('not_reduced' if 'not reduced' in misshaped else 'shape'), misshaped
        if not np.any(g) and np.any(w):
            return 'nothing', f"no gradient reaches {name}: {name}.grad is all zeros"
        if story := local_story(case, g, w, case.upstream(g.shape)):
            return 'local_derivative', story
        ones = run_case(dataclasses.replace(case, ones=True), library_module()) if exercise.kind == 'op' else None
        if ones is not None and not case.ones and close(g, ones.grads.get(name), case.dtype):
            return 'upstream', (f"{DERIVED['upstream']}: {name}.grad is what an upstream gradient of ones gives "
                                f"(grad is missing from {name}'s gradient)")
        if story := factor_story(g, w, case, out_shape or ()):
            return 'factor', story
    return 'wrong', GENERIC['wrong'] + "; compare the shapes first, then one element by hand"


# --- what the numbers say, when no slip gives them -----------------------------------------------------

def shape_story(name: str, got: Array, want: Array, out_shape: tuple[int, ...]) -> str:
    """A gradient of the wrong shape, said in the operand's terms (name 'the result': unbroadcast's own)."""
    grad, operand = (name, 'the operand') if name.startswith('the ') else (f"{name}.grad", name)
    if got.shape == tuple(out_shape) and want.shape != got.shape:
        axes = reduced_axes(tuple(out_shape), want.shape)
        if axes and np.broadcast_shapes(want.shape, tuple(out_shape)) == tuple(out_shape):
            over = f"axis {axes[0]}" if len(axes) == 1 else f"axes {axes}"
            keep = ", keepdims=True" if len(want.shape) == len(out_shape) else ""
            return (f"the broadcast gradient is not reduced: {grad} has the output's shape {got.shape}; "
                    f"{operand} was {want.shape}: sum it over {over}{keep}")
    if got.size == want.size and got.shape != want.shape:
        return (f"{grad} has shape {got.shape}, {operand} has shape {want.shape}: the same number of elements "
                f"in another shape (a reshape or transpose left out, or the wrong one)")
    return f"{grad} has shape {got.shape}, but {operand} has shape {want.shape}: a gradient has its tensor's shape"


def factor_story(got: Array, want: Array, case: Case, out_shape: tuple[int, ...]) -> str:
    """A gradient that is the right one times a constant: which constant, and what it is in this case."""
    mask = np.abs(want) > 1e-9
    if not mask.any() or got.shape != want.shape:
        return ''
    ratios = got[mask] / want[mask]
    c = float(np.median(ratios))
    if abs(c - 1) < 1e-6 or not np.allclose(ratios, c, rtol=1e-5) or not np.allclose(got[~mask], 0, atol=1e-9):
        return ''  # (not a constant factor, or 1)
    d = case.leaves['q'][-1] if 'q' in case.leaves else 0
    if d > 1 and abs(c - d) < 1e-6 * d:
        return (f"the gradient is d = {d} times too large: the scale is inverted (divided by scale = 1/sqrt(d) "
                "instead of multiplied)")
    if d > 1 and abs(c - 1 / np.sqrt(d)) < 1e-6:
        return (f"the gradient is scale = 1/sqrt(d) = {1 / np.sqrt(d):.4g} times the right one: the scale belongs to "
                "the scores' gradients (q's and k's), not here")
    counts = {}
    for name, shape in case.leaves.items():
        counts.update({int(np.prod(shape[:-1])): f"the number of rows of {name} (all its axes but the last)",
                       int(np.prod(shape)): f"the number of elements of {name}",
                       int(shape[0]) if shape else 1: f"the length of {name}'s axis 0",
                       int(shape[-1]) if shape else 1: f"the length of {name}'s last axis, axis {len(shape) - 1}"})
    if (mean := re.fullmatch(r'out = (\w+)\.mean\((.*)\)', case.code)) and mean.group(1) in case.leaves:
        n = int(np.prod(case.leaves[mean.group(1)])) // max(1, int(np.prod(out_shape)))
        over = f"over {mean.group(2).split(',')[0].strip()}" if mean.group(2) else "over every axis"
        for b, used in counts.items():
            if b > 1 and b != n and abs(c - n / b) < 1e-6 * c:
                return (f"the gradient is {n}/{b} of the right one: divided by {b}, {used}, where this mean "
                        f"({over}) averages n = {n} elements into each output: divide by n")
    for n, what in counts.items():
        if n > 1 and abs(c - 1 / n) < 1e-6:
            return f"the gradient is {n} times too small: divided by {n}, {what}, where nothing divides"
    return f"the gradient is {c:.4g} times the right one: a factor is off"


def _axis_sets(ndim: int) -> list[tuple[int, ...]]:
    return [tuple(i for i in range(ndim) if m >> i & 1) for m in range(1, 2 ** ndim)]


def summed_story(g: Array, got: Array, want: Array) -> tuple[str, str]:
    """For unbroadcast, when no slip gives the learner's result: the right axes summed, not reshaped, or wrong axes."""
    right = reduced_axes(g.shape, want.shape)
    for axes in _axis_sets(g.ndim):
        for keep in (True, False):
            r = g.sum(axis=axes, keepdims=keep)
            if r.shape != got.shape or not np.allclose(r, got, equal_nan=True):
                continue
            said = f"over axes {axes}" if len(axes) != 1 else f"over axis {axes[0]}"
            should = f"axes {right}" if len(right) != 1 else f"axis {right[0]}"
            if set(axes) == set(right) and keep:
                return 'not_reshaped', (f"summed {said} with keepdims=True, so the result has shape {got.shape}: "
                                        f"it must have exactly the operand's shape {want.shape} (reshape it, or "
                                        "sum the leading axes without keepdims)")
            if set(axes) <= set(right):  # (keepdims lost, or too few axes: the record's slips name them)
                return '', ''
            return 'wrong_axis', (f"reduced over the wrong axis: summed {said}, but broadcasting stretched "
                                  f"{should} (shapes line up at the right)")
    return '', ''


def handed_story(run: Run, out_shape: tuple[int, ...] | None) -> str:
    """The array of a shape _add_grad cannot reduce to its tensor's shape, said in the tensor's terms."""
    if run.misshaped is None:
        return ''
    name, shape, given = run.misshaped
    who = name if not name.startswith('[') else f"an operand of shape {shape}"
    said = (f"{who}._add_grad was handed an array of shape {given}, which does not reduce to {who}'s shape "
            f"{shape}" if not name.startswith('[') else
            f"_add_grad of {who} was handed an array of shape {given}, which does not reduce to {shape}")
    if out_shape is not None:
        said += f" (the output's gradient, grad, is {out_shape})"
        if lost := next((a for a in _axis_sets(len(out_shape)) if tuple(np.delete(out_shape, a)) == given), ()):
            said += (f": it was summed over axis {lost[0] if len(lost) == 1 else lost} by hand. "
                     "_add_grad sums a gradient back to its tensor's shape itself: hand it grad times the "
                     "local derivative, with the output's shape")
        elif len(given) >= 2 and given[-2:] == shape[-2:][::-1]:
            said += (f": {given} is {who}'s shape with its last two axes swapped: a transpose too many, or the "
                     "factors of a product in the wrong order")
        elif len(given) == len(shape) and given != shape:
            said += ": the local derivative of another operand, or one without grad (the chain rule)?"
    return said


def local_story(case: Case, got: Array, want: Array, upstream: Array) -> str:
    """For one elementwise op (out = x.exp()), the local derivative the learner's gradient implies, as a formula."""
    right_local = {'exp': 'exp(x)', 'log': '1/x', 'tanh': '1 - tanh(x)**2', 'relu': 'x > 0'}
    m = re.fullmatch(r'out = x\.(exp|log|tanh|relu)\(\)', case.code)
    seen = upstream != 0  # (where the upstream gradient is 0, the local derivative does not show)
    if m is None or got.shape != upstream.shape or not seen.any():
        return ''
    op, x = m.group(1), case.data()['x'][seen].astype(np.float64)
    out = np.maximum(x, 0) if op == 'relu' else getattr(np, op)(x)
    envs = [{'x': float(a), 'out': float(b)} for a, b in zip(x, out)]
    mine, right = ([(env, float(v)) for env, v in zip(envs, g[seen] / upstream[seen])] for g in (got, want))
    said = local_form(('x', 'out'), mine, right)
    return said and (f"the local derivative is {said} here, where d {op}(x)/dx = {right_local[op]} (x the input, "
                     f"out the output {op}(x))")


def _here(case: Case, out_shape: tuple[int, ...] | None) -> str:
    """'Here A (4, 3), B (3, 5), and grad (the output's gradient) is (4, 5)'."""
    shapes = ', '.join(f"{name} {shape}" for name, shape in case.leaves.items())
    return f"Here {shapes}" + (f", and grad (the output's gradient) is {out_shape}" if out_shape else '')
