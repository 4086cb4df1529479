import importlib.util
import os

import pytest
from hypothesis import settings

from tests.support.browser import CHROMIUM_ARGS, INSTALL_CHROMIUM, chromium_path, missing

# In CI, the same examples every run: a failure there is reproducible, never a fluke of the draw.
settings.register_profile('ci', derandomize=True, print_blob=True)
if os.environ.get('CI'):
    settings.load_profile('ci')

# Why the PyTorch cross-checks may skip: said once, for every test module that needs torch.
TORCH_SKIP_REASON = ("PyTorch is not installed: `make test` installs its CPU build (the Makefile's TORCH) only on the "
                     "Python it exists for here (the Makefile's TORCH_PYTHON); on other interpreters the "
                     "cross-checks against PyTorch are skipped and everything else runs")


def pytest_configure(config: pytest.Config) -> None:
    # Where make test installed torch, a missing torch is a broken set-up, not a reason to skip.
    if os.environ.get('MICROGRAD_REQUIRE_TORCH') and importlib.util.find_spec('torch') is None:
        raise pytest.UsageError("MICROGRAD_REQUIRE_TORCH is set but torch is not installed in this environment")


# One browser for the whole run, defined here only: Playwright's sync API allows one session per thread.
@pytest.fixture(scope='session')
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the player tests drive Chromium with playwright: pip install playwright (in the test extra)")
    path = chromium_path()
    if path is None:
        missing(INSTALL_CHROMIUM)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
