"""Running the README's Python examples as a reader runs them, and checking what they print.

The conventions README.md follows, so that every example runs as printed:

- Every ```python block runs. A block whose first line is `# continues the block above` runs on in
  the names of the Python block before it; any other block starts afresh, with its own imports.
- `print(...)  # text`: the comment after a print is exactly what it prints (one line). So is the comment
  after a call of a function the block defines whose name starts with `print_` (`print_error(...)`, which
  catches the error an example raises and prints it: a block pasted into Python runs to its end).
- No statement raises: a block runs as printed, from its first line to its last.
- Any other comment is prose. A statement that prints without showing what, in its comment, fails.

A README example that drifts from the code fails tests/docs/test_readme.py. After a change that alters
what an example prints, rewrite the shown outputs from what the code prints now, and read the diff:

    .venv/bin/python -m tests.readme_blocks --update
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import sys
import tempfile
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests import ROOT

README = ROOT / 'README.md'
CONTINUES = '# continues the block above'
FENCE = re.compile(r'^```python[ \t]*\n(.*?)^```[ \t]*$', re.MULTILINE | re.DOTALL)


@dataclass
class Block:
    """One ```python block: its code and the README line its code starts on (1-based)."""
    code: str
    line: int

    @property
    def continues(self) -> bool:
        return self.code.startswith(CONTINUES)


@dataclass
class Shown:
    """An output the README shows: a print's comment, or the error a statement raises."""
    line: int  # in README.md, 1-based
    column: int | None  # where the comment's text starts, after '# '; None: a print without a comment
    expected: str
    got: str | None = None  # what the code printed or raised; None if the statement did not run


@dataclass
class Outcome:
    """What running one group of blocks found."""
    shown: list[Shown] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # e.g. output that the README does not show
    missing_module: str | None = None  # set when an import failed: the group was not run to its end

    @property
    def differences(self) -> list[Shown]:
        return [s for s in self.shown if s.got is not None and s.got != s.expected]


def blocks(text: str) -> list[Block]:
    """Every ```python block of a Markdown text, in order."""
    return [Block(m.group(1), text.count('\n', 0, m.start(1)) + 1) for m in FENCE.finditer(text)]


def groups(text: str) -> list[list[Block]]:
    """The blocks, each with those that continue it."""
    result: list[list[Block]] = []
    for block in blocks(text):
        if block.continues:
            if not result:
                raise ValueError(f'README.md:{block.line}: the first Python block cannot continue a block above')
            result[-1].append(block)
        else:
            result.append([block])
    return result


def comments(code: str) -> dict[int, tuple[int, str]]:
    """The comment on each line of code that has one: line (1-based) -> (column of its text, its text)."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            text = token.string[1:]
            skip = len(text) - len(text.lstrip(' '))
            found[token.start[0]] = (token.start[1] + 1 + skip, text.strip())
    return found


def is_print(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and (statement.value.func.id == 'print' or statement.value.func.id.startswith('print_')))


def run_group(group: list[Block], path: Path = README) -> Outcome:
    """Run a group of blocks statement by statement in one namespace, in the current directory."""
    outcome = Outcome()
    namespace: dict[str, object] = {'__name__': '__readme__'}
    for block in group:
        tree = ast.parse(block.code, filename=str(path))
        notes = comments(block.code)
        for statement in tree.body:
            readme_line = block.line + statement.end_lineno - 1  # type: ignore[operator]
            column, note = notes.get(statement.end_lineno, (None, ''))  # type: ignore[arg-type]
            shown = None
            if is_print(statement):
                shown = Shown(block.line + statement.end_lineno - 1, column, note)  # type: ignore[operator]
                outcome.shown.append(shown)
            module = ast.Module([statement], type_ignores=[])
            ast.increment_lineno(module, block.line - 1)  # tracebacks name README.md's own lines
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(module, str(path), 'exec'), namespace)
            except ModuleNotFoundError as error:
                outcome.missing_module = error.name
                return outcome
            printed = out.getvalue()
            if shown is not None:
                shown.got = printed.removesuffix('\n')
            elif printed:
                outcome.problems.append(f'README.md:{readme_line}: prints {printed!r}, which the README does not '
                                        'show: print it with a comment that shows it')
    return outcome


def run(group: list[Block], path: Path = README) -> Outcome:
    """run_group in a fresh temporary directory (examples write files such as f.svg there)."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            return run_group(group, path)
        finally:
            os.chdir(here)


def rewrite(text: str, changes: list[Shown]) -> str:
    """The Markdown text with each shown output replaced by what the code gives now."""
    lines = text.split('\n')
    for change in changes:
        assert change.got is not None and '\n' not in change.got, change
        line = lines[change.line - 1]
        if change.column is None:  # a print that showed nothing yet
            lines[change.line - 1] = f'{line}  # {change.got}'
        else:
            lines[change.line - 1] = line[:change.column] + change.got
    return '\n'.join(lines)


def main(argv: list[str]) -> int:
    update = '--update' in argv
    text = README.read_text(encoding='utf-8')
    changes, status = [], 0
    for group in groups(text):
        outcome = run(group)
        for problem in outcome.problems:
            print(problem)
            status = 1
        if outcome.missing_module:
            print(f'README.md:{group[0].line}: skipped, {outcome.missing_module} is not installed')
        for shown in outcome.differences:
            print(f'README.md:{shown.line}:\n  shows  {shown.expected}\n  prints {shown.got}')
            if '\n' in (shown.got or ''):
                print('  (more than one line: show it with one print per line)')
                status = 1
            else:
                changes.append(shown)
    if changes and update:
        README.write_text(rewrite(text, changes), encoding='utf-8')
        print(f'rewrote {len(changes)} outputs in README.md')
    elif changes:
        print('run with --update to rewrite them in README.md')
        status = 1
    return status


def iter_groups() -> Iterator[list[Block]]:
    yield from groups(README.read_text(encoding='utf-8'))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
