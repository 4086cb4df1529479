"""python -m micrograd.exercises start [DIR] | check [DIR] [--hint] [--timeout S] | solution OP | list | notebook

Every option is checked before any work starts; a bad one is said on one line of stderr (exit status 2).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import NoReturn

from micrograd.exercises.catalog import EXERCISES, find
from micrograd.exercises.commands import command
from micrograd.exercises.report import table_only
from micrograd.exercises.runner import check, missing, worker
from micrograd.exercises.workspace import ENGINE_FILE, NN_FILE, solution, start


class Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line (its usage block buries the one line that matters)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def seconds(text: str) -> float:
    """--timeout: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive, finite number of seconds, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['_worker']:  # the checker's own child process (see runner.py)
        return worker(argv[1], argv[2], float(argv[3]), argv[4])
    parser = Parser(prog='python -m micrograd.exercises',
                    description="Write each op's backward yourself; the checker says what is wrong.")
    commands = parser.add_subparsers(dest='command', required=True)
    p = commands.add_parser('start', help=f"write {ENGINE_FILE} and {NN_FILE}, every exercise a blank")
    p.add_argument('dir', nargs='?', default='.', help="where (default: here)")
    p.add_argument('--force', action='store_true', help="overwrite an existing workspace (your work is lost)")
    p = commands.add_parser('check', help="check the workspace; exit status 0 only when every exercise is done")
    p.add_argument('dir', nargs='?', default='.', help="the workspace, or its my_engine.py (default: here)")
    p.add_argument('--hint', action='store_true', help="a stronger hint, then the formula")
    p.add_argument('--timeout', type=seconds, default=10.0, help="seconds per exercise (default 10)")
    p = commands.add_parser('solution', help="print the library's code for an exercise")
    p.add_argument('op', help=f"{' '.join(e.name for e in EXERCISES)}, or a number")
    commands.add_parser('list', help="list the exercises")
    p = commands.add_parser('notebook', help="write exercises.ipynb from the library's source (after it changes)")
    p.add_argument('path', nargs='?', default='exercises.ipynb')
    args = parser.parse_args(argv)

    if args.command == 'start':
        where = Path(args.dir)
        blocked = next((p for p in [where, *where.parents] if p.exists() and not p.is_dir()), None)
        if blocked is not None:
            parser.error(f"start: {blocked} is a file, not a folder")
        try:
            files = start(where, force=args.force)
        except (FileExistsError, OSError) as error:
            print(error, file=sys.stderr)
            return 1
        print(f"Wrote {files[0]} and {files[1]}: {len(EXERCISES)} exercises, from `+` to the neuron.\n"
              f"Open {files[0]}, find EXERCISE 1, write it, then run:\n"
              f"    {command('check', *([args.dir] if args.dir != '.' else []))}")
        return 0
    if args.command == 'check':
        if problem := missing(Path(args.dir)):
            parser.error(f"check: {problem}")
        report = check(args.dir, hint=args.hint, timeout=args.timeout)
        print(report, end='')
        return 0 if report.passed else 1
    if args.command == 'solution':
        try:
            find(args.op)
        except KeyError as error:
            parser.error(f"solution: {error.args[0]}")
        print(solution(args.op), end='')
        return 0
    if args.command == 'notebook':
        path = Path(args.path)
        if path.is_dir() or not path.parent.is_dir():
            parser.error(f"notebook: {path} is a folder" if path.is_dir() else f"notebook: no folder {path.parent}")
        from micrograd.exercises.notebook import write_notebook  # needs nbformat (the demo extra)
        print(f"Wrote {write_notebook(path)}")
        return 0
    print(table_only(), end='')
    return 0


if __name__ == '__main__':
    sys.exit(main())
