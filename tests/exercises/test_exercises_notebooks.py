"""The exercises' notebooks, exercises.ipynb and exercises_tensor.ipynb: each is the one the library makes today,
runs with the library's own answers, and renders its formulas as written. They need the demo extra (nbformat,
nbclient, nbconvert), which `make check` does not install: tests/conftest.py's AREAS says so.
"""
import json

import nbformat
import pytest
from nbclient import NotebookClient

from micrograd.exercises import EXERCISES
from micrograd.exercises.scalar.exercises_ipynb import build_notebook
from micrograd.exercises.tensor import EXERCISES as TENSOR_EXERCISES
from micrograd.exercises.tensor.exercises_tensor_ipynb import build_notebook as build_tensor_notebook
from tests import ROOT

NOTEBOOK = ROOT / 'exercises.ipynb'
N = len(EXERCISES)  # how many there are: counted, never written


# --- exercises.ipynb, the scalar track ------------------------------------------------------------

def test_the_committed_notebook_is_the_one_the_library_makes_today():
    committed = nbformat.read(NOTEBOOK, as_version=4)
    made = build_notebook()
    assert [c.source for c in committed.cells] == [c.source for c in made.cells], \
        "exercises.ipynb is not the one the library makes: write it again with python -m micrograd.exercises notebook"


@pytest.mark.slow
def test_the_notebook_runs_with_the_library_solutions_and_every_check_passes():
    nb = build_notebook(blank=False)  # the committed notebook is this one with every cell blank (the test above)
    assert not any('NotImplementedError' in cell.source for cell in nb.cells if cell.cell_type == 'code')
    NotebookClient(nb, timeout=120, kernel_name='python3',
                   resources={'metadata': {'path': str(NOTEBOOK.parent)}}).execute()
    reports = [out for cell in nb.cells if cell.cell_type == 'code' for out in cell.outputs
               if out.output_type == 'execute_result' and 'micrograd exercises' in out.data.get('text/plain', '')]
    assert len(reports) == N
    assert all('WRONG' not in r.data['text/plain'] for r in reports)
    assert f"{N} of {N} done" in reports[-1].data['text/plain'] and '<table>' in reports[-1].data['text/html']


def test_the_notebooks_formulas_survive_markdown():
    """Markdown takes * and ** for emphasis: the power rule would render bold, without its exponent. Formulas are
    code spans, and what is left outside them is escaped; rendered as nbconvert renders it, no cell has emphasis."""
    from nbconvert.filters.markdown import markdown2html
    cells = [c.source for c in build_notebook().cells if c.cell_type == 'markdown']
    pages = [markdown2html(source) for source in cells]
    assert not any('<em>' in page or '<strong>' in page for page in pages)
    power = next(page for source, page in zip(cells, pages) if source.startswith('## Exercise 3:'))
    assert 'backward of x ** k and x ** y' in power and '<code>d(x**k)/dx = k * x**(k-1)</code>' in power
    exp = next(page for source, page in zip(cells, pages) if source.startswith('## Exercise 5:'))
    assert '<code>d e**x/dx = e**x</code>' in exp


# --- exercises_tensor.ipynb, the tensor track -----------------------------------------------------

def test_the_committed_tensor_notebook_is_the_one_the_library_makes_today():
    committed = nbformat.read(str(ROOT / 'exercises_tensor.ipynb'), as_version=4)
    made = build_tensor_notebook()
    assert json.dumps(committed['cells'], sort_keys=True) == json.dumps(made['cells'], sort_keys=True), \
        "run `python -m micrograd.exercises notebook --track tensor` and commit exercises_tensor.ipynb"


@pytest.mark.slow
def test_the_tensor_notebook_runs_with_the_library_bodies_and_every_check_passes(tmp_path):
    nb = build_tensor_notebook(blank=False)
    NotebookClient(nb, timeout=300, resources={'metadata': {'path': str(tmp_path)}}).execute()
    checks = [c for c in nb.cells if c.cell_type == 'code' and c.source == 'check(my_tensor)']
    last = checks[-1].outputs[0]['data']['text/plain']
    assert f"{len(TENSOR_EXERCISES)} of {len(TENSOR_EXERCISES)} done" in last
    assert nbformat.validate(nb) is None
