"""Running a learner's files in a child process, for either track: an infinite loop, a crash (a recursion limit
raised until the interpreter's stack overflows) or a process the learner's code starts cannot take the checker down."""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from micrograd.exercises.cutting import load_file
from micrograd.exercises.lines import where
from micrograd.exercises.result import GENERIC, UNCHECKED, WRONG, Described, Result
from micrograd.exercises.sandbox import Timeout, time_limit

MARGIN = 30.0  # seconds the whole run has beyond each exercise's limit: the checker's own work
GROUPS = hasattr(os, 'killpg')  # the child in a process group of its own, killed whole (POSIX)
UNFINISHED = ("importing {} did not finish in {}: look for a loop that never ends at the top level of the file "
              "(outside any function)")


class ImportFailed(Exception):
    """A learner's file could not be imported; the message says why, and where."""


def import_learners(name: str, path: Path, timeout: float | None = None,
                    load: Callable[[str, Path], types.ModuleType] = load_file) -> types.ModuleType:
    """In the child: the learner's file imported as module name (by load) within timeout seconds, or ImportFailed."""
    try:
        with time_limit(timeout):
            return load(name, path)
    except Timeout:
        raise ImportFailed(UNFINISHED.format(path.name, f"{timeout:g} s")) from None
    except BaseException as error:  # noqa: BLE001 -- whatever the learner's module does at import
        raise ImportFailed(f"importing {path.name} failed: {where(error)}") from None


def compile_error(path: Path) -> str:
    """A syntax error in the learner's file as the report names it (Python's own code and caret under it), or ''."""
    try:  # its bytes: Python reads a `# -*- coding: ... -*-` line, as an import does
        compile(path.read_bytes(), str(path), 'exec')
    except SyntaxError as error:
        _, *shown, said = traceback.format_exception_only(error)
        return ''.join([f"{path.name}, line {error.lineno}: {said}", *shown]).rstrip()
    return ''


def run_in_child(track: str, paths: Sequence[Path], exercises: Sequence[Described], timeout: float,
                 cwd: Path) -> tuple[list[Result], dict[int, str], str]:
    """Check paths with the track's check_files in a child process: (a Result per exercise, where each is written, '')
    or ([], {}, why nothing could be checked). An exercise the child did not finish is wrong, with how it ended."""
    if error := next(filter(None, map(compile_error, paths)), ''):
        return [], {}, error
    limit = timeout * len(exercises) + MARGIN
    with tempfile.TemporaryDirectory(prefix='micrograd-exercises-') as folder:
        channel = Path(folder) / 'results'
        argv = [sys.executable, '-m', 'micrograd.exercises', '_worker', track, str(timeout), str(channel),
                *(str(p.resolve()) for p in paths)]
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=_env(),
                                 start_new_session=GROUPS)
        try:
            stderr = child.communicate(timeout=limit)[1]
            problem = _ended(child.returncode, stderr.decode('utf-8', errors='replace'))
        except subprocess.TimeoutExpired:
            problem = ('timeout', f"the whole check ran out of time ({limit:g} s) and was stopped")
        finally:  # (Ctrl-C, or an error of the checker's own, too: nothing the learner's code started stays)
            _stop(child)
        lines = channel.read_text(encoding='utf-8', errors='replace').split('\n') if channel.exists() else []
    results: list[Result] = []
    said: dict[str, Any] = {}  # the child's other lines: 'importing', then 'error' or 'places' (once imported)
    for line in lines:
        kind, _, payload = line.partition(' ')
        if kind == 'result':
            results.append(Result(**json.loads(payload)))
        elif kind in ('importing', 'error', 'places'):
            said[kind] = json.loads(payload)
    if 'error' in said:
        return [], {}, said['error']
    if 'places' not in said:  # it stopped before any exercise: importing the learner's files, or before
        files, importing = ' and '.join(p.name for p in paths), 'importing' in said
        if importing and problem[0] == 'timeout':
            return [], {}, UNFINISHED.format(files, f"{limit:g} s")
        return [], {}, f"{f'importing {files}' if importing else 'the checker'} stopped: {problem[1]}"
    if len(results) < len(exercises):  # the child died, or was stopped, in the middle of the next one (in order)
        results.append(Result.of(exercises[len(results)], WRONG, obtained='no result', diagnosis=problem[0],
                                 why=GENERIC[problem[0]], detail=problem[1]))
        results += [Result.of(e, UNCHECKED) for e in exercises[len(results):]]
    return results, {int(number): place for number, place in said['places'].items()}, ''


def _stop(child: subprocess.Popen[bytes]) -> None:
    """Kill the child and everything in its process group (what the learner's code started), and reap it."""
    if GROUPS:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # (the group is gone already)
            os.killpg(child.pid, signal.SIGKILL)
    if child.poll() is None:
        child.kill()
        child.wait()


def _watch_parent(channel: Path) -> None:
    """In the child: once the checker is gone (killed outright), remove the folder of channel (the checker's, which
    it had no time to), kill the child's process group and end."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        shutil.rmtree(channel.parent, ignore_errors=True)
        if GROUPS and os.getpgid(0) == os.getpid():  # (its own group: the checker started it so)
            os.killpg(os.getpid(), signal.SIGKILL)
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name='micrograd-exercises-parent-watch').start()


def _ended(status: int, stderr: str) -> tuple[str, str]:
    """How the child ended, as a diagnosis key and a sentence, for when its results stop short."""
    last = (stderr.strip().splitlines() or [''])[-1]
    said = f": {last}" if last else ''
    if status < 0:  # killed by a signal: SIGSEGV is Python's own stack overflowing
        name = {s.value: s.name for s in signal.Signals}.get(-status, f"signal {-status}")
        return 'crash', f"the checking process was killed by {name}{said}"
    return 'exited', f"the checking process exited with status {status}{said}"


def _env() -> dict[str, str]:
    """The environment for the child: this micrograd importable from the workspace, installed or not."""
    here = str(Path(__file__).resolve().parents[2])
    return {**os.environ, 'PYTHONPATH': os.pathsep.join(filter(None, [here, os.environ.get('PYTHONPATH')]))}


def worker(track: str, timeout: float, channel: str, paths: list[str]) -> int:
    """In the child: check the files, writing where each exercise is, then each Result, to channel (its own file)."""
    _watch_parent(Path(channel))
    out = open(channel, 'a', encoding='utf-8')  # noqa: SIM115 -- open while the child lives

    def say(kind: str, payload: object) -> None:
        print(kind, json.dumps(payload), file=out, flush=True)

    chosen = importlib.import_module(f'micrograd.exercises.{track}').TRACK
    chosen.warm_up()  # what the checker needs, before any clock starts
    say('importing', None)
    try:
        places, results = chosen.check_files([Path(p) for p in paths], timeout)
    except ImportFailed as error:
        say('error', str(error))
        return 1
    say('places', places)
    for result in results:
        say('result', dataclasses.asdict(result))
    return 0
