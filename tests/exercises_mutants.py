"""Engines with one classic mistake each, written the way a learner would write it, for test_exercises.

A mutant is (exercise, the method whose blank it fills, the body, the diagnosis the checker must give).
Bodies use {x} and {y} for the names the backward binds its parents to and {i} for the indentation of
every line after the first; everything else in the engine is the library's own.
"""
import math

MUTANTS = [
    # 1: x + y and x + k
    ('+', '__add__', "{x}.grad = grad\n{i}{y}.grad = grad", 'overwrite'),
    ('+', '__add__', "{x}.grad += 1.0\n{i}{y}.grad += 1.0", 'upstream'),
    ('+', '__add__', "{x}.grad += grad", 'one_parent'),
    ('+', '__add__', "{x}.grad += {y}.data * grad\n{i}{y}.grad += {x}.data * grad", 'product_rule_in_add'),
    ('+', '_add_number', "{x}.grad -= grad", 'sign'),
    ('+', '_add_number', "{x}.grad = grad", 'overwrite'),
    ('+', '_add_number', "pass", 'nothing'),
    # 2: x * y and x * k
    ('*', '__mul__', "{x}.grad = {x}.grad + {x}.data * grad\n{i}{y}.grad = {y}.grad + {y}.data * grad", 'swapped'),
    ('*', '__mul__', "{x}.grad = {y}.data * grad\n{i}{y}.grad = {x}.data * grad", 'overwrite'),
    ('*', '__mul__', "{x}.grad += {y}.data\n{i}{y}.grad += {x}.data", 'upstream'),
    ('*', '__mul__', "{x}.grad += grad\n{i}{y}.grad += grad", 'sum_rule_in_mul'),
    ('*', '_mul_number', "{x}.grad -= k * grad", 'sign'),
    # 3: x ** k and x ** y
    ('**', '__pow__', "{x}.grad += k * {x}.data ** k * grad", 'pow_no_lowering'),
    ('**', '__pow__', "{x}.grad += {x}.data ** (k - 1) * grad", 'pow_no_factor'),
    ('**', '__pow__', "{x}.grad += k * abs({x}.data) ** (k - 1) * grad", 'pow_abs'),
    ('**', '__pow__', "{x}.grad += k * math.exp((k - 1) * math.log({x}.data)) * grad", 'raises'),
    ('**', '__pow__', "{x}.grad += k * {x}.data ** (k - 1)", 'upstream'),
    ('**', '_pow_value', "{x}.grad += {y}.data * {x}.data ** ({y}.data - 1) * grad", 'pow_exponent'),
    # 4: x / y and x / k
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad += grad * q / {y}.data", 'div_sign'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= grad / {y}.data ** 2", 'div_dy_no_x'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= {x}.data / {y}.data * grad", 'div_dy_one_y'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data\n{i}{y}.grad -= q / {y}.data ** 2 * grad", 'div_at_output'),
    ('/', '__truediv__', "{x}.grad += {y}.data * grad\n{i}{y}.grad += {x}.data * grad", 'div_as_mul'),
    ('/', '__truediv__', "{x}.grad = grad / {y}.data\n{i}{y}.grad = -grad * q / {y}.data", 'overwrite'),
    ('/', '__truediv__', "{x}.grad += 1.0 / {y}.data\n{i}{y}.grad -= q / {y}.data", 'upstream'),
    ('/', '__truediv__', "{x}.grad -= grad / {y}.data\n{i}{y}.grad += q / {y}.data * grad", 'sign'),
    ('/', '__truediv__', "{x}.grad += grad / {y}.data", 'one_parent'),
    ('/', '_div_number', "{x}.grad += k * grad", 'div_as_mul'),
    ('/', '_div_number', "{x}.grad -= grad / k", 'sign'),
    ('/', '_div_number', "{x}.grad = grad / k", 'overwrite'),
    ('/', '_div_number', "{x}.grad += 1.0 / k", 'upstream'),
    ('/', '_div_number', "pass", 'nothing'),
    # 5-9: the functions of one input
    ('exp', 'exp', "{x}.grad += {x}.data * grad", 'exp_at_input'),
    ('exp', 'exp', "{x}.grad += e", 'upstream'),
    ('exp', 'exp', "{x}.grad += math.exp(e) * grad", 'exp_at_output'),
    ('tanh', 'tanh', "{x}.grad += (1 - {x}.data ** 2) * grad", 'tanh_at_input'),
    ('tanh', 'tanh', "{x}.grad = (1 - t ** 2) * grad", 'overwrite'),
    ('tanh', 'tanh', "{x}.grad += (t ** 2 - 1) * grad", 'sign'),
    ('tanh', 'tanh', "{x}.grad += 1 - t * t", 'upstream'),
    ('tanh', 'tanh', "{x}.grad += (1 - math.tanh(t) ** 2) * grad", 'tanh_at_output'),
    ('tanh', 'tanh', "{x}.grad += (1 - t) * grad", 'tanh_no_square'),
    ('log', 'log', "{x}.grad += grad / math.log({x}.data)", 'log_at_output'),
    ('log', 'log', "{x}.grad += -grad / {x}.data", 'sign'),
    ('log', 'log', "{x}.grad += grad / {x}.data ** 2", 'log_squared'),
    ('relu', 'relu', "{x}.grad += grad if {x}.data >= 0 else 0.0", 'relu_at_zero'),
    ('relu', 'relu', "{x}.grad += max(0.0, {x}.data) * grad", 'relu_value'),
    ('relu', 'relu', "{x}.grad += grad", 'relu_ungated'),
    ('sigmoid', 'sigmoid', "{x}.grad += {x}.data * (1 - {x}.data) * grad", 'sigmoid_at_input'),
    ('sigmoid', 'sigmoid', "{x}.grad += s * grad", 'sigmoid_half'),
    ('sigmoid', 'sigmoid', "{x}.grad += s * (1 - s)", 'upstream'),
    # 10: dot
    ('dot', 'dot', "for w, x in zip({x}[:n], {x}[n:]):\n{i}    w.grad += x.data * grad\n{i}    x.grad += w.data * grad",
     'dot_no_bias'),
    ('dot', 'dot', "for i in range(n):\n{i}    {x}[i].grad += {x}[i].data * grad\n"
                   "{i}    {x}[n + i].grad += {x}[n + i].data * grad\n"
                   "{i}if len({x}) > 2 * n:\n{i}    {x}[-1].grad += grad",
     'dot_swapped'),
    ('dot', 'dot', "for i in range(n):\n{i}    {x}[i].grad = {x}[n + i].data * grad\n"
                   "{i}    {x}[n + i].grad = {x}[i].data * grad\n{i}if len({x}) > 2 * n:\n{i}    {x}[-1].grad = grad",
     'overwrite'),
    # 11: the sort
    ('sort', '_topological_order', "order, visited = [], set()\n{i}def build(v):\n"
                                   "{i}    if v not in visited and v._prev:\n"
                                   "{i}        visited.add(v)\n{i}        for p in v._prev:\n{i}            build(p)\n"
                                   "{i}        order.append(v)\n{i}build(self)\n{i}return order", 'sort_recursion'),
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
    ('sort', '_topological_order', "order, visited, stack = [], set(), [(self, False)]\n{i}while stack:\n"
                                   "{i}    node, placed = stack.pop()\n"
                                   "{i}    if placed:\n{i}        order.append(node)\n"
                                   "{i}    elif node not in visited:\n{i}        visited.add(node)\n"
                                   "{i}        stack.append((node, True))\n"
                                   "{i}        stack.extend((p, False) for p in node._prev)\n{i}return order",
     'sort_leaves'),
    ('sort', '_topological_order', "order, stack = [], [self]\n{i}while stack:\n{i}    node = stack[-1]\n"
                                   "{i}    order.append(node)\n{i}return order", 'timeout'),
    # 12: backward()
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in order:\n{i}    node._backward(node.grad)",
     'backward_not_reversed'),
    ('backward', 'backward', "order = self._topological_order()\n{i}self.grad = 1.0\n{i}for node in reversed(order):\n"
                             "{i}    node._backward(node.grad)", 'backward_no_zeroing'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}    for p in node._prev:\n{i}        p.grad = 0.0\n{i}self.grad += 1.0\n"
                             "{i}for node in reversed(order):\n{i}    node._backward(node.grad)",
     'backward_zeroes_leaves'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}self.grad += 1.0\n{i}for node in reversed(order):\n{i}    node._backward(1.0)",
     'backward_unit_grad'),
    ('backward', 'backward', "order = self._topological_order()\n{i}for node in order:\n{i}    node.grad = 0.0\n"
                             "{i}for node in reversed(order):\n{i}    node._backward(node.grad)", 'backward_no_seed'),
]

# 13: the neuron, in nn.py (Value is the library's).
NEURON_MUTANTS = [
    ('parameters', "return self.w", 'params_no_bias'),
    ('parameters', "return iter(self.w + [self.b])", 'params_not_list'),
    ('parameters', "return self.w + [self.b, self.b]", 'params_twice'),
    ('__call__', "act = sum((wi * xi for wi, xi in zip(self.w, x)), Value(0.0))\n"
                 "{i}return act if self.activation == 'linear' else getattr(act, self.activation)()", 'neuron_no_bias'),
    ('__call__', "return Value.dot(self.w, x, self.b)", 'neuron_no_activation'),
    ('__call__', "return Value.dot(self.w, x, self.b).relu()", 'neuron_activation_when_linear'),
    ('__call__', "act = Value.dot(self.w, x, self.b)\n{i}return act if self.activation == 'linear' else act.relu()",
     'neuron_wrong_activation'),
    ('__call__', "act = sum(w.data * xi for w, xi in zip(self.w, x)) + self.b.data\n"
                 "{i}return Value(act) if self.activation == 'linear' else Value(act).relu()", 'neuron_detached'),
    ('__call__', "act = Value.dot(self.w, x, self.b)\n"
                 "{i}return act if self.activation == 'linear' else getattr(act, self.activation)()",
     'neuron_single_value'),
    ('__call__', "x = [x] if isinstance(x, Value) else x\n{i}act = sum((w * xi for w, xi in zip(self.w, x)), self.b)\n"
                 "{i}return act if self.activation == 'linear' else getattr(act, self.activation)()", 'neuron_length'),
]


class LectureValue:
    """The Value of Karpathy's micrograd lecture: _prev a set, _backward() reading out.grad, a recursive sort."""

    def __init__(self, data, _children=(), _op='', label=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __add__(self, other):
        other = other if isinstance(other, LectureValue) else LectureValue(other)
        out = LectureValue(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, LectureValue) else LectureValue(other)
        out = LectureValue(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = LectureValue(self.data**other, (self,), f'**{other}')

        def _backward():
            self.grad += other * self.data**(other - 1) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        x = self.data
        out = LectureValue(math.exp(x), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = LectureValue(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t**2) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = LectureValue(0 if self.data < 0 else self.data, (self,), 'ReLU')

        def _backward():
            self.grad += (out.data > 0) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1
        for v in reversed(topo):
            v._backward()

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other**-1

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
