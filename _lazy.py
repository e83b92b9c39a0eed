"""Public names imported on first use (PEP 562), for the packages whose front door is lazy.

A package lists ``name -> module`` and gets the two module hooks::

    __getattr__, __dir__ = lazy_names(__name__, {"Executor": "._executor"}, __all__)

Relative module names resolve against the package. A name is imported once and then
cached in the package's namespace, so later lookups never reach ``__getattr__``.
"""

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, table: Mapping[str, str], public: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for the names in ``table``."""
    exported = tuple(public)

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exported})

    return __getattr__, __dir__
