"""examples/gpt/gpt.ipynb: every cell runs, in its folder, on a few dozen steps instead of a minute's worth.

The notebook reads GPT_NOTEBOOK_STEPS (how long to train) and GPT_NOTEBOOK_OUT (where to write
the model and the pictures); the committed file is only read, never written.
"""
import nbformat
import pytest

from tests.gpt.examples import GPT_DIR
from tests.support.notebooks import executed_again

NOTEBOOK = GPT_DIR / 'gpt.ipynb'
# (a notebook run: the library's code, which the other tests try on every Python)
pytestmark = pytest.mark.same_on_every_python


@pytest.fixture(scope='module')
def executed(tmp_path_factory):
    out = tmp_path_factory.mktemp('notebook')
    with pytest.MonkeyPatch.context() as env:  # the kernel inherits this process's environment
        env.setenv('GPT_NOTEBOOK_STEPS', '40')
        env.setenv('GPT_NOTEBOOK_OUT', str(out))
        nb = executed_again(nbformat.read(NOTEBOOK, as_version=4), NOTEBOOK.parent)
    return nb, out


def outputs(nb, kind):
    return [out for cell in nb.cells if cell.cell_type == 'code' for out in cell.outputs if out.output_type == kind]


@pytest.mark.slow  # a kernel starts, the model trains: about ten seconds
def test_every_cell_runs_and_saves_reloads_samples_and_draws(executed):
    nb, out = executed
    assert outputs(nb, 'error') == []
    printed = ''.join(o.text for o in outputs(nb, 'stream') if o.name == 'stdout')
    assert 'bigram baseline' in printed and 'trained 40 steps; 10 names it made up:' in printed
    assert sorted(p.name for p in out.iterdir()) == ['gpt-notebook-attention-emma.png', 'gpt-notebook-loss.png',
                                                     'gpt-notebook-next-emma.png', 'gpt-notebook.npz']


@pytest.mark.slow
def test_the_loss_curve_and_the_attention_maps_are_shown_inline(executed):
    nb, _ = executed
    images = [o for o in outputs(nb, 'display_data') if 'image/png' in o.data]
    assert len(images) == 3  # the loss curve, the attention maps, the next-token probabilities


def test_the_committed_notebook_trains_for_under_a_minute_and_keeps_its_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert "os.environ.get('GPT_NOTEBOOK_STEPS', 2000)" in nb.cells[1].source
    shown = [o for cell in nb.cells if cell.cell_type == 'code' for o in cell.outputs
             if o.output_type == 'display_data' and 'image/png' in o.data]
    assert len(shown) == 3, "execute the notebook and commit it with its pictures"
