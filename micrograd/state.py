"""A model's parameters by name, for micrograd.nn (Values) and micrograd.tensor.layers (Tensors) alike.

A parameter's name is the path to it through the model's attributes, as PyTorch names them:
'layers.0.neurons.1.w.0' is the first weight of the second neuron of the first layer. The walk enters every
object that keeps attributes (a module, or a plain helper object), and lists, tuples and dicts (by index or
key), so a parameter kept anywhere in the model has a name. The one registry, for both engines:

    named_leaves(model, leaf, is_parameter)   every (name, parameter), a shared one under each of its names
    first_names(pairs)                        each parameter once, under its first name: named_parameters()
    checked_state(model, names, state, convert)
                                              a state_dict's values for those names, all converted, or an error
    NamedParameters                           named_parameters(), state_dict(), load_state_dict() for a
                                              micrograd.nn Module: the parameters are what parameters() lists
"""
from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from micrograd.numeric import real, saved

__all__ = ['named_leaves', 'first_names', 'checked_state', 'NamedParameters']

P = TypeVar('P')

# What keeps attributes but is no part of a model: the walk does not enter a class, a module or a function.
_NOT_ENTERED = (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType)


def named_leaves(model: object, leaf: type[P] | tuple[type, ...],
                 is_parameter: Callable[[Any], bool]) -> Iterator[tuple[str, P]]:
    """Every instance of leaf under model for which is_parameter is true, named by the path to it: the
    attributes of each object that keeps them (in the order they were set), the items of lists and tuples (by
    index) and the values of dicts (by key). A leaf is never entered, parameter or not (an output a layer
    keeps, say). A leaf reached under two names comes under each (a state_dict has both); an object or list
    that holds one above it is not entered again. Two leaves under one name (dict keys 1 and '1') are a
    ValueError: one of them could not be saved."""
    above: set[int] = set()  # the objects and lists on the path to where the walk is
    owner: dict[str, object] = {}  # the leaf under each name so far
    stack: list[tuple[str, object] | int] = [('', model)]  # what to walk, and ids to leave behind
    while stack:
        entry = stack.pop()
        if isinstance(entry, int):  # all under that object or list is walked: it is no more above
            above.discard(entry)
            continue
        name, obj = entry
        if isinstance(obj, leaf):
            if is_parameter(obj):
                if owner.setdefault(name, obj) is not obj:
                    raise ValueError(f"{type(model).__name__}: two parameters have the name {name!r} (dict keys "
                                     f"that read the same, such as 1 and '1'?): give them distinct names")
                yield name, obj  # type: ignore[misc]
            continue
        items = _items(obj)
        if items is not None and id(obj) not in above:
            above.add(id(obj))
            stack.append(id(obj))
            stack += reversed([(f"{name}.{key}" if name else key, item) for key, item in items])


def _items(obj: object) -> list[tuple[str, object]] | None:
    """What the walk enters under obj, by name, or None where it does not enter obj."""
    if isinstance(obj, (list, tuple)):
        return [(str(i), item) for i, item in enumerate(obj)]
    if isinstance(obj, dict):
        return [(key if isinstance(key, str) else repr(key), item) for key, item in obj.items()]
    if hasattr(obj, '__dict__') and not isinstance(obj, _NOT_ENTERED):
        return list(vars(obj).items())
    return None


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


class NamedParameters:
    """named_parameters(), state_dict() and load_state_dict() for a micrograd.nn Module, whose parameters()
    says what its parameters are (a Value it keeps that parameters() does not list, such as an output kept
    from a call, is no parameter, and is not saved, as PyTorch saves parameters only). Each listed parameter
    is named by the walk above; one that no attribute holds (a Value kept in a set, or made anew by
    parameters()) has no name, and all three refuse, naming it, rather than save or load the others only."""

    def parameters(self) -> list[Any]:
        return []

    def named_parameters(self) -> Iterator[tuple[str, Any]]:  # ('layers.0.neurons.1.w.0', w), ...
        """Each parameter once, in the order of parameters(), under the first name it has."""
        first = dict((id(p), name) for name, p in reversed(self._named('named_parameters')))
        return ((first[id(p)], p) for p in dict((id(p), p) for p in self.parameters()).values())

    def state_dict(self) -> dict[str, float]:
        """Each parameter's value, as a Python float, under each of its names: ready for json.dump."""
        return {name: p.data if type(p.data) is float else self._float(p.data, name)
                for name, p in self._named('state_dict')}

    def _float(self, data: object, name: str) -> float:  # a number written into .data by hand (np.float32)
        return real(data, f"{type(self).__name__}.state_dict ({name!r})", 'a real number in .data')

    def load_state_dict(self, values: Mapping[str, float]) -> None:
        """Every parameter's value from values, all of them or (anything missing, unexpected or no number)
        none: they are checked before any is set. A shared parameter takes the last of its names' values."""
        named = self._named('load_state_dict')
        params = dict(named)
        for name, number in checked_state(self, params, values, saved).items():
            params[name].data = number

    def _named(self, method: str) -> list[tuple[str, Any]]:
        """(name, parameter) for each name of each parameter parameters() lists, or a ValueError naming the
        listed parameters no attribute holds, and any name two of them would share."""
        listed = self.parameters()
        where = f"{type(self).__name__}.{method}"
        odd = next(((i, p) for i, p in enumerate(listed) if not hasattr(p, 'data')), None)
        if odd is not None:
            raise TypeError(f"{where}: parameters() must list Values, one flat list; parameters()[{odd[0]}] is a "
                            f"{type(odd[1]).__name__}")
        ids = {id(p) for p in listed}
        kinds = tuple({type(p) for p in listed})  # (what a parameter is: a Value, for micrograd.nn)
        named: list[tuple[str, Any]] = list(named_leaves(self, kinds, lambda p: id(p) in ids))
        found, unnamed = {id(p) for _, p in named}, []
        for i, p in enumerate(listed):
            if id(p) not in found:  # (each once, should parameters() list it twice)
                found.add(id(p))
                unnamed.append((i, p))
        if unnamed:
            shown = ', '.join(f"parameters()[{i}], {p!r}" for i, p in unnamed[:3])
            more = f" and {len(unnamed) - 3} more" if len(unnamed) > 3 else ''
            raise ValueError(f"{where}: parameters() lists {len(unnamed)} that no attribute holds, so they have "
                             f"no name to be saved under: {shown}{more}. Keep each in an attribute of the model "
                             f"(or in a list, tuple or dict there, or an object there)")
        return named
