"""One error root: every exception class toolcat defines derives from ToolcatError."""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType

import pytest
import toolcat
from toolcat._errors import ToolcatError

# The builtin bases kept for ``except`` clauses written before the root existed.
BUILTIN_BASES = {
    "UnknownToolError": LookupError,
    "UnknownToolsetError": LookupError,
    "MissingVariableError": LookupError,
    "EnvSyntaxError": ValueError,
    "NotStrictable": ValueError,
    "CatalogInputError": OSError,
    "UnknownProviderError": ValueError,
}
SKIP = ("toolcat.tests", "toolcat.benchmarks", "toolcat.examples")


def _modules() -> list[ModuleType]:
    found = [toolcat]
    for info in pkgutil.walk_packages(toolcat.__path__, "toolcat."):
        if info.name.startswith(SKIP) or info.name.endswith(".__main__"):  # __main__ runs the CLI
            continue
        found.append(importlib.import_module(info.name))
    return found


def _exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined in a toolcat module, by qualified name."""
    out: dict[str, type[BaseException]] = {}
    for module in _modules():
        for obj in list(vars(module).values()):  # vars(): no lazy (PEP 562) imports
            if not isinstance(obj, type):
                continue
            if issubclass(obj, BaseException) and obj.__module__.startswith("toolcat."):
                out[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return out


EXCEPTIONS = _exceptions()
PUBLIC = {k: v for k, v in EXCEPTIONS.items() if not v.__name__.startswith("_")}


def _tree() -> str:
    doc = importlib.import_module("toolcat._errors").__doc__ or ""
    return doc.split("::", 1)[1]


def test_the_walk_finds_the_known_exceptions() -> None:
    names = {v.__name__ for v in PUBLIC.values()}
    assert {"UnknownToolError", "CatalogError", "ModelHTTPError", "CliError"} <= names
    assert len(PUBLIC) >= 20


@pytest.mark.parametrize("qualname", sorted(EXCEPTIONS))
def test_every_exception_derives_from_the_root(qualname: str) -> None:
    assert issubclass(EXCEPTIONS[qualname], ToolcatError)


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_every_public_exception_is_drawn_in_the_tree(qualname: str) -> None:
    name = PUBLIC[qualname].__name__
    assert re.search(rf"[─ ]{name}\b", _tree()), f"{name} is missing from toolcat._errors' tree"


@pytest.mark.parametrize("name,base", sorted(BUILTIN_BASES.items()))
def test_builtin_bases_are_kept(name: str, base: type[Exception]) -> None:
    (cls,) = {v for v in PUBLIC.values() if v.__name__ == name}
    assert issubclass(cls, base) and issubclass(cls, ToolcatError)
    bracket = re.search(rf"{name}\s+\[(\w+)\]", _tree())
    assert bracket is not None and bracket.group(1) == base.__name__


def test_the_tree_names_only_real_exceptions() -> None:
    drawn = set(re.findall(r"[─] ([A-Z]\w+)", _tree()))
    assert drawn == {v.__name__ for v in PUBLIC.values()} - {"ToolcatError"}


def test_one_except_catches_a_catalog_failure() -> None:
    from toolcat.catalog import Catalog

    with pytest.raises(ToolcatError):
        Catalog(tools=[], services=[])["nope"]
