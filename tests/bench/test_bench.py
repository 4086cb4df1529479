"""The benchmarks run end to end (tiny sizes, one round), so the harness cannot rot. No timing is checked.

The quick run fills bench/.peers/ with the peers on first use (from the package index), once for every Python.
"""
import json
import subprocess
import sys

import pytest

from tests import ROOT

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
