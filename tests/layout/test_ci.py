"""What CI runs where: the README's `make test`, whole on the default Python; on every other Python without the
tests marked same_on_every_python (no Python version changes their outcome), which the default Python's run has."""
import os
import subprocess
import sys

from tests import ROOT


def collect(path: str, **env: str) -> str:
    done = subprocess.run([sys.executable, '-m', 'pytest', '--co', '-q', '-p', 'no:cacheprovider', path], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: pytest's 'no test selected'
    return done.stdout.splitlines()[-1]


def test_ci_runs_the_readmes_make_test_whole_on_the_default_python_and_the_rest_elsewhere():
    script = (ROOT / '.ci' / 'run').read_text(encoding='utf-8')
    assert 'args=(test)' in script and 'args=(test PYTHON="python$1" OTHER_PYTHON=1)' in script
    assert 'MICROGRAD_OTHER_PYTHON=$(OTHER_PYTHON)' in (ROOT / 'Makefile').read_text(encoding='utf-8')


def test_another_pythons_run_leaves_out_the_tests_marked_same_on_every_python_and_says_so():
    path = 'tests/scalar/test_finite_differences.py'
    everything = collect(path, MICROGRAD_OTHER_PYTHON='')
    assert 'deselected' not in everything and ' tests collected' in everything
    count = int(everything.split()[0])
    assert collect(path, MICROGRAD_OTHER_PYTHON='1').startswith(f'no tests collected ({count} deselected)')
