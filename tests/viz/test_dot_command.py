"""`dot` in the project's environment (scripts/dot, which make copies to .venv/bin/dot).

Karpathy's trace_graph.ipynb draws with graphviz.Digraph itself, and the graphviz package runs a
program named `dot`. graphviz-pure installs no `dot` (so as never to shadow a Graphviz), so this
script is that `dot`: a system Graphviz's when there is one on PATH, else graphviz-pure's.
Each test builds a bin folder as make does (the script beside graphviz-pure) and a PATH without Graphviz.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

from tests import ROOT

SCRIPT = ROOT / 'scripts' / 'dot'
GRAPHVIZ_PURE = shutil.which('graphviz-pure') or shutil.which('graphviz-pure', path=sysconfig.get_path('scripts'))
pytestmark = pytest.mark.skipif(GRAPHVIZ_PURE is None, reason='graphviz-pure is not installed (the viz extra)')

# Karpathy's trace_graph.ipynb, its cells one after the other (MIT licence, Andrej Karpathy).
TRACE_GRAPH = textwrap.dedent('''
    from graphviz import Digraph
    from micrograd.engine import Value

    def trace(root):
        nodes, edges = set(), set()
        def build(v):
            if v not in nodes:
                nodes.add(v)
                for child in v._prev:
                    edges.add((child, v))
                    build(child)
        build(root)
        return nodes, edges

    def draw_dot(root, format='svg', rankdir='LR'):
        assert rankdir in ['LR', 'TB']
        nodes, edges = trace(root)
        dot = Digraph(format=format, graph_attr={'rankdir': rankdir})
        for n in nodes:
            dot.node(name=str(id(n)), label = "{ data %.4f | grad %.4f }" % (n.data, n.grad), shape='record')
            if n._op:
                dot.node(name=str(id(n)) + n._op, label=n._op)
                dot.edge(str(id(n)) + n._op, str(id(n)))
        for n1, n2 in edges:
            dot.edge(str(id(n1)), str(id(n2)) + n2._op)
        return dot

    x = Value(1.0)
    y = (x * 2 + 1).relu()
    y.backward()
    shown = draw_dot(y)._repr_mimebundle_()['image/svg+xml']  # what Jupyter displays

    import random
    from micrograd import nn
    random.seed(1337)
    n = nn.Neuron(2)
    x = [Value(1.0), Value(-2.0)]
    y = n(x)
    y.backward()
    dot = draw_dot(y)
    dot.render('gout')
    print(shown.count('<g id="node'), 'data 3.0000' in shown, open('gout.svg').read().count('<g id="node'))
''')


def bin_folder(tmp_path, name='bin'):
    """A folder like .venv/bin after make: graphviz-pure, and scripts/dot beside it."""
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(SCRIPT, folder / 'dot')
    (folder / 'graphviz-pure').symlink_to(GRAPHVIZ_PURE)
    return folder


def path_without_graphviz(tmp_path, *first):
    """PATH: the given folders, then one with only the commands the script uses (no Graphviz, whatever is installed)."""
    tools = tmp_path / 'tools'
    tools.mkdir(exist_ok=True)
    if not (tools / 'dirname').exists():
        (tools / 'dirname').symlink_to(shutil.which('dirname'))
    return os.pathsep.join([*map(str, first), str(tools)])


def version(dot, path):
    result = subprocess.run([str(dot), '-V'], capture_output=True, text=True, timeout=30, env={'PATH': path})
    return result.stdout + result.stderr


def test_karpathys_trace_graph_notebook_draws_through_graphviz_digraph_without_a_system_graphviz(tmp_path):
    folder = bin_folder(tmp_path)
    env = {**os.environ, 'PATH': path_without_graphviz(tmp_path, folder)}
    result = subprocess.run([sys.executable, '-c', TRACE_GRAPH], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    # y = relu(x*2 + 1): 6 Values (the numbers 2 and 1 are leaves, as in the lecture) and 3 ops;
    # the neuron: 2 weights, 2 inputs, a bias, its dot and its relu
    assert result.stdout.split() == ['9', 'True', '9']
    assert 'graphviz-pure' in (tmp_path / 'gout.svg').read_text()


def test_a_graphviz_installed_on_path_is_used_instead(tmp_path):
    folder = bin_folder(tmp_path)
    system = tmp_path / 'system'
    system.mkdir()
    (system / 'dot').write_text('#!/bin/sh\necho "dot - graphviz version 12.2.1"\n')
    (system / 'dot').chmod(0o755)
    assert 'graphviz-pure' in version(folder / 'dot', path_without_graphviz(tmp_path, folder))
    assert version(folder / 'dot', path_without_graphviz(tmp_path, folder, system)).strip() == \
        'dot - graphviz version 12.2.1'


def test_two_environments_on_path_do_not_send_each_other_round(tmp_path):
    first, second = bin_folder(tmp_path, 'first'), bin_folder(tmp_path, 'second')
    assert 'graphviz-pure' in version(first / 'dot', path_without_graphviz(tmp_path, first, second))
