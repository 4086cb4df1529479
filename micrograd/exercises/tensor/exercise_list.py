"""The tensor track's exercises in order: an exercise's number is its place in this list, and every count is its
length. find() looks one up by name, op or number."""
from __future__ import annotations

import dataclasses

from micrograd.exercises.tensor import network_exercises as net
from micrograd.exercises.tensor import op_exercises as ops
from micrograd.exercises.tensor.array_exercise import Exercise
from micrograd.exercises.tensor.backward_exercise import BACKWARD

# Each exercise numbered by its place (from 1), and each of its cases seeded by its own place: the numbers it draws.
EXERCISES: tuple[Exercise, ...] = tuple(
    dataclasses.replace(e, number=i, cases=tuple(dataclasses.replace(c, seed=k) for k, c in enumerate(e.cases)))
    for i, e in enumerate((ops.UNBROADCAST, ops.ADD_MUL, ops.ELEMENTWISE, ops.REDUCE, ops.MAX, ops.SHAPES, ops.INDEX,
                           ops.MATMUL, net.SOFTMAX, net.CROSS_ENTROPY, net.RMS_NORM, net.ATTENTION, BACKWARD), 1))

# What find() takes for an exercise besides its name: each of its blanks' names, and these.
ALIASES = {name.rpartition('.')[2].strip('_()'): e.name for e in EXERCISES for name in e.blanks} | {
    'broadcast': 'unbroadcast', '+': '+ *', '*': '+ *', 'transpose': 'reshape', 'index': 'getitem',
    'indexing': 'getitem', '@': 'matmul', 'rms': 'rms_norm', 'sdpa': 'attention'}


def find(name: str) -> Exercise:
    """An exercise by its name ('softmax'), one of its ops ('tanh', 'mul') or its number ('3')."""
    key = str(name).strip().lower()
    if key.isdigit() and 1 <= int(key) <= len(EXERCISES):
        return EXERCISES[int(key) - 1]
    key = ALIASES.get(key, key)
    for e in EXERCISES:
        if key in (e.name, e.name.replace(' ', '-'), e.name.replace(' ', '_')):
            return e
    names = ', '.join(repr(e.name) for e in EXERCISES)
    raise KeyError(f"no exercise {name!r} in the tensor track: choose one of {names}, an op ('tanh', 'mean'), or "
                   f"a number, 1-{len(EXERCISES)}")
