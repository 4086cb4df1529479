"""A model's parameters by name, for micrograd.nn (Values) and micrograd.tensor.layers (Tensors) alike.

A parameter's name is the path to it through the model's attributes and lists, as PyTorch names them:
'layers.0.neurons.1.w.0' is the first weight of the second neuron of the first layer. Nothing here knows an
engine: the caller says what a parameter is and what a module is.

    named_leaves(model, Value, Module)   every (name, parameter), a shared one under each of its names
    first_names(pairs)                   each parameter once, under its first name: named_parameters()
    checked_state(model, names, state, convert)
                                         a state_dict's values for those names, all converted, or an error
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = ['named_leaves', 'first_names', 'checked_state']

P = TypeVar('P')


def named_leaves(model: object, leaf: type[P], module: type) -> Iterator[tuple[str, P]]:
    """Every instance of leaf under model, named by the path to it: the attributes of each instance of module
    (in the order they were set) and the items of lists and tuples (by index). A leaf reached under two names
    comes under each (a state_dict has both); a module or list that holds one above it is not entered again.
    Parameters are leaves: an instance an op made (one with parents, such as a neuron's `self.out` kept from
    its last call) is no parameter, and is left out, as PyTorch leaves out a tensor a module keeps."""
    above: set[int] = set()  # the modules and lists on the path to where the walk is
    stack: list[tuple[str, object] | int] = [('', model)]  # what to walk, and ids to leave behind
    while stack:
        entry = stack.pop()
        if isinstance(entry, int):  # all under that module or list is walked: it is no more above
            above.discard(entry)
            continue
        name, obj = entry
        if isinstance(obj, leaf):
            if not getattr(obj, '_prev', ()):  # (an op's output has parents: not a parameter)
                yield name, obj
        elif isinstance(obj, (module, list, tuple)) and id(obj) not in above:
            above.add(id(obj))
            items = enumerate(obj) if isinstance(obj, (list, tuple)) else vars(obj).items()
            stack.append(id(obj))
            stack += reversed([(f"{name}.{key}" if name else str(key), item) for key, item in items])


def first_names(named: Iterable[tuple[str, P]]) -> Iterator[tuple[str, P]]:
    """Each parameter once (by identity), under the first name it comes with."""
    seen: set[int] = set()
    for name, p in named:
        if id(p) not in seen:
            seen.add(id(p))
            yield name, p


def checked_state(model: object, names: Iterable[str], state: object,
                  convert: Callable[[object, str, str], Any]) -> dict[str, Any]:
    """The value state (a state_dict, or what np.load gave back for it) holds for each of names, converted by
    convert(value, name, where), every one of them before the caller sets any: a model loads all or none.
    A missing or unexpected name is a ValueError naming them and the model, as a value of the wrong shape is (a
    KeyError would print its message in quotes); convert raises for a bad value."""
    where = f"{type(model).__name__}.load_state_dict"
    if not isinstance(state, Mapping):
        raise TypeError(f"{where}: expected a mapping of names to values (a state_dict()), "
                        f"got {type(state).__name__}")
    mine = list(names)
    known = set(mine)
    missing, extra = [n for n in mine if n not in state], [n for n in state if n not in known]
    if missing or extra:
        raise ValueError(f"{where}: {_names(missing, 'missing')}{'; ' if missing and extra else ''}"
                       f"{_names(extra, 'unexpected')}: a state_dict of a model of other sizes? "
                       f"This one is {model!r}")
    return {name: convert(state[name], name, where) for name in mine}


def _names(names: list[str], what: str) -> str:
    if not names:
        return ''
    more = f" and {len(names) - 3} more" if len(names) > 3 else ''
    return f"{what} {', '.join(repr(n) for n in names[:3])}{more}"
