"""A track (scalar/, tensor/) is one Track: what differs is in its fields; writing and checking a workspace is not."""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from micrograd.exercises.commands import command
from micrograd.exercises.report import Report
from micrograd.exercises.result import Described, Result
from micrograd.exercises.runner import run_in_child


@dataclass(frozen=True)
class Track:
    """What a track states for itself, in its fields; its methods are what every track does the same way."""
    name: str                          # as --track says it
    exercises: Sequence[Described]
    files: tuple[str, ...]             # the workspace's files: the learner opens the first; the others run on it
    notebook: str                      # the module whose build_notebook() makes the track's notebook
    texts: Callable[[Path], list[str]]  # the text of each of the workspace's files, for a workspace in a folder
    check_objects: Callable[..., Report]  # (target, *more, timeout=): what a notebook defines, checked in this process
    # In the child: import the learner's files; where each exercise is written in them, and the Results as they come.
    check_files: Callable[[list[Path], float], tuple[dict[int, str], Iterator[Result]]]
    solution: Callable[[str], str]     # the library's own code for an exercise
    warm_up: Callable[[], object] = lambda: None  # in the child, before the learner's files and any clock
    title: str = 'micrograd exercises'  # the report's first words

    def command(self, verb: str, *args: str | Path) -> str:
        """A command of this track, as the learner copies it (the default track needs no --track)."""
        return command(verb, *([] if self.name == 'scalar' else ['--track', self.name]), *args)

    def start(self, directory: str | Path, force: bool = False) -> list[Path]:
        """Write the workspace's files into directory; an existing workspace is kept unless force."""
        directory = Path(directory)
        files = [directory / name for name in self.files]
        if not force and (existing := next((f for f in files if f.exists()), None)):
            raise FileExistsError(f"{existing} exists already: your work is kept. Continue with "
                                  f"`{self.command('check', directory)}`, or start over with --force")
        directory.mkdir(parents=True, exist_ok=True)
        for file, text in zip(files, self.texts(directory)):
            file.write_text(text, encoding='utf-8')
        return files

    def missing(self, path: Path) -> str:
        """What is wrong with path as a workspace to check, before any work ('' when nothing is)."""
        first = self.files[0]
        if not path.exists():
            return (f"no file {path}" if path.suffix == '.py'
                    else f"no folder {path}: make the workspace there with `{self.command('start', path)}`")
        if path.is_dir() and path.suffix == '.py':
            return f"{path} is a folder, not a Python file: give the workspace's folder, or its {first}"
        if path.is_dir() and (path / first).is_dir():
            return f"{path / first} is a folder, not a Python file: the workspace's {first} is a file"
        if path.is_dir() and not (path / first).exists():
            return f"no {first} in {path}: make a workspace there with `{self.command('start', path)}`"
        if path.is_file() and path.suffix != '.py':
            return f"{path} is not a Python file: give the workspace's folder, or its {first}"
        if path.name in self.files[1:] and not (path.parent / first).is_file():
            return f"no {first} beside {path}: {path.name} runs on it"
        return ''

    def check(self, target: Any = '.', *more: Any, hint: bool = False, timeout: float = 10.0) -> Report:
        """Check the exercises and return a Report (printable; a table in Jupyter). target: a workspace folder or one
        of its files, else what a notebook defines (check_objects). hint: add the stronger hint and the formula."""
        if not isinstance(target, (str, Path)):
            return replace(self.check_objects(target, *more, timeout=timeout), hint=hint)
        path = Path(target)  # a workspace, checked in a child process
        first = (path / self.files[0] if path.is_dir()
                 else path.parent / self.files[0] if path.name in self.files[1:] else path)
        paths = [first] + [p for p in (first.parent / name for name in self.files[1:]) if p.is_file() and p != first]
        again = self.command('check', *([path] if str(path) != '.' else []))
        error = self.missing(path)
        results, places, error = (([], {}, error) if error
                                  else run_in_child(self.name, paths, self.exercises, timeout, first.parent))
        if error:
            return Report(exercises=self.exercises, error=error, command=again, title=self.title, hint=hint)
        places |= {r.number: r.place for r in results if r.place}  # a wrong one: its line
        return Report(results, self.exercises, places=places, command=again, title=self.title, hint=hint,
                      answer=self.command('solution', 'NAME'))

    def write_notebook(self, path: Path) -> Path:
        """Write the track's notebook to path (it needs nbformat, of the demo extra: imported only here)."""
        importlib.import_module('nbformat').write(importlib.import_module(self.notebook).build_notebook(), str(path))
        return path
