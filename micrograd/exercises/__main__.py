"""python -m micrograd.exercises start [DIR] | check [DIR] [--hint] | solution OP | list"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from micrograd.exercises.catalog import EXERCISES, find
from micrograd.exercises.report import table_only
from micrograd.exercises.runner import check, worker
from micrograd.exercises.workspace import ENGINE_FILE, NN_FILE, solution, start


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['_worker']:  # the checker's own child process (see runner.py)
        return worker(argv[1], argv[2], float(argv[3]))
    parser = argparse.ArgumentParser(prog='python -m micrograd.exercises',
                                     description="Write each op's backward yourself; the checker says what is wrong.")
    commands = parser.add_subparsers(dest='command', required=True)
    p = commands.add_parser('start', help=f"write {ENGINE_FILE} and {NN_FILE}, every exercise a blank")
    p.add_argument('dir', nargs='?', default='.', help="where (default: here)")
    p.add_argument('--force', action='store_true', help="overwrite an existing workspace (your work is lost)")
    p = commands.add_parser('check', help="check the workspace; exit status 0 only when every exercise is done")
    p.add_argument('dir', nargs='?', default='.', help="the workspace, or its my_engine.py (default: here)")
    p.add_argument('--hint', action='store_true', help="a stronger hint, then the formula")
    p.add_argument('--timeout', type=float, default=10.0, help="seconds per exercise (default 10)")
    p = commands.add_parser('solution', help="print the library's code for an exercise")
    p.add_argument('op', help=f"{' '.join(e.name for e in EXERCISES)}, or a number")
    commands.add_parser('list', help="list the exercises")
    p = commands.add_parser('notebook', help="write exercises.ipynb from the library's source (after it changes)")
    p.add_argument('path', nargs='?', default='exercises.ipynb')
    args = parser.parse_args(argv)

    if args.command == 'start':
        try:
            files = start(args.dir, force=args.force)
        except FileExistsError as error:
            print(error, file=sys.stderr)
            return 1
        where = '' if args.dir == '.' else f' {args.dir}'
        print(f"Wrote {files[0]} and {files[1]}: {len(EXERCISES)} exercises, from `+` to the neuron.\n"
              f"Open {files[0]}, find EXERCISE 1, write it, then run:\n"
              f"    python -m micrograd.exercises check{where}")
        return 0
    if args.command == 'check':
        report = check(args.dir, hint=args.hint, timeout=args.timeout)
        if args.dir != '.':
            report.command = f"python -m micrograd.exercises check {args.dir}"
        print(report, end='')
        return 0 if report.passed else 1
    if args.command == 'solution':
        try:
            find(args.op)
        except KeyError as error:
            print(error.args[0], file=sys.stderr)
            return 2
        print(solution(args.op), end='')
        return 0
    if args.command == 'notebook':
        from micrograd.exercises.notebook import write_notebook  # needs nbformat (micrograd-edu[demo])
        print(f"Wrote {write_notebook(Path(args.path))}")
        return 0
    print(table_only(), end='')
    return 0


if __name__ == '__main__':
    sys.exit(main())
