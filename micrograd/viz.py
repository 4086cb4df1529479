"""Drawing the graph a Value was made from: trace() and draw_dot().

    from micrograd.viz import draw_dot
    draw_dot(loss)                    # in Jupyter: shows the graph inline
    draw_dot(loss).render('loss')     # writes loss.svg
    print(draw_dot(loss).source)      # the DOT text, no renderer needed

Laying a graph out takes a Graphviz `dot` program. The system's `dot` is used when it is on
PATH; otherwise the `graphviz-pure` command from pip (part of `pip install micrograd[viz]`).
"""
from __future__ import annotations

import math
import os
import shutil
import sysconfig
from pathlib import Path

from micrograd.engine import Value

try:
    import graphviz
    from graphviz.backend import dot_command
except ImportError as e:
    raise ImportError("micrograd.viz draws graphs with the graphviz package: pip install micrograd[viz]") from e

__all__ = ['trace', 'draw_dot', 'RendererNotFound', 'MAX_NODES']

# Layout time grows faster than the graph. Measured with graphviz-pure: one sample through an MLP,
# 300 Values, lays out in 0.2 s; the slowest shape, one Value used by every step of a chain
# (`y = y * x` repeated), takes 2 s at 300 Values and 7 s at 500. Beyond a few hundred Values a
# drawing is no longer readable anyway: draw one sample.
MAX_NODES = 300


def trace(root: Value) -> tuple[list[Value], list[tuple[Value, Value]]]:
    """The Values root was made from (root included) and the edges (parent, child) between them.

    Nodes come in topological order, each after the Values it was made from, and the order is
    the same every time for the same graph. Edges keep multiplicity: `a*a` has two edges (a, a*a).
    """
    # Depth-first with an explicit stack, not recursion, so long chains (an RNN, a 10,000-step
    # sum) do not hit Python's recursion limit. None marks "all parents of the node below are done".
    order, visited, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node is None:
            order.append(stack.pop())
        elif node not in visited:
            visited.add(node)
            stack.append(node)
            stack.append(None)
            stack.extend(reversed(node._prev))  # reversed: the first parent is visited first
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
    if rankdir not in ('LR', 'TB'):
        raise ValueError(f"draw_dot: rankdir must be 'LR' (left to right) or 'TB' (top to bottom), got {rankdir!r}")
    nodes, edges = trace(root)
    if len(nodes) > max_nodes:
        raise ValueError(
            f"draw_dot: this graph has {len(nodes):,} Values, more than max_nodes={max_nodes:,}; laying it out "
            f"would take minutes or never finish. Draw the graph of one sample (e.g. the loss of a single input) "
            f"instead, or pass max_nodes={len(nodes)} to draw it anyway.")

    # Names come from the topological order, not id(), so the same graph gives the same DOT text.
    name = {v: f'v{i}' for i, v in enumerate(nodes)}
    # nslimit caps the network-simplex passes that place nodes. Uncapped, a Value reused by many steps
    # (x in `y = y * x` repeated 100 times) takes minutes to place; capped, under a second, and
    # small graphs come out the same.
    dot = _Digraph(format=format, graph_attr={'rankdir': rankdir, 'nslimit': '2'},
                   node_attr={'fontname': 'Helvetica', 'fontsize': '11'},
                   edge_attr={'arrowsize': '0.7', 'fontname': 'Helvetica', 'fontsize': '9', 'fontcolor': '#555555'})

    scale = max((abs(v.grad) for v in nodes if math.isfinite(v.grad)), default=0.0)  # the largest |grad|
    for v in nodes:
        fields = ([_escape_record(v.label)] if v.label else []) + [f'data {v.data:.4f}', f'grad {v.grad:.4f}']
        style = {'style': 'filled', 'fillcolor': _grad_color(v.grad, scale)} if color else {}
        if not v._prev:  # a leaf: an input or a parameter, whose grad is what backward() is for
            style['penwidth'] = '2'
        dot.node(name[v], label='{ ' + ' | '.join(fields) + ' }', shape='record', **style)
        if v._op:
            dot.node(name[v] + '_op', label=_op_label(v), shape='ellipse', margin='0.04,0.02', width='0.5',
                     fontsize='10', height='0.3')
            dot.edge(name[v] + '_op', name[v])

    for child in nodes:
        roles = _operand_roles(child)
        for i, parent in enumerate(child._prev):
            dot.edge(name[parent], name[child] + '_op', **({'label': roles[i]} if roles else {}))

    dot.values = len(nodes)
    if edges and all(v.grad == 0.0 for v in nodes):  # the classic "forgot backward()"
        dot.attr(label='all grads are 0: call backward() on the output first to fill them in',
                 labelloc='b', fontname='Helvetica', fontsize='11', fontcolor='#b03030')
    return dot


def _op_label(v: Value) -> str:
    """What an op node shows: the op, except the fused weighted sum, which shows its formula.

    ASCII only: renderers without font files (graphviz-pure) warn about any other character.
    """
    if v._op != 'dot':
        return v._op
    n = len(v._prev) // 2
    terms = [f'w{i}*x{i}' for i in range(1, n + 1)]
    return ' + '.join((terms if n <= 3 else [terms[0], '...', terms[-1]]) + ['b'])


def _operand_roles(v: Value) -> list[str] | None:
    """Edge labels for ops whose operands play different parts; None where order does not matter."""
    if v._op == 'dot':  # parents are (*ws, *xs, bias): w1 pairs with x1
        n = len(v._prev) // 2
        return [f'w{i + 1}' for i in range(n)] + [f'x{i + 1}' for i in range(n)] + ['b']
    if v._op == '/':
        return ['num', 'den']
    if v._op == '**':
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


# --- finding a renderer -----------------------------------------------------------------------

class RendererNotFound(graphviz.ExecutableNotFound):
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
    return Path(pure) if pure else None


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


class _Digraph(graphviz.Digraph):
    """A graphviz.Digraph that finds its renderer when it draws (Jupyter display goes through pipe)."""

    def pipe(self, *args, **kwargs) -> bytes | str:
        _use_renderer()
        return super().pipe(*args, **kwargs)

    def render(self, *args, **kwargs) -> str:
        _use_renderer()
        return super().render(*args, **kwargs)

    def __repr__(self) -> str:  # no memory address: notebook outputs stay the same from run to run
        return f'<micrograd graph: {self.values} Values>'
