"""A listing with tools no catalog tool can stand for: `toolcat import mcp` leaves each out,
says why, and writes a catalog that loads."""

from __future__ import annotations

from typing import Any

from toolcat.loader.mcp import import_mcp_tools, render_mcp_catalog
from toolcat.tests.support import CatalogFiles

OBJECT = {"type": "object"}
LISTING: list[dict[str, Any]] = [
    {"name": "", "description": "No name.", "inputSchema": OBJECT},
    {"name": "twice", "description": "The first.", "inputSchema": OBJECT},
    {"name": "twice", "description": "The second.", "inputSchema": OBJECT},
    {
        "name": "remote",
        "description": "Its schema lives elsewhere.",
        "inputSchema": {
            "type": "object",
            "properties": {"spec": {"$ref": "https://example.com/spec.json"}},
        },
    },
    {
        "name": "local",
        "description": "Its schema refers to its own definitions.",
        "inputSchema": {
            "type": "object",
            "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {"root": {"$ref": "#/$defs/node"}},
        },
    },
    {"name": "fine", "description": "A plain tool.", "inputSchema": OBJECT},
]


def test_tools_no_catalog_tool_can_stand_for_are_left_out_with_a_reason() -> None:
    result = import_mcp_tools("up", LISTING)
    reasons = {(r.tool, r.reason) for r in result.report if r.skipped}
    assert reasons == {
        ("", "the server lists it without a name"),
        ("twice", "the server lists 2 tools of this name: a call cannot say which"),
        (
            "remote",
            "its input schema refers outside itself "
            "($ref 'https://example.com/spec.json' leaves the schema)",
        ),
    }
    assert [t["mcp"]["tool"] for t in result.tools] == ["local", "fine"]
    assert str(result.report[0]) == "skipped  '': the server lists it without a name"


def test_what_is_written_loads(catalog_files: CatalogFiles) -> None:
    result = import_mcp_tools("up", LISTING)
    text = render_mcp_catalog(result, {"command": ["up-server"]})
    catalog = catalog_files.catalog(text)
    assert sorted(catalog.tools) == ["up_fine", "up_local"]


def test_a_control_character_in_a_name_is_shown_escaped() -> None:
    result = import_mcp_tools("up", [{"name": "bell\x07", "inputSchema": OBJECT}])
    assert str(result.report[0]) == "imported bell\\x07 as up_bell"
