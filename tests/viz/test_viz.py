"""Drawing graphs: the DOT text for hand-checked graphs, real rendering, and what a notebook shows."""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from micrograd import Value
from micrograd.engine import topological_order
from micrograd.viz import MAX_NODES, draw_dot, trace
from tests import ROOT
from tests.viz.samples import PNG_SIGNATURE, labelled_f


def dot_nodes(source):
    """{name: attribute text} for every node statement in DOT source."""
    return dict(re.findall(r'^\t(\w+) \[(.*)\]$', source, re.M))


def dot_edges(source):
    """[(tail, head, attribute text)] for every edge statement, in order, repeats kept."""
    return re.findall(r'^\t(\w+) -> (\w+)(?: \[(.*)\])?$', source, re.M)


def label_of(attrs):
    return re.search(r'label=("[^"]*"|\S+)', attrs).group(1).strip('"')


# --- trace -----------------------------------------------------------------------

def test_trace_lists_each_value_once_after_its_parents_and_one_edge_per_use():
    a, b = Value(2.0), Value(3.0)
    c = a * b
    d = c + a
    nodes, edges = trace(d)
    assert nodes == [a, b, c, d]
    assert edges == [(a, c), (b, c), (c, d), (a, d)]


def test_trace_lists_the_values_ops_made_in_backwards_order_each_leaf_before_its_first_use():
    a, b, c, d = (Value(x, label=name) for x, name in ((1.0, 'a'), (2.0, 'b'), (3.0, 'c'), (4.0, 'd')))
    p, q = a * b, c * d
    s = p + q
    y = s * a
    nodes, _ = trace(y)
    assert [v for v in nodes if v._prev] == topological_order(y)  # the engine's sort, the one backward() uses
    assert nodes == [c, d, q, a, b, p, s, y]


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


def test_a_value_power_says_which_operand_is_the_base_and_which_the_exponent():
    x, k = Value(2.0), Value(3.0)
    assert [attrs for *_, attrs in dot_edges(draw_dot(x ** k).source) if attrs] == ['label=base', 'label=exp']


def op_labels(value):
    return [label_of(attrs) for attrs in dot_nodes(draw_dot(value).source).values() if 'shape=ellipse' in attrs]


@pytest.mark.parametrize('make, label', [
    (lambda x: x ** -1, '**-1'), (lambda x: x ** 0.5, '**0.5'), (lambda x: x ** 2, '**2'),
    (lambda x: x ** 2.0, '**2.0'),  # as the user wrote it, as Karpathy's op names
    (lambda x: x ** 1.23456789, '**1.23456789'),  # every digit: the drawing never rounds the number away
])
def test_a_power_of_a_number_shows_the_exponent_in_its_op(make, label):
    y = make(Value(3.0))
    assert len(y._prev) == 1  # the exponent is part of the op, as in the lecture's '**2'
    assert op_labels(y) == [label]


@pytest.mark.parametrize('make, op, number', [
    (lambda x: x * 2, '*', 'data 2.0000'), (lambda x: x + 1, '+', 'data 1.0000'),
    (lambda x: x - 3, '+', 'data -3.0000'), (lambda x: -x, '*', 'data -1.0000'), (lambda x: x / 4, '/', 'data 4.0000'),
])
def test_a_number_in_an_op_is_a_leaf_of_its_own_as_in_the_lecture(make, op, number):
    y = make(Value(3.0))
    assert len(y._prev) == 2 and op_labels(y) == [op]
    assert number in draw_dot(y).source


def test_a_value_built_by_hand_shows_its_op_text():
    a, b = Value(6.0), Value(3.0)
    assert op_labels(Value(2.0, (a, b), 'foo')) == ['foo']
    assert [(t, h) for t, h, _ in dot_edges(draw_dot(Value(2.0, (a, b), '%')).source)] == [
        ('v2_op', 'v2'), ('v0', 'v2_op'), ('v1', 'v2_op')]  # no operand roles guessed for an op the engine never makes


@pytest.mark.parametrize('parents', [1, 3])
def test_an_op_built_by_hand_and_named_dot_is_drawn_by_its_name_not_as_the_engines_weighted_sum(parents):
    xs = [Value(float(i)) for i in range(parents)]
    y = Value(1.0, tuple(xs), 'dot')
    assert op_labels(y) == ['dot'] and 'label=w1' not in draw_dot(y).source


def test_a_value_with_parents_but_no_op_has_its_arrows_go_straight_into_its_box():
    a, b = Value(6.0), Value(3.0)
    src = draw_dot(Value(2.0, (a, b))).source
    assert [(t, h) for t, h, _ in dot_edges(src)] == [('v0', 'v2'), ('v1', 'v2')] and '_op' not in src


def test_a_division_labels_its_dividend_and_divisor():
    x, y = Value(6.0), Value(3.0)
    assert [attrs for *_, attrs in dot_edges(draw_dot(x / y).source) if attrs] == ['label=dividend', 'label=divisor']


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


def text_places(svg):
    """{text: (x, y)} of every text the SVG shows, y growing downwards."""
    return {t.text: (float(t.get('x')), float(t.get('y')))
            for t in ET.fromstring(svg).iter('{http://www.w3.org/2000/svg}text')}


@pytest.mark.parametrize('rankdir', ['LR', 'TB'])
def test_an_ops_first_operand_is_drawn_first_whatever_order_trace_lists_them(rankdir):
    """Above the second in a drawing from left to right, left of it from top to bottom: x * s has x first,
    though trace lists s's Values first; p + q has p (made first from a and b) above, though trace lists q first."""
    a, b, c, d, x = (Value(v, label=name) for v, name in ((1.0, 'a'), (2.0, 'b'), (3.0, 'c'), (4.0, 'd'), (5.0, 'x')))
    p, q = a * b, c * d
    p.label, q.label = 'p', 'q'
    s = p + q
    s.label = 's'
    y = x * s
    places = text_places(draw_dot(y, rankdir=rankdir).pipe(format='svg', encoding='utf-8'))
    across = 1 if rankdir == 'LR' else 0  # the coordinate that tells first from second
    for first, second in (('x', 's'), ('p', 'q'), ('a', 'b'), ('c', 'd')):
        assert places[first][across] < places[second][across], (first, second)


def test_png_output_is_a_png():
    assert draw_dot(labelled_f(), format='png').pipe()[:8] == PNG_SIGNATURE


def test_render_writes_the_file(tmp_path):
    out = draw_dot(labelled_f()).render(tmp_path / 'f', format='png')
    assert Path(out).read_bytes()[:8] == PNG_SIGNATURE


def test_jupyter_display_gets_svg():
    bundle = draw_dot(labelled_f())._repr_mimebundle_()
    assert len(svg_node_groups(bundle['image/svg+xml'])) == 9


def test_in_a_notebook_the_svg_scales_down_to_the_page_keeping_its_shape_and_says_what_it_shows():
    svg = ET.fromstring(draw_dot(labelled_f())._repr_mimebundle_()['image/svg+xml'])
    assert svg.get('style') == 'max-width: 100%; height: auto'  # its own size where it fits, else the page's width
    assert svg.get('viewBox') and svg.get('width').endswith('pt')  # the viewBox keeps its proportions
    title = svg.find('{http://www.w3.org/2000/svg}title')
    assert title.text == svg.get('aria-label') == 'the graph of f, 6 Values' and svg.get('role') == 'img'


def wide_graph(terms=40):
    """A chain of additions, laid out left to right: far wider than a 1280-pixel page."""
    total = Value(0.0, label='start')
    for i in range(terms):
        total = total + Value(float(i))
    return total


@pytest.mark.slow
@pytest.mark.same_on_every_python  # the page in a browser: its script, the same on every Python
def test_a_graph_wider_than_the_page_is_shown_whole_in_a_browser(browser, tmp_path):
    from tests.support.browser import Page
    svg = draw_dot(wide_graph())._repr_mimebundle_()['image/svg+xml']
    width_pt, height_pt = (float(n) for n in re.search(r'viewBox="0\.00 0\.00 ([\d.]+) ([\d.]+)"', svg).groups())
    assert width_pt * 4 / 3 > 1280  # in CSS pixels, wider than the page
    # As an exported notebook holds it: the SVG inline in an output area, on a 1200-pixel-wide page.
    page_file = tmp_path / 'wide.html'
    page_file.write_text('<!DOCTYPE html><meta charset="utf-8"><body style="margin: 20px">'
                         f'<div class="output" style="overflow: hidden">{svg.split("-->", 1)[-1]}</div>',
                         encoding='utf-8')
    page = Page(browser, page_file.as_uri())
    box = page.page.locator('svg').first.bounding_box()
    assert box['x'] >= 0 and box['x'] + box['width'] <= 1200 - 20  # nothing cut off on the right
    assert box['height'] / box['width'] == pytest.approx(height_pt / width_pt, rel=0.02)  # scaled, not squashed
    assert page.errors == []
    page.close()


def test_a_label_with_record_characters_renders_literally():
    svg = draw_dot(Value(1.0, label='a|b {c}') + 1.0).pipe(format='svg', encoding='utf-8')
    assert 'a|b {c}' in {t.text for t in ET.fromstring(svg).iter('{http://www.w3.org/2000/svg}text')}


# --- imports ---------------------------------------------------------------------

def run_python(code):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60)


def test_import_micrograd_does_not_import_graphviz():
    result = run_python("import sys, micrograd; print('graphviz' in sys.modules)")
    assert result.stdout.strip() == 'False', result.stderr


def test_nothing_in_micrograd_imports_viz():
    # Every module of micrograd but viz's own (and __main__s, which run a program), imported by its file's name.
    result = run_python("import importlib, pathlib, sys, micrograd\n"
                        "root = pathlib.Path(micrograd.__file__).parent\n"
                        "for path in sorted(root.rglob('*.py')):\n"
                        "    parts = path.relative_to(root.parent).with_suffix('').parts\n"
                        "    if 'viz' not in parts and parts[-1] != '__main__':\n"
                        "        importlib.import_module('.'.join(p for p in parts if p != '__init__'))\n"
                        "print(sorted(m for m in sys.modules if m.startswith('micrograd.viz') or m == 'graphviz'))")
    assert result.stdout.strip() == '[]', result.stderr


def test_without_graphviz_importing_viz_says_how_to_install_it():
    # sys.modules[name] = None makes `import name` fail as if the package were not installed.
    result = run_python(
        "import sys; sys.modules['graphviz'] = None\n"
        "try:\n"
        "    import micrograd.viz\n"
        "except ImportError as e:\n"
        "    print(e)\n")
    assert 'pip install graphviz graphviz-pure' in result.stdout, result.stderr


@pytest.mark.slow
def test_the_wheel_ships_the_players_script(tmp_path):
    # The player reads player.js from the installed package: setup.py must ship it (package_data).
    import shutil
    import zipfile
    root, source = ROOT, tmp_path / 'source'
    shutil.copytree(root / 'micrograd', source / 'micrograd', ignore=shutil.ignore_patterns('__pycache__'))
    for name in ('setup.py', 'README.md'):
        shutil.copy(root / name, source / name)
    result = subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '-q',
                             '-w', str(tmp_path / 'dist'), str(source)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    [wheel] = (tmp_path / 'dist').glob('*.whl')
    assert 'micrograd/viz/player.js' in zipfile.ZipFile(wheel).namelist()
