import ast
import functools
import importlib.metadata
import importlib.util
import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

from tests import ROOT
from tests.support.browser import CHROMIUM_ARGS, INSTALL_CHROMIUM, chromium_path, missing

# In CI, the same examples every run: a failure there is reproducible, never a fluke of the draw.
settings.register_profile('ci', derandomize=True, print_blob=True)
if os.environ.get('CI'):
    settings.load_profile('ci')

# Why the PyTorch cross-checks may skip: said once, for every test module that needs torch.
TORCH_SKIP_REASON = ("PyTorch is not installed: `make test` installs its CPU build (the Makefile's TORCH) only on the "
                     "Python it exists for here (the Makefile's TORCH_PYTHON); on other interpreters the "
                     "cross-checks against PyTorch are skipped and everything else runs")


# The extras (setup.py's extras_require) each test area needs, the one place this is written: a file's entry
# wins over its folder's. A test module whose extras are not all installed is skipped, and the summary names
# the area and the extra to install; under `make test`, which installs the test extra (all of them), a missing
# one fails the run instead (MICROGRAD_REQUIRE_EXTRAS). A single test that needs more than its area says so
# with @pytest.mark.extra('name').
AREAS = {
    'tests/scalar': ('check',),
    'tests/layout': ('check',),
    'tests/tensor': ('check',),
    'tests/exercises': ('check',),
    'tests/exercises/test_exercises_notebooks.py': ('check', 'demo'),
    'tests/viz': ('check', 'viz'),
    'tests/gpt': ('check', 'gpt'),
    'tests/gpt/test_gpt_notebook.py': ('check', 'gpt', 'demo'),
    'tests/docs': ('check', 'demo'),
    'tests/bench': ('check', 'bench'),
}


def extras_require() -> dict[str, list[str]]:
    """setup.py's extras_require, read without running setup.py: its lists of requirements and the dict of them."""
    tree = ast.parse((ROOT / 'setup.py').read_text(encoding='utf-8'))
    names: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.BinOp)):
            names[node.targets[0].id] = eval(compile(ast.Expression(node.value), 'setup.py', 'eval'), {}, names)
    call = next(n.value for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call))
    extras = next(k.value for k in call.keywords if k.arg == 'extras_require')
    return eval(compile(ast.Expression(extras), 'setup.py', 'eval'), {}, names)


@functools.cache
def not_installed(extra: str) -> list[str]:
    """The distributions an extra requires that are not installed here."""
    missing = []
    for requirement in EXTRAS[extra]:
        name = re.match(r'[A-Za-z0-9._-]+', requirement).group(0)
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    return missing


EXTRAS = extras_require()


def needs(extras: tuple[str, ...], where: str) -> str | None:
    """Why a test area cannot run here, or None: its extras that are not installed, and how to install them."""
    short = [extra for extra in extras if not_installed(extra)]
    if not short:
        return None
    wanted = ','.join(short)
    return (f"{where}: skipped, needs the {' and '.join(short)} extra{'s' if len(short) > 1 else ''} "
            f"(pip install -e '.[{wanted}]'; not installed: {', '.join(n for e in short for n in not_installed(e))})")


def area_of(path: Path) -> tuple[str, tuple[str, ...]] | None:
    """The AREAS entry a test file falls under (its own, else its folder's), or None."""
    relative = path.resolve().relative_to(ROOT).as_posix()
    found = [key for key in AREAS if relative == key or relative.startswith(key + '/')]
    return (max(found, key=len), AREAS[max(found, key=len)]) if found else None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line('markers', "extra(name): the test needs that extra of setup.py beyond its area's")
    config.stash[SKIPPED] = {}
    # Where make test installed torch, a missing torch is a broken set-up, not a reason to skip.
    if os.environ.get('MICROGRAD_REQUIRE_TORCH') and importlib.util.find_spec('torch') is None:
        raise pytest.UsageError("MICROGRAD_REQUIRE_TORCH is set but torch is not installed in this environment")
    # Where make test installed every extra, one missing is a broken set-up too.
    if os.environ.get('MICROGRAD_REQUIRE_EXTRAS'):
        broken = [why for area, extras in AREAS.items() if (why := needs(extras, area))]
        if broken:
            raise pytest.UsageError("MICROGRAD_REQUIRE_EXTRAS is set but " + '; '.join(broken))


SKIPPED = pytest.StashKey[dict[str, str]]()


class NeedsExtra(pytest.Module):
    """A test module of an area whose extra is not installed: skipped at collection, before its imports run."""

    area, why = '', ''

    def collect(self):
        self.config.stash[SKIPPED][self.area] = self.why  # for the summary, one line an area
        pytest.skip(self.why, allow_module_level=True)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    area = area_of(module_path)
    why = area and needs(area[1], area[0])
    if not why:
        return None
    module = NeedsExtra.from_parent(parent, path=module_path)
    module.area, module.why = area[0], why
    return module


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a further Python (`make test OTHER_PYTHON=1`), leave out what no Python version changes."""
    if not os.environ.get('MICROGRAD_OTHER_PYTHON'):
        return
    same = [item for item in items if item.get_closest_marker('same_on_every_python')]
    if same:
        config.hook.pytest_deselected(items=same)
        items[:] = [item for item in items if not item.get_closest_marker('same_on_every_python')]


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers('extra'):
        why = needs(tuple(mark.args), item.nodeid)
        if why and os.environ.get('MICROGRAD_REQUIRE_EXTRAS'):
            pytest.fail(why)
        if why:
            item.config.stash[SKIPPED][item.nodeid] = why
            pytest.skip(why)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """Say, one line an area, which tests did not run for want of an extra (never silently)."""
    for why in sorted(config.stash[SKIPPED].values()):
        terminalreporter.write_line(why, yellow=True, bold=True)


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
