"""Drawing the graph a Value was made from, and watching backward() fill in its gradients.

    from micrograd.viz import draw_backward, draw_dot
    draw_dot(loss)                    # in Jupyter: shows the graph inline
    draw_dot(loss).render('loss')     # writes loss.svg
    print(draw_dot(loss).source)      # the DOT text, no renderer needed
    draw_backward(loss)               # in Jupyter: a player stepping through loss.backward(), node by node
    draw_backward(loss).save('loss.gif')  # or 'loss.html', a page that plays it in any browser

Laying a graph out takes a Graphviz `dot` program. The system's `dot` is used when it is on
PATH; otherwise the `graphviz-pure` command from pip (part of `pip install micrograd[viz]`).
"""
from __future__ import annotations

import base64
import html
import io
import itertools
import math
import os
import re
import shutil
import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from micrograd.engine import Value

try:
    import graphviz  # type: ignore[import-untyped]
    from graphviz.backend import dot_command  # type: ignore[import-untyped]
except ImportError as e:
    raise ImportError("micrograd.viz draws graphs with the graphviz package: pip install micrograd[viz]") from e

__all__ = ['trace', 'draw_dot', 'draw_backward', 'BackwardPass', 'Step', 'Share', 'RendererNotFound', 'MAX_NODES']

# Layout time grows faster than the graph. Measured with graphviz-pure: one sample through an MLP,
# 300 Values, lays out in 0.2 s; the slowest shape, one Value used by every step of a chain
# (`y = y * x` repeated), takes 2 s at 300 Values and 7 s at 500. Beyond a few hundred Values a
# drawing is no longer readable anyway: draw one sample.
MAX_NODES = 300

HIGHLIGHT = '#e67700'  # the node whose gradient is being passed on, and the arrows it flows along
HIGHLIGHT_FILL = '#ffe8cc'  # the op that passes it on
UNKNOWN_FILL = '#eeeeee'  # a grad backward() has not computed yet


def trace(root: Value) -> tuple[list[Value], list[tuple[Value, Value]]]:
    """The Values root was made from (root included) and the edges (parent, child) between them.

    Nodes come in topological order, each after the Values it was made from, and the order is
    the same every time for the same graph. Edges keep multiplicity: `a*a` has two edges (a, a*a).
    """
    # Depth-first with an explicit stack, not recursion, so long chains (an RNN, a 10,000-step
    # sum) do not hit Python's recursion limit. (node, True) means "all parents of node are done".
    order: list[Value] = []
    visited: set[Value] = set()
    stack: list[tuple[Value, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            stack.extend((parent, False) for parent in reversed(node._prev))  # the first parent is visited first
    edges = [(parent, child) for child in order for parent in child._prev]
    return order, edges


def draw_dot(root: Value, format: str = 'svg', rankdir: str = 'LR', *,
             max_nodes: int = MAX_NODES, color: bool = True) -> graphviz.Digraph:
    """The computation graph of root as a graphviz.Digraph: `.source`, `.pipe()`, `.render()`, inline in Jupyter.

    - Each Value is a box `{ label | data 2.0000 | grad -24.0000 }` (label only when set); each op is
      a small ellipse (`+`, `*`, `tanh`, `**2`, ...) pointing at the Value it produced. A Value used
      twice has two arrows. `Value.dot(ws, xs, b)` is one op `w1*x1 + w2*x2 + b`, its arrows labelled w1, x1, ...
    - color=True fills each Value by its gradient: blue for grad > 0, red for grad < 0, deeper for a
      larger |grad|; white for grad = 0. Leaves (inputs, parameters) have a bold border.
    - Drawn before backward(), every grad is 0; the drawing then says so in a note beneath it.
    - Graphs of more than max_nodes Values are refused: their layout takes minutes or never ends.
    """
    nodes = _checked_trace(root, rankdir, max_nodes, 'draw_dot')
    grads = {v: v.grad for v in nodes}
    dot = _draw(nodes, grads, format=format, rankdir=rankdir, color=color, scale=_largest(grads.values()))
    if len(nodes) > 1 and all(v.grad == 0.0 for v in nodes):  # the classic "forgot backward()"
        dot.attr(label='all grads are 0: call backward() on the output first to fill them in',
                 labelloc='b', fontname='Helvetica', fontsize='11', fontcolor='#b03030')
    return dot


# --- backward(), one node at a time ------------------------------------------------------------

def draw_backward(root: Value, format: str = 'svg', rankdir: str = 'LR', *,
                  max_nodes: int = MAX_NODES, color: bool = True) -> BackwardPass:
    """Run root.backward() one node at a time, drawing the graph before the first step and after each one.

    Returns a BackwardPass: `.frames` (one graphviz.Digraph per frame, drawn as draw_dot draws),
    `.captions` (the arithmetic of each step, to check by hand), `.steps`; in Jupyter it shows as a
    player (previous / next / play and a slider), and `.save('f.html')` or `.save('f.gif')` writes one.

    - It *is* backward(): the engine's topological order and each node's own `_backward`, run in
      the same order, so afterwards every .grad is what root.backward() gives, and leaves that
      already had gradients accumulate, as they do with backward().
    - A frame highlights the node whose gradient is being passed on, its op and the arrows the
      gradient flows along; grads not computed yet show as `?`, not as 0. Values without a label are
      named v0, v1, ... (their place in trace(root)) in the boxes and the captions alike.
    - The options are draw_dot's; graphs of more than max_nodes Values are refused as draw_dot refuses them.
      Each frame is a whole picture, so the player grows with the graph squared: 44 kB for f = (a*b + c)**2,
      2 MB for one sample through a 2-4-4-1 MLP (58 Values). It is made for expressions and single neurons.
    """
    nodes = _checked_trace(root, rankdir, max_nodes, 'draw_backward')
    names = {v: v.label or f'v{i}' for i, v in enumerate(nodes)}
    order = root._topological_order()
    earlier = [v for v in nodes if not v._prev and v is not root and v.grad != 0.0]

    # Value.backward(), with a record after the start and after each node.
    for node in order:
        node.grad = 0.0  # intermediates hold this pass's gradient only (the engine's order may have reset them)
    root.grad += 1.0
    # What a frame shows of each grad: None until backward() has computed it. Leaves keep the grads
    # they had (they accumulate); every other node was just reset.
    shown: dict[Value, float | None] = {v: v.grad if v is root or v in earlier else None for v in nodes}
    grads = [dict(shown)]
    steps: list[Step] = []
    for node in reversed(order):
        steps.append(_step(node, names, shown))
        node._backward(node.grad)  # type: ignore[misc]  # the chain rule, as the engine does it
        for parent in node._prev:
            shown[parent] = parent.grad
        grads.append(dict(shown))

    captions = [_first_caption(root, names, len(steps), earlier)]
    captions += [_caption(step, i, len(steps), names, grads[i]) for i, step in enumerate(steps, start=1)]
    # One colour scale and one width per box for every frame, so that nothing but the step changes.
    scale = _largest(grads[-1].values())
    widths = {v: max(_box_width(_box_fields(v, g[v], names)) for g in grads) for v in nodes}
    frames = [_draw(nodes, g, format=format, rankdir=rankdir, color=color, scale=scale, names=names,
                    focus=steps[i - 1].node if i else root, flow=i > 0, widths=widths)
              for i, g in enumerate(grads)]
    return BackwardPass(names[root], frames, captions, steps, grads)


@dataclass(frozen=True)
class Share:
    """One `parent.grad += ...` that a node's _backward performs, with the numbers put in."""
    parent: Value
    formula: str  # 'a.grad += b.data * e.grad', as engine.py writes it
    numbers: str  # '-3.0 * 8.0', the right-hand side with the numbers put in ('' if it has none)
    term: float  # what it adds to parent.grad (negative for `-=`)
    before: float  # parent.grad before
    known: bool  # False if backward() had not computed parent.grad yet (shown as ?; it was 0)

    @property
    def after(self) -> float:
        return self.before + self.term

    def __str__(self) -> str:  # 'a.grad += b.data * e.grad = -3.0 * 8.0 → -24.0'
        result = _num(self.after)
        if self.known:
            result = f'{_num(self.before)} {"-" if self.term < 0 else "+"} {_num(abs(self.term))} = {result}'
        return f'{self.formula}{" = " + self.numbers if self.numbers else ""} → {result}'


@dataclass(frozen=True)
class Step:
    """One node's _backward: the node, the expression that made it, and what it added to each parent's grad."""
    node: Value
    expression: str  # 'e = a * b'
    shares: tuple[Share, ...]  # in the order _backward adds them; a parent used twice appears twice


class BackwardPass:
    """What draw_backward returns: the frames of a backward pass, their captions, and the steps between them.

    In Jupyter (and VS Code, and the HTML nbconvert exports) it shows as a player that needs no kernel
    and fetches nothing; where scripts do not run, the frames are shown one under the other instead.
    """

    def __init__(self, name: str, frames: list[graphviz.Digraph], captions: list[str], steps: list[Step],
                 grads: list[dict[Value, float | None]]) -> None:
        self.name = name
        self.frames = frames  # frames[0]: before the first step; frames[i]: after steps[i - 1]
        self.captions = captions
        self.steps = steps
        self.grads = grads  # grads[i][v]: the grad frame i shows for v, None for "not yet computed"
        self._svgs: list[str] | None = None

    def __len__(self) -> int:
        return len(self.frames)

    def __repr__(self) -> str:
        return f'<backward pass of {self.name}: {len(self.steps)} steps, {len(self.frames)} frames>'

    def svgs(self) -> list[str]:
        """Each frame drawn as SVG text (drawn once, then kept)."""
        if self._svgs is None:
            self._svgs = [frame.pipe(format='svg', encoding='utf-8') for frame in self.frames]
        return self._svgs

    def _repr_html_(self) -> str:
        return _player(self.svgs(), self.captions, f'micrograd-backward-{next(_player_numbers)}')

    def save(self, path: str | os.PathLike[str], *, seconds_per_frame: float = 2.5) -> Path:
        """Write the player as a standalone .html page, or the frames as an animated .gif; returns the path."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in ('.html', '.htm'):
            title = html.escape(f'backward pass of {self.name}')
            page = (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{title}</title>\n'
                    f'</head>\n<body style="margin: 16px">\n{self._repr_html_()}\n</body>\n</html>\n')
            path.write_text(page, encoding='utf-8')
        elif suffix == '.gif':
            if not seconds_per_frame > 0:
                raise ValueError(f"BackwardPass.save: seconds_per_frame must be > 0, got {seconds_per_frame}")
            _write_gif(path, [frame.pipe(format='png') for frame in self.frames], self.captions, seconds_per_frame)
        else:
            raise ValueError(f"BackwardPass.save: can write .html (a player) or .gif (an animation), got {path.name!r}")
        return path


def _step(node: Value, names: Mapping[Value, str], shown: Mapping[Value, float | None]) -> Step:
    """What node's _backward is about to add to its parents' grads, worked out from the same numbers."""
    expression, rules = _local_rule(node, names)
    shares: list[Share] = []
    running: dict[Value, float] = {}
    for parent, formula, numbers, term in rules:
        before = running.get(parent, parent.grad)
        shares.append(Share(parent, formula, numbers, term, before, parent in running or shown[parent] is not None))
        running[parent] = before + term
    return Step(node, expression, tuple(shares))


_NUMBER_OP = re.compile(r'(\*\*|[*+])(.+)')  # an op with a plain number: '*2', '+-3', '**0.5' (x/2 is x*0.5)


def _local_rule(node: Value, names: Mapping[Value, str]) -> tuple[str, list[tuple[Value, str, str, float]]]:
    """The expression that made node, and per parent what its _backward adds: the formula as engine.py
    writes it, the same with the numbers put in, and its value, computed as the engine computes it."""
    op, parents, g = node._op, node._prev, node.grad
    out, grad = names[node], _num(g)
    out_grad = f'{out}.grad'
    if op in ('+', '*', '/', '**') and len(parents) == 2:
        x, y = parents
        xn, yn = names[x], names[y]
        xd, yd = _num(x.data), _num(y.data)
        expression = f'{out} = {xn} {op} {yn}'
        if op == '+':  # d(x+y)/dx = d(x+y)/dy = 1
            return expression, [(x, f'{xn}.grad += {out_grad}', grad, g), (y, f'{yn}.grad += {out_grad}', grad, g)]
        if op == '*':  # d(xy)/dx = y, d(xy)/dy = x
            return expression, [(x, f'{xn}.grad += {yn}.data * {out_grad}', f'{yd} * {grad}', y.data * g),
                                (y, f'{yn}.grad += {xn}.data * {out_grad}', f'{xd} * {grad}', x.data * g)]
        if op == '/':  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2
            return expression, [
                (x, f'{xn}.grad += {out_grad} / {yn}.data', f'{grad} / {yd}', g / y.data),
                (y, f'{yn}.grad -= {out_grad} * {xn}.data / ({yn}.data * {yn}.data)',
                 f'{grad} * {xd} / ({yd} * {yd})', -(g * x.data / (y.data * y.data)))]
        # x ** k with a Value k: d/dx = k x**(k-1), d/dk = x**k log(x)
        return expression, [
            (x, f'{xn}.grad += {yn}.data * {xn}.data ** ({yn}.data - 1) * {out_grad}',
             f'{yd} * {xd} ** ({yd} - 1) * {grad}', y.data * x.data ** (y.data - 1) * g),
            (y, f'{yn}.grad += {out}.data * log({xn}.data) * {out_grad}',
             f'{_num(node.data)} * log({xd}) * {grad}', node.data * math.log(x.data) * g)]

    if len(parents) == 1:
        (x,) = parents
        xn, xd, yd = names[x], _num(x.data), _num(node.data)
        to_x = f'{xn}.grad +='
        if op == 'tanh':  # d tanh(x)/dx = 1 - tanh(x)**2
            return f'{out} = tanh({xn})', [(x, f'{to_x} (1 - {out}.data * {out}.data) * {out_grad}',
                                             f'(1 - {yd} * {yd}) * {grad}', (1 - node.data * node.data) * g)]
        if op == 'relu':  # 1 for x > 0, else 0
            if x.data > 0:
                return f'{out} = relu({xn}), {xn}.data > 0', [(x, f'{to_x} {out_grad}', grad, g)]
            return f'{out} = relu({xn}), {xn}.data <= 0', [(x, f'{to_x} 0', '', 0.0)]
        if op == 'exp':  # d e**x/dx = e**x
            return f'{out} = exp({xn})', [(x, f'{to_x} {out}.data * {out_grad}', f'{yd} * {grad}', node.data * g)]
        if op == 'log':  # d log(x)/dx = 1/x
            return f'{out} = log({xn})', [(x, f'{to_x} {out_grad} / {xn}.data', f'{grad} / {xd}', g / x.data)]
        if op == 'sigmoid':  # d sigmoid(x)/dx = s (1 - s)
            return f'{out} = sigmoid({xn})', [(x, f'{to_x} {out}.data * (1 - {out}.data) * {out_grad}',
                                                f'{yd} * (1 - {yd}) * {grad}', node.data * (1 - node.data) * g)]
        number = _NUMBER_OP.fullmatch(op)
        if number:
            symbol, k_text = number.groups()
            k = float(k_text)
            expression = f'{out} = {xn} {symbol} {k_text}'
            if symbol == '+':  # d(x+k)/dx = 1
                return expression, [(x, f'{to_x} {out_grad}', grad, g)]
            if symbol == '*':  # d(kx)/dx = k
                return expression, [(x, f'{to_x} {k_text} * {out_grad}', f'{k_text} * {grad}', k * g)]
            if k == 0:  # x**0 is 1 everywhere
                return expression, [(x, f'{to_x} 0', '', 0.0)]
            return expression, [(x, f'{to_x} {k_text} * {xn}.data ** ({k_text} - 1) * {out_grad}',
                                 f'{k_text} * {xd} ** ({k_text} - 1) * {grad}', k * x.data ** (k - 1) * g)]

    if op == 'dot':  # parents (*ws, *xs) and maybe a bias; d/dw_i = x_i, d/dx_i = w_i, d/dbias = 1
        n = len(parents) // 2
        ws, xs, bias = parents[:n], parents[n:2 * n], parents[2 * n:]
        terms = [f'{names[w]} * {names[x]}' for w, x in zip(ws, xs)]
        rules = []
        for w, x in zip(ws, xs):
            wn, xn = names[w], names[x]
            rules.append((w, f'{wn}.grad += {xn}.data * {out_grad}', f'{_num(x.data)} * {grad}', x.data * g))
            rules.append((x, f'{xn}.grad += {wn}.data * {out_grad}', f'{_num(w.data)} * {grad}', w.data * g))
        for b in bias:
            terms.append(names[b])
            rules.append((b, f'{names[b]}.grad += {out_grad}', grad, g))
        return f'{out} = {" + ".join(_shorten(terms, n))}', rules

    # An op micrograd.viz does not know (one added to the engine later): its _backward still runs.
    return f'{out} = {op}({", ".join(names[p] for p in parents)})', []


def _shorten(items: list[str], pairs: int) -> list[str]:
    """The first and last of many pairs, with '...' between: long dot ops stay one readable line."""
    return items if pairs <= 3 else [items[0], '...', *items[pairs - 1:]]


def _caption(step: Step, number: int, steps: int, names: Mapping[Value, str],
             grads_after: Mapping[Value, float | None]) -> str:
    """'step 3/3 · e = a * b · e.grad = 8.0 · a.grad += b.data * e.grad = -3.0 * 8.0 → -24.0 · ...'"""
    node = step.node
    parts = [f'step {number}/{steps}', step.expression, f'{names[node]}.grad = {_num(node.grad)}']
    shares = [str(share) for share in step.shares]
    pairs = len(node._prev) // 2
    if node._op == 'dot' and pairs > 3:  # the first pair, the last pair and the bias
        shares = [*shares[:2], f'... {pairs - 2} more pairs alike ...', *shares[2 * pairs - 2:]]
    if not step.shares and node._prev:
        after = ', '.join(f'{names[p]}.grad → {_num(grads_after[p] or 0.0)}' for p in dict.fromkeys(node._prev))
        shares = [f'(no caption for the op {node._op!r}; its _backward ran: {after})']
    return ' · '.join(parts + shares)


def _first_caption(root: Value, names: Mapping[Value, str], steps: int, earlier: list[Value]) -> str:
    """Frame 0: backward() has only set the output's own gradient."""
    r = names[root]
    if root._prev:
        parts = [f'step 0/{steps}', f'{r}.grad = 1.0, as d{r}/d{r} = 1: backward() starts here',
                 'the grads still to compute show as ?']
    else:  # a leaf: backward() just adds 1 to its grad
        parts = [f'step 0/{steps}', f'{r} is a leaf: {r}.grad += 1.0 → {_num(root.grad)}']
    if earlier:
        held = ', '.join(f'{names[v]}.grad' for v in earlier)
        parts.append(f'{held} keep their earlier values and add to them (leaves accumulate)')
    return ' · '.join(parts)


def _num(x: float) -> str:
    """A number as a caption shows it: 4 decimals at most, as in the drawing, and no trailing zeros."""
    if x == 0:
        return '0.0'  # also for -0.0
    if not math.isfinite(x) or not 1e-4 <= abs(x) < 1e6:
        return f'{x:.4g}'
    text = f'{x:.4f}'.rstrip('0')
    return text + '0' if text.endswith('.') else text


# --- the drawing draw_dot and draw_backward share ---------------------------------------------

def _checked_trace(root: Value, rankdir: str, max_nodes: int, caller: str) -> list[Value]:
    if rankdir not in ('LR', 'TB'):
        raise ValueError(f"{caller}: rankdir must be 'LR' (left to right) or 'TB' (top to bottom), got {rankdir!r}")
    nodes, _ = trace(root)
    if len(nodes) > max_nodes:
        raise ValueError(
            f"{caller}: this graph has {len(nodes):,} Values, more than max_nodes={max_nodes:,}; laying it out "
            f"would take minutes or never finish. Draw the graph of one sample (e.g. the loss of a single input) "
            f"instead, or pass max_nodes={len(nodes)} to draw it anyway.")
    return nodes


def _draw(nodes: list[Value], grads: Mapping[Value, float | None], *, format: str, rankdir: str, color: bool,
          scale: float, names: Mapping[Value, str] | None = None, focus: Value | None = None, flow: bool = False,
          widths: Mapping[Value, float] | None = None) -> _Digraph:
    """The picture of a graph: a box per Value showing grads[v] (None: `grad ?`), an oval per op.

    scale: the |grad| filled deepest. names: shown for Values without a label. focus: a Value drawn
    highlighted; with flow=True also its op, the arrows into that op and the parents they lead from,
    the way its gradient flows. widths: a least width per box (inches), so boxes keep their size.
    """
    # Names come from the topological order, not id(), so the same graph gives the same DOT text.
    name = {v: f'v{i}' for i, v in enumerate(nodes)}
    # nslimit caps the network-simplex passes that place nodes. Uncapped, a Value reused by many steps
    # (x in `y = y * x` repeated 100 times) takes minutes to place; capped, under a second, and
    # small graphs come out the same.
    dot = _Digraph(format=format, graph_attr={'rankdir': rankdir, 'nslimit': '2'},
                   node_attr={'fontname': 'Helvetica', 'fontsize': '11'},
                   edge_attr={'arrowsize': '0.7', 'fontname': 'Helvetica', 'fontsize': '9', 'fontcolor': '#555555'})
    receiving = set(focus._prev) if focus is not None and flow else set()
    lit = {'color': HIGHLIGHT, 'penwidth': '2'}

    for v in nodes:
        style = {}
        if color:
            grad = grads[v]
            style = {'style': 'filled', 'fillcolor': UNKNOWN_FILL if grad is None else _grad_color(grad, scale)}
        if not v._prev:  # a leaf: an input or a parameter, whose grad is what backward() is for
            style['penwidth'] = '2'
        if v is focus:
            style.update(color=HIGHLIGHT, penwidth='3')
        elif v in receiving:
            style['color'] = HIGHLIGHT
        if widths:
            style['width'] = f'{widths[v]:.2f}'
        label = '{ ' + ' | '.join(_escape_record(f) for f in _box_fields(v, grads[v], names)) + ' }'
        dot.node(name[v], label=label, shape='record', **style)
        if v._op:
            op_style = {**lit, 'style': 'filled', 'fillcolor': HIGHLIGHT_FILL} if flow and v is focus else {}
            dot.node(name[v] + '_op', label=_op_label(v), shape='ellipse', margin='0.04,0.02', width='0.5',
                     fontsize='10', height='0.3', **op_style)
            dot.edge(name[v] + '_op', name[v], **(lit if flow and v is focus else {}))

    for child in nodes:
        roles = _operand_roles(child)
        for i, parent in enumerate(child._prev):
            attrs = {'label': roles[i]} if roles else {}
            dot.edge(name[parent], name[child] + '_op', **attrs, **(lit if flow and child is focus else {}))

    dot.values = len(nodes)
    return dot


def _box_fields(v: Value, grad: float | None, names: Mapping[Value, str] | None) -> list[str]:
    """The text of a Value's box: its label (or given name), data and grad (None: not yet known)."""
    title = v.label or (names[v] if names else '')
    return ([title] if title else []) + [f'data {v.data:.4f}', 'grad ?' if grad is None else f'grad {grad:.4f}']


def _largest(grads: Iterable[float | None]) -> float:
    """The largest finite |grad|: the one filled deepest."""
    return max((abs(g) for g in grads if g is not None and math.isfinite(g)), default=0.0)


def _op_label(v: Value) -> str:
    """What an op node shows: the op, except the fused weighted sum, which shows its formula.

    ASCII only: renderers without font files (graphviz-pure) warn about any other character.
    """
    if v._op != 'dot':
        return v._op
    n = len(v._prev) // 2
    terms = [f'w{i}*x{i}' for i in range(1, n + 1)]
    return ' + '.join((terms if n <= 3 else [terms[0], '...', terms[-1]]) + (['b'] if len(v._prev) % 2 else []))


def _operand_roles(v: Value) -> list[str] | None:
    """Edge labels for ops whose operands play different parts; None where order does not matter."""
    if v._op == 'dot':  # parents are (*ws, *xs) and the bias, if any: w1 pairs with x1
        n = len(v._prev) // 2
        return [f'w{i + 1}' for i in range(n)] + [f'x{i + 1}' for i in range(n)] + ['b'] * (len(v._prev) % 2)
    if v._op == '/' and len(v._prev) == 2:
        return ['num', 'den']
    if v._op == '**' and len(v._prev) == 2:
        return ['base', 'exp']
    return None


def _escape_record(text: str) -> str:
    """A user's label as literal text inside a record, where {, }, |, < and > have meanings."""
    for ch in '\\{}|<>':
        text = text.replace(ch, '\\' + ch)
    return text


def _grad_color(grad: float, scale: float) -> str:
    """White for 0, towards blue for grad > 0 and red for grad < 0, deeper for larger |grad| (relative to scale)."""
    if math.isnan(grad):
        return '#cccccc'
    if grad == 0.0:
        return '#ffffff'
    ratio = min(abs(grad) / scale, 1.0) if scale else 1.0  # scale is 0 only if grad is inf and all others 0
    # sqrt spreads small gradients out so they still show; 0.15 keeps the tiniest one visible.
    strength = 0.15 + 0.6 * math.sqrt(ratio)
    target = (66, 133, 244) if grad > 0 else (219, 68, 55)
    r, g, b = (round(255 + (c - 255) * strength) for c in target)
    return f'#{r:02x}{g:02x}{b:02x}'


# Helvetica's character widths in thousandths of the font size (its Adobe font metrics), which is how
# Graphviz sizes text when it has no font files; other characters count as one full width.
_HELVETICA = {ch: width for width, chars in (
    (191, "'"), (222, 'ijl'), (260, '|'), (278, ' !,./:;I[\\]ft'), (333, '()-`r'), (334, '{}'), (355, '"'),
    (389, '*'), (469, '^'), (500, 'Jckstvxyz'), (556, '#$0123456789?L_abdeghnopqu'), (584, '+<=>~'),
    (611, 'FTZ'), (667, '&ABEKPSVXY'), (722, 'CDHNRUw'), (778, 'GOQ'), (833, 'Mm'), (889, '%'), (944, 'W'),
    (1015, '@')) for ch in chars}


def _box_width(fields: list[str]) -> float:
    """The width in inches of a record box with these fields in 11-point Helvetica (8 points of margin each side)."""
    points = sum(sum(_HELVETICA.get(ch, 1000) for ch in field) * 11 / 1000 + 16 for field in fields)
    return math.ceil(points / 72 * 100 + 1) / 100  # rounded up to the 0.01 inch the DOT text gives


# --- the player and the GIF ---------------------------------------------------------------------

_player_numbers = itertools.count()  # ids unique on a page, and the same each time a notebook is run


def _svg_image(svg: str, description: str) -> str:
    """An SVG drawing as an image inside the page itself (a data: URL), fetched from nowhere.

    An <img> rather than an inline <svg>: JupyterLab strips <svg> elements from the outputs of notebooks
    it does not trust, but keeps images, so the frames still show there.
    """
    # Comments, titles (tooltips, which an <img> never shows) and ids are a tenth of Graphviz's SVG.
    svg = re.sub(r'<!--.*?-->\n|<title>.*?</title>\n| id="[^"]*"', '', svg, flags=re.DOTALL)
    data = base64.b64encode(svg.encode('utf-8')).decode('ascii')
    return (f'<img src="data:image/svg+xml;base64,{data}" alt="{html.escape(description)}" '
            f'style="display: block; max-width: 100%; height: auto">')


def _caption_lines(caption: str) -> list[str]:
    """A caption as lines: what the step is about, then one `x.grad += ...` a line."""
    parts = caption.split(' · ')
    head = 2 if parts[0].startswith('step 0/') else 3
    return [' · '.join(parts[:head]), *parts[head:]]


def _player(svgs: Sequence[str], captions: Sequence[str], player_id: str) -> str:
    """Self-contained HTML: every frame in the page, and a few lines of script that turn them into a player.

    Without scripts (an untrusted notebook in JupyterLab) the frames simply stand one under the other.
    """
    figures = []
    for i, (svg, caption) in enumerate(zip(svgs, captions)):
        lines = ''.join(f'<div>{html.escape(line)}</div>' for line in _caption_lines(caption))
        figures.append(
            f'<figure class="mg-frame" data-frame="{i}" style="margin: 0 0 14px 0">\n{_svg_image(svg, caption)}\n'
            f'<figcaption style="font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; '
            f'color: #222; margin-top: 4px">{lines}</figcaption>\n</figure>')
    return f"""<div id="{player_id}" class="micrograd-backward" tabindex="0" style="outline: none">
<div class="mg-controls" hidden
 style="display: none; gap: 8px; align-items: center; margin: 4px 0 8px; font: 13px sans-serif">
<button type="button" data-go="prev">&#9664; previous</button>
<button type="button" data-go="play">&#9654; play</button>
<button type="button" data-go="next">next &#9654;</button>
<input type="range" min="0" max="{len(svgs) - 1}" value="0" step="1" aria-label="frame"
 style="flex: 1; max-width: 360px">
<span class="mg-counter"></span>
</div>
<div class="mg-frames">
{chr(10).join(figures)}
</div>
<script>
{_PLAYER_SCRIPT.replace('PLAYER_ID', player_id)}
</script>
</div>"""


_PLAYER_SCRIPT = """(function () {
  var player = document.getElementById('PLAYER_ID');
  if (!player || player.getAttribute('data-ready')) { return; }
  player.setAttribute('data-ready', 'yes');
  var frames = player.querySelectorAll('.mg-frame');
  var controls = player.querySelector('.mg-controls');
  var slider = player.querySelector('input[type=range]');
  var counter = player.querySelector('.mg-counter');
  var prev = player.querySelector('[data-go=prev]');
  var next = player.querySelector('[data-go=next]');
  var play = player.querySelector('[data-go=play]');
  var last = frames.length - 1, current = 0, timer = null;
  // All frames in one grid cell: the player is as tall as its tallest frame and never jumps.
  player.querySelector('.mg-frames').style.display = 'grid';
  for (var i = 0; i < frames.length; i++) { frames[i].style.gridArea = '1 / 1'; }
  function show(k) {
    current = Math.max(0, Math.min(last, k));
    for (var i = 0; i < frames.length; i++) {
      frames[i].style.visibility = i === current ? 'visible' : 'hidden';
    }
    slider.value = current;
    counter.textContent = 'frame ' + (current + 1) + ' of ' + frames.length;
    prev.disabled = current === 0;
    next.disabled = current === last;
  }
  function stop() {
    clearInterval(timer);
    timer = null;
    play.textContent = '\\u25B6 play';
  }
  prev.onclick = function () { stop(); show(current - 1); };
  next.onclick = function () { stop(); show(current + 1); };
  slider.oninput = function () { stop(); show(Number(slider.value)); };
  play.onclick = function () {
    if (timer) { stop(); return; }
    if (current === last) { show(0); }
    play.textContent = '\\u275A\\u275A pause';
    timer = setInterval(function () { if (current === last) { stop(); } else { show(current + 1); } }, 1500);
  };
  player.onkeydown = function (event) {
    if (event.target === slider) { return; }
    if (event.key === 'ArrowLeft') { prev.onclick(); } else if (event.key === 'ArrowRight') { next.onclick(); }
  };
  controls.hidden = false;
  controls.style.display = 'flex';
  show(0);
})();"""


def _write_gif(path: Path, pngs: list[bytes], captions: list[str], seconds_per_frame: float) -> None:
    """An animated GIF of the frames with their captions beneath, all frames the same size."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:
        raise ImportError("BackwardPass.save: writing a GIF takes Pillow: pip install micrograd[viz]") from e
    pictures = [Image.open(io.BytesIO(png)).convert('RGB') for png in pngs]
    try:  # a monospaced font with an arrow, as on most systems; Pillow's own font has no arrow
        font: Any = ImageFont.truetype('DejaVuSansMono.ttf', 15)
    except OSError:
        font = ImageFont.load_default(size=15)
        captions = [c.replace('→', '->') for c in captions]
    margin, line_height = 16, 22
    width = max(p.width for p in pictures) + 2 * margin
    captions_lines = [_wrap(_caption_lines(c), font, width - 2 * margin) for c in captions]
    top = max(p.height for p in pictures) + 2 * margin
    height = top + max(len(lines) for lines in captions_lines) * line_height + margin
    images = []
    for picture, lines in zip(pictures, captions_lines):
        canvas = Image.new('RGB', (width, height), 'white')
        canvas.paste(picture, ((width - picture.width) // 2, margin))
        draw = ImageDraw.Draw(canvas)
        for i, line in enumerate(lines):
            draw.text((margin, top + i * line_height), line, fill=(34, 34, 34), font=font)
        images.append(canvas.convert('P', palette=Image.Palette.ADAPTIVE, colors=64))
    milliseconds = [round(1000 * seconds_per_frame)] * len(images)
    milliseconds[-1] *= 2  # linger on the finished gradients before starting over
    images[0].save(path, save_all=True, append_images=images[1:], duration=milliseconds, loop=0, optimize=True)


def _wrap(lines: list[str], font: Any, width: float) -> list[str]:
    """Lines broken at spaces so that each fits in width pixels."""
    wrapped = []
    for line in lines:
        words, current = line.split(' '), ''
        for word in words:
            candidate = f'{current} {word}' if current else word
            if current and font.getlength(candidate) > width:
                wrapped.append(current)
                candidate = '    ' + word
            current = candidate
        wrapped.append(current)
    return wrapped


# --- finding a renderer -----------------------------------------------------------------------

class RendererNotFound(graphviz.ExecutableNotFound):  # type: ignore[misc]  # graphviz has no types
    """Neither Graphviz's `dot` nor graphviz-pure is installed, so a graph can be described but not drawn."""

    def __init__(self) -> None:
        # ExecutableNotFound.__init__ words its message around a command line; this one names the remedies.
        RuntimeError.__init__(
            self,
            "micrograd.viz: no program found to lay out the graph. Either `pip install graphviz-pure` "
            "(included in `pip install micrograd[viz]`), or install Graphviz from https://graphviz.org/download/ "
            "so that its `dot` command is on PATH. (`.source` gives the DOT text without either.)")


def _script_dirs() -> list[str]:
    """Where pip puts commands for this Python: not on PATH in a venv used without activating it
    (a Jupyter kernel started from .venv/bin/python), nor always for `pip install --user`."""
    dirs = [sysconfig.get_path('scripts'), sysconfig.get_path('scripts', sysconfig.get_preferred_scheme('user'))]
    return [d for d in dirs if d]


def _find_renderer() -> Path | None:
    """The program that lays out graphs: the system `dot` if on PATH, else graphviz-pure, else None."""
    if shutil.which('dot'):
        return Path('dot')  # exactly what the graphviz package runs by default
    pure = shutil.which('graphviz-pure') or shutil.which('graphviz-pure', path=os.pathsep.join(_script_dirs()))
    return Path(pure).absolute() if pure else None  # absolute: render() runs it from the output folder


def _use_renderer() -> None:
    """Point the graphviz package at the renderer found, unless the user chose one themselves.

    The graphviz package runs `graphviz.backend.dot_command.DOT_BINARY` for every render, pipe and
    Jupyter display, so this is the one setting to change. It only ever replaces a `dot` that is
    not there (which would fail anyway), so other graphviz users in the same process only gain.
    """
    current = Path(dot_command.DOT_BINARY)
    if current != Path('dot') and current.stem != 'graphviz-pure':
        return  # set by the user: respect it
    renderer = _find_renderer()
    if renderer is None:
        raise RendererNotFound()
    dot_command.DOT_BINARY = renderer


class _Digraph(graphviz.Digraph):  # type: ignore[misc]  # graphviz has no types
    """A graphviz.Digraph that finds its renderer when it draws (Jupyter display goes through pipe)."""

    def pipe(self, *args: Any, **kwargs: Any) -> bytes | str:
        _use_renderer()
        output: bytes | str = super().pipe(*args, **kwargs)
        return output

    def render(self, *args: Any, **kwargs: Any) -> str:
        _use_renderer()
        path: str = super().render(*args, **kwargs)
        return path

    def __repr__(self) -> str:  # no memory address: notebook outputs stay the same from run to run
        return f'<micrograd graph: {self.values} Values>'
