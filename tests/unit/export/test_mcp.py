"""MCP annotations: derived from the HTTP method unless the tool states them."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.catalog import ToolAnnotations
from toolcat.executor.providers import mcp_annotations, to_mcp_tool


@pytest.mark.parametrize(
    "method, read_only, destructive, idempotent",
    [
        ("GET", True, False, True),
        ("HEAD", True, False, True),
        ("OPTIONS", True, False, True),
        ("POST", False, True, False),
        ("PUT", False, True, True),
        ("PATCH", False, True, False),
        ("DELETE", False, True, True),
    ],
)
def test_hints_from_method(
    tool_factory: Any, method: str, read_only: bool, destructive: bool, idempotent: bool
) -> None:
    hints = mcp_annotations(tool_factory("t", method))
    assert hints == {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": True,
    }


def test_stated_annotations_win_over_the_method(tool_factory: Any) -> None:
    stated = ToolAnnotations(
        title="Archive order", read_only=False, destructive=False, idempotent=True, open_world=False
    )
    tool = tool_factory("archive", "POST", annotations=stated)
    item = to_mcp_tool(tool)
    assert item["title"] == "Archive order"
    assert item["annotations"] == {
        "title": "Archive order",
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def test_partly_stated_annotations_fill_the_rest_from_the_method(tool_factory: Any) -> None:
    tool = tool_factory("purge", "DELETE", annotations=ToolAnnotations(idempotent=False))
    assert mcp_annotations(tool) == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }


def test_read_only_post_is_not_destructive_by_default(tool_factory: Any) -> None:
    tool = tool_factory("search", "POST", annotations=ToolAnnotations(read_only=True))
    hints = mcp_annotations(tool)
    assert hints["readOnlyHint"] is True and hints["destructiveHint"] is False


def test_output_schema_only_when_it_is_an_object(tool_factory: Any) -> None:
    listing = tool_factory("list", output_schema={"type": "array", "items": {"type": "string"}})
    assert "outputSchema" not in to_mcp_tool(listing)
    one = tool_factory("one", output_schema={"type": "object", "properties": {}})
    assert to_mcp_tool(one)["outputSchema"] == {"type": "object", "properties": {}}
    assert "title" not in to_mcp_tool(one)


def test_export_is_accepted_by_the_mcp_sdk_tool_model(catalog: Any) -> None:
    import mcp.types
    from toolcat.executor.providers import export_catalog

    for item in export_catalog(catalog, "mcp").tools:
        tool = mcp.types.Tool.model_validate(item)
        assert tool.name == item["name"]
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is item["annotations"]["readOnlyHint"]
        dumped = tool.model_dump(by_alias=True, exclude_none=True)
        assert dumped["inputSchema"] == item["inputSchema"]
