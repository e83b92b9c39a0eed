"""Frozen records: ``@dataclass(frozen=True, slots=True)`` for less start-up.

On Python 3.11 ``dataclass`` compiles six small functions from source for each
frozen class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``): for the few dozen records that ``toolcat
list`` and the loader define, a fifth of the command's start-up. :func:`record`
compiles only ``__init__`` (as ``dataclass`` writes it for a frozen class: each
argument, or its default, or its ``default_factory`` called, set with
``object.__setattr__``); the other methods are written once here and read each
class's fields through one :func:`operator.attrgetter`, with ``dataclass``'s
semantics:

- ``a == b`` only for two instances of the same class, comparing the fields with
  ``compare=True`` in order (``NotImplemented`` otherwise);
- ``hash`` of the tuple of those fields (or of the ones with ``hash=True``);
- ``repr`` as ``Name(field=value, ...)`` over the fields with ``repr=True``, and
  ``...`` for a record that contains itself;
- assigning or deleting an attribute raises ``dataclasses.FrozenInstanceError``;
  pickling and copying work.

A record is a real dataclass (``dataclasses.fields``, ``replace`` and ``asdict``
work) and mypy reads the decorator as ``dataclass(frozen=True)``
(:func:`typing.dataclass_transform`). It takes plain fields only: no
``__post_init__``, ``kw_only`` or ``init=False`` (use ``dataclass`` for those).
``tests/unit/test_record.py`` holds each property against a twin made by
``dataclass`` itself.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform

__all__ = ["record"]

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: type[_T]) -> type[_T]:
    """``@dataclass(frozen=True, slots=True)``: shared methods and one compiled ``__init__``."""
    documented = cls.__doc__ is not None
    if not documented:  # or dataclass writes one from object.__init__'s signature, which
        cls.__doc__ = "-"  # parses its text with tokenize (whose regexes cost 25M instructions)
    made: Any = dataclass(slots=True, init=False, repr=False, eq=False)(cls)
    every = fields(made)
    if hasattr(made, "__post_init__") or any(f.kw_only or not f.init for f in every):
        raise TypeError(f"{made.__qualname__}: @record takes plain fields (use @dataclass)")
    made.__init__ = _init(made, every)
    if not documented:  # as dataclass writes it: the name and the signature
        made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
    made.__record_eq__ = staticmethod(_getter([f.name for f in every if f.compare]))
    made.__record_hash__ = staticmethod(
        _getter([f.name for f in every if (f.compare if f.hash is None else f.hash)])
    )
    made.__record_repr__ = tuple(f.name for f in every if f.repr)
    made.__record_fields__ = tuple(f.name for f in every)
    for name, method in _SHARED.items():
        setattr(made, name, method)
    result: type[_T] = made
    return result


def _init(cls: type, every: tuple[Field[Any], ...]) -> Callable[..., None]:
    """``__init__`` as ``dataclass(frozen=True)`` writes it: each argument (a default, or a
    factory called when it is left out) set with ``object.__setattr__``."""
    scope: dict[str, Any] = {"__record_set__": object.__setattr__, "__record_factory__": _FACTORY}
    params, lines = [], []
    for f in every:
        value = f.name
        if f.default is not MISSING:
            scope[f"__record_default_{f.name}__"] = f.default
            params.append(f"{f.name}=__record_default_{f.name}__")
        elif f.default_factory is not MISSING:
            scope[f"__record_make_{f.name}__"] = f.default_factory
            params.append(f"{f.name}=__record_factory__")
            value = f"__record_make_{f.name}__() if {f.name} is __record_factory__ else {f.name}"
        else:
            params.append(f.name)
        lines.append(f"    __record_set__(self, {f.name!r}, {value})\n")
    body = "".join(lines) or "    pass\n"
    source = f"def __init__(self, {', '.join(params)}):\n{body}"
    try:
        exec(source, scope)  # noqa: S102 (text built from field names, as dataclass does)
    except SyntaxError as exc:  # a field without a default after one with
        raise TypeError(f"{cls.__qualname__}: {exc.msg}") from None
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in every}, "return": None}
    return init


class _Factory:
    """The default of an argument whose field has a ``default_factory``."""

    def __repr__(self) -> str:
        return "<factory>"  # as in dataclass's signatures


_FACTORY = _Factory()


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


def _setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, name) for name in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, name, value)


_SHARED = {
    "__eq__": _eq,
    "__hash__": _hash,
    "__repr__": _repr,
    "__setattr__": _setattr,
    "__delattr__": _delattr,
    "__getstate__": _getstate,
    "__setstate__": _setstate,
}
