"""The commands the exercises print for a learner to copy. Each must work as printed: a bare `python` may be
another interpreter, one without micrograd, and a folder with a space in its name must be quoted."""
from __future__ import annotations

import importlib.metadata
import shlex
import sys
from pathlib import Path


def command(*args: str | Path) -> str:
    """`python -m micrograd.exercises ARGS` as a shell line: this interpreter's full path and every argument
    quoted; PYTHONPATH set first where micrograd is importable only from its own folder (a clone not installed)."""
    words = [sys.executable, '-m', 'micrograd.exercises', *(str(a) for a in args)]
    line = ' '.join(shlex.quote(word) for word in words)
    try:  # installed by pip (editable or not): micrograd is found from any folder
        importlib.metadata.distribution('micrograd-edu')
    except importlib.metadata.PackageNotFoundError:
        root = Path(__file__).resolve().parents[2]  # the folder holding the micrograd package
        return f"PYTHONPATH={shlex.quote(str(root))} {line}"
    return line


def advice(check: str, answer: str) -> str:
    """The last lines of a workspace file's header, in every track: how to check it, how to see the answer."""
    return (f"# After each one, check it (add --hint when you are stuck):\n#     {check}\n"
            f"# The library's answer, when you want to compare:\n#     {answer}\n")
