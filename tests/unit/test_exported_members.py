"""Each package's public surface is its sorted ``__all__``, and every name exists."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = ["toolcat", "toolcat.catalog", "toolcat.loader", "toolcat.executor", "toolcat.cli"]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported), f"{name}.__all__ is not sorted"
    for member in exported:
        assert hasattr(module, member), f"{name}.{member} is exported but missing"
