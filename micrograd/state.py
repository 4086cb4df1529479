"""A model's parameters by name: named_parameters(), state_dict() and load_state_dict() of nn.Module.

A parameter's name is the path to it through the model's attributes and lists, as PyTorch names them:
'layers.0.neurons.1.w.0' is the first weight of the second neuron of the first layer. A state_dict maps
each name to a Python float, so it saves as JSON; load_state_dict() sets every parameter, or none.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from micrograd import numeric
from micrograd.engine import Value


def named_values(model: Any) -> Iterator[tuple[str, Value]]:
    """Every Value a model holds, named by the path to it: attributes, then list indices. A module met a
    second time on the way (a child that holds its parent, say) is not entered again."""
    from micrograd.nn import Module  # (nn imports this module)
    entered: set[int] = set()
    stack: list[tuple[str, object]] = [('', model)]
    while stack:
        prefix, obj = stack.pop()
        if isinstance(obj, Value):
            yield prefix, obj
        elif isinstance(obj, (list, tuple)) or (isinstance(obj, Module) and id(obj) not in entered):
            entered.add(id(obj))
            items = enumerate(obj) if isinstance(obj, (list, tuple)) else vars(obj).items()
            children = [(f"{prefix}.{key}" if prefix else str(key), item) for key, item in items]
            stack += reversed(children)  # the first attribute is named first


def named_parameters(model: Any) -> Iterator[tuple[str, Value]]:
    """(name, parameter) pairs, each parameter once (a shared one by its first name)."""
    seen: set[int] = set()
    for name, p in named_values(model):
        if id(p) not in seen:
            seen.add(id(p))
            yield name, p


def state_dict(model: Any) -> dict[str, float]:
    """Each parameter's name and value (a shared parameter under each of its names)."""
    return {name: p.data for name, p in named_values(model)}


def load_state_dict(model: Any, state: Mapping[str, Any]) -> None:
    """Set every parameter from a state_dict(): all of them, or (if it does not fit) none. A value may be a
    Python number, a NumPy number or a 0-d array (what np.load gives back for np.savez(**state_dict()))."""
    name = f"{type(model).__name__}.load_state_dict"
    if not isinstance(state, Mapping):
        raise TypeError(f"{name}: expected a mapping of names to numbers (a state_dict()), "
                        f"got {type(state).__name__}")
    mine = dict(named_values(model))
    missing, extra = [n for n in mine if n not in state], [n for n in state if n not in mine]
    if missing or extra:
        raise KeyError(f"{name}: {_names(missing, 'missing')}{'; ' if missing and extra else ''}"
                       f"{_names(extra, 'unexpected')}: a state_dict of a model of other sizes? "
                       f"This one is {model!r}")
    values = {key: _value(state[key], key, name) for key in mine}  # all checked before any is set
    for key, p in mine.items():
        p.data = values[key]


def _value(x: object, key: str, name: str) -> float:
    if isinstance(x, bool) or not numeric.is_number(x):
        raise TypeError(f"{name}: {key!r} must be a number, got {type(x).__name__} {x!r}")
    return numeric.real(x, name)


def _names(names: list[str], what: str) -> str:
    if not names:
        return ''
    more = f" and {len(names) - 3} more" if len(names) > 3 else ''
    return f"{what} {', '.join(repr(n) for n in names[:3])}{more}"
