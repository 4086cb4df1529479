"""Counts and times in the documents are derived or measured, never remembered.

Counts of exercises are the lists' own: the documents state none (a count written there goes stale the day an
op is added, and an op is also an exercise), and the checker's report the README shows is what check prints,
each row the list's number and name, without its total. No document says how long a command takes or how many
tests it runs (pytest's last line says both); a count the documents do give (the bench's checks, gradients and
rounds, the GPT's default steps and samples) is checked against the code that makes it.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from micrograd.exercises.scalar.exercises import EXERCISES
from tests.gpt.examples import example

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / 'bench'))  # the bench's modules are scripts, not a package: read as run.py reads them
from scalar_workloads import make_weights  # noqa: E402
from workloads import FULL, TENSOR_GPT_STEPS, workloads  # noqa: E402

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


# --- times and test counts: not written; counts the documents give: derived ---

DOCUMENTS = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'examples/gpt/README.md', 'Makefile', '.ci/run']
# 'about ten seconds', 'under a minute', 'a few minutes', '(seconds)', 'about 200 tests', '19,800 tests'
REMEMBERED = re.compile(r'\b(?:about|under|in about|nearly|within)\s+(?:a|half a|a few|[\d,.]+|ten|twenty)\s+'
                        r'(?:seconds?|minutes?|tests)\b|\ba few minutes\b|\((?:seconds|minutes)[;)]|\bin seconds\b|'
                        r'\b\d[\d,]*\s+tests\b|\btook\s+(?:about\s+)?[\d,.]+(?:\s+to\s+[\d,.]+)?\s*(?:s|seconds|minutes)\b',
                        re.I)


def test_no_document_says_how_long_a_command_takes_or_how_many_tests_it_runs():
    for name in DOCUMENTS:
        found = [m.group(0) for m in REMEMBERED.finditer((ROOT / name).read_text(encoding='utf-8'))]
        assert not found, f"{name} remembers a time or a count: {found} (pytest's last line, a log or a table says it)"


def stated(name: str, pattern: str) -> list[str]:
    found = re.findall(pattern, (ROOT / name).read_text(encoding='utf-8'))
    assert found, f"{name}: nothing matches {pattern!r}"
    return found


def test_the_bench_counts_the_readmes_give_are_the_workloads_own():
    table = [w for w in workloads(FULL) if w.row and w.peer]

    def checks(w) -> int:  # run.py's measure(): the setup's loss, then before and after training or every step
        return (w.start_limit is not None) + (0 if w.memory else 1 if w.agree == 'steps' else 2)
    head = next(line for line in (ROOT / 'README.md').read_text(encoding='utf-8').splitlines()
                if line.startswith("| our figure / the peer's"))
    pythons = head.count('| Python')
    expected = pythons * sum(checks(w) for w in table if not w.tensor) + sum(checks(w) for w in table if w.tensor)
    assert stated('README.md', r'\((\d+) of (\d+) checks passed\)') == [(str(expected), str(expected))]
    for name in ('README.md', 'bench/README.md'):
        assert stated(name, r'all (\d+) gradients') == [str(len(make_weights()))]
    assert stated('README.md', r'in (\d+) interleaved rounds') == [str(FULL.rounds)]
    assert set(stated('README.md', r'\((\d+) two-moons points')) == {str(FULL.moons)}
    assert set(stated('bench/README.md', r'\((\d+) two-moons points')) == {str(FULL.moons)}
    float32 = next(w for w in table if w.key.endswith('float32'))
    drift = r'after (\d+) steps at batch (\d+)[^;]*; checked to ([\de.-]+)\)'  # float32's, in bench/README.md
    [(steps, batch, limit)] = stated('bench/README.md', drift)
    assert (int(steps), int(batch), float(limit)) == ((FULL.rounds + 1) * TENSOR_GPT_STEPS, max(FULL.batches),
                                                      float32.limit)


def test_the_gpt_defaults_the_documents_give_are_the_options_own():
    options = example('options')
    steps, samples = options.default('steps', 'scalar'), options.default('samples')
    for name in ('README.md', 'examples/gpt/README.md'):
        assert set(stated(name, r'scalar_gpt\.py +# [^\n]*?([\d,]+) steps')) == {f'{steps:,}'}
    assert set(stated('README.md', r'invents? (\d+)\b')) == {str(samples)}
    assert set(stated('Makefile', r'invents (\d+) names')) == {str(samples)}
