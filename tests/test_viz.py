"""Drawing graphs: the DOT text for hand-checked graphs, real rendering, and finding a renderer."""
import re
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import graphviz
import pytest
from graphviz.backend import dot_command

from micrograd import Value, viz
from micrograd.viz import MAX_NODES, RendererNotFound, draw_dot, trace

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'


def labelled_f():
    """f = (a*b + c)**2 at a=2, b=-3, c=10: e = a*b = -6, d = e + c = 4, f = 16."""
    a, b, c = Value(2.0, label='a'), Value(-3.0, label='b'), Value(10.0, label='c')
    e = a * b
    e.label = 'e'
    d = e + c
    d.label = 'd'
    f = d ** 2
    f.label = 'f'
    return f


def dot_nodes(source):
    """{name: attribute text} for every node statement in DOT source."""
    return dict(re.findall(r'^\t(\w+) \[(.*)\]$', source, re.M))


def dot_edges(source):
    """[(tail, head, attribute text)] for every edge statement, in order, repeats kept."""
    return re.findall(r'^\t(\w+) -> (\w+)(?: \[(.*)\])?$', source, re.M)


def label_of(attrs):
    return re.search(r'label="([^"]*)"', attrs).group(1)


# --- trace -----------------------------------------------------------------------

def test_trace_lists_each_value_once_after_its_parents_and_one_edge_per_use():
    a, b = Value(2.0), Value(3.0)
    c = a * b
    d = c + a
    nodes, edges = trace(d)
    assert nodes == [a, b, c, d]
    assert edges == [(a, c), (b, c), (c, d), (a, d)]


def test_trace_keeps_both_edges_of_a_value_used_twice():
    a = Value(3.0)
    nodes, edges = trace(a * a)
    assert len(nodes) == 2 and edges.count((a, nodes[1])) == 2


def test_trace_of_a_leaf_is_just_the_leaf():
    a = Value(1.0)
    assert trace(a) == ([a], [])


def test_trace_handles_graphs_deeper_than_the_recursion_limit():
    x = Value(1.0)
    for _ in range(3 * sys.getrecursionlimit()):
        x = x + Value(1.0)
    nodes, edges = trace(x)
    assert nodes[-1] is x and len(edges) == 2 * 3 * sys.getrecursionlimit()


# --- the DOT text ------------------------------------------------------------------

def test_f_is_six_value_records_and_three_op_nodes_with_hand_checked_grads():
    f = labelled_f()
    f.backward()  # df/dd = 2d = 8, so de = dc = 8, da = 8b = -24, db = 8a = 16
    src = draw_dot(f).source
    nodes, edges = dot_nodes(src), dot_edges(src)
    records = sorted(label_of(attrs) for attrs in nodes.values() if 'shape=record' in attrs)
    assert records == sorted([
        '{ a | data 2.0000 | grad -24.0000 }', '{ b | data -3.0000 | grad 16.0000 }',
        '{ c | data 10.0000 | grad 8.0000 }', '{ e | data -6.0000 | grad 8.0000 }',
        '{ d | data 4.0000 | grad 8.0000 }', '{ f | data 16.0000 | grad 1.0000 }'])
    ops = sorted(label_of(attrs) for attrs in nodes.values() if 'shape=ellipse' in attrs)
    assert ops == ['*', '**2', '+']
    assert len(edges) == 3 + 5  # each op into its Value, and a, b, e, c, d into an op


def test_each_op_node_feeds_the_value_it_produced():
    f = labelled_f()
    src = draw_dot(f).source
    nodes = dot_nodes(src)
    for tail, head, _ in dot_edges(src):
        if tail.endswith('_op'):
            assert head == tail.removesuffix('_op')
        else:
            assert head.endswith('_op') and 'shape=record' in nodes[tail]


def test_a_value_used_twice_shows_two_edges():
    a = Value(3.0, label='a')
    b = a * a
    edges = dot_edges(draw_dot(b).source)
    assert [(t, h) for t, h, _ in edges].count(('v0', 'v1_op')) == 2
    assert len(edges) == 3


def test_a_value_without_a_label_shows_only_data_and_grad():
    nodes = dot_nodes(draw_dot(Value(3.0) + 1.0).source)
    assert label_of(nodes['v0']) == '{ data 3.0000 | grad 0.0000 }'


def test_the_fused_dot_op_shows_its_formula_and_which_input_is_which():
    w1, w2, x1, x2, b = Value(0.5), Value(-1.0), Value(1.0), Value(-2.0), Value(0.25)
    y = Value.dot([w1, w2], [x1, x2], b)
    src = draw_dot(y).source
    assert label_of(dot_nodes(src)['v5_op']) == 'w1*x1 + w2*x2 + b'
    assert [(t, re.search(r'label=(\w+)', attrs).group(1)) for t, h, attrs in dot_edges(src) if h == 'v5_op'] == [
        ('v0', 'w1'), ('v1', 'w2'), ('v2', 'x1'), ('v3', 'x2'), ('v4', 'b')]


def test_a_wide_dot_op_abbreviates_its_formula():
    y = Value.dot([Value(1.0)] * 10, [Value(2.0)] * 10, Value(0.5))
    assert 'label="w1*x1 + ... + w10*x10 + b"' in draw_dot(y).source


def test_division_and_a_value_power_say_which_operand_is_which():
    a, b = Value(6.0), Value(3.0)  # nodes as Value(data, parents, op) records them, whatever the engine derives
    quotient, power = Value(2.0, (a, b), '/'), Value(216.0, (a, b), '**')
    assert [attrs for *_, attrs in dot_edges(draw_dot(quotient).source) if attrs] == ['label=num', 'label=den']
    assert [attrs for *_, attrs in dot_edges(draw_dot(power).source) if attrs] == ['label=base', 'label=exp']


def test_the_same_graph_gives_the_same_dot_source():
    assert draw_dot(labelled_f()).source == draw_dot(labelled_f()).source


def test_record_characters_in_a_label_are_shown_literally():
    v = Value(1.0, label='a|b {c} <d>')
    assert 'label="{ a\\|b \\{c\\} \\<d\\> | data 1.0000' in draw_dot(v + 1.0).source


def test_leaves_have_a_bold_border_and_fill_follows_the_sign_of_grad():
    f = labelled_f()
    f.backward()
    nodes = dot_nodes(draw_dot(f).source)
    a, b, e = nodes['v0'], nodes['v1'], nodes['v2']  # grads -24, 16, 8
    assert 'penwidth=2' in a and 'penwidth=2' in b and 'penwidth' not in e
    red, green, blue = (int(x, 16) for x in re.findall(r'fillcolor="#(..)(..)(..)"', a)[0])
    assert red > blue  # negative grad: red
    red, green, blue = (int(x, 16) for x in re.findall(r'fillcolor="#(..)(..)(..)"', b)[0])
    assert blue > red  # positive grad: blue
    assert 'fillcolor' not in draw_dot(f, color=False).source


def test_before_backward_the_drawing_says_grads_are_zero():
    f = labelled_f()
    assert 'call backward()' in draw_dot(f).source
    f.backward()
    assert 'call backward()' not in draw_dot(f).source


def test_rankdir_is_lr_or_tb():
    assert 'rankdir=TB' in draw_dot(labelled_f(), rankdir='TB').source
    with pytest.raises(ValueError, match="rankdir"):
        draw_dot(labelled_f(), rankdir='RL-ish')


def test_a_huge_graph_is_refused_with_advice_and_max_nodes_overrides():
    # 4 Values a term (x, the weight, their product, the running sum) and the starting 0
    loss = sum((Value(float(i)) * Value(2.0) for i in range(16_250)), Value(0.0))
    with pytest.raises(ValueError, match=r"65,001 Values.*one sample.*max_nodes=65001"):
        draw_dot(loss)
    small = sum((Value(float(i)) for i in range(10)), Value(0.0))
    with pytest.raises(ValueError, match="max_nodes=10"):
        draw_dot(small, max_nodes=10)
    assert draw_dot(small, max_nodes=21).source
    assert MAX_NODES >= 100


# --- real rendering, with whichever renderer this machine has ---------------------

def neuron_output():
    w1, w2 = Value(-3.0, label='w1'), Value(1.0, label='w2')
    x1, x2 = Value(2.0, label='x1'), Value(0.0, label='x2')
    b = Value(6.8813735870195432, label='b')
    y = Value.dot([w1, w2], [x1, x2], b).tanh()
    y.label = 'y'
    y.backward()
    return y


def svg_node_groups(svg):
    root = ET.fromstring(svg)
    return [g for g in root.iter('{http://www.w3.org/2000/svg}g') if g.get('class') == 'node']


def test_svg_has_one_node_group_per_value_and_op():
    y = neuron_output()
    nodes, _ = trace(y)
    svg = draw_dot(y).pipe(format='svg', encoding='utf-8')
    groups = svg_node_groups(svg)
    assert len(groups) == len(nodes) + sum(1 for v in nodes if v._op) == 7 + 2  # w1 w2 x1 x2 b, 2 results; 2 ops
    texts = {t.text for t in ET.fromstring(svg).iter('{http://www.w3.org/2000/svg}text')}
    assert {'w1', 'data -3.0000', 'w1*x1 + w2*x2 + b', 'tanh'} <= texts


def test_png_output_is_a_png():
    assert draw_dot(labelled_f(), format='png').pipe()[:8] == PNG_SIGNATURE


def test_render_writes_the_file(tmp_path):
    out = draw_dot(labelled_f()).render(tmp_path / 'f', format='png')
    assert Path(out).read_bytes()[:8] == PNG_SIGNATURE


def test_jupyter_display_gets_svg():
    bundle = draw_dot(labelled_f())._repr_mimebundle_()
    assert len(svg_node_groups(bundle['image/svg+xml'])) == 9


def test_a_label_with_record_characters_renders_literally():
    svg = draw_dot(Value(1.0, label='a|b {c}') + 1.0).pipe(format='svg', encoding='utf-8')
    assert 'a|b {c}' in {t.text for t in ET.fromstring(svg).iter('{http://www.w3.org/2000/svg}text')}


# --- finding a renderer -----------------------------------------------------------

def fake_program(folder, name):
    """An executable that does nothing, standing in for a renderer on PATH."""
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text('#!/bin/sh\n')
    path.chmod(0o755)
    return path


@pytest.fixture
def no_renderers(tmp_path, monkeypatch):
    """Neither `dot` on PATH nor graphviz-pure anywhere, and graphviz at its default `dot`."""
    monkeypatch.setenv('PATH', str(tmp_path / 'empty'))
    monkeypatch.setattr(viz, '_script_dirs', lambda: [])
    monkeypatch.setattr(dot_command, 'DOT_BINARY', Path('dot'))
    return tmp_path


def test_without_any_renderer_drawing_fails_with_both_remedies(no_renderers):
    dot = draw_dot(labelled_f())
    assert dot.source  # describing the graph needs no renderer
    for draw in (dot.pipe, lambda: dot.render(no_renderers / 'f'), dot._repr_mimebundle_):
        with pytest.raises(RendererNotFound, match=r"pip install graphviz-pure.*Graphviz.*`dot`") as info:
            draw()
        assert isinstance(info.value, graphviz.ExecutableNotFound)  # code that catches graphviz's error still does


@pytest.mark.skipif(sys.platform == 'win32', reason='fake programs are shell scripts')
def test_system_dot_is_preferred_over_graphviz_pure(no_renderers, monkeypatch):
    bin_dir = no_renderers / 'bin'
    fake_program(bin_dir, 'dot')
    fake_program(bin_dir, 'graphviz-pure')
    monkeypatch.setenv('PATH', str(bin_dir))
    assert viz._find_renderer() == Path('dot')


@pytest.mark.skipif(sys.platform == 'win32', reason='fake programs are shell scripts')
def test_graphviz_pure_is_found_next_to_python_when_that_folder_is_not_on_path(no_renderers, monkeypatch):
    # A venv used without activation (a Jupyter kernel started as .venv/bin/python) has
    # graphviz-pure in .venv/bin, which is not on PATH.
    scripts = fake_program(no_renderers / 'venv-bin', 'graphviz-pure').parent
    monkeypatch.setattr(viz, '_script_dirs', lambda: [str(scripts)])
    viz._use_renderer()
    assert dot_command.DOT_BINARY == scripts / 'graphviz-pure'


def test_the_scripts_folder_of_this_python_is_searched():
    assert sysconfig.get_path('scripts') in viz._script_dirs()


def test_a_renderer_the_user_chose_is_left_alone(no_renderers, monkeypatch):
    monkeypatch.setattr(dot_command, 'DOT_BINARY', Path('/opt/graphviz/bin/dot'))
    viz._use_renderer()
    assert dot_command.DOT_BINARY == Path('/opt/graphviz/bin/dot')


# --- imports ---------------------------------------------------------------------

def run_python(code):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60)


def test_import_micrograd_does_not_import_graphviz():
    result = run_python("import sys, micrograd; print('graphviz' in sys.modules)")
    assert result.stdout.strip() == 'False', result.stderr


def test_without_graphviz_importing_viz_says_how_to_install_it():
    # sys.modules[name] = None makes `import name` fail as if the package were not installed.
    result = run_python(
        "import sys; sys.modules['graphviz'] = None\n"
        "try:\n"
        "    import micrograd.viz\n"
        "except ImportError as e:\n"
        "    print(e)\n")
    assert 'pip install micrograd[viz]' in result.stdout, result.stderr
