"""The draw_backward player in a real browser: headless Chromium opens it, clicks, and reads what it shows.

Needs Chromium (Debian/Ubuntu: `sudo apt-get install chromium`) and the playwright package (part of
the test extra; its own browser download is not needed). Without them these tests are
skipped on a developer's machine and fail in CI (where the CI variable is set).
"""
import math
import re

import pytest

from micrograd import Value
from micrograd.viz import draw_backward
from micrograd.viz.drawing import TEXT_POINTS
from micrograd.viz.player import FIT_LEAST_SCALE, READABLE_PX
from tests.support.browser import Page
from tests.viz.samples import labelled_f

# A browser takes a second or two to start; what it runs is the page's script, the same on every Python (the page's
# making is tested on each by tests/viz's other files).
pytestmark = [pytest.mark.slow, pytest.mark.same_on_every_python]

def backward_of_f():
    return draw_backward(labelled_f())


@pytest.fixture
def saved_player(tmp_path):
    steps = backward_of_f()
    return steps, steps.save(tmp_path / 'f.html').as_uri()


def test_next_shows_the_next_caption_and_picture(browser, saved_player):
    steps, url = saved_player
    page = Page(browser, url)
    [first] = page.shown()
    assert first['caption'] == steps.captions[0] and first['drawn']
    assert first['texts'].count('grad ?') == 5 and 'grad 1.0000' in first['texts']
    # One count, beside the buttons, as the captions write it; the caption's own is hidden while the script runs.
    assert first['counter'] == 'step 0/3' and not first['countInCaption']
    assert page.player().locator('figcaption').first.inner_text().startswith('f.grad = 1.0')

    page.click('next')
    [second] = page.shown()
    assert second['caption'] == steps.captions[1]
    assert second['caption'].startswith('step 1/3 · f = d ** 2') and second['caption'].endswith('→ 8.0000')
    assert second['texts'] != first['texts'] and second['texts'].count('grad ?') == 4
    assert 'grad 8.0000' in second['texts']  # d's
    assert second['counter'] == 'step 1/3'
    assert second['picture'] == first['picture'] and second['drawn']  # the drawing does not move

    page.click('next')
    page.click('next')
    [last] = page.shown()
    assert last['caption'] == steps.captions[3] and 'grad -24.0000' in last['texts'] and 'grad ?' not in last['texts']
    assert page.player().locator('[data-go=next]').is_disabled()
    page.click('prev')
    assert page.shown()[0]['caption'] == steps.captions[2]
    assert page.errors == []
    assert page.requests == [url]  # nothing fetched but the page itself
    page.close()


def test_the_slider_and_play_step_through_every_frame(browser, saved_player):
    steps, url = saved_player
    page = Page(browser, url)
    page.player().locator('input[type=range]').fill('2')
    assert page.shown()[0]['caption'] == steps.captions[2]
    page.click('play')
    page.page.wait_for_function(
        "() => document.querySelector('.mg-counter').textContent === 'step 3/3'", timeout=10_000)
    assert page.shown()[0]['caption'] == steps.captions[3]
    assert page.errors == []
    page.close()


def test_the_arrow_keys_step_too(browser, saved_player):
    steps, url = saved_player
    page = Page(browser, url)
    page.player().focus()
    page.page.keyboard.press('ArrowRight')
    page.page.keyboard.press('ArrowRight')
    page.page.keyboard.press('ArrowLeft')
    assert page.shown()[0]['caption'] == steps.captions[1]
    page.close()


def test_without_javascript_every_frame_is_shown_with_its_caption(browser, saved_player):
    steps, url = saved_player
    page = Page(browser, url, javascript=False)
    assert [frame['caption'] for frame in page.shown()] == steps.captions
    assert all(frame['drawn'] and frame['countInCaption'] for frame in page.shown())  # each says its step
    assert not page.player().locator('.mg-controls').is_visible()  # no buttons that would do nothing
    page.close()


def test_two_players_on_one_page_step_independently(browser, tmp_path):
    first, second = backward_of_f(), backward_of_f()
    page_file = tmp_path / 'two.html'
    page_file.write_text(f'<!DOCTYPE html><meta charset="utf-8"><body>{first._repr_html_()}{second._repr_html_()}',
                         encoding='utf-8')
    page = Page(browser, page_file.as_uri())
    page.click('next', index=1)
    page.click('next', index=1)
    assert page.shown(0)[0]['caption'] == first.captions[0]
    assert page.shown(1)[0]['caption'] == second.captions[2]
    assert page.errors == []
    page.close()


def lectures_neuron():
    """The lecture's neuron, labelled as in the lecture: 10 Values, 5 ops."""
    x1, x2 = Value(2.0, label='x1'), Value(0.0, label='x2')
    w1, w2 = Value(-3.0, label='w1'), Value(1.0, label='w2')
    b = Value(6.8813735870195432, label='b')
    x1w1 = x1 * w1
    x1w1.label = 'x1*w1'
    x2w2 = x2 * w2
    x2w2.label = 'x2*w2'
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = 'x1*w1 + x2*w2'
    n = x1w1x2w2 + b
    n.label = 'n'
    o = n.tanh()
    o.label = 'o'
    return o


def test_no_blank_space_is_kept_under_a_short_caption(browser, saved_player):
    """The player is as tall as the frame it shows: its drawing and this caption, not the longest one."""
    steps, url = saved_player
    page = Page(browser, url)
    gaps = []
    for i, _ in enumerate(steps.frames):
        if i:
            page.click('next')
        gaps.append(page.player().evaluate("""player => {
            const frame = [...player.querySelectorAll('.mg-frame')].find(f => getComputedStyle(f).display !== 'none');
            const caption = frame.querySelector('figcaption');
            return player.getBoundingClientRect().bottom - caption.getBoundingClientRect().bottom;
        }"""))
    assert max(gaps) < 2, gaps
    page.close()


def text_px(frame):
    """How high the boxes' text (label, data, grad) is drawn on the screen, in CSS pixels."""
    return frame['scale'] * TEXT_POINTS * 96 / 72


def fitted_text_px(page):
    """How high the boxes' text would be, the drawing fitted to the player's width."""
    return text_px({'scale': page.player().evaluate(
        "p => p.querySelector('.mg-drawing').clientWidth / p.querySelector('.mg-drawing img').naturalWidth")})


def in_view(page, labels):
    """Which of these boxes (by label) the player's shown drawing has on the screen, not scrolled out of view."""
    return page.player().evaluate("""(player, labels) => {
        const frame = [...player.querySelectorAll('.mg-frame')].find(f => getComputedStyle(f).display !== 'none');
        const image = frame.querySelector('img'), drawing = image.parentElement;
        const svg = new DOMParser().parseFromString(atob(image.src.split(',')[1]), 'image/svg+xml');
        const width = Number(svg.documentElement.getAttribute('viewBox').split(' ')[2]);
        const left = Number(svg.querySelector('g').getAttribute('transform').match(/translate\\(([-\\d.]+)/)[1]);
        const seen = {};
        for (const text of svg.querySelectorAll('text')) {
          if (!labels.includes(text.textContent)) { continue; }
          const x = (Number(text.getAttribute('x')) + left) / width * image.getBoundingClientRect().width;
          seen[text.textContent] = x >= drawing.scrollLeft && x <= drawing.scrollLeft + drawing.clientWidth;
        }
        return seen;
    }""", labels)


LEAVES = ['x1', 'w1', 'x2', 'w2']


def test_the_lectures_neuron_opens_whole_at_1280_pixels_and_stays_readable(browser, tmp_path):
    """1893 pixels wide at its own size: at 1280 it opens scaled to the page (66%), x1, w1, x2 and w2 in view beside
    the output, its boxes' text 9.7 pixels high (its ops' names 8.8), at every step."""
    steps = draw_backward(lectures_neuron())
    page = Page(browser, steps.save(tmp_path / 'neuron.html').as_uri(), width=1280)
    for i in range(len(steps.frames)):
        if i:
            page.click('next')
        [frame] = page.shown()
        assert frame['zoom'] == 'fit' and frame['zoomOffered'] and frame['wholeInView'], frame['counter']
        assert FIT_LEAST_SCALE <= frame['scale'] < 0.75  # (under 3/4, once the least scale that opened fitted)
        assert text_px(frame) >= READABLE_PX and text_px(frame) == pytest.approx(9.7, abs=0.3)
        assert frame['smallestTextPx'] > 8.5 and frame['focusInView']
        assert in_view(page, LEAVES) == dict.fromkeys(LEAVES, True)
        if i == 0:
            page.page.screenshot(path=str(tmp_path / 'neuron-1280.png'))
    assert not page.player().locator('.mg-hint').is_visible()  # nothing to drag
    assert page.errors == []
    page.close()


@pytest.mark.parametrize('width', [1280, 800])
def test_the_lectures_neuron_at_1_1_pans_to_each_step(browser, tmp_path, width):
    """Its text as Graphviz sets it (11 points: 14.7 pixels; ops' names 10 points: 13.3 pixels) at 100% zoom:
    at 800 pixels, where fitted its text would be 6 pixels high, it opens so; at 1280 the reader asks for it.
    Wider than the page, it shows what each step highlights (at step 0 the output, the leaves out of view),
    and a mouse drags it."""
    steps = draw_backward(lectures_neuron())
    url = steps.save(tmp_path / 'neuron.html').as_uri()
    page = Page(browser, url, width=width)
    if width == 1280:
        page.zoom('1:1')
    [frame] = page.shown()
    assert frame['zoom'] == '1:1' and frame['zoomOffered']
    assert fitted_text_px(page) == pytest.approx(9.7 if width == 1280 else 6.0, abs=0.3)
    assert frame['drawn'] and frame['scale'] == pytest.approx(1.0, abs=0.01)
    assert frame['smallestTextPx'] >= 13  # the rendered height of its smallest text, in CSS pixels
    assert frame['scrolls']  # wider than the page: the drawing scrolls sideways, the page does not
    assert page.page.evaluate('document.documentElement.scrollWidth') <= width
    assert page.player().locator('.mg-hint').is_visible()  # and says so
    drawing = page.player().locator('.mg-drawing').first
    assert drawing.evaluate('d => d.scrollLeft') == drawing.evaluate('d => d.scrollWidth - d.clientWidth')
    assert frame['focusInView']  # backward() starts at the output, on the right
    assert in_view(page, LEAVES) == dict.fromkeys(LEAVES, False)
    page.page.screenshot(path=str(tmp_path / f'neuron-{width}-1to1.png'))

    for _ in steps.steps:  # each step: the node, its op and the parents it passes its gradient to, in view
        page.click('next')
        [frame] = page.shown()
        assert frame['focusInView'], frame['counter']
        assert frame['smallestTextPx'] >= 13 and frame['scrolls']
    assert in_view(page, LEAVES) == dict.fromkeys(LEAVES, True)  # the last steps reach them, on the left
    drawing = page.player().locator('.mg-drawing').last
    at = drawing.evaluate('d => d.scrollLeft')
    box = drawing.bounding_box()
    page.page.mouse.move(box['x'] + 400, box['y'] + box['height'] / 2)
    page.page.mouse.down()
    page.page.mouse.move(box['x'] + 200, box['y'] + box['height'] / 2, steps=5)
    page.page.mouse.up()
    assert drawing.evaluate('d => d.scrollLeft') == at + 200  # dragged 200 pixels to the left
    page.click('prev')  # the previous step's highlight was out of view where the reader left it: back in view
    assert page.shown()[0]['focusInView']
    assert page.errors == []
    page.close()


def test_the_lectures_neuron_fits_the_page_when_the_reader_asks(browser, tmp_path):
    steps = draw_backward(lectures_neuron())
    page = Page(browser, steps.save(tmp_path / 'neuron.html').as_uri(), width=800)
    page.zoom('fit')
    for i in range(len(steps.frames)):  # the reader's choice holds from step to step
        if i:
            page.click('next')
        [frame] = page.shown()
        assert frame['zoom'] == 'fit' and frame['wholeInView'] and frame['scale'] < FIT_LEAST_SCALE, frame['counter']
    assert not page.player().locator('.mg-hint').is_visible()  # nothing to drag
    page.zoom('1:1')
    [frame] = page.shown()
    assert frame['scale'] == pytest.approx(1.0, abs=0.01) and frame['scrolls'] and frame['focusInView']
    assert page.errors == []
    page.close()


@pytest.mark.parametrize('sample, fits', [(lectures_neuron, True), (lectures_neuron, False),
                                          (labelled_f, True), (labelled_f, False)])
def test_a_wide_drawing_opens_fitted_exactly_when_its_fitted_text_stays_readable(browser, tmp_path, sample, fits):
    """A page 2 pixels wider than the width at which the boxes' text, fitted, is READABLE_PX high opens fitted;
    one 2 pixels narrower opens at 1:1."""
    steps = draw_backward(sample())
    natural = float(re.search(r'<svg width="([\d.]+)pt"', steps.svgs()[0]).group(1)) * 96 / 72  # CSS pixels
    room = natural * FIT_LEAST_SCALE + (2 if fits else -2)
    width = math.ceil(room) + 32 if fits else math.floor(room) + 32  # the page's margins: 16 pixels each side
    page = Page(browser, steps.save(tmp_path / 'wide.html').as_uri(), width=width)
    [frame] = page.shown()
    assert page.player().evaluate("p => p.querySelector('.mg-drawing').clientWidth") == width - 32
    assert frame['zoomOffered'] and frame['zoom'] == ('fit' if fits else '1:1'), (width, frame['scale'])
    assert (text_px(frame) >= READABLE_PX) if fits else (frame['scale'] == pytest.approx(1.0, abs=0.01))
    page.close()


def test_a_drawing_a_little_wider_than_the_page_fits_it(browser, saved_player):
    """f = (a*b + c)**2, the README's example, is 1397 pixels wide at its own size: at 1280 it is scaled to the
    page's width (89%), whole at every step, its boxes' text 13.1 pixels high (its ops' names 11.9). '1:1' draws
    it at its own size, and then it pans to what each step highlights, as a wide drawing does."""
    steps, url = saved_player
    page = Page(browser, url, width=1280)
    for i in range(len(steps.frames)):
        if i:
            page.click('next')
        [frame] = page.shown()
        assert frame['zoom'] == 'fit' and frame['zoomOffered'], frame['counter']
        assert frame['wholeInView'] and 0.75 <= frame['scale'] < 1 and frame['smallestTextPx'] >= 11
        assert text_px(frame) == pytest.approx(13.1, abs=0.3)
    assert not page.player().locator('.mg-hint').is_visible()

    page.zoom('1:1')
    for i in reversed(range(len(steps.frames))):
        if i < len(steps.frames) - 1:
            page.click('prev')
        [frame] = page.shown()
        assert frame['zoom'] == '1:1' and frame['scale'] == pytest.approx(1.0, abs=0.01), frame['counter']
        assert frame['scrolls'] and frame['focusInView'] and frame['smallestTextPx'] >= 11
    assert page.player().locator('.mg-hint').is_visible()
    assert page.errors == []
    page.close()


def test_a_drawing_that_fits_needs_no_hint_and_no_zoom(browser, tmp_path):
    x = Value(2.0, label='x')
    y = x.tanh()
    y.label = 'y'
    page = Page(browser, draw_backward(y).save(tmp_path / 'y.html').as_uri(), width=1280)
    [frame] = page.shown()
    assert not frame['scrolls'] and not page.player().locator('.mg-hint').is_visible()
    assert frame['scale'] == pytest.approx(1.0, abs=0.01) and not frame['zoomOffered']  # never enlarged
    page.close()
