"""README.md's examples run as printed, and print what it shows (conventions: tests/docs/readme_blocks.py).

When a change alters what an example prints, refresh the README's shown outputs and read the diff:
    .venv/bin/python -m tests.readme_blocks --update
"""
import os
import re
from pathlib import Path

import pytest

from tests.conftest import TORCH_SKIP_REASON
from tests.docs.readme_blocks import CONTINUES, README, blocks, groups, rewrite, run

ROOT = README.parent
TEXT = README.read_text(encoding='utf-8')
GROUPS = groups(TEXT)


@pytest.mark.parametrize('group', GROUPS, ids=[f'README.md:{group[0].line}' for group in GROUPS])
def test_the_example_runs_and_prints_what_the_readme_shows(group):
    outcome = run(group)
    if outcome.missing_module == 'torch' and not os.environ.get('MICROGRAD_REQUIRE_TORCH'):
        pytest.skip(TORCH_SKIP_REASON)
    assert outcome.missing_module is None, f'the example imports {outcome.missing_module}, which is not installed'
    assert outcome.problems == []
    drift = [f'README.md:{s.line}: shows {s.expected!r}, prints {s.got!r}' for s in outcome.differences]
    assert drift == [], ('README outputs drifted; refresh them with `.venv/bin/python -m tests.readme_blocks '
                         '--update` and read the diff:\n' + '\n'.join(drift))


def test_every_python_block_is_run():
    assert sum(len(group) for group in GROUPS) == len(blocks(TEXT)) >= 6
    assert all(group[0].code.startswith(CONTINUES) is False for group in GROUPS)


def test_every_link_and_picture_in_the_readme_exists():
    targets = re.findall(r'\]\(([^)#\s]+)(?:#[^)]*)?\)', TEXT)
    local = [t for t in targets if not re.match(r'[a-z]+:', t)]
    assert local and [t for t in local if not (ROOT / t).exists()] == []


# Nothing is installed by a distribution name from the package index: `micrograd` there is another library
# (Karpathy's 0.1.0, none of our extras), and ours, `micrograd-edu`, is reserved for a release and not there yet.
# What works today: a clone's folder (`pip install -e ".[viz]"`), or the packages a feature needs by their names.
WRONG_NAME = re.compile(r'(?<![\w./-])micrograd(?:-edu)?\[|pip install (?:-e )?["\']?micrograd(?:-edu)?(?![\w/-])')
RESERVED = 'finds nothing'  # the README's one sentence that names the reserved name, to say it does not work yet
PROJECT_TEXT = ['README.md', 'setup.py', 'Makefile', 'demo.ipynb', 'micrograd', 'examples', 'tests', 'bench', 'docs',
                'scripts']


def project_files():
    for name in PROJECT_TEXT:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(path.rglob('*')) if path.is_dir() else []
        for file in candidates:
            if file.is_file() and file.suffix in ('', '.py', '.md', '.ipynb', '.txt', '.js', '.cfg', '.toml') \
                    and '.venvs' not in file.parts and '__pycache__' not in file.parts:
                yield file


def test_no_install_instruction_names_a_distribution_the_package_index_does_not_have():
    wrong = []
    for file in project_files():
        try:
            text = file.read_text(encoding='utf-8')
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if WRONG_NAME.search(line) and file != Path(__file__) and RESERVED not in line:
                wrong.append(f'{file.relative_to(ROOT)}:{number}: {line.strip()}')
    assert wrong == [], ('install from the clone (pip install -e ".[viz]") or name the packages a feature needs '
                         '(pip install numpy):\n' + '\n'.join(wrong))


# The runner itself, on small made-up READMEs.

def outcome_of(markdown):
    (group,) = groups(markdown)
    return run(group, Path('made-up.md'))


def test_a_print_must_show_what_it_prints():
    outcome = outcome_of('```python\nprint(1 + 1)  # 3\n```\n')
    assert [(s.expected, s.got) for s in outcome.differences] == [('3', '2')]
    assert outcome_of('```python\nprint(1 + 1)  # 2\n```\n').differences == []


def test_a_block_runs_as_printed_so_an_error_is_caught_and_printed_not_raised():
    with pytest.raises(ValueError):  # a reader's paste would stop here
        outcome_of("```python\nint('x')\nprint('after')  # after\n```\n")
    caught = ("```python\ndef print_error(attempt):\n    try:\n        attempt()\n"
              "    except Exception as error:\n        print(f'{type(error).__name__}: {error}')\n\n"
              "print_error(lambda: int('x'))  # ValueError: invalid literal for int() with base 10: 'x'\n"
              "print_error(lambda: int('1'))  # ValueError: nothing\n```\n")
    outcome = outcome_of(caught)
    assert [(s.expected, s.got) for s in outcome.differences] == [('ValueError: nothing', '')]


def test_output_the_readme_does_not_show_is_a_problem():
    assert outcome_of('```python\nfor i in range(2):\n    print(i)\n```\n').problems != []


def test_a_block_continues_only_when_it_says_so():
    markdown = f'```python\nx = 1\n```\ntext\n```python\n{CONTINUES}\nprint(x)  # 1\n```\n```python\nx\n```\n'
    first, second = groups(markdown)
    assert len(first) == 2 and len(second) == 1
    assert run(first, Path('made-up.md')).differences == []
    with pytest.raises(NameError):
        run(second, Path('made-up.md'))


def test_update_rewrites_the_shown_output_in_place():
    markdown = '```python\nprint(6 * 7)      # 41\nprint(2)\n```\n'
    outcome = outcome_of(markdown)
    assert rewrite(markdown, outcome.differences) == '```python\nprint(6 * 7)      # 42\nprint(2)  # 2\n```\n'
