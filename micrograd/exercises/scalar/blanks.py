"""The scalar workspace: micrograd's own engine.py and nn.py with each exercise's body cut out (my_engine.py,
my_nn.py), the library's answer to an exercise, and the same engine as a module for a notebook."""
from __future__ import annotations

import ast
import importlib
import re
import textwrap
import types
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from micrograd.exercises import cutting
from micrograd.exercises.commands import advice, command
from micrograd.exercises.cutting import Body, library_source
from micrograd.exercises.derived_slips import handing, parent_of
from micrograd.exercises.scalar.exercises import EXERCISES, LEVELS, Exercise, find

ENGINE_FILE, NN_FILE = 'my_engine.py', 'my_nn.py'
CLASSES = {'engine': 'Value', 'nn': 'Neuron'}


@dataclass(frozen=True)
class Blank(Body):
    """One body the learner writes: an op's backward closure, or a whole method."""
    exercise: Exercise
    method: str              # the method of Value (or Neuron) it sits in
    function: str            # the function whose body it is: the closure '_backward', or the method itself
    parents: tuple[str, ...]  # for a closure, the names whose .grad it adds to, in order: ('self', 'other')
    holder: ast.FunctionDef = field(compare=False, repr=False)  # the library's method it sits in
    comments: tuple[str, ...] = ()  # an op's formulas, the comments on its body's lines: they stay

    def text(self) -> str:
        """The blank: the formulas, the marker with the prompt, the rules, and the raise that says it is not written."""
        n, name, i = self.exercise.number, self.exercise.name, self.indent
        formulas = ''.join(f"{comment}\n{i}" for comment in self.comments)
        rules = ''
        if self.exercise.rules and self.method == self.exercise.methods[0]:
            rules = f"# The idea is checked first; then the library's own rules:\n{i}"
            for k, (_, text) in enumerate(self.exercise.rules, 1):
                first, *more = textwrap.wrap(f"({k}) {text}", 96 - len(i))
                rules += f"#   {first}\n{i}" + ''.join(f"#     {line}\n{i}" for line in more)
        prompt = self.exercise.prompts[self.exercise.methods.index(self.method)]
        return f"{formulas}# EXERCISE {n} ({name}): {prompt}\n{i}{rules}" + cutting.unwritten(n, name)


def find_blanks(source: str, which: str = 'engine') -> list[Blank]:
    """Every body the exercises cut out of engine.py (which='engine') or nn.py (which='nn'), in order."""
    cls, starts, blanks = cutting.named(ast.parse(source), CLASSES[which]), cutting.offsets(source), []
    for exercise in (e for e in EXERCISES if e.source == which):
        for name in exercise.methods:
            method = cutting.named(cls, name)
            functions = [f for f in ast.walk(method) if isinstance(f, ast.FunctionDef) and f is not method
                         and f.name.startswith('_backward')] if exercise.kind == 'op' else [method]
            if not functions:
                raise LookupError(f"Value.{name} defines no _backward closure")
            for fn in functions:
                start, end, indent = cutting.body_span(source, starts, fn)
                closure = fn is not method
                blanks.append(Blank(start, end, indent, source[start:end], exercise, name, fn.name,
                                    tuple(dict.fromkeys(map(parent_of, handing(fn.body)))) if closure else (), method,
                                    cutting.comments(indent + source[start:end]) if closure else ()))
    return sorted(blanks, key=lambda b: (b.exercise.number, b.start))


@cache
def blanks_of(exercise: Exercise) -> list[Blank]:
    """The blanks of one exercise in the library's source (read once)."""
    return [b for b in find_blanks(library_source(f'micrograd.{exercise.source}')[0], exercise.source)
            if b.exercise is exercise]


def file_order(source: str) -> str:
    """Where the exercises stand in engine.py: the ops in file order, the lecture's sort and backward() among them."""
    exercises = list(dict.fromkeys(b.exercise for b in sorted(find_blanks(source), key=lambda b: b.start)))
    ops = ', '.join(e.label for e in exercises if e.kind == 'op')
    first = next(i for i, e in enumerate(exercises) if e.kind != 'op')
    later = next(e for e in exercises[first:] if e.kind == 'op')
    others = ' and '.join(e.label for e in sorted(exercises[first:exercises.index(later)], key=lambda e: e.number))
    again = dict.fromkeys((b.exercise, b.method) for b in find_blanks(source) if b.method != b.exercise.methods[0])
    return (f"# The ops stand in the file in that order: {ops},\n# with the lecture's {others} between "
            f"{exercises[first - 1].label} and {later.label}.\n"
            + ''.join(f"# Exercise {e.label} has a second blank further down, in Value.{method}.\n"
                      for e, method in again))


def engine_header(directory: str | Path = '.') -> str:
    """my_engine.py's first lines, with the commands for its folder as they run from anywhere."""
    order = file_order(library_source('micrograd.engine')[0])
    last, neuron = find('backward').number, find('neuron').number
    return f"""\
# my_engine.py: micrograd's engine.py with the backward of each op cut out, for you to write.
# Fill in each EXERCISE in order, from 1 (+) to {last} (backward); exercise {neuron} is in my_nn.py.
{order}# Each op's _backward(grad) is handed the output's gradient: where the lecture writes out.grad, write grad.
{textwrap.fill(LEVELS, 110, initial_indent='# ', subsequent_indent='# ')}
""" + advice(command('check', Path(directory).resolve()), command('solution', 'tanh'))


def nn_header(directory: str | Path = '.') -> str:
    return f"""\
# my_nn.py: micrograd's nn.py, on your engine (my_engine.py), with exercise {find('neuron').number} to write:
# Neuron.__call__ and Neuron.parameters. Check it with:
#     {command('check', Path(directory).resolve())}
"""


def blanked(which: str) -> str:
    """engine.py's or nn.py's text (which: 'engine' or 'nn'), every exercise a blank."""
    source, _ = library_source(f'micrograd.{which}')
    return cutting.splice(source, {b: b.text() for b in find_blanks(source, which)})


def engine_text(directory: str | Path = '.') -> str:
    """my_engine.py for a workspace in directory: the library's engine.py, every exercise a blank."""
    return engine_header(directory) + blanked('engine')


def nn_text(directory: str | Path = '.') -> str:
    """my_nn.py: the library's nn.py on my_engine, with Neuron.__call__ and parameters() blank."""
    text, found = re.subn(r'^from micrograd\.engine import ([\w ,]*\w)', r'from my_engine import \1  # your engine',
                          blanked('nn'), count=1, flags=re.M)
    if not found:  # (else my_nn.py would run on the library's engine, not the learner's)
        raise LookupError("nn.py does not import from micrograd.engine")
    return nn_header(directory) + text


def solution(name: str) -> str:
    """The library's own code for an exercise: the whole method(s) it lives in, from engine.py or nn.py."""
    exercise = find(name)
    cls = getattr(importlib.import_module(f'micrograd.{exercise.source}'), CLASSES[exercise.source])
    return cutting.answer(f"# exercise {exercise.number} ({exercise.name}): the library's answer",
                  [getattr(cls, method) for method in exercise.methods])


def blank_engine() -> types.ModuleType:
    """my_engine.py as a module: the library's engine with every backward blank, for a notebook."""
    return cutting.load(engine_text(), 'my_engine', ENGINE_FILE)


def blank_nn(engine: types.ModuleType) -> types.ModuleType:
    """my_nn.py as a module, on the given engine module (say, blank_engine())."""
    return cutting.load(nn_text(), 'my_nn', NN_FILE, my_engine=engine)
