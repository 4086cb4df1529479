"""The wrong backwards a learner writes, derived from the library's closures by rules (RULES) that rewrite their
syntax tree, so that a slip nobody listed is named; an exercise's record adds those no rule makes (relu's at 0)."""
from __future__ import annotations

import ast
import copy
import importlib
import inspect
import itertools
import textwrap
import types
from collections.abc import Callable, Iterable, Iterator
from functools import cache, reduce
from typing import Any, cast

from micrograd.exercises.cutting import INLINED, library_source, load, splice
from micrograd.exercises.derived_slips import assigned, handing, negated, parent_of, replace, text, upstream_dropped
from micrograd.exercises.scalar.blanks import Blank, blanks_of
from micrograd.exercises.scalar.exercises import Slip, find

# What each key means, for the report (a rule's sentence adds the lines it changed; at_*, applied_twice: fit.misplaced).
RULES: dict[str, str] = {
    'overwrite': "`=` instead of `+=` (or `-=`): a Value used twice (as in a * a, a / a, or b = a + a; c = b + b) "
                 "must collect the gradient of both uses, and `=` keeps only the last one",
    'upstream': "the upstream gradient is forgotten: multiply the local derivative by grad (the chain rule); "
                "with grad = 1 the mistake does not show",
    'nothing': "no gradient reaches the input: the _backward must add to each parent's .grad",
    'parent_dropped': "a parent gets no gradient: every parent of the op must receive its share",
    'parent_twice': "a parent gets its share twice",
    'wrong_parent': "a parent counted twice and the other left out: a line meant for one parent adds to another's "
                    "gradient",
    'sign': "a sign flipped",
    'swapped': "the operands swapped: each parent's local derivative is the OTHER parent's data, used here the "
               "wrong way round",
    'at_input': "derivative taken at the input, where it is written with the output",
    'at_output': "derivative taken at the output, where it is written with the input",
    'applied_twice': "the function applied twice: the output is already f(x), and you took f of it again",
    'factor_dropped': "a factor dropped from the local derivative",
    'mul_for_div': "`*` where the derivative divides (or `/` where it multiplies)",
    'exponent_off': "an exponent off by one",
    'factor_added': "a factor too many: a parent's own data multiplies a derivative that does not have it",
    'precedence': "parentheses left out: the formula groups differently than the derivative",
    'formula': "your gradient follows another formula than the derivative",
    'grad_for_data': "a parent's .grad where its .data belongs: the local derivative is made of the values",
    'grad_not_number': "a .grad became a Value, not a number: `.data` is missing on the right of `+=` (x.grad += "
                       "y * grad, with y a Value, builds a graph node); use y.data",
    'reused_leaf': "right when the parents differ, wrong when one Value is both parents (as in a + a): each use "
                   "already gets its share through `+=`, so a special case for `self is other` counts it again",
    'holds_out': "your _backward reads `out`, as the lecture's does: then the closure holds the output and the "
                 "output holds it, a reference cycle that only the garbage collector frees (the library runs half "
                 "as fast so). It is handed the output's gradient: write `grad` where the lecture writes "
                 "`out.grad`, and the forward pass's own variable (or formula) for `out.data`",
    'forward': "the forward value is wrong (out.data), so its derivative cannot be right either",
    'through_ops': "right on leaves, wrong where an operand was made by an op: the gradient must reach what made "
                   "it, through the graph",
}


def written_out(body: list[ast.stmt], module: str) -> list[ast.stmt]:
    """body with each call of a library helper written out as its first return in the call's arguments:
    ieee.power(x, y - 1) as x ** (y - 1). The slips quote it, so they say only what a learner writes."""
    # the module's names (engine.py's ops beyond the lecture are more_ops.py's, with its names: INLINED)
    namespace = {**vars(importlib.import_module(INLINED.get(module, module))), **vars(importlib.import_module(module))}

    def helper(node: ast.AST) -> Any:  # the library's function a call names (ieee.power), else None (math.log)
        if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
            return None
        first, *attributes = ast.unparse(node.func).split('.')
        found = reduce(lambda found, attribute: getattr(found, attribute, None), attributes, namespace.get(first))
        return found if inspect.isfunction(found) and found.__module__.startswith('micrograd.') else None

    def formula(call: ast.Call) -> ast.expr:
        tree = cast(ast.FunctionDef, ast.parse(textwrap.dedent(inspect.getsource(helper(call)))).body[0])
        statements = sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt)), key=lambda n: n.lineno)
        returned = next(n.value for n in statements if isinstance(n, ast.Return) and n.value is not None)
        if isinstance(returned, ast.Name):  # out: float = x ** e; return out
            returned = next(n.value for n in statements if isinstance(n, (ast.Assign, ast.AnnAssign))
                            and n.value is not None and ast.unparse(assigned(n)) == returned.id)
        params = dict(zip((a.arg for a in tree.args.args), call.args))  # each parameter as the call's argument
        put: dict[ast.AST, Callable[[Any], Any]] = {
            n: lambda n: copy.deepcopy(params[n.id]) for n in ast.walk(returned) if ast.unparse(n) in params}
        return cast(ast.Expr, replace([ast.Expr(returned)], put)[0]).value
    return replace(body, {n: formula for n in ast.walk(ast.Module(body, [])) if helper(n) is not None})


def subsets(n: int) -> list[tuple[int, ...]]:
    """Every line, then the proper, non-empty subsets of n lines, one line first (all of them, for up to four)."""
    sizes = range(1, n) if n <= 4 else range(1, 2)
    return [tuple(range(n)), *(c for size in sizes for c in itertools.combinations(range(n), size))]


def _mutations(body: list[ast.stmt], parents: tuple[str, ...]) -> Iterator[tuple[str, list[ast.stmt], str]]:
    """(key, new body, what changed) for every rule at every place it applies."""
    statements = handing(body)
    rhs = [(s, node) for s in statements for node in ast.walk(s.value)]  # type: ignore[attr-defined]

    def lines(change: Callable[[Any], Any], subset: Iterable[int]) -> list[ast.stmt]:
        return replace(body, {statements[k]: change for k in subset})

    def nodes(match: Callable[[ast.AST], bool], new: Callable[[Any], ast.AST],
              only: ast.stmt | None = None) -> list[ast.stmt]:
        return replace(body, {n: new for s, n in rhs if match(n) and only in (None, s)})

    def overwrite(s: Any) -> ast.stmt:  # (the library's lines are all += or -=)
        value = s.value if isinstance(s.op, ast.Add) else ast.UnaryOp(ast.USub(), s.value)
        return ast.Assign(targets=[s.target], value=value, lineno=0)
    for subset in subsets(len(statements)):  # in every line, then in some lines only
        said = '`, `'.join(ast.unparse(overwrite(statements[k])) for k in subset)
        every = len(subset) == len(statements)
        yield 'overwrite', lines(overwrite, subset), "in every line" if every else f"in `{said}`"
    yield 'upstream', upstream_dropped(body, '1.0'), "(grad is missing)"
    yield 'nothing', [ast.Pass()], ""
    for k, s in enumerate(statements):
        yield ('parent_dropped', lines(lambda _: None, [k]),
               f"`{parent_of(s)}` gets nothing: `{ast.unparse(s)}` is missing")
        yield 'parent_twice', lines(lambda s: [s, copy.deepcopy(s)], [k]), f"`{ast.unparse(s)}` runs twice"
    for s in statements:  # a line written for one parent adding to the other's (self.grad twice, other left out)
        for k, t in enumerate(statements):
            if parent_of(t) != parent_of(s):
                moved = copy.deepcopy(t)
                assigned(moved).value = ast.Name(parent_of(s), ast.Load())
                yield ('wrong_parent', lines(lambda _: moved, [k]),
                       f"`{ast.unparse(moved)}` should add to `{parent_of(t)}.grad`")
    for subset in subsets(len(statements)):
        said = '`, `'.join(ast.unparse(negated(statements[k])) for k in subset)
        yield 'sign', lines(negated, subset), "on every parent" if len(subset) == len(statements) else f"`{said}`"
    if len(parents) > 1:  # the operands swapped: x's data where y's belongs, in every line or in one
        a, b = parents[:2]
        operand, swap = (lambda n: isinstance(n, ast.Name) and n.id in (a, b)), {a: b, b: a}
        yield ('swapped', nodes(operand, lambda n: ast.Name(swap[n.id])),
               f"`{a}` and `{b}` exchanged on the right of each `+=`")
        for k, s in enumerate(statements):
            swapped = nodes(operand, lambda n: ast.Name(swap[n.id]), s)
            yield 'swapped', swapped, f"`{ast.unparse(handing(swapped)[k])}`"
    right = text(body).splitlines()
    for unparenthesized in _unparenthesized(body):  # the parentheses a formula needs, left out
        changed = [line.strip() for line, was in zip(unparenthesized.splitlines(), right) if line != was]
        yield 'precedence', ast.parse(unparenthesized).body, f"`{changed[0] if changed else unparenthesized.strip()}`"
    for statement, node in rhs:
        place = list(ast.walk(statement.value)).index(node)  # type: ignore[attr-defined]  # its place in the line
        for n, (key, rewritten) in enumerate(_rewrites(node)):
            said = f"`{ast.unparse(rewritten)}` where the derivative has `{ast.unparse(node)}`"
            yield key, replace(body, {node: lambda _: rewritten}), said  # noqa: B023
            # the same slip in every line of the same shape (a learner who divides by grad in one line divides in both)
            alike = [there for other in statements if type(other) is type(statement)
                     and len(walked := list(ast.walk(other.value))) > place  # type: ignore[attr-defined]
                     and type(there := walked[place]) is type(node)
                     and type(getattr(there, 'op', None)) is type(getattr(node, 'op', None))
                     and len(_rewrites(there)) > n]
            if len(alike) > 1:
                yield (key, replace(body, {t: lambda t: _rewrites(t)[n][1] for t in alike}),  # noqa: B023
                       f"{said}, and the same in every line")
    yield ('grad_for_data', nodes(lambda n: isinstance(n, ast.Attribute) and n.attr == 'data',  # (none: a repeat)
                                  lambda n: ast.Attribute(n.value, 'grad', ast.Load())),
           "`.grad` for `.data` on the right of each `+=`")
    for k, s in enumerate(statements):  # an extra factor, a parent's own data, in one line
        for parent in parents:
            extra = copy.deepcopy(s)
            extra.value = ast.parse(f'{parent}.data * ({ast.unparse(s.value)})', mode='eval').body  # type: ignore
            yield 'factor_added', lines(lambda _: extra, [k]), f"`{ast.unparse(extra)}`: `{parent}.data` multiplies it"


def _rewrites(node: ast.AST) -> list[tuple[str, ast.AST]]:
    """The slips an expression can take: (key, what it becomes)."""
    out: list[tuple[str, ast.AST]] = []
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        out.append(('sign', ast.BinOp(node.left, ast.Sub() if isinstance(node.op, ast.Add) else ast.Add(), node.right)))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):  # dropping grad is dropping the chain rule
        out += [('upstream' if ast.unparse(dropped) == 'grad' else 'factor_dropped', kept)
                for kept, dropped in ((node.left, node.right), (node.right, node.left))]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        out += [('factor_dropped', node.left), ('factor_dropped', ast.BinOp(ast.Constant(1), ast.Div(), node.right))]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        out.append(('mul_for_div', ast.BinOp(node.left, ast.Div() if isinstance(node.op, ast.Mult) else ast.Mult(),
                                             node.right)))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):  # x ** (k - 1) lowered one too few or too many
        k = node.right
        if isinstance(k, ast.BinOp) and isinstance(k.op, ast.Sub) and ast.unparse(k.right) == '1':
            out += [('exponent_off', ast.BinOp(node.left, ast.Pow(), e))
                    for e in (k.left, ast.BinOp(k.left, ast.Sub(), ast.Constant(2)))]
    return out


def _unparenthesized(body: list[ast.stmt]) -> list[str]:
    """body's text with one pair of grouping parentheses left out, where that still parses and means something
    else: `(1 - t * t) * grad` as `1 - t * t * grad`, `x ** (y - 1)` as `x ** y - 1`."""
    written = text(body)
    right = ast.dump(ast.parse(written))
    out, stack = [], []
    for i, char in enumerate(written):
        if char == '(':
            stack.append(i)
        elif char == ')' and stack:
            start = stack.pop()
            if start > 0 and (written[start - 1].isalnum() or written[start - 1] in '_)]'):
                continue  # a call's parentheses, not a group's
            candidate = written[:start] + written[start + 1:i] + written[i + 1:]
            if ast.dump(ast.parse(candidate)) != right:
                out.append(candidate)
    return out


def derive(blank: Blank) -> list[Slip]:
    """Every slip the rules make of one blank's library body, each named; duplicates and the right body left out."""
    body = written_out(ast.parse(textwrap.dedent(blank.indent + blank.solution)).body,
                       f'micrograd.{blank.exercise.source}')
    found: dict[str, tuple[str, str]] = {}  # each body written, the first mutation that writes it
    for key, new, change in _mutations(body, blank.parents):
        found.setdefault(text(new), (key, change))
    found.pop(text(body), None)
    return [Slip(key, f"{RULES[key]}: {change}" if change else RULES[key],
                 textwrap.indent(new, blank.indent)[len(blank.indent):]) for new, (key, change) in found.items()]


@cache
def variants(name: str) -> tuple[tuple[Slip, types.ModuleType], ...]:
    """For an op exercise: each slip (the record's, then the derived ones) and the library's engine built with it."""
    exercise = find(name)
    source, _ = library_source('micrograd.engine')
    out = []
    for blank in blanks_of(exercise):
        # {x} and {y}: the closure's parents, then the method's other arguments (x ** k's exponent: no gradient)
        names = dict(zip('xy', [*blank.parents, *(a.arg for a in blank.holder.args.args[1:])]))
        hand = [Slip(key, exercise.mistakes.get(key, RULES.get(key, key)), body.format(i=blank.indent, **names))
                for key, body in exercise.slips]
        for n, slip in enumerate(hand + derive(blank)):
            out.append((slip, load(splice(source, {blank: slip.body}), f'slip_{exercise.number}_{n}', f'<slip {n}>')))
    return tuple(out)
