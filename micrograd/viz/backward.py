"""Stepping through backward(): the engine's own order and each node's own _backward, one node at a time,
drawn after every step, with a caption that says what the step did.

A caption's numbers all come from the graph: the gradient a node passes on, its parents' .data, its own
.data (t for tanh, e for exp, s for sigmoid), the exponent k as its op spells it (`**2`), the slope of x ** k
as the engine computes it, and each parent's .grad read before and after the _backward ran. They are written
as the boxes write them (graph.number: four decimals), the exponent as the user wrote it. Only the words
are this module's: the rule each op's backward follows, written as engine.py writes it, so that a learner
can check the sum. An op the engine does not have (a Value built by hand, or a custom op
written the lecture's way) is shown by what its _backward did to each parent's grad.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from micrograd import numeric
from micrograd.engine import Value
from micrograd.viz.gif import write_gif
from micrograd.viz.graph import MAX_NODES, box_fields, box_width, checked_trace, draw_graph, largest_grad, number
from micrograd.viz.ops import engine_op, exponent
from micrograd.viz.player import page_html, player_html
from micrograd.viz.renderer import Digraph, shown

__all__ = ['draw_backward', 'BackwardPass', 'Step', 'GradChange']


@dataclass(frozen=True)
class GradChange:
    """What one step did to one parent's .grad, read before and after the node's _backward ran."""
    parent: Value
    before: float | None  # None: backward() had not computed this grad yet (it was 0, and is drawn as ?)
    after: float


@dataclass(frozen=True)
class Step:
    """One node's _backward: the node, the gradient it passed on, and the change to each parent's grad."""
    node: Value
    grad: float  # node.grad, d(root)/d(node), which its _backward passes on to its parents
    changes: tuple[GradChange, ...]  # one per parent, in the order of node._prev; a parent used twice once


def draw_backward(root: Value, format: str = 'svg', rankdir: str = 'LR', *,
                  max_nodes: int = MAX_NODES, color: bool = True) -> BackwardPass:
    """Run root.backward() one node at a time, drawing the graph before the first step and after each one.

    Returns a BackwardPass: `.frames` (one graphviz.Digraph per frame, drawn as draw_dot draws),
    `.captions` (the arithmetic of each step, to check by hand), `.steps`; in Jupyter it shows as a
    player (previous / next / play and a slider), and `.save('f.html')` or `.save('f.gif')` writes one.

    - It *is* backward(): the engine's topological order, its grads zeroed as backward() zeroes them,
      and each node's own `_backward`, so afterwards every .grad is what root.backward() gives, and
      leaves that already had gradients accumulate, as they do with backward().
    - A frame highlights the node whose gradient is being passed on, its op and the arrows the
      gradient flows along; grads not computed yet show as `?`, not as 0. Values without a label are
      named v0, v1, ... (their place in trace(root)) in the boxes and the captions alike.
    - The options are draw_dot's; graphs of more than max_nodes Values are refused as draw_dot refuses them.
      Each frame is a whole picture, so the player grows with the graph squared: 44 kB for f = (a*b + c)**2,
      2 MB for one sample through a 2-4-4-1 MLP (58 Values). It is made for expressions and single neurons.
    """
    nodes = checked_trace(root, rankdir, max_nodes, 'draw_backward')
    names = {v: shown(v.label) or f'v{i}' for i, v in enumerate(nodes)}  # in the boxes
    spoken = {v: _spoken(name) for v, name in names.items()}  # in the captions
    order = root._topological_order()
    accumulating = {v for v in nodes if not v._prev and v is not root and v.grad != 0.0}

    # root.backward(), with a record after the start and after each node.
    for node in order:
        node.grad = 0.0  # as backward() does: every node an op made holds this pass's gradient only
    root.grad += 1.0
    # What a frame shows of each grad: None until backward() has computed it. Leaves keep the grads
    # they had (they accumulate); every other node was just zeroed.
    frame_grads: dict[Value, float | None] = {v: v.grad if v is root or v in accumulating else None for v in nodes}
    grads = [dict(frame_grads)]
    steps: list[Step] = []
    for node in reversed(order):
        parents = list(dict.fromkeys(node._prev))  # each once, in order
        before = [p.grad for p in parents]
        node._grad_fn(node.grad)  # the chain rule, as backward() does it
        steps.append(Step(node, node.grad, tuple(GradChange(p, g if frame_grads[p] is not None else None, p.grad)
                                                  for p, g in zip(parents, before))))
        frame_grads.update((p, p.grad) for p in parents)
        grads.append(dict(frame_grads))

    lines = [_first_lines(root, spoken, len(steps), accumulating)]
    lines += [_step_lines(step, i, len(steps), spoken) for i, step in enumerate(steps, start=1)]
    # One colour scale and one width per box for every frame, so that nothing but the step changes.
    scale = largest_grad(grads[-1].values())
    widths = {v: max(box_width(box_fields(v, g[v], names)) for g in grads) for v in nodes}
    frames = [draw_graph(nodes, g, f'backward pass of {names[root]}, step {i} of {len(grads) - 1}', format=format,
                         rankdir=rankdir, color=color, scale=scale, names=names,
                         focus=steps[i - 1].node if i else root, flow=i > 0, widths=widths)
              for i, g in enumerate(grads)]
    return BackwardPass(spoken[root], frames, lines, steps, grads)


class BackwardPass:
    """What draw_backward returns: the frames of a backward pass, their captions, and the steps between them.

    In Jupyter (and VS Code, and the HTML nbconvert exports) it shows as a player that needs no kernel
    and fetches nothing; where scripts do not run, the frames are shown one under the other instead.
    """

    def __init__(self, name: str, frames: list[Digraph], caption_lines: list[list[str]], steps: list[Step],
                 grads: list[dict[Value, float | None]]) -> None:
        self.name = name
        self.frames = frames  # frames[0]: before the first step; frames[i]: after steps[i - 1]
        self.caption_lines = caption_lines  # what the step did, then each parent's grad, a line each
        self.captions = [' · '.join(lines) for lines in caption_lines]
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
            self._svgs = [frame.svg() for frame in self.frames]
        return self._svgs

    def _repr_html_(self) -> str:
        return player_html(self.svgs(), self.caption_lines, self.captions)

    def save(self, path: str | os.PathLike[str], *, seconds_per_frame: float = 2.5) -> Path:
        """Write the player as a standalone .html page, or the frames as an animated .gif; returns the path."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in ('.html', '.htm'):
            path.write_text(page_html(f'backward pass of {self.name}', self._repr_html_()), encoding='utf-8')
        elif suffix == '.gif':
            if not seconds_per_frame > 0:
                raise ValueError(f"BackwardPass.save: seconds_per_frame must be > 0, got {seconds_per_frame}")
            write_gif(path, [frame.png() for frame in self.frames], self.caption_lines, seconds_per_frame)
        else:
            raise ValueError(f"BackwardPass.save: can write .html (a player) or .gif (an animation), got {path.name!r}")
        return path


# --- captions -----------------------------------------------------------------------------------

def _spoken(name: str) -> str:
    """A Value's name as captions write it: on one line, and in parentheses unless it is one word
    (`(x1*w1 + x2*w2).grad`, not `x1*w1 + x2*w2.grad`, which reads as adding to w2's grad)."""
    name = ' '.join(name.split('\n'))
    return name if re.fullmatch(r'[^\W\d][\w.\[\]]*', name) else f'({name})'


def _first_lines(root: Value, names: Mapping[Value, str], steps: int, accumulating: set[Value]) -> list[str]:
    """Frame 0: backward() has only set the output's own gradient."""
    r = names[root]
    if root._prev:
        lines = [f'step 0/{steps} · {r}.grad = 1.0, as d{r}/d{r} = 1: backward() starts here',
                 'the grads still to compute show as ?']
    else:  # a leaf: backward() just adds 1 to its grad
        lines = [f'step 0/{steps} · {r} is a leaf: {r}.grad += 1.0 → {number(root.grad)}']
    if accumulating:
        held = ', '.join(f'{names[v]}.grad' for v in names if v in accumulating)
        lines.append(f'{held} keep their earlier values and add to them (leaves accumulate)')
    return lines


def _step_lines(step: Step, count: int, steps: int, names: Mapping[Value, str]) -> list[str]:
    """'step 3/3 · e = a * b · e.grad = 8.0000', then one line per `parent.grad += ...` with its numbers and result.

    A parent's line ends with its grad after the step (`→ -24.0000`), and with what it was, if backward()
    had computed it before (a leaf reached by two paths, or one that accumulates from an earlier call).
    """
    node, out = step.node, names[step.node]
    expression, held, terms = _rule(node, names, number(step.grad))
    changes = {change.parent: change for change in step.changes}
    last_term = {parent: i for i, (parent, _, _) in enumerate(terms)}  # where a parent's result goes
    term_lines = []
    for i, (parent, formula, numbers) in enumerate(terms):
        line = f'{formula} = {numbers}' if numbers else formula
        term_lines.append(line + _result(changes[parent]) if last_term[parent] == i else line)
    pairs = len(terms) // 2
    if engine_op(node) == 'dot' and pairs > 3:  # the first pair, the last pair and the bias
        term_lines[2:2 * pairs - 2] = [f'... {pairs - 2} more pairs alike ...']
    if not terms:  # an op without a rule here: what its _backward did, all the same
        term_lines = [f'{names[c.parent]}.grad' + _result(c) for c in step.changes]
    return [f'step {count}/{steps} · {expression} · {out}.grad = {number(step.grad)}', *held, *term_lines]


def _result(change: GradChange) -> str:
    was = '' if change.before is None else f' (was {number(change.before)})'
    return f' → {number(change.after)}{was}'


Term = tuple[Value, str, str]  # a parent, `parent.grad += formula` in names, and the formula in numbers


def _rule(node: Value, names: Mapping[Value, str], grad: str) -> tuple[str, list[str], list[Term]]:
    """The expression that made node, the numbers its _backward holds (with what they are), and the
    `parent.grad += ...` terms its _backward adds, in names and in numbers, as engine.py writes them.

    The numbers are the graph's: node's grad and .data, the parents' .data, and the slope of x ** k as
    micrograd.numeric computes it for the engine. An op without a rule here (a Value built by hand, a
    custom op, an op added to the engine later) gets its expression and no terms.
    """
    op, parents, out = engine_op(node), node._prev, names[node]
    g = f'{out}.grad'
    if op is not None:
        return _engine_rule(node, op, out, g, grad, names)
    symbol = ' '.join(shown(node._op).split('\n')) or '?'
    operands = [names[p] for p in parents]
    expression = f'{symbol}({", ".join(operands)})' if symbol.isidentifier() or len(operands) != 2 else \
        f' {symbol} '.join(operands)
    return f'{out} = {expression}', [], []


def _engine_rule(node: Value, op: str, out: str, g: str, grad: str,
                 names: Mapping[Value, str]) -> tuple[str, list[str], list[Term]]:
    """_rule for a node one of the engine's ops made (op: as ops.engine_op names it)."""
    parents = node._prev
    if op in ('+', '*', '/', '**'):
        (x, y), xn, yn = parents, names[parents[0]], names[parents[1]]
        if op == '+':  # d(x + y)/dx = d(x + y)/dy = 1
            return f'{out} = {xn} + {yn}', [], [(x, f'{xn}.grad += {g}', grad), (y, f'{yn}.grad += {g}', grad)]
        if op == '*':  # d(x * y)/dx = y, d(x * y)/dy = x
            return f'{out} = {xn} * {yn}', [], [(x, f'{xn}.grad += {yn}.data * {g}', f'{number(y.data)} * {grad}'),
                                                (y, f'{yn}.grad += {xn}.data * {g}', f'{number(x.data)} * {grad}')]
        if op == '/':  # d(x / y)/dx = 1/y, d(x / y)/dy = -x/y**2, written (x/y)/y
            return (f'{out} = {xn} / {yn}', [],
                    [(x, f'{xn}.grad += {g} / {yn}.data', f'{grad} / {number(y.data)}'),
                     (y, f'{yn}.grad -= {g} * ({xn}.data / {yn}.data / {yn}.data)',
                      f'{grad} * ({number(x.data)} / {number(y.data)} / {number(y.data)})')])
        # x ** y: d/dx = y x**(y-1) (slope), d/dy = x**y log(x) (numeric.times_log: 0 at x = 0, nan for x < 0)
        slope = numeric.power(x.data, y.data)[1]
        if x.data > 0:
            by_y = f'{number(node.data)} * log({number(x.data)}) * {grad}'
        else:  # log(x) is not real: the engine gives PyTorch's 0 at x = 0 (x**y is flat there) or nan
            by_y = f'{number(numeric.times_log(node.data, x.data))} * {grad}'
        held = [f'slope = {yn}.data * {xn}.data ** ({yn}.data - 1) = {number(slope)}']
        if not x.data > 0:
            held.append(f'{xn}.data is {number(x.data)}, not > 0: {out}.data * log({xn}.data) counts as '
                        f'{number(numeric.times_log(node.data, x.data))}, as in PyTorch')
        return (f'{out} = {xn} ** {yn}', held,
                [(x, f'{xn}.grad += slope * {g}', f'{number(slope)} * {grad}'),
                 (y, f'{yn}.grad += {out}.data * log({xn}.data) * {g}', by_y)])
    if op == 'dot':  # parents (*ws, *xs, bias); d/dw_i = x_i, d/dx_i = w_i, d/dbias = 1
        n = (len(parents) - 1) // 2
        ws, xs, bias = parents[:n], parents[n:2 * n], parents[2 * n:]
        sums = [f'{names[w]} * {names[x]}' for w, x in zip(ws, xs)]
        sums = (sums if n <= 3 else [sums[0], '...', sums[-1]]) + [names[b] for b in bias]
        terms: list[Term] = []
        for w, x in zip(ws, xs):
            terms.append((w, f'{names[w]}.grad += {names[x]}.data * {g}', f'{number(x.data)} * {grad}'))
            terms.append((x, f'{names[x]}.grad += {names[w]}.data * {g}', f'{number(w.data)} * {grad}'))
        terms += [(b, f'{names[b]}.grad += {g}', grad) for b in bias]
        return f'{out} = {" + ".join(sums)}', [], terms
    (x,), xn = parents, names[parents[0]]
    to_x = f'{xn}.grad +='
    k = exponent(node._op)
    if op == '**k' and k is not None:  # d(x ** k)/dx = k x**(k-1)
        slope = numeric.power(x.data, k)[1]
        k_text = node._op[2:]  # as the op spells it
        return (f'{out} = {xn} ** {k_text}', [f'slope = {k_text} * {xn}.data ** ({k_text} - 1) = {number(slope)}'],
                [(x, f'{to_x} slope * {g}', f'{number(slope)} * {grad}')])
    if op == 'tanh':  # d tanh(x)/dx = 1 - tanh(x)**2, with t = tanh(x) = out.data
        t = node.data
        return (f'{out} = tanh({xn})', [f't = tanh({xn}.data) = {number(t)}'],
                [(x, f'{to_x} (1 - t * t) * {g}', f'(1 - {number(t)} * {number(t)}) * {grad}')])
    if op == 'exp':  # d e**x/dx = e**x = out.data
        e = node.data
        return (f'{out} = exp({xn})', [f'e = exp({xn}.data) = {number(e)}'],
                [(x, f'{to_x} e * {g}', f'{number(e)} * {grad}')])
    if op == 'sigmoid':  # d sigmoid(x)/dx = s (1 - s), with s = out.data
        s = node.data
        return (f'{out} = sigmoid({xn})', [f's = sigmoid({xn}.data) = {number(s)}'],
                [(x, f'{to_x} s * (1 - s) * {g}', f'{number(s)} * (1 - {number(s)}) * {grad}')])
    if op == 'log':  # d log(x)/dx = 1/x
        return f'{out} = log({xn})', [], [(x, f'{to_x} {g} / {xn}.data', f'{grad} / {number(x.data)}')]
    # relu: 0 for x <= 0, else 1; at nan, x <= 0 is false and the gradient passes, as in PyTorch
    if x.data <= 0:
        return f'{out} = relu({xn}), {xn}.data <= 0', [], [(x, f'{to_x} 0', '')]
    passes = f'{xn}.data > 0' if x.data > 0 else f'{xn}.data is nan, not <= 0: the gradient passes'
    return f'{out} = relu({xn}), {passes}', [], [(x, f'{to_x} {g}', grad)]
