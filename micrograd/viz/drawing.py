"""Drawing the graph a Value was made from: a box per Value, an oval per op, tinted by gradient."""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from micrograd.engine import Value, topological_order
from micrograd.viz.renderer import Digraph, literal, shown
from micrograd.viz.which_op import engine_op

__all__ = ['trace', 'draw_dot', 'number', 'MAX_NODES', 'HIGHLIGHT', 'TEXT_POINTS']

# Layout time grows faster than the graph. Measured with graphviz-pure: one sample through an MLP,
# 300 Values, lays out in 0.2 s; the slowest shape, one Value used by every step of a chain
# (`y = y * x` repeated), takes 2 s at 300 Values and 7 s at 500. Beyond a few hundred Values a
# drawing is no longer readable anyway: draw one sample.
MAX_NODES = 300

HIGHLIGHT = '#e67700'  # the node whose gradient is being passed on, and the arrows it flows along
HIGHLIGHT_FILL = '#ffe8cc'  # the op that passes it on
UNKNOWN_FILL = '#eeeeee'  # a grad backward() has not computed yet
TEXT_POINTS = 11  # the size of the boxes' text (label, data, grad); an op's name is 10 points, an arrow's label 9
POSITIVE, NEGATIVE = (66, 133, 244), (219, 68, 55)  # blue for grad > 0, red for grad < 0, at full strength


def trace(root: Value) -> tuple[list[Value], list[tuple[Value, Value]]]:
    """The Values root was made from (root included) and the edges (parent, child) between them.

    Nodes come in backward()'s order (the engine's topological_order), each after the Values it was
    made from, a leaf just before the first Value made from it; the order is the same every time for
    the same graph. Edges keep multiplicity: `a*a` has two edges (a, a*a).
    """
    order: list[Value] = []
    listed: set[int] = set()  # ids, as the engine's sort keys nodes
    for node in topological_order(root) or [root]:  # the Values ops made; a leaf root alone
        for parent in node._prev:  # the leaves are the parents the sort does not list
            if not parent._prev and id(parent) not in listed:
                listed.add(id(parent))
                order.append(parent)
        order.append(node)
    edges = [(parent, child) for child in order for parent in child._prev]
    return order, edges


def draw_dot(root: Value, format: str = 'svg', rankdir: str = 'LR', *,
             max_nodes: int = MAX_NODES, color: bool = True) -> Digraph:
    """The computation graph of root as a graphviz.Digraph: `.source`, `.pipe()`, `.render()`, inline in Jupyter.

    - Each Value is a box `{ label | data 2.0000 | grad -24.0000 }` (label only when set); each op is
      a small oval named as the engine names it (`+`, `*`, `tanh`, `ReLU`, `**2`, ...) pointing at the
      Value it produced. A Value used twice has two arrows. `Value.dot(ws, xs, b)` (nn.Neuron's fused
      weighted sum) is one op `w1*x1 + w2*x2 + b`, its arrows labelled w1, x1, ...
    - color=True fills each Value by its gradient: blue for grad > 0, red for grad < 0, deeper for a
      larger |grad|; white for grad = 0. Leaves (inputs, parameters) have a bold border.
    - Drawn before backward(), every grad is 0; the drawing then says so in a note beneath it.
    - In a notebook a graph wider than the page is scaled down to fit it.
    - Graphs of more than max_nodes Values are refused: their layout takes minutes or never ends.
    """
    nodes = checked_trace(root, rankdir, max_nodes, 'draw_dot')
    grads = {v: v.grad for v in nodes}
    dot = draw_graph(nodes, grads, f'the graph of {root.label or "a Value"}, {len(nodes)} Values', format=format,
                     rankdir=rankdir, color=color, scale=largest_grad(grads.values()))
    if len(nodes) > 1 and all(v.grad == 0.0 for v in nodes):  # the classic "forgot backward()"
        dot.attr(label='all grads are 0: call backward() on the output first to fill them in',
                 labelloc='b', fontname='Helvetica', fontsize=str(TEXT_POINTS), fontcolor='#b03030')
    return dot


def checked_trace(root: Value, rankdir: str, max_nodes: int, caller: str) -> list[Value]:
    """trace(root)'s nodes, after refusing a rankdir Graphviz would ignore and a graph too large to lay out."""
    if rankdir not in ('LR', 'TB'):
        raise ValueError(f"{caller}: rankdir must be 'LR' (left to right) or 'TB' (top to bottom), got {rankdir!r}")
    nodes, _ = trace(root)
    if len(nodes) > max_nodes:
        raise ValueError(
            f"{caller}: this graph has {len(nodes):,} Values, more than max_nodes={max_nodes:,}; laying it out "
            f"would take minutes or never finish. Draw the graph of one sample (e.g. the loss of a single input) "
            f"instead, or pass max_nodes={len(nodes)} to draw it anyway.")
    return nodes


def draw_graph(nodes: list[Value], grads: Mapping[Value, float | None], description: str, *, format: str,
               rankdir: str, color: bool, scale: float, names: Mapping[Value, str] | None = None,
               focus: Value | None = None, flow: bool = False, widths: Mapping[Value, float] | None = None) -> Digraph:
    """The picture of a graph: a box per Value showing grads[v] (None: `grad ?`), an oval per op.

    scale: the |grad| filled deepest. names: shown for Values without a label. focus: a Value drawn
    highlighted; with flow=True also its op, the arrows into that op and the parents they lead from,
    the way its gradient flows. widths: a least width per box (inches), so boxes keep their size.
    """
    # Names come from the topological order, not id(), so the same graph gives the same DOT text.
    name = {v: f'v{i}' for i, v in enumerate(nodes)}
    # nslimit caps the network-simplex passes that place nodes. Uncapped, a Value reused by many steps
    # (x in `y = y * x` repeated 100 times) takes minutes to place; capped, under a second, and
    # small graphs come out the same. ordering=in draws an op's operands in the order of _prev (the
    # first on top, or on the left), whatever order the nodes are listed in.
    dot = Digraph(description, len(nodes), format=format,
                  graph_attr={'rankdir': rankdir, 'nslimit': '2', 'ordering': 'in'},
                  node_attr={'fontname': 'Helvetica', 'fontsize': str(TEXT_POINTS)},
                  edge_attr={'arrowsize': '0.7', 'fontname': 'Helvetica', 'fontsize': '9', 'fontcolor': '#555555'})
    receiving = set(focus._prev) if focus is not None and flow else set()
    flow_style = {'color': HIGHLIGHT, 'penwidth': '2'}  # the op and the arrows the gradient flows along

    for v in nodes:
        style = {}
        if color:
            grad = grads[v]
            style = {'style': 'filled', 'fillcolor': UNKNOWN_FILL if grad is None else grad_color(grad, scale)}
        if not v._prev:  # a leaf: an input or a parameter, whose grad is what backward() is for
            style['penwidth'] = '2'
        if v is focus:
            style.update(color=HIGHLIGHT, penwidth='3')
        elif v in receiving:
            style['color'] = HIGHLIGHT
        if widths:
            style['width'] = f'{widths[v]:.2f}'
        label = '{ ' + ' | '.join(_escape_record(f) for f in box_fields(v, grads[v], names)) + ' }'
        dot.node(name[v], label=label, shape='record', **style)
        if op_label(v):
            flowing = flow and v is focus
            op_style = {**flow_style, 'style': 'filled', 'fillcolor': HIGHLIGHT_FILL} if flowing else {}
            dot.node(name[v] + '_op', label=literal(op_label(v)),  # an op's name as written, never markup
                     shape='ellipse', margin='0.04,0.02', width='0.5', fontsize='10', height='0.3', **op_style)
            dot.edge(name[v] + '_op', name[v], **(flow_style if flowing else {}))

    for child in nodes:
        roles = _operand_roles(child)
        target = name[child] + '_op' if op_label(child) else name[child]  # no op named: straight into the box
        for i, parent in enumerate(child._prev):
            attrs = {'label': roles[i]} if roles else {}
            dot.edge(name[parent], target, **attrs, **(flow_style if flow and child is focus else {}))
    return dot


def box_fields(v: Value, grad: float | None, names: Mapping[Value, str] | None) -> list[str]:
    """The text of a Value's box: its label (or given name), data and grad (None: not yet known). A label
    that is no string (an int, a float) is shown as str() shows it."""
    title = shown(v.label) or (names[v] if names else '')
    return ([title] if title else []) + [f'data {number(v.data)}', 'grad ?' if grad is None else f'grad {number(grad)}']


def number(x: float) -> str:
    """A number as the boxes and the captions show it: four decimals, as in the lecture's drawings (2.0000,
    -0.5000), and, where four decimals would say 0.0000 of a number that is not 0 or run past a million, four
    in scientific notation (1.2346e-07, 3.0000e+12)."""
    if x == 0 or not math.isfinite(x) or 1e-4 <= abs(x) < 1e6:
        return f'{x:.4f}'
    return f'{x:.4e}'


def largest_grad(grads: Iterable[float | None]) -> float:
    """The largest finite |grad|: the one filled deepest."""
    return max((abs(g) for g in grads if g is not None and math.isfinite(g)), default=0.0)


def op_label(v: Value) -> str:
    """What an op node shows: the op as the engine names it (Karpathy's names: '*', 'ReLU', '**2' with the
    exponent as the user wrote it), or the formula of the engine's fused weighted sum; '' for a Value no op
    made. Any other op by its name, as shown() shows text.

    ASCII only: renderers without font files (graphviz-pure) warn about any other character.
    """
    op = engine_op(v)
    if op is not None and op.name == 'dot':  # parents (*ws, *xs, bias)
        n = len(v._prev) // 2
        terms = [f'w{i}*x{i}' for i in range(1, n + 1)]
        return ' + '.join((terms if n <= 3 else [terms[0], '...', terms[-1]]) + ['b'])
    return shown(v._op)


def _operand_roles(v: Value) -> list[str] | None:
    """Edge labels for ops whose operands play different parts; None where order does not matter."""
    op = engine_op(v)
    if op is not None and op.name == 'dot':  # parents are (*ws, *xs, bias): w1 pairs with x1
        n = len(v._prev) // 2
        return [f'w{i + 1}' for i in range(n)] + [f'x{i + 1}' for i in range(n)] + ['b']
    if v._op == '**' and len(v._prev) == 2:
        return ['base', 'exp']
    if v._op == '/' and len(v._prev) == 2:
        return ['dividend', 'divisor']
    return None


def _escape_record(text: str) -> str:
    """A user's label as literal text inside a record, where {, }, |, < and > have meanings; a line break
    (shown() keeps them) is one."""
    for ch in '\\{}|<>':
        text = text.replace(ch, '\\' + ch)
    return text.replace('\n', '\\n')


def grad_color(grad: float, scale: float) -> str:
    """White for 0, towards blue for grad > 0 and red for grad < 0, deeper for larger |grad| (relative to scale)."""
    if math.isnan(grad):
        return '#cccccc'
    if grad == 0.0:
        return '#ffffff'
    ratio = min(abs(grad) / scale, 1.0) if scale else 1.0  # scale is 0 only if grad is inf and all others 0
    # sqrt spreads small gradients out so they still show; 0.15 keeps the tiniest one visible.
    strength = 0.15 + 0.6 * math.sqrt(ratio)
    r, g, b = (round(255 + (c - 255) * strength) for c in (POSITIVE if grad > 0 else NEGATIVE))
    return f'#{r:02x}{g:02x}{b:02x}'


# Helvetica's character widths in thousandths of the font size (its Adobe font metrics), which is how
# Graphviz sizes text when it has no font files; other characters count as one full width.
_HELVETICA = {ch: width for width, chars in (
    (191, "'"), (222, 'ijl'), (260, '|'), (278, ' !,./:;I[\\]ft'), (333, '()-`r'), (334, '{}'), (355, '"'),
    (389, '*'), (469, '^'), (500, 'Jckstvxyz'), (556, '#$0123456789?L_abdeghnopqu'), (584, '+<=>~'),
    (611, 'FTZ'), (667, '&ABEKPSVXY'), (722, 'CDHNRUw'), (778, 'GOQ'), (833, 'Mm'), (889, '%'), (944, 'W'),
    (1015, '@')) for ch in chars}


def box_width(fields: list[str]) -> float:
    """The width in inches of a record box with these fields in TEXT_POINTS Helvetica (8 points of margin each side)."""
    points = sum(max(sum(_HELVETICA.get(ch, 1000) for ch in line) for line in field.split('\n')) * TEXT_POINTS / 1000
                 + 16 for field in fields)
    return math.ceil(points / 72 * 100 + 1) / 100  # rounded up to the 0.01 inch the DOT text gives
