"""The compiled records are values: equal by their fields, hashable, immutable, readable."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest
from toolcat.catalog import SourceLocation, ToolAnnotations, ToolDefinition
from toolcat.loader import load_catalog

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def _tools() -> list[ToolDefinition]:
    catalog = load_catalog([DEMO], progress=False).catalog
    assert catalog is not None
    return list(catalog)


def test_two_loads_give_equal_tools_with_equal_hashes() -> None:
    first, second = _tools(), _tools()
    assert first == second
    assert [hash(t) for t in first] == [hash(t) for t in second]
    assert len(set(first) | set(second)) == len(first)


def test_a_tool_cannot_change() -> None:
    tool = _tools()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        tool.name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del tool.description
    assert not hasattr(tool, "__dict__")  # slotted: no attribute can be added either
    changed = dataclasses.replace(tool, name="other")
    assert changed != tool and changed.name == "other" and tool.name != "other"


def test_records_compare_by_value_and_only_with_their_own_class() -> None:
    loc = SourceLocation("a.yaml", 1, 2)
    assert loc == SourceLocation("a.yaml", 1, 2) != SourceLocation("a.yaml", 1, 3)
    assert len({loc, SourceLocation("a.yaml", 1, 2)}) == 1
    as_tuple: object = ("a.yaml", 1, 2)
    assert loc != as_tuple
    assert repr(loc) == "SourceLocation(file='a.yaml', line=1, column=2)"
    assert ToolAnnotations() == ToolAnnotations()


def test_a_tool_pickles_equal() -> None:
    tool = _tools()[0]
    assert pickle.loads(pickle.dumps(tool)) == tool
