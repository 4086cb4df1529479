"""Counts of exercises are the lists' own: the documents state none (a count written there goes stale the day an
op is added, and an op is also an exercise), and the checker's report the README shows is what check prints,
each row the list's number and name, without its total."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from micrograd.exercises.scalar.exercises import EXERCISES

ROOT = Path(__file__).resolve().parents[2]
WORDS = ('one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|'
         'seventeen|eighteen|nineteen|twenty')
STATED = re.compile(rf'\b(\d+|{WORDS})\s+(exercises|backwards)\b|\b(the|all)\s+({WORDS})\s+pass', re.I)


def prose(path: Path) -> str:
    """The text a reader reads: a notebook's Markdown cells, or a Markdown file."""
    if path.suffix == '.ipynb':
        cells = json.loads(path.read_text(encoding='utf-8'))['cells']
        return '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')
    return path.read_text(encoding='utf-8')


def test_no_document_states_a_count_of_exercises_in_its_prose():
    for name in ('README.md', 'demo.ipynb', 'CONTRIBUTING.md', 'exercises.ipynb', 'exercises_tensor.ipynb'):
        found = [m.group(0) for m in STATED.finditer(prose(ROOT / name))]
        assert not found, f"{name} states a count: {found} (say 'each', 'all', or let the checker count)"


def test_the_readmes_report_numbers_the_exercises_as_the_list_does():
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    assert not re.search(r'micrograd exercises: \d+ of \d+ done', readme)  # a total there goes stale
    rows = re.findall(r'^ +(\d+)  (\S+) +(?:done|WRONG|not started)', readme, re.M)
    assert rows and all(EXERCISES[int(number) - 1].name == name for number, name in rows), rows


def elided_match(shown: list[str], printed: list[str]) -> bool:
    """Whether printed is the shown lines, in order, where a line '...' stands for any lines (and the lines
    before the first shown one are left out: the header that counts what is done)."""
    at, skipping = 0, True
    for line in shown:
        if line.strip() == '...':
            skipping = True
            continue
        while skipping and at < len(printed) and printed[at] != line:
            at += 1
        if at >= len(printed) or printed[at] != line:
            return False
        at, skipping = at + 1, False
    return True


@pytest.mark.slow
def test_the_readmes_report_is_what_check_prints_for_that_workspace(tmp_path):
    """The README's sample: exercises 1-5 written as the library writes them, but tanh with the input for the
    output; check run from the folder that holds the workspace."""
    import subprocess
    import sys

    from micrograd.exercises import start
    from micrograd.exercises.cutting import library_source, splice
    from micrograd.exercises.scalar.blanks import engine_header, find_blanks
    from micrograd.exercises.scalar.exercises import BY_NAME
    workspace = tmp_path / 'exercises-workspace'
    start(workspace)
    source, _ = library_source('micrograd.engine')
    later = {b: b.text() for b in find_blanks(source) if b.exercise.number > BY_NAME['exp'].number}
    text = engine_header(workspace) + splice(source, later)
    right = "self.grad += (1 - t * t) * grad  # d tanh(x)/dx = 1 - tanh(x)**2"
    assert right in text
    (workspace / 'my_engine.py').write_text(text.replace(right, "self.grad += (1 - self.data**2) * grad"))
    run = subprocess.run([sys.executable, '-m', 'micrograd.exercises', 'check', 'exercises-workspace'],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    printed = run.stdout.replace(sys.executable, '.venv/bin/python').splitlines()
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    block = readme[readme.index('   1  +         done'):]
    shown = block[:block.index('```')].rstrip('\n').splitlines()
    assert elided_match(shown, printed), '\n'.join(printed)
