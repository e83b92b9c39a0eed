"""Every package's public surface is its sorted ``__all__``, exactly its public names."""

from __future__ import annotations

import importlib
import tomllib
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES: list[str] = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
    "packages"
]
ALLOWED_PRIVATE = {"__version__"}


def _public(module: types.ModuleType) -> list[str]:
    return sorted(
        name
        for name, value in vars(module).items()
        if (not name.startswith("_") or name in ALLOWED_PRIVATE)
        # submodules and `from __future__ import annotations` are not part of the surface
        and not isinstance(value, types.ModuleType)
        and type(value).__name__ != "_Feature"
    )


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported), f"{name}.__all__ is not sorted"
    for member in exported:  # also loads the lazily imported names of the front door
        assert hasattr(module, member), f"{name}.{member} is exported but missing"
    assert exported == _public(module)


def test_the_front_door_resolves_lazily_and_caches() -> None:
    import toolcat

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        toolcat.nope  # noqa: B018
    assert set(toolcat.__all__) <= set(dir(toolcat))
