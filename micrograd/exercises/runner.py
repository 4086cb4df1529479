"""check(): grade a workspace in a separate Python process, or a Value class in this one.

A workspace's code runs in a child process: a learner's infinite loop or a crash (a recursion limit
raised until the interpreter overflows its stack) cannot take the checker down. The child writes its
results to a file of their own, not to its standard output, which the learner's code can write to (a
print without a newline would otherwise glue itself to a result line). Each exercise has a
time limit (10 s by default), enforced inside the child with a timer signal, and the whole run has one
more, enforced from outside: when it expires the child is killed and the exercise it was in is reported
as not finishing. A Value class (from a notebook) is checked in this process, with the same per-exercise
limit where signals allow it (the main thread, not on Windows).
"""
from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import types
from pathlib import Path
from typing import Any

from micrograd.exercises.catalog import EXERCISES
from micrograd.exercises.checks import UNCHECKED, WRONG, Result, check_all
from micrograd.exercises.commands import command
from micrograd.exercises.report import Report
from micrograd.exercises.workspace import ENGINE_FILE, NN_FILE


def check(target: Any = '.', neuron: Any = None, *, hint: bool = False, timeout: float = 10.0) -> Report:
    """Check the exercises and return a Report (printable; shown as a table in Jupyter).

    target: a workspace directory, its my_engine.py, a Value class, or a module holding one. neuron: a
    Neuron class to check exercise 13 on (a workspace's my_nn.py, or a module's own Neuron, is found).
    hint: add the stronger hint and the formula for the first exercise that is wrong or not started.
    """
    if isinstance(target, (str, Path)):
        report = check_workspace(Path(target), timeout=timeout)
    else:
        if isinstance(target, types.ModuleType):
            neuron = neuron if neuron is not None else getattr(target, 'Neuron', None)
            target = target.Value
        if not isinstance(target, type):
            raise TypeError(f"check: expected a workspace directory, a file, a Value class or a module, got "
                            f"{type(target).__name__}")
        report = Report(list(check_all(target, neuron, timeout=timeout)), places=_class_places(target, neuron),
                        command='check(Value, Neuron)' if neuron is not None else 'check(Value)')
    report.hint = hint
    return report


def _files(path: Path) -> tuple[Path, Path | None]:
    if path.is_dir():
        engine = path / ENGINE_FILE
    else:
        engine = path
    nn = engine.parent / NN_FILE
    return engine, (nn if nn.exists() and nn != engine else None)


def _compile_error(path: Path) -> str:
    """The learner's file as the report names a syntax error in it, or '' when it compiles."""
    try:
        compile(path.read_text(encoding='utf-8'), str(path), 'exec')
    except SyntaxError as error:
        text = f"{path.name}, line {error.lineno}: {type(error).__name__}: {error.msg}"
        if error.text:
            code = error.text.rstrip('\n')
            stripped = code.lstrip()
            text += f"\n    {stripped}"
            if error.offset:
                text += "\n    " + ' ' * max(0, error.offset - 1 - (len(code) - len(stripped))) + '^'
        return text
    return ''


def _written(method: ast.FunctionDef, class_name: str, first: int = 1) -> tuple[int, str]:
    """Where the learner writes an exercise in a method: the body of its backward closure ('_backward in
    Value.__mul__'), or the method itself; first is the line the method's text starts on in its file."""
    closure = next((f for f in ast.walk(method) if isinstance(f, ast.FunctionDef) and f is not method
                    and f.name.startswith('_backward')), None)
    if closure is not None:
        return first - 1 + closure.body[0].lineno, f"{closure.name} in {class_name}.{method.name}"
    return first - 1 + method.lineno, f"{class_name}.{method.name}"


def places_in(path: Path, class_name: str, methods: dict[str, int]) -> dict[int, str]:
    """Where each exercise is written in a file: {number: 'my_engine.py, line 46: _backward in Value.__add__'}."""
    out: dict[int, str] = {}
    try:
        tree = ast.parse(path.read_text(encoding='utf-8'))
    except (SyntaxError, OSError):
        return out
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in methods and methods[item.name] not in out:
                    line, name = _written(item, class_name)
                    out[methods[item.name]] = f"{path.name}, line {line}: {name}"
    return out


def _method_numbers(source: str) -> dict[str, int]:
    return {m: e.number for e in EXERCISES if e.source == source for m in e.methods}


def missing(path: Path) -> str:
    """What is wrong with path as a workspace to check, before any work ('' when nothing is)."""
    if not path.exists():
        if path.suffix == '.py':
            return f"no file {path}"
        return f"no folder {path}: make the workspace there with `{command('start', path)}`"
    if path.is_dir() and not (path / ENGINE_FILE).exists():
        return f"no {ENGINE_FILE} in {path}: make a workspace there with `{command('start', path)}`"
    if path.is_file() and path.suffix != '.py':
        return f"{path} is not a Python file: give the workspace's folder, or its {ENGINE_FILE}"
    return ''


def check_workspace(path: Path, timeout: float = 10.0) -> Report:
    engine, nn = _files(path)
    again = command('check', *([path] if str(path) != '.' else []))
    if absent := missing(path):
        return Report(error=absent, command=again)
    for file in (engine, nn):
        if file is not None and (error := _compile_error(file)):
            return Report(error=error, command=again)
    places = places_in(engine, 'Value', _method_numbers('engine'))
    if nn is not None:
        places |= places_in(nn, 'Neuron', _method_numbers('nn'))
    limit = timeout * len(EXERCISES) + 30
    with tempfile.TemporaryDirectory(prefix='micrograd-exercises-') as folder:
        channel = Path(folder) / 'results'
        argv = [sys.executable, '-m', 'micrograd.exercises', '_worker', str(engine.resolve()),
                str(nn.resolve()) if nn else '', str(timeout), str(channel)]
        try:
            child = subprocess.run(argv, capture_output=True, text=True, timeout=limit, cwd=engine.parent,
                                   env=_env())
            problem = _ended(child.returncode, child.stderr)
        except subprocess.TimeoutExpired:
            problem = ('timeout', f"the whole check ran out of time ({limit:g} s) and was stopped")
        lines = channel.read_text(encoding='utf-8').split('\n') if channel.exists() else []
    results: list[Result] = []
    error, current = '', 0
    for line in lines:
        kind, _, payload = line.partition(' ')
        if kind == 'begin':
            current = int(payload)
        elif kind == 'result':
            results.append(Result(**json.loads(payload)))
        elif kind == 'error':
            error = json.loads(payload)
    if error:
        return Report(error=error, command=again)
    if len(results) < len(EXERCISES):  # the child died, or was stopped, in the middle of exercise `current`
        current = current or len(results) + 1
        results = [r for r in results if r.number < current]
        results.append(Result(current, WRONG, '', '', 'no result', problem[0], problem[1]))
        results += [Result(e.number, UNCHECKED) for e in EXERCISES[current:]]
    return Report(results, places=places, command=again)


def _ended(status: int, stderr: str) -> tuple[str, str]:
    """How the child ended, as a diagnosis key and a sentence, for when its results stop short."""
    last = (stderr.strip().splitlines() or [''])[-1]
    said = f": {last}" if last else ''
    if status < 0:  # killed by a signal: SIGSEGV is Python's own stack overflowing
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return 'crash', f"the checking process was killed by {name}{said}"
    return 'exited', f"the checking process exited with status {status}{said}"


def _env() -> dict[str, str]:
    """The environment for the child: this micrograd importable from the workspace, installed or not."""
    here = str(Path(__file__).resolve().parents[2])
    path = os.environ.get('PYTHONPATH')
    return {**os.environ, 'PYTHONPATH': here + (os.pathsep + path if path else '')}


def worker(engine_path: str, nn_path: str, timeout: float, channel: str) -> int:
    """In the child process: import the learner's files, check every exercise, write each result to channel (a
    file the learner's code does not write to), a line each, as soon as it is known."""
    out = open(channel, 'a', encoding='utf-8')  # noqa: SIM115 -- open while the child lives

    def say(kind: str, payload: object) -> None:
        out.write(f"{kind} {json.dumps(payload)}\n")
        out.flush()

    sys.path.insert(0, str(Path(engine_path).parent))
    modules: dict[str, types.ModuleType] = {}
    for name, path in (('my_engine', engine_path), ('my_nn', nn_path)):
        if not path:
            continue
        try:
            modules[name] = _import(name, Path(path))
        except BaseException as error:  # noqa: BLE001 -- whatever the learner's module does at import
            from micrograd.exercises.checks import where
            say('error', f"importing {Path(path).name} failed: {where(error)}")
            return 1
    engine, nn = modules['my_engine'], modules.get('my_nn')
    for result in check_all(engine.Value, getattr(nn, 'Neuron', None), strict=True, timeout=timeout,
                            before=lambda number: say('begin', number)):
        say('result', dataclasses.asdict(result))
    return 0


def _import(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _class_places(value_class: type, neuron: Any) -> dict[int, str]:
    out: dict[int, str] = {}
    for cls, kind in ((value_class, 'engine'), (neuron, 'nn')):
        if not isinstance(cls, type):
            continue
        for method, number in _method_numbers(kind).items():
            fn = cls.__dict__.get(method)
            if fn is None or number in out:
                continue
            try:
                lines, first = inspect.getsourcelines(fn)
                tree = ast.parse(textwrap.dedent(''.join(lines)))
                assert isinstance(tree.body[0], ast.FunctionDef)
                line, name = _written(tree.body[0], cls.__name__, first - len(tree.body[0].decorator_list))
                out[number] = f"line {line}: {name}"
            except (OSError, TypeError, SyntaxError, AssertionError):
                out[number] = f"{cls.__name__}.{method}"
    return out
