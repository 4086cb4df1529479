"""Counts of exercises are the lists' own: the documents state none in their prose (a count written there goes
stale the day an op is added), and the checker's report the README shows has as many exercises as the list,
each row the list's number and name."""
from __future__ import annotations

import json
import re
from pathlib import Path

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


def test_the_readmes_report_counts_and_numbers_the_exercises_as_the_list_does():
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    done = re.findall(r'micrograd exercises: (\d+) of (\d+) done', readme)
    assert done and all(int(total) == len(EXERCISES) for _, total in done)
    rows = re.findall(r'^ +(\d+)  (\S+) +(?:done|WRONG|not started)', readme, re.M)
    assert rows and all(EXERCISES[int(number) - 1].name == name for number, name in rows), rows
    assert int(rows[-1][0]) == len(EXERCISES)  # the last row is the last exercise
