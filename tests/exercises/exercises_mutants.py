"""The grader's mutation test, as data: backwards written the way learners write them, each with the name the
checker must give it, and right ones written otherwise, each to be graded done; with the helpers that build the
library's engine with one body replaced.

A mutant is (exercise, the method whose blank it fills, the body, the diagnosis). Bodies use {x} and {y} for the
parents the closure adds to (self and other; w, x in dot) and {i} for the indentation of every line after the
first; they read only what any version of the engine binds: the parents' .data, grad, and the forward pass's
output (t in tanh, e in exp, s in sigmoid; data in x ** y) and exponent (k in x ** k, the lecture's __pow__; y in
x ** y, _power: x ** y and x ** k for k < 1). A record's own slips (its Slips with a body) are not repeated here:
test_exercises plants each of them.
"""
import ast
import re

from micrograd.exercises.cutting import library_source, load, splice
from micrograd.exercises.scalar.blanks import find_blanks

# x ** k and x ** y: the exponent's half of the backward, right, after a base's half (wrong or right).
EXPONENT = "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad += data * math.log({x}.data) * grad"
BASE = "{x}.grad += y * {x}.data ** (y - 1) * grad"
Q = "({x}.data / {y}.data)"  # x / y: the output of /, as the closure can write it

MUTANTS = [
    # x + y (x + 2 makes 2 a leaf Value: the same closure)
    ('+', '__add__', "{x}.grad = grad\n{i}{y}.grad = grad", 'overwrite'),
    ('+', '__add__', "{x}.grad += grad\n{i}{y}.grad = grad", 'overwrite'),
    ('+', '__add__', "{x}.grad += 1.0\n{i}{y}.grad += 1.0", 'upstream'),
    ('+', '__add__', "{x}.grad = {x}.grad + 1\n{i}{y}.grad = {y}.grad + 1", 'upstream'),
    ('+', '__add__', "{x}.grad += grad", 'parent_dropped'),
    ('+', '__add__', "{y}.grad += grad", 'parent_dropped'),
    ('+', '__add__', "{x}.grad -= grad\n{i}{y}.grad -= grad", 'sign'),
    ('+', '__add__', "{x}.grad += grad\n{i}{y}.grad -= grad", 'sign'),
    ('+', '__add__', "pass", 'nothing'),
    ('+', '__add__', "{x}.grad += out.grad\n{i}{y}.grad += out.grad", 'holds_out'),
    ('+', '__add__', "{x}.grad += 2 * grad\n{i}{y}.grad += grad", 'parent_twice'),
    ('+', '__add__', "{x}.grad += grad\n{i}{x}.grad += grad", 'wrong_parent'),  # the second line meant for y
    ('*', '__mul__', "{x}.grad += {y}.data * grad\n{i}{x}.grad += {x}.data * grad", 'wrong_parent'),
    # a + a special-cased: its gradient counted twice
    ('+', '__add__', "{x}.grad += grad\n{i}{y}.grad += grad\n{i}if {x} is {y}:\n{i}    {x}.grad += grad",
     'reused_leaf'),
    ('+', '__add__', "if {x} is {y}:\n{i}    {x}.grad += 2 * grad\n{i}{x}.grad += grad\n{i}{y}.grad += grad",
     'reused_leaf'),
    ('+', '__add__', "{x}.grad += {x}.data * grad\n{i}{y}.grad += grad", 'factor_added'),
    # x * y (x * 3 makes 3 a leaf Value)
    ('*', '__mul__', "{x}.grad = {x}.grad + {x}.data * grad\n{i}{y}.grad = {y}.grad + {y}.data * grad", 'swapped'),
    ('*', '__mul__', "{x}.grad += {x}.data * grad\n{i}{y}.grad += {y}.data * grad", 'swapped'),
    ('*', '__mul__', "{x}.grad = {y}.data * grad\n{i}{y}.grad = {x}.data * grad", 'overwrite'),
    ('*', '__mul__', "{x}.grad += {y}.data\n{i}{y}.grad += {x}.data", 'upstream'),
    ('*', '__mul__', "{x}.grad += grad\n{i}{y}.grad += grad", 'factor_dropped'),
    ('*', '__mul__', "{x}.grad -= {y}.data * grad\n{i}{y}.grad -= {x}.data * grad", 'sign'),
    ('*', '__mul__', "{x}.grad += grad\n{i}{y}.grad += {x}.data * grad", 'factor_dropped'),
    ('*', '__mul__', "{x}.grad += {y}.data * grad\n{i}{y}.grad += grad", 'factor_dropped'),
    ('*', '__mul__', "{x}.grad += {y}.data * grad", 'parent_dropped'),
    ('*', '__mul__', "pass", 'nothing'),
    ('*', '__mul__', "{x}.grad += {y}.data * out.grad\n{i}{y}.grad += {x}.data * out.grad", 'holds_out'),
    ('*', '__mul__', "{x}.grad += {y}.data / grad\n{i}{y}.grad += {x}.data / grad", 'mul_for_div'),
    ('*', '__mul__', "{x}.grad += {y}.data * grad\n{i}{y}.grad += {y}.data * grad", 'swapped'),
    ('*', '__mul__', "{x}.grad += {y}.data * grad\n{i}{y}.grad += {x}.data", 'upstream'),
    ('*', '__mul__', "{x}.grad += {y}.grad * grad\n{i}{y}.grad += {x}.grad * grad", 'grad_for_data'),
    ('*', '__mul__', "{x}.grad += {y} * grad\n{i}{y}.grad += {x} * grad", 'grad_not_number'),
    # x ** k for k >= 1, the lecture's (__pow__)
    ('**', '__pow__', "{x}.grad += {y} * {x}.data ** {y} * grad", 'exponent_off'),
    ('**', '__pow__', "{x}.grad += {x}.data ** ({y} - 1) * grad", 'factor_dropped'),
    ('**', '__pow__', "{x}.grad += {y} * abs({x}.data) ** ({y} - 1) * grad", 'pow_abs'),
    ('**', '__pow__', "{x}.grad += {y} * {x}.data ** ({y} - 1)", 'upstream'),
    ('**', '__pow__', "{x}.grad = {y} * {x}.data ** ({y} - 1) * grad", 'overwrite'),
    ('**', '__pow__', "{x}.grad -= {y} * {x}.data ** ({y} - 1) * grad", 'sign'),
    ('**', '__pow__', "{x}.grad += {y} * {x}.data ** ({y} - 1) * out.grad", 'holds_out'),
    ('**', '__pow__', "{x}.grad += {y} * {x}.data ** ({y} - 1) * grad\n"
                      "{i}{y}.grad += {x}.data ** {y} * math.log({x}.data) * grad", 'pow_number_grad'),
    ('**', '__pow__', "pass", 'nothing'),
    ('**', '__pow__', "{x}.grad += {y} * ({x}.data ** {y}) ** ({y} - 1) * grad", 'at_output'),
    ('**', '__pow__', "{x}.grad += {y} * {x}.data ** {y} - 1 * grad", 'precedence'),
    # x ** y, and x ** k for k < 1 (_power)
    ('**', '_power', "{x}.grad = y * {x}.data ** (y - 1) * grad" + EXPONENT, 'overwrite'),  # the base's line
    ('**', '_power', "{x}.grad += y * abs({x}.data) ** (y - 1) * grad" + EXPONENT, 'pow_abs'),
    ('**', '_power', "{x}.grad += y * {x}.data ** y * grad" + EXPONENT, 'exponent_off'),
    ('**', '_power', "{x}.grad += y * {x}.data ** (y - 2) * grad" + EXPONENT, 'exponent_off'),
    ('**', '_power', "{x}.grad += {x}.data ** (y - 1) * grad" + EXPONENT, 'factor_dropped'),
    # the output where the derivative has the input: named by the formula its numbers follow (x comes from a
    # helper in _power, with y and out: the rule that puts the output for the input cannot tell x is the input)
    ('**', '_power', "{x}.grad += y * data ** (y - 1) * grad" + EXPONENT, 'formula'),
    ('**', '_power', "{x}.grad += y * {x}.data ** (y - 1)\n{i}if isinstance({y}, Value):\n"
                      "{i}    {y}.grad += data * math.log({x}.data)", 'upstream'),
    ('**', '_power', BASE, 'parent_dropped'),
    ('**', '_power', BASE + "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad += math.log({x}.data) * grad",
     'pow_exponent_no_power'),
    ('**', '_power', "{x}.grad = y * {x}.data ** (y - 1) * grad\n{i}if isinstance({y}, Value):\n"
                      "{i}    {y}.grad = data * math.log({x}.data) * grad", 'overwrite'),
    ('**', '_power', "{x}.grad -= y * {x}.data ** (y - 1) * grad\n{i}if isinstance({y}, Value):\n"
                      "{i}    {y}.grad -= data * math.log({x}.data) * grad", 'sign'),
    ('**', '_power', "{x}.grad += y * {x}.data ** (y - 1) * out.grad" + EXPONENT, 'holds_out'),
    ('**', '_power', BASE + "\n{i}{y}.grad += data * math.log({x}.data) * grad", 'pow_number_grad'),
    ('**', '_power', "pass", 'nothing'),
    ('**', '_power', "{x}.grad += y * {x}.data ** y - 1 * grad" + EXPONENT, 'precedence'),
    ('**', '_power', BASE + "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad += data * grad", 'pow_exponent_no_log'),
    ('**', '_power', BASE + "\n{i}if isinstance({y}, Value):\n"
                      "{i}    {y}.grad += {y}.data * {x}.data ** ({y}.data - 1) * grad", 'pow_rule_for_exponent'),
    # x / y (x / 4 makes 4 a leaf Value)
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad += grad * " + Q + " / {y}.data", 'sign'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= grad / {y}.data ** 2", 'factor_dropped'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= {x}.data / {y}.data * grad", 'factor_dropped'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= " + Q + " / {y}.data ** 2 * grad",
     'formula'),  # the output x / y where the derivative has x: named by the formula its numbers follow
    ('/', '__truediv__', "{x}.grad = grad / {y}.data\n{i}{y}.grad = -grad * " + Q + " / {y}.data", 'overwrite'),
    ('/', '__truediv__', "{x}.grad += 1.0 / {y}.data\n{i}{y}.grad -= " + Q + " / {y}.data", 'upstream'),
    ('/', '__truediv__', "{x}.grad -= grad / {y}.data\n{i}{y}.grad += " + Q + " / {y}.data * grad", 'sign'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data", 'parent_dropped'),
    ('/', '__truediv__', "{x}.grad += grad\n{i}{y}.grad -= grad * " + Q + " / {y}.data", 'factor_dropped'),
    ('/', '__truediv__', "{x}.grad += grad * {y}.data\n{i}{y}.grad -= grad * " + Q + " / {y}.data", 'mul_for_div'),
    ('/', '__truediv__', "pass", 'nothing'),
    ('/', '__truediv__', "{x}.grad += out.grad / {y}.data\n{i}{y}.grad -= out.grad * " + Q + " / {y}.data",
     'holds_out'),
    # the divisor's gradient written -(x/y)**2
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad += -" + Q + " ** 2 * grad",
     'factor_added'),
    # exp
    ('exp', 'exp', "{x}.grad += {x}.data * grad", 'at_input'),
    ('exp', 'exp', "{x}.grad += e", 'upstream'),
    ('exp', 'exp', "{x}.grad += math.exp(e) * grad", 'applied_twice'),
    ('exp', 'exp', "{x}.grad = e * grad", 'overwrite'),
    ('exp', 'exp', "{x}.grad -= e * grad", 'sign'),
    ('exp', 'exp', "pass", 'nothing'),
    ('exp', 'exp', "{x}.grad += out.data * out.grad", 'holds_out'),
    ('exp', 'exp', "{x}.grad += e * grad\n{i}{x}.grad += e * grad", 'parent_twice'),
    ('exp', 'exp', "{x}.grad += {x}.data * e * grad", 'factor_added'),
    # tanh
    ('tanh', 'tanh', "{x}.grad += (1 - {x}.data ** 2) * grad", 'at_input'),
    ('tanh', 'tanh', "{x}.grad = (1 - t ** 2) * grad", 'overwrite'),
    ('tanh', 'tanh', "{x}.grad += (t ** 2 - 1) * grad", 'sign'),
    ('tanh', 'tanh', "{x}.grad += (1 + t ** 2) * grad", 'sign'),
    ('tanh', 'tanh', "{x}.grad += 1 - t * t", 'upstream'),
    ('tanh', 'tanh', "{x}.grad += (1 - math.tanh(t) ** 2) * grad", 'applied_twice'),
    ('tanh', 'tanh', "{x}.grad += (1 - t) * grad", 'factor_dropped'),
    ('tanh', 'tanh', "{x}.grad += (1 - t ** 2) * out.grad", 'holds_out'),
    ('tanh', 'tanh', "pass", 'nothing'),
    ('tanh', 'tanh', "{x}.grad += (1 - t ** 2) / grad", 'mul_for_div'),
    ('tanh', 'tanh', "{x}.grad += 1 - t ** 2 * grad", 'precedence'),
    # log
    ('log', 'log', "{x}.grad += grad / math.log({x}.data)", 'at_output'),
    ('log', 'log', "{x}.grad += -grad / {x}.data", 'sign'),
    ('log', 'log', "{x}.grad = grad / {x}.data", 'overwrite'),
    ('log', 'log', "{x}.grad += 1 / {x}.data", 'upstream'),
    ('log', 'log', "{x}.grad += out.grad / {x}.data", 'holds_out'),
    ('log', 'log', "{x}.grad += grad * {x}.data", 'mul_for_div'),  # times x, not divided by it
    ('log', 'log', "pass", 'nothing'),
    # relu
    ('relu', 'relu', "{x}.grad += grad if {x}.data >= 0 else 0.0", 'relu_at_zero'),
    ('relu', 'relu', "{x}.grad += max(0.0, {x}.data) * grad", 'factor_added'),
    ('relu', 'relu', "{x}.grad += ({x}.data < 0) * grad", 'relu_inverted'),
    ('relu', 'relu', "{x}.grad = ({x}.data > 0) * grad", 'overwrite'),
    ('relu', 'relu', "{x}.grad += 1.0 if {x}.data > 0 else 0.0", 'upstream'),
    ('relu', 'relu', "{x}.grad += (out.data > 0) * out.grad", 'holds_out'),
    ('relu', 'relu', "{x}.grad += grad if {x}.data > 0 else 0.01 * grad", 'relu_leaky'),
    ('relu', 'relu', "{x}.grad += (1.0 if {x}.data > 0 else 0.2) * grad", 'relu_leaky'),
    # sigmoid
    ('sigmoid', 'sigmoid', "{x}.grad += {x}.data * (1 - {x}.data) * grad", 'at_input'),
    ('sigmoid', 'sigmoid', "{x}.grad += s * grad", 'factor_dropped'),
    ('sigmoid', 'sigmoid', "{x}.grad += s * (1 - s)", 'upstream'),
    ('sigmoid', 'sigmoid', "s2 = 1 / (1 + math.exp(-s))\n{i}{x}.grad += s2 * (1 - s2) * grad", 'applied_twice'),
    ('sigmoid', 'sigmoid', "{x}.grad = s * (1 - s) * grad", 'overwrite'),
    ('sigmoid', 'sigmoid', "{x}.grad -= s * (1 - s) * grad", 'sign'),
    ('sigmoid', 'sigmoid', "{x}.grad += s * (1 + s) * grad", 'sign'),
    ('sigmoid', 'sigmoid', "pass", 'nothing'),
    ('sigmoid', 'sigmoid', "{x}.grad += s * 1 - s * grad", 'precedence'),
    ('sigmoid', 'sigmoid', "{x}.grad += (1 - s ** 2) * grad", 'sigmoid_tanh_rule'),
    # dot (ws and xs, and the bias b: always a Value)
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}    x.grad += w.data * grad",
     'parent_dropped'),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += w.data * grad\n{i}    x.grad += x.data * grad\n"
                   "{i}b.grad += grad", 'swapped'),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}b.grad += grad", 'parent_dropped'),
    ('dot', 'dot', "for i in range(len(ws)):\n{i}    ws[i].grad = xs[i].data * grad\n"
                   "{i}    xs[i].grad = ws[i].data * grad\n{i}b.grad = grad", 'overwrite'),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data\n{i}    x.grad += w.data\n{i}b.grad += 1.0",
     'upstream'),
    ('dot', 'dot', "pass", 'nothing'),
    # the bias treated like a weight; the weights paired with the inputs in reverse order
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}    x.grad += w.data * grad\n"
                   "{i}b.grad += b.data * grad", 'factor_added'),
    ('dot', 'dot', "for w, x in zip(ws, xs[::-1]):\n{i}    w.grad += x.data * grad\n{i}    x.grad += w.data * grad\n"
                   "{i}b.grad += grad", 'dot_reversed'),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad -= x.data * grad\n{i}    x.grad -= w.data * grad\n"
                   "{i}b.grad -= grad", 'sign'),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}    x.grad += x.data * grad\n"
                   "{i}b.grad += grad", 'swapped'),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}    x.grad += w.data\n"
                   "{i}b.grad += grad", 'upstream'),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x * grad\n{i}    x.grad += w * grad\n"
                   "{i}b.grad += grad", 'grad_not_number'),
    # More slips a learner writes, named by a rule, or by the formula their numbers follow (fit.py)
    ('+', '__add__', '{x}.grad += grad\n' '{i}{y}.grad += grad\n' '{i}{x}.grad += grad', 'parent_twice'),
    ('+', '__add__', '{x}.grad += out.data * grad\n' '{i}{y}.grad += out.data * grad', 'holds_out'),
    ('+', '__add__', '{x}.grad = grad + {x}.grad\n' '{i}{y}.grad = grad', 'overwrite'),
    ('+', '__add__', '{x}.grad += {x}.data + grad\n' '{i}{y}.grad += {y}.data + grad', 'formula'),
    ('+', '__add__', '{x}.grad += -grad\n' '{i}{y}.grad += -grad', 'sign'),
    ('*', '__mul__', '{x}.grad += {y}.data * grad\n' '{i}{y}.grad += {y}.data * grad', 'swapped'),
    ('*', '__mul__', '{x}.grad += {y}.data\n' '{i}{y}.grad += {x}.data * grad', 'upstream'),
    ('*', '__mul__', '{x}.grad += {y}.data * {x}.data * grad\n' '{i}{y}.grad += {x}.data * {y}.data * grad',
     'formula'),
    ('*', '__mul__', '{x}.grad += {y}.data + grad\n' '{i}{y}.grad += {x}.data + grad', 'formula'),
    ('*', '__mul__', '{x}.grad += {y}.data * grad\n' '{i}{y}.grad += {x}.data * grad\n'
                     '{i}{x}.grad += {y}.data * grad', 'parent_twice'),
    ('*', '__mul__', '{x}.grad += {y}.data ** 2 * grad\n' '{i}{y}.grad += {x}.data ** 2 * grad', 'formula'),
    ('**', '_power', '{x}.grad += (y - 1) * {x}.data ** y * grad\n' '{i}if isinstance({y}, Value):\n'
                      '{i}    {y}.grad += data * math.log({x}.data) * grad', 'formula'),
    ('**', '_power', '{x}.grad += y * {x}.data ** (y + 1) * grad\n' '{i}if isinstance({y}, Value):\n'
                      '{i}    {y}.grad += data * math.log({x}.data) * grad', 'sign'),
    ('**', '_power', '{x}.grad += y * {x}.data * grad\n' '{i}if isinstance({y}, Value):\n'
                      '{i}    {y}.grad += data * math.log({x}.data) * grad', 'formula'),
    ('**', '_power', '{x}.grad += 2 * {x}.data * grad\n' '{i}if isinstance({y}, Value):\n'
                      '{i}    {y}.grad += data * math.log({x}.data) * grad', 'formula'),
    ('**', '_power', '{x}.grad += y * {x}.data ** (y - 1) * grad\n' '{i}if isinstance({y}, Value):\n'
                      '{i}    {y}.grad += data * math.log({y}.data) * grad', 'formula'),
    ('**', '_power', '{x}.grad += y * {x}.data ** (y - 1) * grad\n' '{i}if isinstance({y}, Value):\n'
                      '{i}    {y}.grad -= data * math.log({x}.data) * grad', 'sign'),
    ('/', '__truediv__', '{x}.grad += grad / {y}.data\n' '{i}{y}.grad += grad * {x}.data / {y}.data ** 2', 'sign'),
    ('/', '__truediv__', '{x}.grad += grad / {y}.data\n' '{i}{y}.grad -= grad / {y}.data', 'factor_dropped'),
    ('/', '__truediv__', '{x}.grad += grad * {y}.data\n' '{i}{y}.grad -= grad * {x}.data', 'formula'),
    ('/', '__truediv__', '{x}.grad += 1 / {y}.data * grad\n' '{i}{y}.grad -= {x}.data / {y}.data ** 2', 'upstream'),
    ('/', '__truediv__', '{x}.grad += grad / {y}.data\n' '{i}{y}.grad -= grad * {x}.data ** 2 / {y}.data', 'formula'),
    ('/', '__truediv__', '{x}.grad -= grad / {y}.data ** 2\n' '{i}{y}.grad -= grad * {x}.data / {y}.data ** 2',
     'formula'),
    ('exp', 'exp', '{x}.grad += math.exp({x}.data) * {x}.data * grad', 'factor_added'),
    ('exp', 'exp', '{x}.grad += e + grad', 'formula'),
    ('exp', 'exp', '{x}.grad += math.log(e) * grad', 'at_input'),
    ('tanh', 'tanh', '{x}.grad += (1 - t) ** 2 * grad', 'formula'),
    ('tanh', 'tanh', '{x}.grad += (1 - t ** 2) * grad * t', 'formula'),
    ('tanh', 'tanh', '{x}.grad += 2 * t * grad', 'formula'),
    ('tanh', 'tanh', '{x}.grad += -2 * t * (1 - t ** 2) * grad', 'formula'),
    ('tanh', 'tanh', '{x}.grad += (t ** 2) * grad', 'formula'),
    ('tanh', 'tanh', '{x}.grad += 1 / math.cosh({x}.data) * grad', 'formula'),
    ('log', 'log', '{x}.grad += grad / (x * math.log(10))', 'formula'),
    ('log', 'log', '{x}.grad += 1 / (x * grad)', 'formula'),
    ('log', 'log', '{x}.grad += grad / (1 + x)', 'formula'),
    ('log', 'log', '{x}.grad += grad * math.exp(x)', 'formula'),
    ('relu', 'relu', '{x}.grad += grad if {x}.data > 0 else -grad', 'formula'),
    ('relu', 'relu', '{x}.grad = grad if {x}.data > 0 else 0', 'overwrite'),
    ('relu', 'relu', '{x}.grad += 0 if {x}.data > 0 else grad', 'relu_inverted'),
    ('relu', 'relu', '{x}.grad += grad * ({x}.data != 0)', 'relu_ungated'),
    ('sigmoid', 'sigmoid', '{x}.grad += s * (1 - s) * s * grad', 'formula'),
    ('sigmoid', 'sigmoid', '{x}.grad += (1 - s) * grad', 'factor_dropped'),
    ('sigmoid', 'sigmoid', '{x}.grad += math.exp(-{x}.data) * grad', 'formula'),
    ('sigmoid', 'sigmoid', '{x}.grad += s ** 2 * grad', 'formula'),
    ('sigmoid', 'sigmoid', '{x}.grad += s * (1 - s) * {x}.data * grad', 'factor_added'),
    ('dot', 'dot', 'for w, x in zip(ws, xs):\n' '{i}    w.grad += x.data * grad\n'
                   '{i}    x.grad += w.data * grad\n' '{i}b.grad += len(ws) * grad', 'parent_twice'),
    ('dot', 'dot', 'for w, x in zip(ws, xs):\n' '{i}    w.grad = x.data * grad\n'
                   '{i}    x.grad = w.data * grad\n' '{i}b.grad += grad', 'overwrite'),
    ('dot', 'dot', 'for w, x in zip(ws, xs):\n' '{i}    w.grad += x.data * grad\n'
                   '{i}    x.grad += w.data * grad\n' '{i}    b.grad += grad', 'parent_twice'),
    ('dot', 'dot', 'for w, x in zip(ws, xs):\n' '{i}    w.grad += w.data * x.data * grad\n'
                   '{i}    x.grad += w.data * grad\n' '{i}b.grad += grad', 'factor_added'),
    ('dot', 'dot', 'for w, x in zip(ws, xs):\n' '{i}    w.grad += grad\n' '{i}    x.grad += grad\n'
                   '{i}b.grad += grad', 'factor_dropped'),
    ('dot', 'dot', 'for w, x in zip(ws[1:], xs[1:]):\n' '{i}    w.grad += x.data * grad\n'
                   '{i}    x.grad += w.data * grad\n' '{i}b.grad += grad', 'formula'),
    # the sort (wrong in its idea)
    ('sort', '_topological_order', "order, stack = [], [(self, False)]\n{i}while stack:\n"
                                   "{i}    node, placed = stack.pop()\n"
                                   "{i}    if placed:\n{i}        order.append(node)\n{i}    elif node._prev:\n"
                                   "{i}        stack.append((node, True))\n"
                                   "{i}        stack.extend((p, False) for p in node._prev)\n{i}return order",
     'sort_duplicate'),
    ('sort', '_topological_order', "order, visited, stack = [], set(), [(self, False)]\n{i}while stack:\n"
                                   "{i}    node, placed = stack.pop()\n"
                                   "{i}    if placed:\n{i}        order.append(node)\n"
                                   "{i}    elif node not in visited and node._prev:\n{i}        visited.add(node)\n"
                                   "{i}        stack.append((node, True))\n"
                                   "{i}        stack.append((node._prev[0], False))\n"
                                   "{i}return order", 'sort_missing'),
    ('sort', '_topological_order', "order, visited, stack = [], set(), [self]\n{i}while stack:\n"
                                   "{i}    node = stack.pop()\n"
                                   "{i}    if node not in visited and node._prev:\n{i}        visited.add(node)\n"
                                   "{i}        order.append(node)\n{i}        stack.extend(node._prev)\n"
                                   "{i}return order[::-1]", 'sort_order'),
    ('sort', '_topological_order', "order, stack = [], [self]\n{i}while stack:\n{i}    node = stack[-1]\n"
                                   "{i}    order.append(node)\n{i}return order", 'timeout'),
    ('sort', '_topological_order', "return set(v for v in [self] if v._prev)", 'sort_not_list'),
    ('sort', '_topological_order', "order, visited, stack = [], set(), [(self, False)]\n{i}while stack:\n"
                                   "{i}    node, placed = stack.pop()\n{i}    if placed:\n"
                                   "{i}        order.append(Value(node.data))\n"
                                   "{i}    elif node not in visited and node._prev:\n{i}        visited.add(node)\n"
                                   "{i}        stack.append((node, True))\n"
                                   "{i}        stack.extend((p, False) for p in node._prev)\n{i}return order",
     'sort_foreign'),  # copies of the nodes
    ('sort', '_topological_order', "order, visited, stack = [], set(), [(self, False)]\n{i}while stack:\n"
                                   "{i}    node, placed = stack.pop()\n"
                                   "{i}    if placed:\n{i}        order.append(node)\n"
                                   "{i}    elif node not in visited and node._prev:\n{i}        visited.add(node)\n"
                                   "{i}        stack.append((node, True))\n"
                                   "{i}        stack.extend((p, False) for p in node._prev)\n"
                                   "{i}return order[:-1]", 'sort_missing_root'),
    # backward() (wrong in its idea)
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in order:\n{i}    node._grad_fn(node.grad)",
     'backward_not_reversed'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in reversed(order):\n{i}    node._grad_fn(1.0)",
     'backward_unit_grad'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}for node in reversed(order):\n{i}    node._grad_fn(node.grad)", 'backward_no_seed'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in reversed(order):\n{i}    node._backward(node.grad)",
     'backward_extra_grad'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in reversed(order):\n{i}    node._grad_fn(node.grad)\n"
                             "{i}    node._grad_fn(node.grad)", 'backward_twice'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}self._grad_fn(self.grad)", 'backward_not_reversed'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}for node in reversed(order):\n{i}    node._grad_fn(node.grad)\n{i}self.grad = 1.0",
     'backward_not_called'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in reversed(order):\n{i}    node._backward",
     'backward_not_called'),
    # the lecture's sort without its visited set: a node used twice runs its backward twice
    ('backward', 'backward', "order = []\n{i}def build(v):\n{i}    for p in v._prev:\n{i}        build(p)\n"
                             "{i}    if v._prev:\n{i}        order.append(v)\n{i}build(self)\n"
                             "{i}for node in order:\n{i}    node.grad = 0.0\n{i}self.grad += 1.0\n"
                             "{i}for node in reversed(order):\n{i}    node._backward()", 'backward_twice'),
]

# Right in the idea, but a rule of the library's (stated in the task) not met: graded 'correct', each rule named.
# (exercise, method, body, the rules it misses, in the order the task states them)
LECTURE_BUILD_TOPO = ("topo, visited = [], set()\n{i}def build_topo(v):\n{i}    if v not in visited:\n"
                      "{i}        visited.add(v)\n{i}        for child in v._prev:\n{i}            build_topo(child)\n"
                      "{i}        topo.append(v)\n{i}build_topo(self)\n")
RULES_LEFT = [
    ('sort', '_topological_order', LECTURE_BUILD_TOPO + "{i}return topo", ['sort_recursion', 'sort_leaves']),
    ('sort', '_topological_order', LECTURE_BUILD_TOPO + "{i}return [v for v in topo if v._prev]", ['sort_recursion']),
    ('sort', '_topological_order', "order, visited, stack = [], set(), [(self, False)]\n{i}while stack:\n"
                                   "{i}    node, placed = stack.pop()\n{i}    if placed:\n"
                                   "{i}        order.append(node)\n{i}    elif node not in visited:\n"
                                   "{i}        visited.add(node)\n"
                                   "{i}        stack.append((node, True))\n"
                                   "{i}        stack.extend((p, False) for p in node._prev)\n{i}return order",
     ['sort_leaves']),
    # the lecture's backward(), as written in the lecture
    ('backward', 'backward', LECTURE_BUILD_TOPO + "{i}self.grad = 1.0\n{i}for node in reversed(topo):\n"
                                                  "{i}    node._backward()",
     ['backward_no_zeroing', 'backward_seed_overwrites', 'backward_recursion']),
    ('backward', 'backward', "order = self._topological_order()\n{i}self.grad = 1.0\n{i}for node in reversed(order):\n"
                             "{i}    node._grad_fn(node.grad)", ['backward_no_zeroing', 'backward_seed_overwrites']),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad = 1.0\n{i}for node in reversed(order):\n{i}    node._grad_fn(node.grad)",
     ['backward_seed_overwrites']),
    # zeroing the leaves too: one backward() is right, a second does not accumulate
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}    for p in node._prev:\n{i}        p.grad = 0.0\n{i}self.grad += 1.0\n"
                             "{i}for node in reversed(order):\n{i}    node._grad_fn(node.grad)",
     ['backward_no_zeroing']),
]

# Right, though written otherwise than the library: each must be graded done. (exercise, method, body)
RIGHT = [
    ('+', '__add__', "{y}.grad += grad\n{i}{x}.grad += grad"),
    ('+', '__add__', "{x}.grad += 1.0 * grad\n{i}{y}.grad += grad * 1"),
    ('+', '__add__', "{x}.grad = {x}.grad + grad\n{i}{y}.grad = {y}.grad + grad"),
    ('*', '__mul__', "{x}.grad += grad * {y}.data\n{i}{y}.grad += grad * {x}.data"),
    ('*', '__mul__', "{y}.grad += {x}.data * grad\n{i}{x}.grad += {y}.data * grad"),
    ('**', '_power', BASE + EXPONENT),
    ('**', '_power', "{x}.grad += grad * y * {x}.data ** (y - 1)\n{i}if isinstance({y}, Value):\n"
                      "{i}    {y}.grad += grad * {x}.data ** {y}.data * math.log({x}.data)"),
    # the textbook -x/y**2: y**2 underflows to 0 for y = 1e-170, ZeroDivisionError there: accepted with a note
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= {x}.data / {y}.data ** 2 * grad"),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad += -" + Q + " / {y}.data * grad"),
    # y**-2 overflows for y = 1e-170 (OverflowError): accepted with a note
    ('/', '__truediv__', "{x}.grad += grad * {y}.data ** -1\n{i}{y}.grad -= grad * {x}.data * {y}.data ** -2"),
    ('/', '__truediv__', "{x}.grad += (1 / {y}.data) * grad\n{i}{y}.grad += -" + Q + " / {y}.data * grad"),
    ('exp', 'exp', "{x}.grad += math.exp({x}.data) * grad"),
    ('exp', 'exp', "{x}.grad += grad * e"),
    ('tanh', 'tanh', "{x}.grad += (1 - t ** 2) * grad"),
    ('tanh', 'tanh', "{x}.grad += (1 - math.tanh({x}.data) ** 2) * grad"),
    # tanh recomputed from exp(2x), as the lecture's forward pass: exp(800) overflows at x = 400 (OverflowError):
    # accepted with a note; so is 1/cosh(x)**2, whose square overflows there
    ('tanh', 'tanh', "t2 = (math.exp(2 * {x}.data) - 1) / (math.exp(2 * {x}.data) + 1)\n"
                     "{i}{x}.grad += (1 - t2 ** 2) * grad"),
    ('tanh', 'tanh', "{x}.grad += grad / math.cosh({x}.data) ** 2"),
    ('log', 'log', "{x}.grad += grad * {x}.data ** -1"),
    ('log', 'log', "{x}.grad += grad / {x}.data"),
    ('relu', 'relu', "{x}.grad += ({x}.data > 0) * grad"),
    ('relu', 'relu', "if {x}.data > 0:\n{i}    {x}.grad += grad"),
    ('sigmoid', 'sigmoid', "{x}.grad += (s - s * s) * grad"),
    ('sigmoid', 'sigmoid', "sig = 1 / (1 + math.exp(-{x}.data))\n{i}{x}.grad += sig * (1 - sig) * grad"),
    ('dot', 'dot', "for i in range(len(ws)):\n{i}    ws[i].grad += xs[i].data * grad\n"
                   "{i}    xs[i].grad += ws[i].data * grad\n{i}b.grad += grad"),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    x.grad += grad * w.data\n{i}    w.grad += grad * x.data\n"
                   "{i}b.grad += 1.0 * grad"),
    # the sort with a marker on the stack, and with (node, placed) pairs
    ('sort', '_topological_order', "topo, visited, stack = [], set(), [self]\n{i}while stack:\n"
                                   "{i}    node = stack.pop()\n{i}    if node is None:\n"
                                   "{i}        topo.append(stack.pop())\n"
                                   "{i}    elif node._prev and node not in visited:\n{i}        visited.add(node)\n"
                                   "{i}        stack += [node, None, *node._prev]\n{i}return topo"),
    # the lecture's o._backward(), through the workspace's property: it passes node.grad itself
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in reversed(order):\n{i}    node._backward()"),
]

# Ops rewritten whole, as the lecture writes them: a closure without arguments reading out.grad, assigned to
# out._backward (the workspace's property wraps it). (exercise, method, its new text): graded done.
LECTURE_STYLE = [
    ('*', '__mul__', """\
    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out
"""),
    ('tanh', 'tanh', """\
    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t**2) * out.grad
        out._backward = _backward
        return out
"""),
    ('exp', 'exp', """\
    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out
"""),
]

# The lecture's division: self * other**-1, right in form, overflowing for a divisor of 1e-170.
LECTURE_DIVISION = """\
    def __truediv__(self, other):
        return self * other**-1
"""

# the neuron, in nn.py (Value is the library's): (method, body, diagnosis).
NEURON_MUTANTS = [
    ('parameters', "return self.w", 'params_no_bias'),
    ('parameters', "return iter(self.w + [self.b])", 'params_not_list'),
    ('parameters', "return self.w + [self.b, self.b]", 'params_twice'),
    ('parameters', "return self.w[:2] + [self.b]", 'params_no_weights'),
    ('parameters', "return self.w + [self.b, Value(1.0)]", 'params_extra'),
    ('parameters', "return [self.w, self.b]", 'params_nested'),
    ('__call__', "act = sum((wi * xi for wi, xi in zip(self.w, x)), Value(0.0))\n"
                 "{i}return act if self.activation == 'linear' else getattr(act, self.activation)()", 'neuron_no_bias'),
    ('__call__', "return Value.dot(self.w, x, self.b) * 2", 'neuron_forward'),
    ('__call__', "act = sum(w.data * xi for w, xi in zip(self.w, x)) + self.b.data\n"
                 "{i}return Value(act) if self.activation == 'linear' else Value(act).relu()", 'neuron_detached'),
]

# A neuron whose forward value differs, named by the rule that gives its value, at the line that holds it:
# (method, body, diagnosis, the line planted)
ACT = "{i}return act if self.activation == 'linear' else getattr(act, self.activation)()"
NEURON_LINE_SLIPS = [
    ('__call__', "act = Value(0.0)\n{i}for wi, xi in zip(self.w, x):\n{i}    act = act + wi * xi + self.b\n" + ACT,
     'neuron_bias_per_input', "act = act + wi * xi + self.b"),
    ('__call__', "act = sum((wi * wi for wi, xi in zip(self.w, x)), self.b)\n" + ACT, 'neuron_squared',
     "act = sum((wi * wi for wi, xi in zip(self.w, x)), self.b)"),
    ('__call__', "act = self.b\n{i}for wi, xi in zip(self.w, x):\n{i}    act = act + xi * xi\n{i}return act.tanh()",
     'neuron_squared', "act = act + xi * xi"),
]

# The lecture's neuron and a neuron without the library's rules: right in the idea, graded 'correct'.
NEURON_RULES_LEFT = [
    ('__call__', "act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)\n{i}out = act.tanh()\n{i}return out",
     ['neuron_activation', 'neuron_single_value', 'neuron_length']),
    ('__call__', "act = self.b\n{i}for wi, xi in zip(self.w, x):\n{i}    act = act + wi * xi\n{i}return act.tanh()",
     ['neuron_activation', 'neuron_single_value', 'neuron_length']),
    # Value.dot refuses inputs of the wrong number itself
    ('__call__', "return Value.dot(self.w, x, self.b).relu()", ['neuron_activation', 'neuron_single_value']),
    ('__call__', "act = Value.dot(self.w, x, self.b)\n"
                 "{i}return act if self.activation == 'linear' else getattr(act, self.activation)()",
     ['neuron_single_value']),
    ('__call__', "x = [x] if isinstance(x, Value) else x\n{i}act = sum((w * xi for w, xi in zip(self.w, x)), self.b)\n"
                 "{i}return act if self.activation == 'linear' else getattr(act, self.activation)()",
     ['neuron_length']),
]


# Graph-level slips: the output put in the graph wrong, planted in the library's engine (or in the lecture's way
# of writing an op), or a slip in one branch of a closure; each must be named and reported at the line planted.
# (exercise, method, the text in the method, what it becomes, the diagnosis)
GRAPH_EDITS = [
    ('*', '__mul__', "(self, other), '*'", "(self,), '*'", 'not_in_graph'),  # a parent dropped
    ('+', '__add__', "(self, other), '+'", "(other,), '+'", 'not_in_graph'),
    ('tanh', 'tanh', "(self,), 'tanh'", "(), 'tanh'", 'not_in_graph'),  # no parents at all: an empty _prev
    ('dot', 'dot', "(*ws, *xs, b)", "(*ws, *xs)", 'not_in_graph'),  # the bias left out
    ('**', '_power', "(self, other) if two", "(self,) if two", 'not_in_graph'),  # in a branch of its own
    ('*', '__mul__', "out._backward = _backward\n        return out", "return out", 'closure_not_attached'),
    ('**', '__pow__', "out._backward = _backward\n        return out", "return out", 'closure_not_attached'),
    ('*', '__mul__', "(self, other), '*')", "(self, other), '+')", 'op_label'),
    ('exp', 'exp', "(self,), 'exp')", "(self,), 'Exp')", 'op_label'),
]

# Value(data, children, op) itself keeping less than it is given: every op's output misses it; named at the line
# of __init__. (what __init__ holds, what it becomes, the diagnosis, what the line reported holds)
CONSTRUCTOR_EDITS = [
    ("self._prev = tuple(_children) if", "self._prev = () if", 'constructor_prev', "self._prev = () if"),
    ("0.0, _op, label", "0.0, '', label", 'constructor_op', "self._op"),
]

# The same in an op written the lecture's way: (exercise, method, the text in LECTURE_STYLE's, what it becomes,
# the diagnosis, the line reported: where the output is made, or returned without its closure).
LECTURE_GRAPH_EDITS = [
    ('*', '__mul__', "        out._backward = _backward\n        return out\n", "        return out  # unattached\n",
     'closure_not_attached', "return out  # unattached"),
    ('*', '__mul__', "(self, other), '*'", "(self,), '*'", 'not_in_graph', "(self,), '*'"),
    ('tanh', 'tanh', "(self,), 'tanh'", "(self,), 'TANH'", 'op_label', "(self,), 'TANH'"),
    ('*', '__mul__', "        out._backward = _backward\n", "        other._backward = _backward\n",
     'closure_on_operand', "other._backward = _backward"),  # attached to the wrong node
]

# A slip in one branch of a closure written with two (x ** y's _power: an exponent that is a Value, or a number),
# in dot, and in backward(): (exercise, method, body, diagnosis, the text of the line planted).
POW_BRANCHES = ("if isinstance({y}, Value):\n{i}    {x}.grad += %s * grad\n"
                "{i}    {y}.grad += data * math.log(x) * grad\n{i}else:\n{i}    {x}.grad += %s * grad")
POW_SLIP = "self.grad += y * x ** y * grad"
LINE_SLIPS = [
    ('**', '_power', POW_BRANCHES % ("y * x ** (y - 1)", "y * x ** y"), 'exponent_off', POW_SLIP),  # the number's
    ('**', '_power', POW_BRANCHES % ("y * x ** y", "y * x ** (y - 1)"), 'exponent_off', POW_SLIP),  # the Value's
    ('**', '_power', "{x}.grad += y * x ** (y - 1) * grad\n{i}if isinstance({y}, Value):\n"
                     "{i}    {y}.grad += math.log(x) * grad", 'pow_exponent_no_power',
     "other.grad += math.log(x) * grad"),
    ('dot', 'dot', "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}    x.grad += x.data * grad\n"
                   "{i}b.grad += grad", 'swapped', "x.grad += x.data * grad"),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for n in order:\n{i}    n._grad_fn(n.grad)",
     'backward_not_reversed', "for n in order:"),
    # each node zeroed just after it passes its gradient on: the nodes between lose theirs
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for n in reversed(order):\n{i}    n._backward()\n"
                             "{i}    n.grad = 0",
     'backward_zeroed_after', "n.grad = 0"),
    # the nodes zeroed inside the loop that runs their backwards: the seed and every gradient received wiped
    ('backward', 'backward', "order = self._topological_order()\n{i}self.grad += 1.0\n{i}for n in reversed(order):\n"
                             "{i}    n.grad = 0\n{i}    n._grad_fn(n.grad)", 'backward_zeroed_in_loop', "n.grad = 0"),
    # a slip split over two lines: a local, then the gradient made from it; at the line that makes the wrong value
    ('tanh', 'tanh', "local = 1 - {x}.data**2\n{i}{x}.grad += local * grad", 'at_input', "local = 1 - self.data**2"),
    ('sigmoid', 'sigmoid', "local = s * (1 + s)\n{i}{x}.grad += local * grad", 'sign', "local = s * (1 + s)"),
    # (the local reads an input as it is: the line that makes the gradient from it)
    ('/', '__truediv__', "d = {y}.data\n{i}{x}.grad += d * grad\n{i}{y}.grad -= grad * {x}.data / {y}.data**2",
     'mul_for_div', "self.grad += d * grad"),
    ('*', '__mul__', "d = {x}.data\n{i}{x}.grad += d * grad\n{i}{y}.grad += {x}.data * grad", 'swapped',
     "self.grad += d * grad"),
    ('sigmoid', 'sigmoid', "s2 = 1 / (1 + math.exp(-s))\n{i}{x}.grad += s2 * (1 - s2) * grad", 'applied_twice',
     "s2 = 1 / (1 + math.exp(-s))"),
    # dot's parents reached by index: the line that gives x its gradient, not the loop's first
    ('dot', 'dot', "for i in range(len(ws)):\n{i}    ws[i].grad += xs[i].data * grad\n"
                   "{i}    xs[i].grad += xs[i].data * grad\n{i}b.grad += grad", 'swapped',
     "xs[i].grad += xs[i].data * grad"),
    # in a + a, the second line sets the gradient the first gave it again, where it must add to it
    ('+', '__add__', "{x}.grad += grad\n{i}{y}.grad = grad", 'overwrite', "other.grad = grad"),
]


# A slip the rules name from the library's form of the line, said with the learner's own line, at that line:
# (exercise, method, body, diagnosis, the line planted (the last of that text), what the diagnosis quotes).
DIV_SIGN = "other.grad += self.data / other.data**2 * grad"
POW_SIGN = "self.grad -= y * x**(y - 1) * grad"
IN_THEIR_WORDS = [
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}" + DIV_SIGN, 'sign', DIV_SIGN,
     f"a sign flipped: `{DIV_SIGN}`"),
    ('+', '__add__', "{x}.grad += grad\n{i}{x}.grad += grad", 'wrong_parent', "self.grad += grad",
     "`self.grad += grad` should add to `other.grad`"),
    # x ** k, k a number: one parent, so not 'on every parent'
    ('**', '_power', POW_SIGN + "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad -= data * math.log(x) * grad",
     'sign', POW_SIGN, f"a sign flipped: `{POW_SIGN}`"),
]
# The lecture's * with the operands swapped in one line, out.grad as the lecture writes it.
LECTURE_SWAPPED = "self.grad += self.data * out.grad"


# The ops the workspace gives, each planted with a slip in a solved engine: the whole engine (whole_engine.py)
# must name the form that differs by the form whose numbers it gives, at the line planted. (method, its new text,
# or for a method made another `name = other`, what the report says, the line planted)
LECTURE_SUB = """\
    def __sub__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data - other.data, (self, other), '-')

        def _backward():
            self.grad += out.grad
            other.grad %s out.grad
        out._backward = _backward
        return out
"""
GIVEN_OP_SLIPS = [
    ('__neg__', "    def __neg__(self):\n        return self * 1.0\n", "`-x` gives the value of `x`",
     "return self * 1.0"),
    ('__sub__', "    def __sub__(self, other):\n        return self + other\n", "`x - y` gives the value of `x + y`",
     "return self + other"),
    ('__rsub__', "    def __rsub__(self, other):\n        return self - Value(other)\n",
     "`2 - x` gives the value of `x - 2`", "return self - Value(other)"),
    ('__rtruediv__', "    def __rtruediv__(self, other):\n        return self / Value(other)\n",
     "`2 / x` gives the value of `x / 2`", "return self / Value(other)"),
    ('__rpow__', "    def __rpow__(self, other):\n        return self ** Value(other)\n",
     "`2 ** x` gives the value of `x ** 2`", "return self ** Value(other)"),
    ('__rmul__', "__add__", "`2 * x` gives the value of `2 + x`", "__rmul__ = __add__"),
    ('__sub__', LECTURE_SUB % '+=', "`x - y` gives the right value, but the gradients of `x + y`",
     "other.grad += out.grad"),
]
# The same ops written otherwise, rightly: the whole engine is done. (method, its new text)
GIVEN_OPS_RIGHT = [
    ('__sub__', "    def __sub__(self, other):\n        return self + (-other)\n"),  # the lecture's
    ('__sub__', LECTURE_SUB % '-='),  # - as an op of its own
    ('__neg__', "    def __neg__(self):\n        return self * -1\n"),
    ('__rtruediv__', "    def __rtruediv__(self, other):\n        return other * self**-1\n"),
]


def given_op_engine(method, text):
    """The library's engine with one given op replaced whole, or (text a method's name) made that method."""
    if text.startswith('__'):
        source, _ = library_source('micrograd.engine')
        source = re.sub(rf'(?m)^(\s*){method} = \w+', rf'\g<1>{method} = {text}', source, count=1)
        return load(source, 'given', '<given>'), source
    source = rewritten_source(method, text)
    return load(source, 'given', '<given>'), source


def edited_engine(method, old, new, source=None):
    """The library's engine (or source) with text old in one method of Value made new, and the line it is on."""
    source = source if source is not None else library_source('micrograd.engine')[0]
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == 'Value')
    node = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method)
    lines = source.splitlines(keepends=True)
    start, end = sum(map(len, lines[:node.lineno - 1])), sum(map(len, lines[:node.end_lineno]))
    at = source.index(old, start, end)
    text = source[:at] + new + source[at + len(old):]
    return load(text, 'edited', '<edited>'), text[:at].count('\n') + 1


def line_of(source_text, needle):
    """The line (from 1) of the one line holding needle."""
    found = [n for n, line in enumerate(source_text.splitlines(), 1) if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


def mutant_source(exercise, method, body):
    """The library's engine's source with the body of one blank (exercise's, in method) replaced."""
    source, _ = library_source('micrograd.engine')
    blank = next(b for b in find_blanks(source) if b.exercise.name == exercise and b.method == method)
    names = {'y': 'other'} | dict(zip('xy', blank.parents))  # (x ** k's closure gives other, a number, nothing)
    return splice(source, {blank: body.format(i=blank.indent, **names)})


def mutant_engine(exercise, method, body):
    """The library's engine with the body of one blank (exercise's, in method) replaced."""
    return load(mutant_source(exercise, method, body), 'mutant', '<mutant>')


def rewritten_engine(method, text):
    """The library's engine with one method of Value replaced whole (say, written as the lecture writes it)."""
    return load(rewritten_source(method, text), 'rewritten', '<rewritten>')


def rewritten_source(method, text):
    """The library's engine's source with one method of Value replaced whole."""
    source, _ = library_source('micrograd.engine')
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == 'Value')
    node = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method)
    lines = source.splitlines(keepends=True)
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return ''.join(lines[:first - 1]) + text + ''.join(lines[node.end_lineno:])


def mutant_nn(method, body):
    """The library's nn.py with the body of one of the neuron's methods replaced."""
    source, _ = library_source('micrograd.nn')
    blank = next(b for b in find_blanks(source, 'nn') if b.method == method)
    return load(splice(source, {blank: body.format(i=blank.indent)}), 'mutant_nn', '<mutant_nn>')
