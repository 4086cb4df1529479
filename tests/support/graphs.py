"""Random expression graphs, built the same way in micrograd and in PyTorch."""
from hypothesis import strategies as st

from micrograd import Value

# Each op maps one or two earlier nodes to a new one. Inputs are shifted into each op's
# domain (x*x + 0.5 > 0 for log and fractional powers), so any graph is well defined.
OPS = {
    'add': lambda x, y: x + y,
    'sub': lambda x, y: x - y,
    'mul': lambda x, y: x * y,
    'div': lambda x, y: x / (y * y + 1),
    'rsub': lambda x, y: 3 - x,
    'add_number': lambda x, y: x + 1.5,
    'sub_number': lambda x, y: x - 0.5,
    'mul_number': lambda x, y: -1.5 * x,
    'div_number': lambda x, y: x / 1.5,
    'rdiv': lambda x, y: 2.0 / (x * x + 1),
    'neg': lambda x, y: -x,
    'square': lambda x, y: x ** 2,
    'cube': lambda x, y: x ** 3,
    'sqrt': lambda x, y: (x * x + 0.5) ** 0.5,
    'inverse': lambda x, y: (x * x + 0.5) ** -1,
    'pow': lambda x, y: (x * x + 0.5) ** y.tanh(),
    'rpow': lambda x, y: 2.0 ** y.tanh(),
    'tanh': lambda x, y: x.tanh(),
    'relu': lambda x, y: x.relu(),
    'sigmoid': lambda x, y: x.sigmoid(),
    'exp': lambda x, y: x.tanh().exp(),
    'log': lambda x, y: (x * x + 0.5).log(),
    'dot': None,  # Value.dot here, x*y + y*x in PyTorch
}


@st.composite
def graphs(draw, max_leaves=4, max_ops=14):
    """A recipe: leaf values, then (op, i, j) steps whose operands are earlier nodes, shared freely."""
    leaves = draw(st.lists(st.floats(-2, 2, allow_nan=False), min_size=1, max_size=max_leaves))
    steps = draw(st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 10**6), st.integers(0, 10**6)),
                          min_size=1, max_size=max_ops))
    return leaves, steps


def build(recipe, leaf, dot):
    """Evaluate a recipe with leaf(x) making inputs and dot(ws, xs) the fused op; returns (leaves, output)."""
    values, steps = recipe
    nodes = [leaf(v) for v in values]
    inputs = list(nodes)
    for op, i, j in steps:
        x, y = nodes[i % len(nodes)], nodes[j % len(nodes)]
        nodes.append(dot([x, y], [y, x]) if op == 'dot' else OPS[op](x, y))
    # Sum a few nodes besides the last, so that gradients reach the output along several paths.
    out = nodes[-1]
    for k in range(0, len(nodes) - 1, 3):
        out = out + nodes[k]
    return inputs, out


def micrograd_graph(recipe):
    return build(recipe, Value, Value.dot)


def largest_magnitude(out):
    """The largest |data| of any node in out's graph."""
    seen, stack, largest = set(), [out], 0.0
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            largest = max(largest, abs(node.data))
            stack.extend(node._prev)
    return largest
