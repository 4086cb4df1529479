"""The lecture's habits on our Value: every way the lecture and other people's code touch a node, each followed
by backward() twice (and by backward() of two roots), compared with the lecture's own Value class.

The ways (SCENARIOS): assign `_backward` on a leaf, on an op's output (a custom op written as the lecture writes
ops), on such an op made under `no_grad()`, wrap an op's `_backward` in another function, do it all in a
subclass's `__init__` (as the lecture's own __init__ does: `self._backward = lambda: None`, also in a subclass
whose __init__ is the lecture's and never calls ours). The reference is the
lecture's class, run as the lecture runs it: one backward() per freshly built graph, the leaves' gradients summed
over the calls (a leaf accumulates) and every other node's from the latest call that went through it. (Calling the
lecture's backward() twice on one graph would double its inner gradients: the bug our backward() fixes.)
"""
import asyncio
import copy
import threading
from collections.abc import Callable
from typing import Any

import pytest

from micrograd import Value, no_grad
from tests.support.lecture import LectureValue


def minus(V, a, b):
    """a - b, a custom op written the lecture's way (out = V(..., (a, b), '-'); out._backward = f)."""
    out = V(a.data - b.data, (a, b), '-')

    def _backward():
        a.grad += out.grad
        b.grad -= out.grad
    out._backward = _backward
    return out


def cube(V, a):
    out = V(a.data ** 3, (a,), 'cube')

    def _backward():
        a.grad += 3 * a.data ** 2 * out.grad
    out._backward = _backward
    return out


def subclass(V):
    """A subclass written the lecture's way: its __init__ takes its own arguments and sets _backward."""
    class Named(V):
        def __init__(self, data, _children=(), _op='', name=''):
            super().__init__(data, _children, _op)
            self.name = name
            self._backward = lambda: None
    return Named


def lecture_subclass(V):
    """A subclass whose __init__ is the lecture's own (it never calls ours) and whose * is written his way."""
    class Mine(V):
        __init__ = LectureValue.__init__  # sets _backward before _prev, and never calls V's

        def __mul__(self, other):
            other = other if isinstance(other, V) else Mine(other)
            out = Mine(self.data * other.data, (self, other), '*')

            def _backward():
                self.grad += other.data * out.grad
                other.grad += self.data * out.grad
            out._backward = _backward
            return out
    return Mine


# Each scenario builds its graph with the class V given (ours or the lecture's): (named nodes, roots, calls log).
# `ours` says whether no_grad() applies (the lecture has none: there the op's output is a number, a leaf).
def leaf_given_a_backward(V, ours):
    x, w = V(2.0), V(-3.0)
    x._backward = lambda: None  # as Karpathy's __init__ does, here by hand
    h = x * w
    y = h * x + x
    return {'x': x, 'w': w, 'h': h, 'y': y}, ['y', 'y'], []


def a_leaf_in_two_graphs(V, ours):
    x = V(2.0)
    x._backward = lambda: None
    a, b = x * 3, x * 5
    return {'x': x, 'a': a, 'b': b}, ['a', 'b'], []


def custom_op_output(V, ours):
    x, y = V(2.0), V(0.5)
    d = minus(V, x, y)
    c = cube(V, d)
    out = (c * x).tanh()
    return {'x': x, 'y': y, 'd': d, 'c': c, 'out': out}, ['out', 'out'], []


def custom_op_under_no_grad(V, ours):
    x, y = V(2.0), V(0.5)
    if ours:
        with no_grad():
            d = minus(V, x, y)
    else:
        d = V(x.data - y.data)  # what no_grad() makes of it: a number, a leaf
    out = d * x + y
    return {'x': x, 'y': y, 'd': d, 'out': out}, ['out', 'out'], []


def wrapped_backward(V, ours):
    calls = []
    x, y = V(2.0), V(-1.5)
    h = x * y
    old = h._backward
    h._backward = lambda: (calls.append('h'), old())
    d = minus(V, h, x)
    old_d = d._backward
    d._backward = lambda: (calls.append('d'), old_d())
    out = d * d
    return {'x': x, 'y': y, 'h': h, 'd': d, 'out': out}, ['out', 'out'], calls


def wrapped_twice(V, ours):
    calls = []
    x = V(3.0)
    h = x ** 2
    for tag in ('first', 'second'):
        old = h._backward
        h._backward = (lambda old, tag: lambda: (calls.append(tag), old()))(old, tag)
    out = h * 2
    return {'x': x, 'h': h, 'out': out}, ['out', 'out'], calls


def subclass_init_sets_backward(V, ours):
    Named = subclass(V)
    x, w = Named(2.0, name='x'), Named(-3.0, name='w')
    h = x * w
    out = (h + x) * x
    return {'x': x, 'w': w, 'h': h, 'out': out}, ['out', 'out'], []


def subclass_custom_op(V, ours):
    Named = subclass(V)
    x = Named(1.5, name='x')
    c = cube(Named, x)  # its output is a Named too: its __init__ set _backward first, the op then its own
    out = c * x
    return {'x': x, 'c': c, 'out': out}, ['out', 'out'], []


def subclass_with_the_lectures_own_init(V, ours):
    Mine = lecture_subclass(V)
    x, y = Mine(2.0), Mine(3.0)
    h = x * y  # Mine's own *, then ours (+, tanh) on Mine's output
    out = (h + x).tanh() * x
    return {'x': x, 'y': y, 'h': h, 'out': out}, ['out', 'out'], []


def backward_of_a_leaf_given_a_backward(V, ours):
    x = V(2.0)
    x._backward = lambda: None
    return {'x': x}, ['x', 'x'], []


SCENARIOS = [leaf_given_a_backward, a_leaf_in_two_graphs, custom_op_output, custom_op_under_no_grad,
             wrapped_backward, wrapped_twice, subclass_init_sets_backward, subclass_custom_op,
             subclass_with_the_lectures_own_init, backward_of_a_leaf_given_a_backward]


def lectures_numbers(scenario: Callable[..., Any]) -> tuple[dict[str, float], list[str]]:
    """The grads after the scenario's backward() calls, each on a fresh graph of the lecture's class."""
    _, roots, _ = scenario(LectureValue, False)
    grads: dict[str, float] = {}
    calls: list[str] = []
    for root in roots:
        nodes, _, log = scenario(LectureValue, False)
        nodes[root].backward()
        calls += log
        reached = ancestors(nodes[root])
        for name, node in nodes.items():
            if not node._prev:  # a leaf adds each call's gradient
                grads[name] = grads.get(name, 0.0) + node.grad
            elif node in reached or name not in grads:  # any other node: the latest call through it
                grads[name] = node.grad
    return grads, calls


def ancestors(root: Any) -> set[Any]:
    found, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node not in found:
            found.add(node)
            stack += node._prev
    return found


@pytest.mark.parametrize('scenario', SCENARIOS, ids=lambda s: s.__name__)
def test_each_way_of_touching_a_node_gives_the_lectures_gradients_over_two_backward_calls(scenario):
    nodes, roots, calls = scenario(Value, True)
    for root in roots:
        nodes[root].backward()
    want, want_calls = lectures_numbers(scenario)
    assert {name: node.grad for name, node in nodes.items()} == pytest.approx(want, rel=1e-12)
    assert calls == want_calls  # a wrapped backward runs once per backward(), what it replaced too


def test_a_leaf_given_a_backward_accumulates_as_any_leaf():
    Sub = subclass(Value)
    x = Sub(2.0)
    y = x * x
    y.backward()
    y.backward()
    assert x.grad == 8.0
    z = Sub(2.0)
    (z * 3).backward()
    (z * 5).backward()
    assert z.grad == 8.0  # per-sample gradients summed over a batch


def test_a_leaf_is_a_node_with_no_parents_whatever_its_backward():
    x = Value(2.0)
    x._backward = lambda: None
    assert x._grad_fn is None and (x * x)._topological_order()[0] is not x


def test_a_lecture_style_op_under_no_grad_records_nothing():
    x, y = Value(2.0), Value(0.5)
    with no_grad():
        d = minus(Value, x, y)
    assert d._prev == () and d._grad_fn is None
    (d * x).backward()
    assert (x.grad, y.grad) == (1.5, 0.0)  # through d * x only: d is a number here


def test_reading_backward_gives_the_backward_of_that_moment_so_a_wrapper_can_call_it():
    x, y = Value(2.0), Value(3.0)
    out = x * y
    seen = []
    old = out._backward
    out._backward = lambda: (seen.append(out.grad), old())
    out.backward()
    assert seen == [1.0] and (x.grad, y.grad) == (3.0, 2.0)


def test_deepcopy_keeps_a_subclass_and_its_attributes_without_calling_its_init():
    Named = subclass(Value)
    w = Named(2.0, name='w1')
    w.grad, w.color = 0.5, 'red'
    w2 = copy.deepcopy(w)
    assert type(w2) is Named and (w2.data, w2.grad, w2.name, w2.color) == (2.0, 0.5, 'w1', 'red')
    assert w2 is not w and w2._prev == () and w2._grad_fn is None
    w2.name = 'changed'
    assert w.name == 'w1'


def test_deepcopy_keeps_a_subclass_with_its_own_slots():
    class Slotted(Value):
        __slots__ = ('tag', '__secret')

        def __init__(self, data, tag):
            super().__init__(data)
            self.tag = tag
            self.__secret = [tag]

        def secret(self):
            return self.__secret
    s = Slotted(1.0, 'a')
    c = copy.deepcopy(s)
    assert type(c) is Slotted and c.tag == 'a' and c.secret() == ['a'] and c.secret() is not s.secret()


def test_any_attribute_may_be_set_on_a_value_as_on_karpathys():
    v = Value(1.0)
    v.color, v.name = 'red', 'w1'
    assert (v.color, v.name) == ('red', 'w1')
    with pytest.raises(AttributeError):
        Value(1.0).color  # noqa: B018  (read before it is set: an AttributeError, as on any object)


def run_alone(main: Callable[[], Any]) -> None:
    """asyncio.run(main()) in a thread of its own: the browser tests' Playwright keeps an event loop running in
    pytest's thread, where asyncio.run() refuses to start another."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as error:  # raised again in the test's thread
            errors.append(error)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


def test_one_no_grad_instance_works_across_asyncio_tasks():
    ng = no_grad()
    seen = {}

    async def task():
        with ng:
            seen['task inside'] = (Value(1.0) * 2)._prev
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        seen['task after'] = bool((Value(1.0) * 2)._prev)

    async def main():
        with ng:
            t = asyncio.create_task(task())
            await asyncio.sleep(0)
        seen['main after'] = bool((Value(1.0) * 2)._prev)
        await t
        seen['main end'] = bool((Value(1.0) * 2)._prev)

    run_alone(main)
    # the task was created inside main's no_grad(): it starts not recording, and gets back what it found
    assert seen == {'task inside': (), 'task after': False, 'main after': True, 'main end': True}


def test_one_no_grad_instance_works_across_threads_entered_and_left_in_any_order():
    ng = no_grad()
    inside, leave, results = threading.Event(), threading.Event(), {}

    def worker():
        with ng:
            inside.set()
            leave.wait(5)
            results['worker inside'] = bool((Value(1.0) * 2)._prev)
        results['worker after'] = bool((Value(1.0) * 2)._prev)

    with ng:
        thread = threading.Thread(target=worker)
        thread.start()
        inside.wait(5)
    results['main after'] = bool((Value(1.0) * 2)._prev)  # main left first: the worker is still inside
    leave.set()
    thread.join()
    assert results == {'main after': True, 'worker inside': False, 'worker after': True}


def test_no_grad_on_an_async_function_covers_its_whole_run_and_no_other_task():
    seen = {}

    @no_grad()
    async def evaluate():
        await asyncio.sleep(0)
        seen['evaluate'] = bool((Value(1.0) * 2)._prev)

    async def train():
        await asyncio.sleep(0)
        seen['train'] = bool((Value(1.0) * 2)._prev)

    async def main():
        await asyncio.gather(evaluate(), train())

    run_alone(main)
    assert seen == {'evaluate': False, 'train': True}
