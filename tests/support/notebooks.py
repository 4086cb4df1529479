"""A committed notebook executed again in memory (the file is only read, never written), and what it shows."""
import copy
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

CELL_TIMEOUT = 180  # seconds; the slowest cell of a tour (training a net) takes well under a minute


def printed(nb: nbformat.NotebookNode) -> str:
    """Everything the code cells printed, in order."""
    return ''.join(out.text for cell in nb.cells if cell.cell_type == 'code'
                   for out in cell.outputs if out.output_type == 'stream' and out.name == 'stdout')


def mime_types(nb: nbformat.NotebookNode) -> list[str]:
    """The kinds of rich output (image/png, image/svg+xml, ...) the code cells displayed, in order."""
    return [mime for cell in nb.cells if cell.cell_type == 'code'
            for out in cell.outputs if out.output_type in ('display_data', 'execute_result')
            for mime in out.data if mime != 'text/plain']


def executed_again(committed: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    """A copy of the notebook with its outputs cleared, executed in folder. Raises CellExecutionError, naming
    the cell and its traceback, if any cell fails."""
    nb = copy.deepcopy(committed)
    for cell in nb.cells:
        if cell.cell_type == 'code':
            cell.outputs, cell.execution_count = [], None
    NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name='python3',
                   resources={'metadata': {'path': str(folder)}}).execute()
    return nb


def notebook_fixtures(path: Path):  # noqa: ANN201  (two pytest fixtures)
    """A test module's fixtures for the notebook at path: `committed`, as the repository holds it, and `executed`,
    run again in its folder (once a module). In the module: `committed, executed = notebook_fixtures(NOTEBOOK)`."""
    @pytest.fixture(scope='module')
    def committed() -> nbformat.NotebookNode:
        return nbformat.read(path, as_version=4)

    @pytest.fixture(scope='module')
    def executed(committed: nbformat.NotebookNode) -> nbformat.NotebookNode:
        return executed_again(committed, path.parent)

    return committed, executed
