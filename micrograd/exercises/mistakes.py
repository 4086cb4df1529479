"""The classic mistakes, each written as the body a learner might type in place of the library's.

The checker names a mistake by reproducing it: it builds the library's engine with that one body
changed, runs the same input through it, and when its gradients are the learner's, that is the
diagnosis. Bodies use {x} and {y} for the parents the closure adds to (self and other), {i} for the
indentation of a following line, and the names the library's forward pass binds (slope, out, y, q, e, t, s).
"""
from __future__ import annotations

import re
import types
from functools import cache

from micrograd.exercises.catalog import Exercise, find
from micrograd.exercises.workspace import Blank, engine_with, find_blanks, library_source

# The exponent's half of x ** y, right, for the mistakes in the base's half (and the reverse).
_POW_EXPONENT = "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad += numeric.times_log(out, {x}.data) * grad"

# By exercise: (diagnosis, body). A number in x * 3 is the leaf other = Value(3.0), so "the constant forgotten"
# is the same slip as ever, written with other.data.
SPECIFIC: dict[str, list[tuple[str, str]]] = {
    '+': [('product_rule_in_add', "{x}.grad += {y}.data * grad\n{i}{y}.grad += {x}.data * grad"),
          ('one_parent', "{x}.grad += grad"),
          ('one_parent', "{y}.grad += grad")],
    '*': [('swapped', "{x}.grad += {x}.data * grad\n{i}{y}.grad += {y}.data * grad"),
          ('sum_rule_in_mul', "{x}.grad += grad\n{i}{y}.grad += grad"),
          ('mul_no_constant', "{x}.grad += grad\n{i}{y}.grad += {x}.data * grad"),
          ('one_parent', "{x}.grad += {y}.data * grad")],
    '**': [('pow_no_lowering', "{x}.grad += y * {x}.data ** y * grad" + _POW_EXPONENT),
           ('pow_no_factor', "{x}.grad += {x}.data ** (y - 1) * grad" + _POW_EXPONENT),
           ('pow_abs', "{x}.grad += y * abs({x}.data) ** (y - 1) * grad" + _POW_EXPONENT),
           ('pow_at_output', "{x}.grad += y * out ** (y - 1) * grad" + _POW_EXPONENT),
           ('pow_exponent', "{x}.grad += slope * grad"),
           ('pow_number_grad', "{x}.grad += slope * grad\n{i}{y}.grad += numeric.times_log(out, {x}.data) * grad"),
           ('pow_exponent_no_power', "{x}.grad += slope * grad\n{i}if isinstance({y}, Value):\n"
                                     "{i}    {y}.grad += math.log({x}.data) * grad")],
    '/': [('div_sign', "{x}.grad += grad / {y}.data\n{i}{y}.grad += grad * q / {y}.data"),
          ('div_dy_no_x', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= grad / {y}.data ** 2"),
          ('div_dy_one_y', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= grad * {x}.data / {y}.data"),
          ('div_at_output', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= grad * q / {y}.data ** 2"),
          ('div_as_mul', "{x}.grad += {y}.data * grad\n{i}{y}.grad += {x}.data * grad"),
          ('div_no_constant', "{x}.grad += grad\n{i}{y}.grad -= grad * q / {y}.data"),
          ('one_parent', "{x}.grad += grad / {y}.data")],
    'exp': [('exp_at_input', "{x}.grad += {x}.data * grad"),
            ('exp_power_rule', "{x}.grad += {x}.data * math.exp({x}.data - 1) * grad"),
            ('exp_at_output', "{x}.grad += math.exp(math.exp({x}.data)) * grad")],
    'tanh': [('tanh_at_input', "{x}.grad += (1 - {x}.data ** 2) * grad"),
             ('tanh_at_output', "{x}.grad += (1 - math.tanh(math.tanh({x}.data)) ** 2) * grad"),
             ('tanh_no_square', "{x}.grad += (1 - math.tanh({x}.data)) * grad")],
    'log': [('log_at_output', "{x}.grad += grad / math.log({x}.data)"),
            ('log_function', "{x}.grad += math.log({x}.data) * grad"),
            ('log_squared', "{x}.grad += grad / {x}.data ** 2")],
    'relu': [('relu_at_zero', "{x}.grad += ({x}.data >= 0) * grad"),
             ('relu_inverted', "{x}.grad += grad if {x}.data <= 0 else 0.0"),
             ('relu_ungated', "{x}.grad += grad"),
             ('relu_value', "{x}.grad += max({x}.data, 0.0) * grad")],
    'sigmoid': [('sigmoid_at_input', "{x}.grad += {x}.data * (1 - {x}.data) * grad"),
                ('sigmoid_at_output', "s1 = 1 / (1 + math.exp(-{x}.data))\n{i}s2 = 1 / (1 + math.exp(-s1))\n"
                                      "{i}{x}.grad += s2 * (1 - s2) * grad"),
                ('sigmoid_half', "{x}.grad += 1 / (1 + math.exp(-{x}.data)) * grad")],
    'dot': [('dot_swapped', "for w, x in zip(ws, xs):\n{i}    w.grad += w.data * grad\n"
                            "{i}    x.grad += x.data * grad\n{i}b.grad += grad"),
            ('dot_no_bias', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}    x.grad += w.data * grad"),
            ('dot_inputs', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}b.grad += grad")],
}


def code(solution: str) -> str:
    """A body without its comments (a comment would swallow what a mistake adds at the end of a line)."""
    return re.sub(r'[ \t]*#[^\n]*', '', solution)


def generic(solution: str) -> list[tuple[str, str]]:
    """The mistakes any op can make, made from the library's own body: = for += (and for -=, which
    division's divisor uses), every sign flipped, the upstream gradient left out, and no gradient at all."""
    solution = code(solution)
    overwrite = re.sub(r'\.grad -= (.+)', r'.grad = -(\1)', solution.replace('+=', '='))
    sign = re.sub(r'([+-])=', lambda m: '-=' if m.group(1) == '+' else '+=', solution)
    upstream = re.sub(r'(?<![.\w])grad\b', '1.0', solution)
    return [('overwrite', overwrite), ('sign', sign), ('upstream', upstream), ('nothing', 'pass')]


def bodies(blank: Blank) -> list[tuple[str, str]]:
    """Every mistake the checker knows for one blank, most specific first."""
    names = dict(zip('xy', blank.parents))
    specific = [(key, body.format(i=blank.indent, **names))
                for key, body in SPECIFIC.get(blank.exercise.name, [])]
    return specific + [(key, body) for key, body in generic(blank.solution) if body != code(blank.solution)]


@cache
def variants(name: str) -> tuple[tuple[str, types.ModuleType], ...]:
    """For an op exercise: (diagnosis, the library's engine with that mistake), for each mistake in each
    blank of the exercise, and for each mistake any op can make in all its blanks at once (a learner who
    writes = for += in x * y likely writes it in x * k too). Built once, when first needed."""
    exercise: Exercise = find(name)
    source, _ = library_source('engine')
    blanks = [b for b in find_blanks(source, 'engine') if b.exercise is exercise]
    plans = [(key, {blank: body}) for blank in blanks for key, body in bodies(blank)]
    if len(blanks) > 1:
        plans += [(key, {blank: dict(generic(blank.solution))[key] for blank in blanks})
                  for key, _ in generic(blanks[0].solution)]
    out = []
    for n, (key, replacements) in enumerate(plans):
        try:
            out.append((key, engine_with(replacements, f'mistake_{exercise.number}_{n}')))
        except SyntaxError:  # a body that does not fit this engine's source: no such mistake here
            continue
    return tuple(out)
