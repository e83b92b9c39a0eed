"""Deeply immutable JSON values: dict and list subclasses that refuse mutation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

__all__ = ["FrozenDict", "FrozenList", "freeze", "thaw"]


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is immutable")


class FrozenDict(dict[str, Any]):
    """A JSON object that cannot change after compilation.

    It is a real ``dict`` so that ``json.dumps`` and jsonschema accept it as is;
    every mutating method raises ``TypeError``. Use :func:`thaw` for a mutable copy.
    """

    __slots__ = ("_hash",)
    _hash: int

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            h = hash(tuple(sorted((k, _hashable(v)) for k, v in self.items())))
            object.__setattr__(self, "_hash", h)
            return h

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))  # its own __setitem__ refuses pickle's way


class FrozenList(list[Any]):
    """A JSON array that cannot change after compilation (see :class:`FrozenDict`)."""

    __slots__ = ()

    __setitem__ = _refuse
    __delitem__ = _refuse
    __iadd__ = _refuse
    __imul__ = _refuse
    append = _refuse
    extend = _refuse
    insert = _refuse
    pop = _refuse
    remove = _refuse
    clear = _refuse
    sort = _refuse
    reverse = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(_hashable(v) for v in self))

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))  # as FrozenDict's


def _hashable(value: Any) -> Any:
    if isinstance(value, dict | list):
        return hash(freeze(value))
    return value


def freeze(value: Any) -> Any:
    """Return ``value`` with every dict and list replaced by its frozen twin."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of a (possibly frozen) JSON value."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value
