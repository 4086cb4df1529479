"""Naming a slip: which mistake gives the learner's numbers (or the learner's error), said by its rule.

Three ways, in order. (1) A slip of the exercise's record (also made in one parent's gradient only), or one
every op can make (derived from the library's own body: the upstream gradient dropped, the sign flipped, a
fixed axis for the op's own, one parent left out, the parents' gradients exchanged), planted in the library's
engine and run on the same cases: when its gradients are the learner's on every case both ran, that is the
name. (2) What the numbers themselves say: the axes unbroadcast summed over, a gradient with the output's
shape where the operand was broadcast ("sum it over axis 0"), an array handed to _add_grad that cannot reduce
to its tensor's shape, a constant factor (the count a mean divides by, the batch size, the scale), a
transpose. (3) A shape error from NumPy, said in the case's terms: which array had which shape, and what the
operand's shape was.
"""
from __future__ import annotations

import re
import types
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from micrograd.exercises.tensor.array_exercise import Exercise, Slip
from micrograd.exercises.tensor.cases import Array, Case, reduced_axes
from micrograd.exercises.tensor.my_tensor_file import Blank, blanks, library_module, with_bodies
from micrograd.exercises.tensor.running import Run, close, run_case

# The sentences of the slips derived from the library's own bodies (generic() below), by key.
DERIVED: dict[str, str] = {
    'upstream': "the upstream gradient is dropped: multiply the local derivative by grad (the chain rule); with "
                "an all-ones upstream gradient, as many tests use, this slip does not show",
    'sign': "sign error: the gradient is minus the right one",
    'nothing': "no gradient reaches the input: the _backward must pass grad on with parent._add_grad(...)",
    'one_parent': "only one operand gets a gradient: every parent that requires gradients gets its share",
    'exchanged': "the operands' gradients are exchanged: each operand got the other's",
    'wrong_axis': "the wrong axis: a sum runs along the op's own axes, ax, and a reduced axis goes back where it "
                  "was (np.expand_dims(grad, ax)); a fixed axis=-1 or axis=0 is right for some cases only",
}


def generic(blank: Blank) -> list[Slip]:
    """The slips any backward can make, made from the library's own body of blank."""
    body = re.sub(r'[ \t]*#[^\n]*', '', blank.solution)
    lines = [line[len(blank.indent):] if line.startswith(blank.indent) else line.lstrip()
             for line in body.split('\n')]
    text = '\n'.join(lines)
    out = [Slip('upstream', blank.name, "grad = np.ones_like(grad)\n" + text, DERIVED['upstream']),
           Slip('sign', blank.name, "grad = -grad\n" + text, DERIVED['sign']),
           Slip('nothing', blank.name, "pass", DERIVED['nothing'])]
    for fixed in ('axis={}', 'expand_dims(grad, {})'):
        if fixed.format('ax') in text:
            out += [Slip('wrong_axis', blank.name, text.replace(fixed.format('ax'), fixed.format(a)),
                         DERIVED['wrong_axis']) for a in (-1, 0)]
    targets = list(dict.fromkeys(re.findall(r'(\w+)\._add_grad\(', text)))
    if len(targets) >= 2:
        a, b = targets[:2]
        swapped = text.replace(f'{a}._add_grad(', '\0').replace(f'{b}._add_grad(', f'{a}._add_grad(')
        out.append(Slip('exchanged', blank.name, swapped.replace('\0', f'{b}._add_grad('), DERIVED['exchanged']))
        for t in targets:
            dropped = re.sub(rf'{t}\._add_grad\(', '(lambda *a, **k: None)(', text)
            out.append(Slip('one_parent', blank.name, dropped, DERIVED['one_parent']))
            lines = text.split('\n')
            mine = [i for i, line in enumerate(lines) if f'{t}._add_grad(' in line]
            if len(mine) != 1:
                continue
            line = lines[mine[0]]
            for key, changed in (('sign', line.replace(f'{t}._add_grad(', f'{t}._add_grad(-1 * ')),
                                 ('upstream', re.sub(r'(?<![.\w])grad\b', 'np.ones_like(grad)', line))):
                if changed != line:
                    body = '\n'.join(lines[:mine[0]] + [changed] + lines[mine[0] + 1:])
                    out.append(Slip(key, blank.name, body, f"{DERIVED[key]} (in {t}'s gradient)"))
    return out


def halves(slip: Slip, blank: Blank) -> list[Slip]:
    """A slip in the gradients of several parents, made in one parent's only (the others' lines the library's):
    x * y with other._add_grad(grad * y) is half of the swap."""
    library = re.sub(r'[ \t]*#[^\n]*', '', blank.solution).split('\n')
    plain = '\n'.join(library).replace('\n' + blank.indent, '\n').strip()
    lines = [line.strip() for line in slip.body.split('\n') if line.strip()]
    if not all(line.startswith('if ') or '._add_grad(' in line for line in lines):
        return []  # (a slip with statements of its own, as grad *= y, is not split)
    out = []
    for target in dict.fromkeys(re.findall(r'(\w+)\._add_grad\(', slip.body)):
        mine = [line.strip() for line in slip.body.split('\n') if f'{target}._add_grad(' in line]
        theirs = [i for i, line in enumerate(library) if f'{target}._add_grad(' in line]
        if len(mine) != 1 or len(theirs) != 1:
            continue
        lines = list(library)
        line = lines[theirs[0]]
        lines[theirs[0]] = line[:len(line) - len(line.lstrip())] + mine[0]
        body = '\n'.join(lines).replace('\n' + blank.indent, '\n').strip()
        if body not in (slip.body, plain):
            out.append(Slip(slip.key, slip.blank, body, f"{slip.says} (here in {target}'s gradient)"))
    return out


def slips_of(exercise: Exercise) -> list[Slip]:
    """Every slip the checker can name for an exercise: its record's first, each also in one parent's gradient
    only, then the generic ones."""
    own = list(exercise.slips)
    if exercise.kind == 'op':
        for b in blanks():
            if b.exercise is exercise:
                own += [half for slip in exercise.slips if slip.blank == b.name and len(
                    set(re.findall(r'(\w+)\._add_grad\(', slip.body))) > 1 for half in halves(slip, b)]
                own += generic(b)
    return own


@cache
def planted(number: int, index: int) -> types.ModuleType | None:
    """The library's engine with slip `index` of exercise `number` planted (None: it does not fit)."""
    from micrograd.exercises.tensor.exercise_list import EXERCISES
    slip = slips_of(EXERCISES[number - 1])[index]
    try:
        return with_bodies({slip.blank: slip.body}, f'tensor_slip_{number}_{index}')
    except SyntaxError:
        return None


def agree(mine: Run, theirs: Run, dtype: Any) -> bool:
    """The same gradients (shapes and numbers), or an exception of the same type, or the same in-place write."""
    if mine.error is not None or theirs.error is not None:
        return (mine.error is not None and theirs.error is not None and type(mine.error) is type(theirs.error)
                and numbers_in(str(mine.error)) == numbers_in(str(theirs.error)))
    if mine.inplace != theirs.inplace or bool(mine.misshaped) != bool(theirs.misshaped):
        return False
    if mine.grads.keys() != theirs.grads.keys():
        return False
    for k in mine.grads:
        a, b = mine.grads[k], theirs.grads[k]
        if a is None or b is None:
            if a is not b:
                return False
        elif not close(a, b, dtype) or a.dtype != b.dtype:
            return False
    return True


def numbers_in(message: str) -> list[str]:
    """The shapes and sizes an error message names, sorted: what two shape errors must share to be the same slip
    (NumPy words the same mismatch differently in broadcast_to, * and where)."""
    return sorted(re.sub(r'\s', '', m) for m in re.findall(r'\([\d,\s]*\)|\b\d+\b', message))


def reproduce(exercise: Exercise, runs: list[Run | None], failing: list[int], blank: str = '',
              everywhere_only: bool = False) -> Slip | None:
    """The slip whose gradients are the learner's: on every case both ran, else on the most failing cases. blank:
    the one blank found at fault (its slips only)."""
    scored = []
    for n, slip in enumerate(slips_of(exercise)):
        if (failing and _skip(slip, exercise, runs, failing[0])) or (blank and slip.blank != blank):
            continue
        module = planted(exercise.number, n)
        if module is None:
            continue
        first = failing[0]
        theirs_first = run_case(exercise.cases[first], module)
        mine_first = runs[first]
        if mine_first is None or not agree(mine_first, theirs_first, exercise.cases[first].dtype):
            continue
        agreed = everywhere = 0
        total = 0
        for i, (case, mine) in enumerate(zip(exercise.cases, runs)):
            if mine is None:
                continue
            total += 1
            theirs = theirs_first if i == first else run_case(case, module)
            if agree(mine, theirs, case.dtype):
                agreed += 1
        everywhere = agreed == total
        scored.append((everywhere, sum(1 for i in failing if runs[i] is not None and i == first) + agreed, -n, slip))
    if everywhere_only:
        scored = [s for s in scored if s[0]]
    if not scored:
        return None
    return max(scored, key=lambda s: s[:3])[3]


def per_leaf(exercise: Exercise, runs: list[Run | None], failing: list[int], blank: str = '') -> list[tuple[str, Slip]]:
    """For a learner who made two slips at once (k's and v's gradients both untransposed): for each leaf wrong on the
    first failing case, the slip that gives that leaf's gradient on every case (the other leaves aside)."""
    first = failing[0]
    mine = runs[first]
    if mine is None or mine.error is not None:
        return []
    want = run_case(exercise.cases[first], library_module())
    wrong = [k for k, g in mine.grads.items() if not close(g, want.grads.get(k), exercise.cases[first].dtype)]
    found: list[tuple[str, Slip]] = []
    for leaf in wrong:
        for n, slip in enumerate(slips_of(exercise)):
            if (blank and slip.blank != blank) or _skip(slip, exercise, runs, first):
                continue
            module = planted(exercise.number, n)
            if module is None:
                continue
            if all(r is None or r.error is not None or close(
                    r.grads.get(leaf), (t := run_case(c, module)).grads.get(leaf), c.dtype) and t.error is None
                   for c, r in zip(exercise.cases, runs)):
                found.append((leaf, slip))
                break
    return found if len(found) == len(wrong) else []


def _skip(slip: Slip, exercise: Exercise, runs: list[Run | None], first: int) -> bool:
    """A slip of a blank the first failing case does not go through cannot be the one (saves a build)."""
    code = exercise.cases[first].code
    op = slip.blank.removesuffix('()').split('.')[-1]
    uses: tuple[str, ...] = {'__add__': ('+',), '__mul__': ('*',), '__matmul__': ('@',), '_matmul_rows': ('@',),
                             '_extreme': ('.max(', '.min('), '__getitem__': ('[',),
                             'permute': ('.T', 'transpose', 'permute')}.get(op, (op,))
    return not any(u in code for u in uses)


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
    if got.ndim == want.ndim - 1 and want.shape[:got.ndim] == got.shape or got.shape == tuple(
            n for n in want.shape if n != 1):
        return f"{grad} has shape {got.shape}, {operand} has {want.shape}: keepdims lost (a size-1 axis dropped)"
    return f"{grad} has shape {got.shape}, but {operand} has shape {want.shape}: a gradient has its tensor's shape"


def factor_story(got: Array, want: Array, case: Case, out_shape: tuple[int, ...]) -> str:
    """A gradient that is the right one times a constant: which constant, and what it is in this case."""
    mask = np.abs(want) > 1e-9
    if not mask.any() or got.shape != want.shape:
        return ''
    ratios = got[mask] / want[mask]
    c = float(np.median(ratios))
    if not np.allclose(ratios, c, rtol=1e-5) or not np.allclose(got[~mask], 0, atol=1e-9):
        return ''
    if abs(c + 1) < 1e-6:
        return DERIVED['sign']
    if abs(c) < 1e-12 or abs(c - 1) < 1e-6:
        return ''
    d = case.leaves['q'][-1] if 'q' in case.leaves else 0
    if d > 1 and abs(c - d) < 1e-6 * d:
        return (f"the gradient is d = {d} times too large: the scale is inverted (divided by scale = 1/sqrt(d) "
                "instead of multiplied)")
    if d > 1 and abs(c - np.sqrt(d)) < 1e-6 * c:
        return f"the gradient is sqrt(d) = {np.sqrt(d):.4g} times too large: the scale 1/sqrt(d) is missing"
    if d > 1 and abs(c - 1 / np.sqrt(d)) < 1e-6:
        return (f"the gradient is scale = 1/sqrt(d) = {1 / np.sqrt(d):.4g} times the right one: the scale belongs to "
                "the scores' gradients (q's and k's), not here")
    counts = {}
    for name, shape in case.leaves.items():
        counts.update({int(np.prod(shape[:-1])): f"the number of rows of {name} (all its axes but the last)",
                       int(np.prod(shape)): f"the number of elements of {name}",
                       int(shape[0]) if shape else 1: f"the length of {name}'s axis 0",
                       int(shape[-1]) if shape else 1: f"the length of {name}'s last axis, axis {len(shape) - 1}"})
    counts.setdefault(int(np.prod(out_shape)), "the number of elements of the output")
    if (mean := re.fullmatch(r'out = (\w+)\.mean\((.*)\)', case.code)) and mean.group(1) in case.leaves:
        shape = case.leaves[mean.group(1)]
        n = int(np.prod(shape)) // max(1, int(np.prod(out_shape)))
        over = f"over {mean.group(2).split(',')[0].strip()}" if mean.group(2) else "over every axis"
        for b, used in counts.items():
            if b > 1 and b != n and abs(c - n / b) < 1e-6 * c:
                return (f"the gradient is {n}/{b} of the right one: divided by {b}, {used}, where this mean "
                        f"({over}) averages n = {n} elements into each output: divide by n")
    for n, what in counts.items():
        if n > 1 and abs(c - n) < 1e-6 * n:
            return f"the gradient is {n} times too large: {n} is {what}, a count something was to be divided by"
        if n > 1 and abs(c - 1 / n) < 1e-6:
            return f"the gradient is {n} times too small: divided by {n}, {what}, where nothing divides"
    for a, right in counts.items():
        for b, used in counts.items():
            if a != b and a > 1 and b > 1 and abs(c - a / b) < 1e-6 * c:
                return (f"the gradient is {a}/{b} of the right one: divided by {b} ({used}) where {a} belongs "
                        f"({right})")
    return f"the gradient is {c:.4g} times the right one: a factor is off"


def transpose_story(name: str, got: Array, want: Array) -> str:
    if got.ndim >= 2 and got.shape == want.shape and got.shape[-1] == got.shape[-2] and close(
            got, np.swapaxes(want, -1, -2)):
        return f"{name}.grad is the transpose of the right gradient: a transpose is missing, or one too many"
    return ''


def reduction_story(case: Case, out_shape: tuple[int, ...] | None) -> str:
    """For a shape error in a reduction's case (the output is the input with axes removed): keepdims lost."""
    if out_shape is None:
        return ''
    for name, shape in case.leaves.items():
        if len(out_shape) < len(shape) and any(
                tuple(n for i, n in enumerate(shape) if i not in axes) == tuple(out_shape)
                for axes in _axis_sets(len(shape))):
            return name
    return ''


def _axis_sets(ndim: int) -> list[tuple[int, ...]]:
    return [tuple(i for i in range(ndim) if m >> i & 1) for m in range(1, 2 ** ndim)]


def summed_story(g: Array, got: Array, want: Array) -> tuple[str, str]:
    """For unbroadcast: which axes the learner's result summed g over (sum or mean, keepdims or not), said
    against the axes broadcasting stretched."""
    right = reduced_axes(g.shape, want.shape)
    for axes in [()] + _axis_sets(g.ndim):
        for how in ('sum', 'mean'):
            for keep in (True, False):
                with np.errstate(all='ignore'):
                    r = getattr(np, how)(g, axis=axes, keepdims=keep) if axes else g
                if r.shape != got.shape and keep and r.size == want.size and set(axes) == set(right):
                    r = r.reshape(want.shape)
                if r.shape != got.shape or not np.allclose(r, got, equal_nan=True):
                    continue
                said = f"over axes {axes}" if len(axes) != 1 else f"over axis {axes[0]}"
                should = f"axes {right}" if len(right) != 1 else f"axis {right[0]}"
                if how == 'mean':
                    return 'mean_not_sum', (f"a mean instead of a sum (taken {said}): an operand used n times "
                                            "gets the sum of its n gradients")
                if not axes:
                    return 'not_reduced', f"the broadcast gradient is not reduced: sum it over {should}"
                if set(axes) == set(right) and keep and got.shape != want.shape:
                    return 'not_reshaped', (f"summed {said} with keepdims=True, so the result has shape {got.shape}: "
                                            f"it must have exactly the operand's shape {want.shape} (reshape it, or "
                                            "sum the leading axes without keepdims)")
                if set(axes) == set(right) and not keep:
                    return 'keepdims_lost', (f"keepdims lost: summed {said} without keepdims, so the result has "
                                             f"shape {got.shape}, not {want.shape}")
                if set(axes) < set(right):
                    return 'size1_not_summed', (f"summed only {said}; broadcasting stretched {should}: the size-1 "
                                                "axes must be summed too")
                return 'wrong_axis', (f"reduced over the wrong axis: summed {said}, but broadcasting stretched "
                                      f"{should} (shapes line up at the right)")
    return '', ''


def handed_story(run: Run, out_shape: tuple[int, ...] | None) -> str:
    """The array of a shape _add_grad cannot reduce to its tensor's shape, said in the tensor's terms (the
    library's _add_grad reshapes an array of the same size: the numbers then land in the wrong places)."""
    for name, shape, given in reversed(run.handed):
        try:
            fits = given == shape or np.broadcast_shapes(shape, given) == given
        except ValueError:
            fits = False
        if fits:
            continue
        who = name if not name.startswith('[') else f"an operand of shape {shape}"
        said = (f"{who}._add_grad was handed an array of shape {given}, which does not reduce to {who}'s shape "
                f"{shape}" if not name.startswith('[') else
                f"_add_grad of {who} was handed an array of shape {given}, which does not reduce to {shape}")
        if out_shape is not None:
            said += f" (the output's gradient, grad, is {out_shape})"
            lost = [a for a in _axis_sets(len(out_shape))
                    if tuple(n for i, n in enumerate(out_shape) if i not in a) == given]
            if lost:
                said += (f": it was summed over axis {lost[0][0] if len(lost[0]) == 1 else lost[0]} by hand. "
                         "_add_grad sums a gradient back to its tensor's shape itself: hand it grad times the "
                         "local derivative, with the output's shape")
            elif len(given) >= 2 and given[-2:] == shape[-2:][::-1]:
                said += (f": {given} is {who}'s shape with its last two axes swapped: a transpose too many, or the "
                         "factors of a product in the wrong order")
            elif len(given) == len(shape) and given != shape:
                said += ": the local derivative of another operand, or one without grad (the chain rule)?"
        return said
    return ''


# An elementwise op's local derivative, as a learner may write it: each a function of the input x and output y.
LOCAL: dict[str, Callable[[Array, Array], Array]] = {
    '1': lambda x, y: np.ones_like(x), 'x': lambda x, y: x, 'the output': lambda x, y: y, '1/x': lambda x, y: 1 / x,
    '1/output': lambda x, y: 1 / y, '-1/x**2': lambda x, y: -1 / x ** 2, '1/x**2': lambda x, y: 1 / x ** 2,
    'exp(x)': lambda x, y: np.exp(x), 'exp(output)': lambda x, y: np.exp(y), 'log(x)': lambda x, y: np.log(np.abs(x)),
    'x * exp(x - 1)': lambda x, y: x * np.exp(x - 1), '1 - x**2': lambda x, y: 1 - x ** 2,
    '1 - tanh(x)**2': lambda x, y: 1 - np.tanh(x) ** 2, '1 - output**2': lambda x, y: 1 - y ** 2,
    '1 - output': lambda x, y: 1 - y, '1 + output**2': lambda x, y: 1 + y ** 2, '2 * x': lambda x, y: 2 * x,
    '1 - tanh(output)**2': lambda x, y: 1 - np.tanh(y) ** 2, 'x > 0': lambda x, y: (x > 0) * 1.0,
    'x >= 0': lambda x, y: (x >= 0) * 1.0, 'x < 0 (or x <= 0)': lambda x, y: (x <= 0) * 1.0,
    'relu(x)': lambda x, y: np.maximum(x, 0), 'sign(x)': lambda x, y: np.sign(x),
}
RIGHT_LOCAL = {'exp': 'exp(x)', 'log': '1/x', 'tanh': '1 - tanh(x)**2', 'relu': 'x > 0'}


def local_story(case: Case, got: Array, upstream: Array) -> str:
    """For one elementwise op (out = x.exp()), the local derivative the learner's gradient implies, read off as a
    formula: 'your local derivative is 1 - x**2; d tanh(x)/dx = 1 - tanh(x)**2'."""
    m = re.fullmatch(r'out = x\.(exp|log|tanh|relu)\(\)', case.code)
    seen = upstream != 0  # (where the upstream gradient is 0, the local derivative does not show)
    if m is None or got.shape != upstream.shape or not seen.any():
        return ''
    op = m.group(1)
    x = case.data()['x'].astype(np.float64)
    forward: dict[str, Callable[[Array], Array]] = {'exp': np.exp, 'log': np.log, 'tanh': np.tanh,
                                                     'relu': lambda v: np.maximum(v, 0)}
    y = forward[op](x)
    implied = got[seen].astype(np.float64) / upstream[seen].astype(np.float64)
    right: Array = LOCAL[RIGHT_LOCAL[op]](x, y)[seen]
    for said, f in LOCAL.items():
        with np.errstate(all='ignore'):
            candidate: Array = np.broadcast_to(f(x, y), x.shape)[seen]
        if np.allclose(implied, candidate, rtol=1e-4, atol=1e-6) and not np.allclose(candidate, right):
            return (f"the local derivative is {said} here, where d {op}(x)/dx = {RIGHT_LOCAL[op]} (x the input, "
                    f"the output {op}(x))")
    return ''


SHAPE_ERROR = re.compile(r'shapes? \(?\(([\d, ]*)\)|could not be broadcast|mismatch in its core dimension|'
                         r'cannot reshape|broadcast')


def error_story(error: BaseException, case: Case, out_shape: tuple[int, ...] | None) -> str:
    """A NumPy shape error from the learner's code, said in the case's terms."""
    message = str(error)
    if not isinstance(error, ValueError) or not SHAPE_ERROR.search(message):
        return ''
    shapes = ', '.join(f"{name} {shape}" for name, shape in case.leaves.items())
    said = f"a shape error: NumPy says '{message.splitlines()[0][:160]}'. Here {shapes}"
    if out_shape is not None:
        said += f", and grad (the output's gradient) is {tuple(out_shape)}"
        for name, shape in case.leaves.items():
            axes = reduced_axes(tuple(out_shape), shape)
            if axes and len(shape) <= len(out_shape):
                over = f"axis {axes[0]}" if len(axes) == 1 else f"axes {axes}"
                said += (f". A gradient for {name} built from grad has the output's shape {tuple(out_shape)}; "
                         f"{name} was {shape}: it is summed over {over} (by _add_grad)")
                break
    if 'core dimension' in message:
        said += ". In a matrix product (n, k) @ (k, m) the inner lengths must agree: grad @ B^T and A^T @ grad do"
    return said
