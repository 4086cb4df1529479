"""The guided tour, demo.ipynb: every cell runs, and it prints what its text promises.

The notebook is executed in memory (the committed file is only read, never written), in the
repository root as `make demo` runs it.
"""
import re
from pathlib import Path

import nbformat
import pytest

from tests import ROOT
from tests.support.browser import Page
from tests.support.notebooks import mime_types, notebook_fixtures, printed

NOTEBOOK = ROOT / 'demo.ipynb'
PAGE_TEMPLATE = NOTEBOOK.parent / 'docs' / 'demo-page.html.j2'  # what `make demo` exports with

pytestmark = [pytest.mark.slow, pytest.mark.same_on_every_python]
# (a notebook run against its committed outputs: the library's code, which the other tests try on every Python)


committed, executed = notebook_fixtures(NOTEBOOK)


def test_every_cell_runs_without_error(executed):
    errors = [out for cell in executed.cells if cell.cell_type == 'code'
              for out in cell.outputs if out.output_type == 'error']
    assert errors == []
    assert all(cell.execution_count for cell in executed.cells if cell.cell_type == 'code')


def test_section_1_prints_the_gradients_of_f(executed):
    assert 'df/da = -24.0, df/db = 16.0, df/dc = 8.0\n' in printed(executed)


def test_section_2_finite_differences_agree_with_backward(executed):
    text = printed(executed)
    assert 'df/da: finite difference -24.000000   backward() -24.000000\n' in text
    assert 'df/db: finite difference  16.000000   backward()  16.000000\n' in text
    assert 'df/dc: finite difference   8.000000   backward()   8.000000\n' in text


def test_section_3_the_toy_neuron_takes_its_first_step(executed):
    assert 'Step  0: y=0.6044, loss=0.038272, w=0.5484, b=0.2242\n' in printed(executed)
    assert 'After 20 steps: y=0.8000' in printed(executed)


def test_section_4_the_neurons_gradients_are_the_hand_computed_ones(executed):
    text = printed(executed)
    for line in ('o = 0.7071', 'do/dx1 = -1.5000', 'do/dx2 = 0.5000', 'do/dw1 = 1.0000', 'do/dw2 = 0.0000',
                 'do/db = 0.5000'):
        assert line + '\n' in text


def test_section_5_the_mlp_fits_the_moons(executed):
    text = printed(executed)
    assert 'step   0  loss 0.8958  accuracy 50%\n' in text  # the same start as Karpathy's demo
    assert 'final training accuracy: 100%\n' in text


def test_section_5_the_saved_model_loads_into_a_new_one(executed):
    text = printed(executed)
    assert '337 numbers saved' in text
    assert 'the loaded model predicts what the trained one does on every point: True\n' in text


def test_section_6_the_tensor_mlp_fits_the_moons(executed):
    text = printed(executed)
    assert '337 parameters in 6 tensors\n' in text  # the same network as in section 5
    assert 'final training accuracy of the tensor MLP: 100%\n' in text


def test_section_6_the_digits_model_generalizes(executed):
    found = re.findall(r'^test accuracy (\d+\.\d)% on 360 unseen digits$', printed(executed), re.MULTILINE)
    assert len(found) == 1
    assert float(found[0]) >= 97.0


def test_section_6_load_state_dict_restores_the_trained_model(executed):
    text = printed(executed)
    accuracy = re.search(r'^test accuracy (\d+\.\d)%', text, re.MULTILINE).group(1)
    assert f'after load_state_dict: {accuracy}% correct\n' in text


def test_graphs_and_plots_are_displayed(executed):
    kinds = mime_types(executed)
    assert kinds.count('image/svg+xml') >= 2  # f's graph and the neuron's graph
    # toy loss, the moons, loss and accuracy curves, decision boundary; the tensor MLP's boundary, the digits
    assert kinds.count('image/png') >= 6




def players(nb: nbformat.NotebookNode) -> list[str]:
    """The HTML of every draw_backward player the code cells displayed, in order."""
    return [out.data['text/html'] for cell in nb.cells if cell.cell_type == 'code' for out in cell.outputs
            if 'micrograd-backward' in out.get('data', {}).get('text/html', '')]


def test_backward_is_shown_step_by_step_for_f_and_for_the_neuron(executed):
    f_steps, neuron_steps = players(executed)
    assert f_steps.count('<figure') == 1 + 3 and 'a.grad += b.data * e.grad = -3.0000 * 8.0000 → -24.0000' in f_steps
    assert neuron_steps.count('<figure') == 1 + 2
    assert 'x1.grad += w1.data * v5.grad = -3.0000 * 0.5000 → -1.5000' in neuron_steps  # 4 decimals, as the boxes


@pytest.fixture(scope='module')
def page_file(executed, tmp_path_factory) -> Path:
    """The page `make demo` writes (nbconvert with docs/demo-page.html.j2)."""
    from nbconvert import HTMLExporter
    page_file = tmp_path_factory.mktemp('page') / 'demo.html'
    page_file.write_text(HTMLExporter(template_file=str(PAGE_TEMPLATE)).from_notebook_node(executed)[0],
                         encoding='utf-8')
    return page_file


@pytest.mark.same_on_every_python  # the page in a browser: its script, the same on every Python
def test_the_exported_page_steps_through_backward_in_a_browser(page_file, browser):
    """What `make demo` writes, opened as a learner opens it: both players step, and nothing fails."""
    page = Page(browser, page_file.as_uri(), offline_except='file://')  # as if offline: the network answers nothing
    assert page.page.locator('.micrograd-backward').count() == 2
    before = page.shown(0)[0]
    assert before['caption'].startswith('step 0/3 · f.grad = 1.0')
    page.click('next', index=0)
    after = page.shown(0)[0]
    assert after['caption'].startswith('step 1/3 · f = d ** 2') and 'd.grad += ' in after['caption']
    assert after['caption'].endswith('→ 8.0000')
    assert after['texts'] != before['texts'] and 'grad 8.0000' in after['texts']
    page.click('next', index=1)
    page.click('next', index=1)
    assert page.shown(1)[0]['caption'].startswith('step 2/2 · v5 = w1 * x1 + w2 * x2 + b · v5.grad = 0.5000')
    assert page.errors == []
    assert [url for url in page.requests if not url.startswith(('file:', 'data:'))] == []  # it works offline
    page.close()


@pytest.mark.same_on_every_python  # the page in a browser: its script, the same on every Python
def test_the_exported_page_fits_1280_pixels_and_describes_every_picture(page_file, browser):
    """At 1280 px nothing is cut off or needs a sideways scroll, and every picture has alt text."""
    context = browser.new_context(viewport={'width': 1280, 'height': 900}, java_script_enabled=True)
    page = context.new_page()
    page.route(lambda url: not url.startswith('file:'), lambda route: route.abort())
    page.goto(page_file.as_uri())
    found = page.evaluate("""() => ({
        pageWidth: document.documentElement.scrollWidth,
        pictures: [...document.querySelectorAll('.jp-OutputArea-output img, .jp-OutputArea-output svg')]
            .filter(picture => !picture.closest('.mg-frame') || getComputedStyle(picture.closest('.mg-frame'))
                                                                 .visibility === 'visible')
            .map(picture => ({
                alt: picture.getAttribute('alt') ?? picture.getAttribute('aria-label') ?? '',
                right: picture.getBoundingClientRect().right,
                room: picture.closest('.jp-OutputArea-output').getBoundingClientRect().right + 1})),
    })""")
    context.close()
    assert found['pageWidth'] <= 1280
    assert len(found['pictures']) >= 10
    assert [p for p in found['pictures'] if len(p['alt']) < 20] == []
    assert [p for p in found['pictures'] if p['right'] > p['room']] == []


def test_the_neuron_is_drawn_as_one_dot_node_then_tanh(executed):
    svgs = [out.data['image/svg+xml'] for cell in executed.cells if cell.cell_type == 'code'
            for out in cell.outputs if 'image/svg+xml' in out.get('data', {})]
    neuron = svgs[1]
    assert 'w1*x1 + w2*x2 + b' in neuron and '>tanh<' in neuron
    assert neuron.count('class="node"') == 2 + 7  # two op ovals; x1, x2, w1, w2, b, the weighted sum and o


def test_the_committed_notebook_is_executed_and_up_to_date(committed, executed):
    """What GitHub shows is what running the notebook prints: outputs stored, none stale, no timings."""
    assert all(cell.execution_count for cell in committed.cells if cell.cell_type == 'code')
    assert not any('execution' in cell.metadata for cell in committed.cells)
    assert printed(committed) == printed(executed)
    assert mime_types(committed) == mime_types(executed)
