"""Stepping through backward(): the engine's own order and each node's own _backward, one node at a time,
drawn after every step, with a caption that says what the step did.

A caption's words are micrograd.ops's: the op's forward formula and its backward lines as engine.py writes
them (`x.grad += y * grad`), each name put for what it stands for in this graph (`a.grad += b.data * e.grad`)
and then for its number (`-3.0000 * 8.0000`), so that a learner can check the sum. The numbers all come
from the graph: the gradient a node passes on, its parents' .data, its own .data (t for tanh, e for exp, s
for sigmoid), the exponent k of x ** k as the user wrote it (`**2`), and each parent's .grad read before and
after the _backward ran; they are written as the boxes write them (drawing.number: four decimals). An op the
engine does not have (a Value built by hand, or a custom op written the lecture's way) is shown by what its
_backward did to each parent's grad.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from micrograd import ieee
from micrograd.engine import Value
from micrograd.ops import Op
from micrograd.viz.drawing import MAX_NODES, box_fields, box_width, checked_trace, draw_graph, largest_grad, number
from micrograd.viz.gif import write_gif
from micrograd.viz.player import page_html, player_html
from micrograd.viz.renderer import Digraph, shown
from micrograd.viz.which_op import engine_op, exponent

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
        if node._grad_fn is None:  # built by hand from parents, with no _backward: backward() skips it too
            continue
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
    op = engine_op(node)
    if op is not None and op.name == 'dot' and pairs > 3:  # the first pair, the last pair and the bias
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
    `parent.grad += ...` terms its _backward adds, in names and in numbers.

    For the engine's ops the words are micrograd.ops's: its forward formula and its backward lines, as
    engine.py writes them, with each name put for what it stands for (x: the first parent's .data, grad:
    node's .grad, ...). An op the engine does not have (a Value built by hand, a custom op) gets its
    expression and no terms.
    """
    op, out = engine_op(node), names[node]
    if op is not None:
        return _engine_rule(node, op, names, grad)
    symbol = ' '.join(shown(node._op).split('\n')) or '?'
    operands = [names[p] for p in node._prev]
    expression = f'{symbol}({", ".join(operands)})' if symbol.isidentifier() or len(operands) != 2 else \
        f' {symbol} '.join(operands)
    return f'{out} = {expression}', [], []


def _engine_rule(node: Value, op: Op, names: Mapping[Value, str], grad: str) -> tuple[str, list[str], list[Term]]:
    """_rule for a node one of the engine's ops made (op: its record in micrograd.ops)."""
    out, parents = names[node], node._prev
    # What each name of the table stands for: in the caption's words, and as a number.
    words: dict[str, str] = {'out': f'{out}.data', 'grad': f'{out}.grad'}
    numbers: dict[str, str] = {'out': number(node.data), 'grad': grad}
    if op.saved:  # t for tanh's output, ...: its own name in the rule, its number beneath
        words[op.saved], numbers[op.saved] = op.saved, number(node.data)
    if op.name == 'dot':  # parents (*ws, *xs, bias), a term for each weight, each input and the bias
        n = (len(parents) - 1) // 2
        roles = [{'w': w, 'x': x} for w, x in zip(parents[:n], parents[n:2 * n])] + [{'b': parents[-1]}]
        sums = [f'{names[w]} * {names[x]}' for w, x in zip(parents[:n], parents[n:2 * n])]
        expression = ' + '.join((sums if n <= 3 else [sums[0], '...', sums[-1]]) + [names[parents[-1]]])
        lines = [(line, role) for role in roles for line in op.backward if line.split('.')[0] in role]
    else:
        roles = [dict(zip('xy', parents))]
        k = exponent(node._op)
        if k is not None:  # x ** k: k is the exponent as the user wrote it, in the words and the numbers
            words['y'] = numbers['y'] = k
        lines = [(line, roles[0]) for line in op.backward[:len(parents)]]
        expression = _put(op.forward, {'x': names[parents[0]], 'y': k or names[parents[-1]]})
    held = []
    if op.saved:  # 't = tanh(n.data) = 0.7071'
        held.append(f'{op.saved} = {_put(op.forward, {"x": f"{names[parents[0]]}.data"})} = {number(node.data)}')
    terms = [_term(line, role, words, numbers, names) for line, role in lines]
    if op.name == '**' and len(parents) == 2 and not parents[0].data > 0:  # ieee.times_log, as in PyTorch
        x, y = parents
        counts = ieee.times_log(node.data, x.data)
        held.append(f'{names[x]}.data is {number(x.data)}, not > 0: {out}.data * log({names[x]}.data) counts as '
                    f'{number(counts)}, as in PyTorch')
        terms[1] = (y, terms[1][1], f'{number(counts)} * {numbers["grad"]}')
    return f'{out} = {expression}', held, terms


def _term(line: str, role: Mapping[str, Value], words: Mapping[str, str], numbers: Mapping[str, str],
          names: Mapping[Value, str]) -> Term:
    """One backward line of the table ('x.grad += y * grad') for the parents it names (role: which parent
    each name is), in the caption's words and numbers: (a, 'a.grad += b.data * e.grad', '-3.0000 * 8.0000')."""
    target, sign, rule = line.split(' ', 2)  # 'x.grad', '+=', 'y * grad'
    parent = role[target.removesuffix('.grad')]
    said = _put(rule, {**words, **{name: f'{names[v]}.data' for name, v in role.items()}})
    valued = _put(rule, {**numbers, **{name: number(v.data) for name, v in role.items()}})
    said, valued = _branch(said, valued)
    return parent, f'{names[parent]}.grad {sign} {said}', valued


def _put(text: str, meanings: Mapping[str, str]) -> str:
    """text with each of its names that meanings has put for what it means; other names (log, if) kept."""
    return re.sub(r'(?<![\w.])[A-Za-z_]\w*', lambda m: meanings.get(m.group(), m.group()), text)


def _branch(said: str, valued: str) -> tuple[str, str]:
    """A rule `a if c else b` whose condition is a number (x ** y's `if y`: the power rule, or 0 for y = 0)
    becomes the branch it takes; a condition on the graph's numbers (ReLU's x <= 0) is kept, to read."""
    in_words = re.fullmatch(r'(.*) if (.*) else (.*)', said)
    in_numbers = re.fullmatch(r'(.*) if (.*) else (.*)', valued)
    if in_words is None or in_numbers is None:
        return said, valued
    try:
        branch = 1 if float(in_numbers.group(2)) else 3
    except ValueError:
        return said, valued
    return in_words.group(branch), in_numbers.group(branch)
