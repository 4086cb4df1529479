"""The layout of the house, as CONTRIBUTING.md states it: the core a learner reads in one sitting stays within
its budgets, every module has a name of its own, and no two modules import each other (directly or round a
longer circle)."""
from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ('micrograd', 'bench', 'examples/gpt')  # where a module's name is read by a reader
BUDGETS = {'micrograd/engine.py': 150, 'micrograd/more_ops.py': 100, 'micrograd/nn.py': 100}  # as CONTRIBUTING.md says
LINE = 100  # characters, in the core


def modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob('*.py')
                  if not any(part.startswith('.') for part in p.relative_to(ROOT).parts))  # (bench/.peers)


@pytest.mark.parametrize('path, budget', BUDGETS.items())
def test_the_core_stays_within_its_budget_of_lines_and_line_length(path, budget):
    lines = (ROOT / path).read_text(encoding='utf-8').splitlines()
    assert len(lines) <= budget, f"{path} has {len(lines)} lines, over its budget of {budget}"
    long = [number for number, line in enumerate(lines, 1) if len(line) > LINE]
    assert not long, f"{path}: lines over {LINE} characters: {long}"


def test_engine_py_has_one_marked_line_between_the_lecture_and_the_rest():
    marks = [line for line in (ROOT / 'micrograd/engine.py').read_text(encoding='utf-8').splitlines()
             if line.strip().startswith('# ---')]
    assert len(marks) == 1, marks


def test_engine_pys_lecture_part_imports_nothing_of_ours_and_passes_value_only_the_lectures_keywords():
    """Above the marked line a reader meets no import of another module of ours, and Value(...) is called as the
    lecture calls it: data, then _children, _op and label (positional or by name), nothing else."""
    source = (ROOT / 'micrograd/engine.py').read_text(encoding='utf-8')
    mark = next(n for n, line in enumerate(source.splitlines(), 1) if line.strip().startswith('# ---'))
    above = [node for node in ast.walk(ast.parse(source)) if getattr(node, 'lineno', mark) < mark]
    imports = [node.lineno for node in above if isinstance(node, ast.ImportFrom) and node.module
               and node.module.startswith('micrograd') or isinstance(node, ast.Import)
               and any(alias.name.startswith('micrograd') for alias in node.names)]
    assert not imports, f"engine.py imports a module of ours above its marked line, at lines {imports}"
    calls = [(node.lineno, keyword.arg) for node in above if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == 'Value' for keyword in node.keywords
             if keyword.arg not in ('_children', '_op', 'label')]
    assert not calls, f"Value(...) given a keyword the lecture does not pass, above the marked line: {calls}"


def test_no_two_modules_share_a_file_name():
    names = Counter(p.name for p in modules() if p.name not in ('__init__.py', '__main__.py'))
    shared = {name: [str(p.relative_to(ROOT)) for p in modules() if p.name == name]
              for name, count in names.items() if count > 1}
    assert not shared, f"modules of one name: {shared}"


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of ours that path imports at its top level (imports inside functions are lazy: they
    cannot make a circle at import time, but are counted too, as a reader follows them)."""
    package = '.'.join(path.relative_to(ROOT).with_suffix('').parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')[:len(package.split('.')) - node.level + 1]
                base = '.'.join(parts + ([base] if base else []))
            found |= {base} | {f'{base}.{alias.name}' for alias in node.names}
    return {name for name in found if name in known}


def test_no_import_circles():
    names = {'.'.join(p.relative_to(ROOT).with_suffix('').parts).removesuffix('.__init__'): p for p in modules()}
    graph = {name: imports_of(path, set(names)) - {name} for name, path in names.items()}
    # a package's __init__ importing its own modules is how a package is built, not a circle through it
    graph = {name: {m for m in deps if not (name.startswith(m + '.') and (ROOT / m.replace('.', '/')).is_dir())}
             for name, deps in graph.items()}
    circles, state = [], dict.fromkeys(graph, 0)

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state[dep] == 1:
                circles.append(path[path.index(dep):] + [dep])
            elif state[dep] == 0:
                visit(dep, path + [dep])
        state[name] = 2
    for name in sorted(graph):
        if state[name] == 0:
            visit(name, [name])
    assert not circles, f"import circles: {circles}"


BENCH_BUDGET = 1000  # lines of bench/*.py together: the harness and every workload


def test_the_bench_stays_within_its_budget_of_lines():
    """A new workload is a task and a record; the bench stays one a reader can take in (bench/README.md)."""
    counts = {p.name: len(p.read_text(encoding='utf-8').splitlines()) for p in sorted((ROOT / 'bench').glob('*.py'))}
    total = sum(counts.values())
    assert total <= BENCH_BUDGET, f"bench/*.py have {total} lines, over their budget of {BENCH_BUDGET}: {counts}"


GRADER_SHARE = 0.45  # of the lines of micrograd/ and bench/: the exercises' checker, at most (it was 0.53 ... 0.48)


def test_the_exercises_stay_within_their_share_of_the_house():
    """The checker grades a core of a few hundred lines; a new exercise or slip is a record, not a new mechanism
    (CONTRIBUTING.md), so the exercises' package grows slower than what it grades."""
    def lines(folder: str) -> int:
        files = [p for p in (ROOT / folder).rglob('*') if p.suffix in ('.py', '.js')]
        return sum(len(p.read_text(encoding='utf-8').splitlines()) for p in files
                   if not any(part.startswith('.') for part in p.relative_to(ROOT).parts))  # (bench/.peers)
    grader, house = lines('micrograd/exercises'), lines('micrograd') + lines('bench')
    assert grader <= GRADER_SHARE * house, f"micrograd/exercises has {grader} of {house} lines, over {GRADER_SHARE:.0%}"
