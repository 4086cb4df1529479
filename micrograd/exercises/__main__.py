"""The command line: start, check, solution, list and notebook, each with --track scalar (the default) or tensor.
Every option is checked before any work starts; a bad one is said on one line of stderr (exit status 2)."""
from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path
from typing import NoReturn

from micrograd.exercises.report import listing
from micrograd.exercises.runner import worker
from micrograd.exercises.track import Track

TRACKS = ('scalar', 'tensor')


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


def track(name: str, parser: Parser) -> Track:
    """The track's Track; one that cannot be loaded here (NumPy missing) is said on one line (exit status 1)."""
    try:
        module = importlib.import_module(f'micrograd.exercises.{name}') if _has(name) else None
    except ImportError as error:
        parser.exit(1, f"{parser.prog}: {error}\n")
    chosen = getattr(module, 'TRACK', None)
    if not isinstance(chosen, Track):
        ready = ', '.join(t for t in TRACKS if t == 'scalar' or _has(t) and t != name)
        parser.exit(2, f"{parser.prog}: the {name} track is not in this micrograd yet (the tracks here: {ready})\n")
    return chosen


def held(path: Path) -> str:
    """The track whose files are at path (a workspace folder or one of its files); scalar when none's are."""
    for name in TRACKS:
        try:
            files = importlib.import_module(f'micrograd.exercises.{name}').TRACK.files if _has(name) else ()
        except ImportError:  # (a track that cannot be loaded here: the tensor track without NumPy)
            files = ()
        if path.name in files if path.suffix == '.py' else any((path / f).is_file() for f in files[:1]):
            return name
    return 'scalar'


def _has(name: str) -> bool:
    return importlib.util.find_spec(f'micrograd.exercises.{name}') is not None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['_worker']:  # the checker's own child process (see runner.py)
        return worker(argv[1], float(argv[2]), argv[3], argv[4:])
    parser = Parser(prog='python -m micrograd.exercises',
                    description="Write each op's backward yourself; the checker says what is wrong.")
    commands = parser.add_subparsers(dest='command', required=True)
    tracked = Parser(add_help=False)  # every command's --track
    tracked.add_argument('--track', choices=TRACKS, help="scalar (micrograd's engine.py) or tensor (micrograd.tensor); "
                         "default: scalar, or for check the one whose files the workspace holds")
    p = commands.add_parser('start', parents=[tracked], help="write the workspace, every exercise a blank")
    p.add_argument('dir', nargs='?', default='.', help="where (default: here)")
    p.add_argument('--force', action='store_true', help="overwrite an existing workspace (your work is lost)")
    p = commands.add_parser('check', parents=[tracked],
                            help="check the workspace; exit status 0 only when every exercise is done")
    p.add_argument('dir', nargs='?', default='.', help="the workspace, or its file (default: here)")
    p.add_argument('--hint', action='store_true', help="a stronger hint, then the formula")
    p.add_argument('--timeout', type=seconds, default=10.0, help="seconds per exercise (default 10)")
    p = commands.add_parser('solution', parents=[tracked], help="print the library's code for an exercise")
    p.add_argument('name', help="the exercise's name (as `list` prints it), or its number")
    commands.add_parser('list', parents=[tracked], help="list the exercises")
    p = commands.add_parser('notebook', parents=[tracked],
                            help="write the track's notebook from the library's source (after it changes)")
    p.add_argument('path', nargs='?', help="default: exercises.ipynb, or exercises_tensor.ipynb for --track tensor")
    args = parser.parse_args(argv)

    if args.track is None:  # for check, the track whose files the workspace holds
        args.track = held(Path(args.dir)) if args.command == 'check' else 'scalar'
    chosen = track(args.track, parser)
    if args.command == 'notebook':
        path = Path(args.path or ('exercises.ipynb' if args.track == 'scalar' else f'exercises_{args.track}.ipynb'))
        if path.is_dir() or not path.parent.is_dir():
            parser.error(f"notebook: {path} is a folder" if path.is_dir() else f"notebook: no folder {path.parent}")
        print(f"Wrote {chosen.write_notebook(path)}")  # (it imports nbformat, the demo extra)
        return 0
    if args.command == 'start':
        where = Path(args.dir)
        if blocked := next((p for p in [where, *where.parents] if p.exists() and not p.is_dir()), None):
            parser.error(f"start: {blocked} is a file, not a folder")
        try:
            files = chosen.start(where, force=args.force)
        except OSError as error:  # (FileExistsError: a workspace there already)
            print(error, file=sys.stderr)
            return 1
        exercises = chosen.exercises
        print(f"Wrote {' and '.join(str(f) for f in files)}: {len(exercises)} exercises, from `{exercises[0].name}` "
              f"to `{exercises[-1].name}`.\nOpen {files[0]}, find EXERCISE 1, write it, then run:\n"
              f"    {chosen.command('check', *([args.dir] if args.dir != '.' else []))}")
        return 0
    if args.command == 'check':
        if problem := chosen.missing(Path(args.dir)):
            parser.error(f"check: {problem}")
        report = chosen.check(args.dir, hint=args.hint, timeout=args.timeout)
        print(report, end='')
        return 0 if report.passed else 1
    try:  # solution, or list
        text = chosen.solution(args.name) if args.command == 'solution' else listing(chosen.exercises)
    except KeyError as error:  # (no such exercise)
        parser.error(f"solution: {error.args[0]}")
    print(text, end='')
    return 0


if __name__ == '__main__':
    sys.exit(main())
