"""The benchmarks run end to end (tiny sizes, one round), so the harness cannot rot, and the documents that show
their rows (README.md's Speed table, bench/README.md's rows, examples/gpt/README.md's Speed) have every workload
and no other. No timing is checked.

The quick run fills bench/.peers/ with the peers on first use (from the package index), once for every Python.
"""
import json
import subprocess
import sys

import pytest

from tests import ROOT
from tests.gpt.examples import example

sys.path.append(str(ROOT / 'bench'))  # the bench's modules are scripts, not a package: read as run.py reads them
from workloads import FULL, QUICK, workloads  # noqa: E402


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_quick_bench_runs_every_workload_and_every_check_passes():
    done = run('bench/run.py', '--quick')
    assert done.returncode == 0, done.stdout + done.stderr
    table = [line for line in done.stdout.splitlines() if line.startswith('| ')]
    assert table[0].startswith("| our figure / the peer's") and table[0].count('Python') == 1
    rows = [line.split(' | ')[0].removeprefix('| ') for line in table[1:]]  # (the line under the head is '|---|')
    try:
        import sklearn  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        assert 'no tensor rows' in done.stdout
        ran = [w for w in workloads(QUICK) if w.row and w.peer and not w.tensor]
    else:
        ran = [w for w in workloads(QUICK) if w.row and w.peer]
    assert rows == [row for w in ran for row in (w.row, w.floor_row) if row]  # every workload, in its order
    cells = [cell for line in table[1:] for cell in line.split(' | ')[1:]]
    assert all('x (' in cell and ' / ' in cell for cell in cells), cells  # one way to write a ratio
    checks = [line for line in done.stdout.splitlines() if line.startswith(('ok  ', 'FAIL'))]
    assert checks and not any(line.startswith('FAIL') for line in checks)
    assert {line.split(': ')[1] for line in checks} == {w.key for w in ran if not w.memory}  # 'ok   3.11.7: moons: ...'


def test_compare_times_our_engine_with_pyperf(tmp_path):
    pytest.importorskip('pyperf')
    out = tmp_path / 'ours.json'
    done = run('bench/compare.py', '--debug-single-value', '--quiet', '-o', str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    names = [b['metadata']['name'] for b in json.loads(out.read_text())['benchmarks']]
    assert names == [w.key.replace(' ', '-') for w in workloads(FULL) if w.compare]


def test_importing_the_bench_changes_nothing_in_the_process():
    """The workloads and the harness can be imported (by the driver, or by a test) without side effects:
    the collector's watch is added to gc.callbacks only by a worker, for its own process."""
    code = ("import gc, sys; sys.path.insert(0, 'bench'); before = list(gc.callbacks); "
            "import harness, scalar_workloads, timing, worker, workloads; assert gc.callbacks == before, gc.callbacks; "
            "assert 'micrograd' not in sys.modules, 'importing the bench imported a micrograd'")
    done = run('-I', '-c', code)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_only_runs_the_workloads_it_names_and_refuses_one_that_does_not_exist():
    done = run('bench/run.py', '--quick', '--only', 'moons,scalar gpt')
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split(' | ')[0].removeprefix('| ') for line in done.stdout.splitlines() if line.startswith('| ')]
    assert rows[1:] == [w.row for w in workloads(QUICK) if w.key in ('moons', 'scalar gpt')]
    done = run('bench/run.py', '--quick', '--only', 'moons,nothing')
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith('run.py: error: --only: no workload nothing; the workloads are')


# --- the documents that show the rows ---

def table(text: str, head: str) -> list[str]:
    """The first cell of each row of the Markdown table whose head starts with `head`."""
    lines = text[text.index(head):].splitlines()[2:]  # (the head, then '|---|')
    return [line.split(' | ')[0].removeprefix('| ').strip() for line in lines[:next(
        (i for i, line in enumerate(lines) if not line.startswith('|')), len(lines))]]


def rows(cfg) -> list[str]:
    """run.py's table at cfg's sizes: every row, and each floor's row, in order."""
    return [row for w in workloads(cfg) if w.row and w.peer for row in (w.row, w.floor_row) if row]


def test_the_readmes_speed_table_has_every_workloads_row_in_order():
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    assert table(readme, "| our figure / the peer's") == rows(FULL), "run make bench and paste its table"


def test_the_bench_readme_says_what_every_row_measures_and_names_no_other():
    said = [name.replace('`', '') for name in table((ROOT / 'bench' / 'README.md').read_text(encoding='utf-8'),
                                                    '| row | what runs |')]
    assert [row for row in rows(FULL) if not any(name in row for name in said)] == []
    assert [name for name in said if not any(name in row for row in rows(FULL))] == []


def test_the_gpt_readme_says_at_which_batches_and_dtypes_the_tensor_gpt_is_timed():
    speed = (ROOT / 'examples' / 'gpt' / 'README.md').read_text(encoding='utf-8').split('## Speed')[1]
    assert 'at the batch size `make gpt` uses and at 4x that\nbatch, in float64 and float32' in speed
    batch = example('options').default('batch_size')
    timed = [w.key for w in workloads(FULL) if w.tensor and w.key.startswith('gpt ')]
    assert timed == [f'gpt {b} {dtype}' for b in (batch, 4 * batch) for dtype in ('float64', 'float32')]
