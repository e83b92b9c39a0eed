"""Equal frozen values built once per load: shared leaf schemas, bindings, annotations."""

from __future__ import annotations

from typing import Any, TypeVar

from toolcat.catalog import FrozenDict, FrozenList
from toolcat.catalog.common import freeze

__all__ = ["Interner"]

_T = TypeVar("_T")

# The scalars a shared leaf may hold. Their types go into the key with them, so that
# equal values of different types (True and 1) are never shared; floats are left out
# (0.0 and -0.0 are equal, and of one type, but written differently).
_SCALARS = frozenset({str, int, bool, type(None)})
# values that are frozen as they are (a FrozenDict/FrozenList was frozen whole when built)
_KEPT = frozenset({str, int, float, bool, type(None), FrozenDict, FrozenList})


class Interner:
    """Hands out one object for equal frozen values, as ``sys.intern`` does for strings.

    A catalog repeats itself: the same parameter schema (``{type: string, description:
    The order id.}``), the same binding, the same annotations in many tools. Every object
    the compiled catalog holds is walked by each of the garbage collector's full
    collections during a load, so a load that builds each distinct value once runs
    cheaper ones. Only leaves are shared (objects and arrays of scalars) and frozen
    records: a walk that remembers the nodes it has seen by ``id`` may skip a leaf it
    has read already, never a subtree. Frozen values never change, so sharing them is
    invisible to their readers.
    """

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def freeze(self, value: Any) -> Any:
        """:func:`~toolcat.catalog.freeze` for the plain JSON values the YAML reader
        builds (exact type checks), each leaf object or array built once."""
        kind = type(value)
        if kind is dict:
            return self._dict(
                {k: v if type(v) in _KEPT else self.freeze(v) for k, v in value.items()}
            )
        if kind is list:
            return self._list([v if type(v) in _KEPT else self.freeze(v) for v in value])
        if kind in _KEPT:
            return value
        return freeze(value)

    def record(self, value: _T) -> _T:
        """The first record equal to ``value`` (a frozen dataclass of scalars)."""
        return self._seen.setdefault(value, value)  # type: ignore[no-any-return]

    def _dict(self, items: dict[str, Any]) -> FrozenDict:
        types = tuple(map(type, items.values()))
        if not _SCALARS.issuperset(types):
            return FrozenDict(items)  # holds an object, an array or a float: not shared
        return self._one(FrozenDict, (types, tuple(items.items())), items)

    def _list(self, items: list[Any]) -> FrozenList:
        types = tuple(map(type, items))
        if not _SCALARS.issuperset(types):
            return FrozenList(items)
        return self._one(FrozenList, (types, tuple(items)), items)

    def _one(self, kind: type[_T], key: tuple[Any, ...], items: Any) -> _T:
        key = (kind, *key)  # an empty object and an empty array have equal items
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = kind(items)  # type: ignore[call-arg]
        return found
