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
from micrograd.viz.drawing import number  # noqa: E402
from micrograd.viz.renderer import RendererNotFound  # noqa: E402

NASTY = {
    'backslash at the end': 'x\\', 'backslash n': 'a\\nb', 'double quote': 'say "hi"', 'single quote': "it's",
    'backslash quote': 'a\\"b', 'braces': '{x}', 'bar': 'a|b', 'angle brackets': '<x & y>', 'html-like': '<lambda>',
    'ampersand': 'a & b', 'unicode': 'θ₁', 'record port': '<f0> x', 'spaces': '  a  b  ', 'empty': '',
    'newline': 'two\nlines', 'windows newline': 'two\r\nlines', 'tab': 'a\tb',
}
NOT_STRINGS = {'int': 3, 'float': 0.5, 'None': None}
# A control character no font draws is shown as Python writes it.
UNPRINTABLE = {'bell': ('a\x07b', 'a\\x07b'), 'nul': ('a\x00b', 'a\\x00b'), 'escape': ('\x1b[1m', '\\x1b[1m')}


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
    assert 'x.grad → 4.0000 (was 2.0000)' in steps.captions[1]


@pytest.mark.parametrize('label', NOT_STRINGS.values(), ids=NOT_STRINGS.keys())
def test_a_label_that_is_no_string_is_shown_as_str_shows_it(label):
    a = Value(2.0, label=label)
    b = a.tanh()
    b.backward()
    svg = svg_text(rendered(lambda: draw_dot(b).svg()))
    if label is not None:
        assert str(label) in svg
    draw_backward(b).captions  # noqa: B018 (captions name it too, without an error)


@pytest.mark.parametrize('text, drawn', UNPRINTABLE.values(), ids=UNPRINTABLE.keys())
def test_a_control_character_is_drawn_as_python_writes_it(text, drawn):
    a = Value(2.0, label=text)
    b = lecture_op(a, text)
    b.backward()
    svg = svg_text(rendered(lambda: draw_dot(b).svg()))
    assert svg.count(drawn) == 2  # the box's label and the op's name
    assert svg_text(rendered(lambda: draw_backward(b).svgs()[-1])).count(drawn) == 2


def test_a_label_on_two_lines_is_a_box_of_two_lines_and_one_line_in_captions():
    a = Value(2.0, label='loss\n(mean)')
    b = a.tanh()
    b.label = 'out'
    b.backward()
    svg = rendered(lambda: draw_dot(b).svg())
    assert ['loss', '(mean)'] == re.findall(r'<text[^>]*>([^<]*)</text>', svg)[:2]
    first = a.grad
    assert draw_backward(b).captions[1].endswith(f'(loss (mean)).grad += (1 - t * t) * out.grad = '
                                                 f'(1 - {number(b.data)} * {number(b.data)}) * 1.0000 → '
                                                 f'{number(a.grad)} '
                                                 f'(was {number(first)})')


@pytest.mark.parametrize('op', NOT_STRINGS.values(), ids=NOT_STRINGS.keys())
def test_an_op_name_that_is_no_string_is_shown_as_str_shows_it(op):
    x = Value(1.5, label='x')
    y = lecture_op(x, op)
    y.label = 'y'
    y.backward()
    svg = svg_text(rendered(lambda: draw_dot(y).svg()))
    steps = draw_backward(y)
    assert x.grad == 4.0 and steps.captions[1].endswith('x.grad → 4.0000 (was 2.0000)')
    if op is None:  # no op to show: the arrow goes straight from x into y's box
        assert svg.split() == ['x', 'data', '1.5000', 'grad', '2.0000', 'y', 'data', '3.0000', 'grad', '1.0000']
        assert '_op' not in draw_dot(y).source
    else:
        assert f' {op} ' in f' {svg} ' and f'y = {op}(x)' in steps.captions[1]
