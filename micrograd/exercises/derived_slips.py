"""The wrong backwards a learner writes, derived from the library's own body by replacing nodes of its syntax tree:
a slip names the learner's mistake when, planted in the library, it gives the learner's numbers (reproducing())."""
from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast


def replace(body: list[ast.stmt], changes: dict[ast.AST, Callable[[Any], Any]]) -> list[ast.stmt]:
    """A copy of body, each node in changes (by identity) replaced by what its function makes of it (None: removed)."""
    copies: dict[int, Any] = {}  # deepcopy's memo: each original node's id, its copy
    module = copy.deepcopy(ast.Module(body=list(body), type_ignores=[]), copies)
    changed = {id(copies[id(old)]): change for old, change in changes.items() if id(old) in copies}

    class Swap(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> Any:
            change = changed.get(id(node))
            return change(node) if change is not None else super().visit(node)
    module = cast(ast.Module, Swap().visit(module))
    for node in ast.walk(module):  # a loop, an if or a with left empty gets a pass
        if isinstance(node, (ast.For, ast.If, ast.With)) and not node.body:
            node.body = [ast.Pass()]
    return list(ast.fix_missing_locations(module).body) or [ast.Pass()]


def text(body: list[ast.stmt]) -> str:
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=body, type_ignores=[])))


def assigned(statement: ast.AST) -> Any:
    """What an assignment (=, +=, -=, x: float =) assigns to, else None."""
    return (statement.target if isinstance(statement, (ast.AugAssign, ast.AnnAssign))
            else statement.targets[0] if isinstance(statement, ast.Assign) else None)


def _handing(statement: ast.AST) -> ast.Attribute | None:
    """The `x.grad` a statement assigns to, or the `x._add_grad` it calls; None for any other statement."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        return func if isinstance(func, ast.Attribute) and func.attr == '_add_grad' else None
    target = assigned(statement)
    return target if isinstance(target, ast.Attribute) and target.attr == 'grad' else None


def handing(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements handing a parent its gradient, nested ones (in a for, an if) too."""
    return [n for node in body for n in ast.walk(node) if isinstance(n, ast.stmt) and _handing(n) is not None]


def parent_of(statement: ast.stmt) -> str:
    """The parent a handing statement gives a gradient to."""
    return ast.unparse(cast(ast.Attribute, _handing(statement)).value)


def negated(statement: ast.stmt) -> ast.stmt:
    """A handing statement with its sign flipped: `+=` as `-=` (and back), `_add_grad(g)` as `_add_grad(-g)`."""
    if isinstance(statement, ast.AugAssign):
        return ast.AugAssign(statement.target, ast.Sub() if isinstance(statement.op, ast.Add) else ast.Add(),
                             statement.value)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        return ast.Expr(ast.Call(call.func, [ast.UnaryOp(ast.USub(), call.args[0]), *call.args[1:]], call.keywords))
    return statement


def upstream_dropped(body: list[ast.stmt], ones: str) -> list[ast.stmt]:
    """body with the upstream gradient read as ones (the chain rule left out)."""
    return replace(body, {n: lambda _: ast.parse(ones, mode='eval').body for n in ast.walk(ast.Module(body, []))
                          if isinstance(n, ast.Name) and n.id == 'grad' and not isinstance(n.ctx, ast.Store)})


def reproducing(planted: Iterable[tuple[Any, Any]], first: int, cases: int,
                agrees: Callable[[int, Any], bool | None]) -> Iterator[tuple[int, Any, list[bool | None]]]:
    """Each slip (its place, the slip, on which cases it agrees) whose planted library gives the learner's result
    on the first failing case; agrees(i, planted): whether it does on case i (None: the learner's did not run)."""
    for n, (slip, module) in enumerate(planted):
        if agrees(first, module):
            yield n, slip, [agrees(i, module) for i in range(cases)]
