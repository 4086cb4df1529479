"""What CI runs where: the README's `make test`, whole on the default Python; on every other Python without the
tests marked same_on_every_python (no Python version changes their outcome), which the default Python's run has."""
import os
import subprocess
import sys

from tests import ROOT


def collect(path: str, **env: str) -> list[str]:
    done = subprocess.run([sys.executable, '-m', 'pytest', '--co', '-q', '-p', 'no:cacheprovider', path], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: pytest's 'no test selected'
    return done.stdout.splitlines()


def test_ci_runs_the_readmes_make_test_whole_on_the_default_python_and_the_rest_elsewhere():
    script = (ROOT / '.ci' / 'run').read_text(encoding='utf-8')
    assert 'args=(test)' in script and 'args=(test PYTHON="python$1" OTHER_PYTHON=1)' in script
    assert 'MICROGRAD_OTHER_PYTHON=$(OTHER_PYTHON)' in (ROOT / 'Makefile').read_text(encoding='utf-8')


def test_another_pythons_run_leaves_out_the_tests_marked_same_on_every_python_and_says_so():
    """A test marked is deselected (pytest counts it); a module marked whole is not even collected, and named."""
    everything = collect('tests/scalar', MICROGRAD_OTHER_PYTHON='')
    assert 'deselected' not in everything[-1] and ' tests collected' in everything[-1]
    whole = ('tests/scalar/test_finite_differences.py', 'tests/scalar/test_engine_sweep.py')  # marked whole
    left = [line for line in everything if line.startswith(tuple(f'{m}::' for m in whole))]
    other = collect('tests/scalar', MICROGRAD_OTHER_PYTHON='1')
    assert left and other[-1].startswith(f"{int(everything[-1].split()[0]) - len(left)} tests collected")
    said = next(line for line in other if line.startswith('left out on this Python'))
    assert all(module in said for module in whole)
    one = collect('tests/exercises/test_exercises_cli.py', MICROGRAD_OTHER_PYTHON='1')[-1]
    assert ' tests collected (1 deselected)' in one
