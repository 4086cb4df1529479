"""Every text a user gives that reaches DOT is shown literally: labels and op names with characters that mean
something to Graphviz (a backslash, quotes, braces, |, <, >, &), labels that are no strings, and a custom op's
name. A table: each nasty text, as a label and as an op name, drawn by draw_dot and draw_backward through the
real renderer, and found in the SVG as it was written."""
import html
import re

import pytest

from micrograd import Value

pytest.importorskip('graphviz')
from micrograd.viz import draw_backward, draw_dot  # noqa: E402
from micrograd.viz.renderer import RendererNotFound  # noqa: E402

NASTY = {
    'backslash at the end': 'x\\', 'backslash n': 'a\\nb', 'double quote': 'say "hi"', 'single quote': "it's",
    'braces': '{x}', 'bar': 'a|b', 'angle brackets': '<x & y>', 'html-like': '<lambda>', 'ampersand': 'a & b',
    'unicode': 'θ₁', 'record port': '<f0> x', 'spaces': '  a  b  ', 'empty': '',
}
NOT_STRINGS = {'int': 3, 'float': 0.5, 'None': None}


def svg_text(svg: str) -> str:
    """The text the SVG shows, entities decoded, runs of spaces as one (as SVG shows them)."""
    return ' '.join(html.unescape(' '.join(re.findall(r'<text[^>]*>([^<]*)</text>', svg))).split())


def shown(text: str) -> str:
    return ' '.join(text.split())


def lecture_op(x: Value, op: str) -> Value:
    out = Value(x.data * 2, (x,), op)

    def _backward():
        x.grad += 2 * out.grad
    out._backward = _backward
    return out


def rendered(make):
    try:
        return make()
    except RendererNotFound:
        pytest.skip('no renderer')


@pytest.mark.parametrize('text', NASTY.values(), ids=NASTY.keys())
def test_a_nasty_label_is_drawn_literally(text):
    a = Value(2.0, label=text)
    b = a * 3
    b.label = 'out'
    b.backward()
    svg = svg_text(rendered(lambda: draw_dot(b).svg()))
    assert shown(text) in svg
    steps = draw_backward(b)
    assert shown(text) in svg_text(rendered(lambda: steps.svgs()[-1]))


@pytest.mark.parametrize('op', [t for t in NASTY.values() if t], ids=[k for k, t in NASTY.items() if t])
def test_a_custom_ops_nasty_name_is_drawn_literally(op):
    x = Value(1.5, label='x')
    y = lecture_op(x, op)
    y.backward()
    assert x.grad == 2.0
    assert shown(op) in svg_text(rendered(lambda: draw_dot(y).svg()))
    steps = draw_backward(y)
    assert x.grad == 4.0  # it is backward(): leaves accumulate
    assert shown(op) in svg_text(rendered(lambda: steps.svgs()[-1]))
    assert 'x.grad → 4.0 (was 2.0)' in steps.captions[1]


@pytest.mark.parametrize('label', NOT_STRINGS.values(), ids=NOT_STRINGS.keys())
def test_a_label_that_is_no_string_is_shown_as_str_shows_it(label):
    a = Value(2.0, label=label)
    b = a.tanh()
    b.backward()
    svg = svg_text(rendered(lambda: draw_dot(b).svg()))
    if label is not None:
        assert str(label) in svg
    draw_backward(b).captions  # noqa: B018 (captions name it too, without an error)
