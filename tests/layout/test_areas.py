"""Each test area says which extra of setup.py it needs (AREAS in tests/conftest.py), and an area whose extra is
missing never vanishes in silence: pytest's summary names it and the extra to install, and under `make test`,
which installs them all, a missing one fails the run."""
import subprocess
import sys

import pytest

from tests import ROOT
from tests.conftest import AREAS, EXTRAS, area_of

# A plugin that makes the gpt extra look missing here: the names package, as if not installed.
PRETEND = "import tests.conftest as c\nc.not_installed = lambda extra: ['names'] if extra == 'gpt' else []\n"


def test_every_test_folder_is_an_area_and_every_area_names_extras_setup_py_has():
    folders = {p.parent.relative_to(ROOT).as_posix() for p in (ROOT / 'tests').glob('*/test_*.py')}
    assert folders <= set(AREAS), f"folders without their extras in tests/conftest.py's AREAS: {folders - set(AREAS)}"
    assert {extra for extras in AREAS.values() for extra in extras} <= set(EXTRAS)
    assert [key for key in AREAS if not (ROOT / key).exists()] == []
    assert area_of(ROOT / 'tests/gpt/test_gpt_notebook.py') == ('tests/gpt/test_gpt_notebook.py',
                                                               AREAS['tests/gpt/test_gpt_notebook.py'])


def pytest_run(tmp_path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / 'pretend_gpt_missing.py').write_text(PRETEND)
    return subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-p', 'pretend_gpt_missing',
                           'tests/gpt/test_gpt_options.py'], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={'PATH': '/usr/bin:/bin', 'PYTHONPATH': f'{ROOT}:{tmp_path}', **env})


@pytest.mark.slow
def test_an_area_whose_extra_is_missing_is_skipped_and_named_in_the_summary(tmp_path):
    done = pytest_run(tmp_path)
    assert done.returncode == 5, done.stdout + done.stderr  # pytest's 'no test ran': the one module was skipped
    assert ("tests/gpt: skipped, needs the gpt extra (pip install -e '.[gpt]'; not installed: names)"
            in done.stdout.splitlines()), done.stdout
    assert '1 skipped' in done.stdout


@pytest.mark.slow
def test_under_make_test_a_missing_extra_fails_the_run(tmp_path):
    done = pytest_run(tmp_path, MICROGRAD_REQUIRE_EXTRAS='1')
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error, before any test runs
    assert "MICROGRAD_REQUIRE_EXTRAS is set but tests/gpt: skipped, needs the gpt extra" in done.stderr
