"""Frozen records: ``@dataclass(frozen=True, slots=True)`` for less start-up.

On Python 3.11 ``dataclass`` compiles six small functions from source for each
frozen class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``). For the few dozen records that ``toolcat
list`` and the loader create, that is a tenth of the command's start-up.
:func:`record` lets ``dataclass`` generate ``__init__`` and the frozen
``__setattr__``/``__delattr__``; ``__eq__``, ``__hash__`` and ``__repr__`` are
three functions written once here, reading each class's fields through one
:func:`operator.attrgetter`, with ``dataclass``'s semantics:

- ``a == b`` only for two instances of the same class, comparing the fields with
  ``compare=True`` in order (``NotImplemented`` otherwise);
- ``hash`` of the tuple of those fields (or of the ones with ``hash=True``);
- ``repr`` as ``Name(field=value, ...)`` over the fields with ``repr=True``, and
  ``...`` for a record that contains itself.

A record is a real dataclass: ``dataclasses.fields``, ``replace`` and ``asdict``
work, assigning a field raises ``dataclasses.FrozenInstanceError``, and mypy reads
the decorator as ``dataclass(frozen=True)`` (:func:`typing.dataclass_transform`).
``tests/unit/test_record.py`` holds each of these against a twin made by
``dataclass`` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform

__all__ = ["record"]

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: type[_T]) -> type[_T]:
    """``@dataclass(frozen=True, slots=True)``, with shared ``__eq__``/``__hash__``/``__repr__``."""
    made: Any = dataclass(frozen=True, slots=True, eq=False, repr=False)(cls)
    every = fields(made)
    compared = [f.name for f in every if f.compare]
    hashed = [f.name for f in every if (f.compare if f.hash is None else f.hash)]
    made.__record_eq__ = staticmethod(_getter(compared))
    made.__record_hash__ = staticmethod(_getter(hashed))
    made.__record_repr__ = tuple(f.name for f in every if f.repr)
    made.__eq__ = _eq
    made.__hash__ = _hash
    made.__repr__ = _repr
    result: type[_T] = made
    return result


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of ``names``' values of a record (``attrgetter`` gives a bare value for one)."""
    if not names:
        return _empty
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    many: Callable[[Any], tuple[Any, ...]] = attrgetter(*names)
    return many


def _empty(obj: Any) -> tuple[Any, ...]:
    return ()


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        return bool(self.__record_eq__(self) == other.__record_eq__(other))
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_hash__(self))


@recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_repr__)
    return f"{self.__class__.__qualname__}({shown})"
