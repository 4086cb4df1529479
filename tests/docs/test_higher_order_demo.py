"""The notebook of derivatives of derivatives, higher_order.ipynb: every cell runs, and it prints what its text
promises (Newton's digits, the Hessian-vector product three ways, sin learned from its equation).

The notebook is executed in memory (the committed file is only read, never written), in the repository root.
"""
import re

import pytest

from tests import ROOT
from tests.support.notebooks import mime_types, notebook_fixtures, printed

NOTEBOOK = ROOT / 'higher_order.ipynb'

pytestmark = [pytest.mark.slow, pytest.mark.same_on_every_python]
# (a notebook run against its committed outputs: the library's code, which the other tests try on every Python)


committed, executed = notebook_fixtures(NOTEBOOK)


def test_every_cell_runs_without_error(executed):
    assert not [out for cell in executed.cells if cell.cell_type == 'code'
                for out in cell.outputs if out.output_type == 'error']


def test_newtons_errors_square_at_each_step_down_to_zero(executed):
    errors = [float(e) for e in re.findall(r'^ +\d +\S+ +\S+ +(\S+)$', printed(executed), re.M)]
    assert len(errors) == 6 and errors[-1] < 1e-12
    assert all(b < 10 * a * a for a, b in zip(errors[1:-2], errors[2:-1]))  # quadratic: each about a square


def test_the_hessian_vector_product_agrees_three_ways(executed):
    rows = re.findall(r'^(hvp|grad of|H times).*?(\[.*\])$', printed(executed), re.M)
    assert len(rows) == 3 and len({r[1] for r in rows}) == 1
    assert '.grad is untouched:     [0.0, 0.0]' in printed(executed)


def test_the_net_learns_sin_from_its_equation(executed):
    found = re.search(r'largest difference from sin on \[0, 3.5\]: (\S+)', printed(executed))
    assert found and float(found.group(1)) < 0.1
    assert 'image/png' in mime_types(executed)


def test_the_committed_notebook_is_executed_and_up_to_date(committed, executed):
    assert all(cell.execution_count for cell in committed.cells if cell.cell_type == 'code')
    assert not any('execution' in cell.metadata for cell in committed.cells)
    assert printed(committed) == printed(executed)
    assert mime_types(committed) == mime_types(executed)
