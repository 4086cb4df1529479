"""The Pythons the bench runs on, and a throwaway environment per Python for the peers.

Interpreters 3.10 to 3.13 are found as `python3.X` on PATH (a user's machine), through pyenv
(`pyenv versions`), and as the one running the bench; one per minor version. Each gets
bench/.venvs/<version>/ (gitignored, reused) holding Karpathy's micrograd 0.1.0 and microgpt's
package, never the project's environment.
"""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

MINORS = ['3.10', '3.11', '3.12', '3.13']
VENVS = Path(__file__).resolve().parent / '.venvs'
# microgpt's package declares an agent framework as a dependency; the bench loads only its engine.py,
# which needs nothing beyond the standard library, so it is installed without dependencies.
PEERS = [['micrograd==0.1.0'], ['--no-deps', 'strands-microgpt==0.1.0']]
PROBE = "import importlib.metadata as m; print(m.version('micrograd'), m.version('strands-microgpt'))"


def version_of(python: str) -> tuple[str, str] | None:
    """(full version, the real interpreter) if it runs; a pyenv shim may refuse unless its version is selected."""
    try:
        done = subprocess.run([python, '-c', 'import platform, sys; print(platform.python_version(), sys.executable)'],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    version, _, executable = done.stdout.strip().partition(' ')
    return (version, executable) if done.returncode == 0 else None


def find_pythons(only: list[str] | None = None) -> dict[str, tuple[str, str]]:
    """minor version -> (full version, interpreter), first from PATH, then from pyenv."""
    found: dict[str, tuple[str, str]] = {}
    for minor in only or MINORS:
        python = shutil.which(f'python{minor}')
        runs = version_of(python) if python else None
        if runs and runs[0].startswith(minor + '.'):
            found[minor] = runs
    pyenv = shutil.which('pyenv')
    if pyenv:
        root = subprocess.run([pyenv, 'root'], capture_output=True, text=True).stdout.strip()
        listed = subprocess.run([pyenv, 'versions', '--bare'], capture_output=True, text=True).stdout.split()
        for name in listed:  # e.g. 3.13.0; other flavours (pypy3.10, miniconda3) and virtualenvs are skipped
            minor = '.'.join(name.split('.')[:2])
            python = str(Path(root, 'versions', name, 'bin', 'python'))
            if minor in (only or MINORS) and minor not in found and name.replace('.', '').isdigit():
                runs = version_of(python)
                if runs:
                    found[minor] = runs
    here = '.'.join(platform.python_version_tuple()[:2])  # the interpreter running the bench counts too
    if here in (only or MINORS) and here not in found:
        found[here] = (platform.python_version(), sys.executable)
    return dict(sorted(found.items(), key=lambda item: int(item[0].split('.')[1])))


def peer_python(version: str, python: str) -> str:
    """The interpreter of bench/.venvs/<version>, made and filled on first use; it runs every worker."""
    venv = VENVS / version
    venv_python = str(venv / ('Scripts/python.exe' if os.name == 'nt' else 'bin/python'))
    ready = subprocess.run([venv_python, '-I', '-c', PROBE], capture_output=True, text=True) if Path(
        venv_python).exists() else None
    if ready is None or ready.stdout.split() != ['0.1.0', '0.1.0']:
        print(f"  preparing {venv.relative_to(VENVS.parent.parent)} with the peers (first run only) ...", flush=True)
        subprocess.run([python, '-m', 'venv', '--clear', str(venv)], check=True)
        for args in PEERS:
            subprocess.run([venv_python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', *args],
                           check=True)
    return venv_python
