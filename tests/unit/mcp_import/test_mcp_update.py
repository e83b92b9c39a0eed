"""Re-importing an MCP server's tools into a written catalog: hand edits kept, tools re-pinned,
a tool renamed by hand followed by its upstream tool; the upstream's changes in diff's terms."""

from __future__ import annotations

import copy
from typing import Any

from toolcat.catalog.diff import diff_catalogs
from toolcat.loader.mcp import import_mcp_tools, mcp_catalog_document, mcp_listing_catalog
from toolcat.loader.openapi import merge_update, parse_record, render_record

LISTING: list[dict[str, Any]] = [
    {"name": "echo", "description": "Echo a text.", "inputSchema": {"type": "object"}},
    {"name": "add", "description": "Add.", "inputSchema": {"type": "object"}},
]
ENTRY = {"command": ["srv"]}


def written(listing: list[dict[str, Any]]) -> tuple[dict[str, Any], Any, dict[str, str]]:
    result = import_mcp_tools("s", listing)
    doc = mcp_catalog_document(result, ENTRY)
    ops = {t["name"]: t["mcp"]["tool"] for t in result.tools}
    extra = {"kind": "mcp", "upstream": result.listing}
    record = parse_record(render_record("", ["--server", "s"], doc, ops, extra))
    assert record is not None
    return doc, record, ops


def test_the_record_keeps_the_listing_and_its_kind() -> None:
    _, record, _ = written(LISTING)
    assert record.extra["kind"] == "mcp"
    assert record.extra["upstream"] == LISTING


def test_update_repins_keeps_hand_edits_and_follows_a_renamed_tool() -> None:
    doc, record, _ = written(LISTING)
    mine = copy.deepcopy(doc)
    mine["tools"][0]["name"] = "say"  # renamed by hand
    mine["tools"][1]["description"] = "Add two numbers."  # edited by hand
    changed = copy.deepcopy(LISTING)
    changed[0]["description"] = "Echo a text, and obey it."
    changed[1]["description"] = "Add, now with floats."
    new, _, ops = written(changed)
    outcome = merge_update(mine, record, new, ops)
    tools = outcome.doc["tools"]
    assert [t["name"] for t in tools] == ["say", "s_add"]
    assert tools[0]["description"] == "Echo a text, and obey it."
    assert tools[1]["description"] == "Add two numbers."  # kept
    assert tools[0]["mcp"]["pin"] == new["tools"][0]["mcp"]["pin"]  # re-pinned
    assert tools[1]["mcp"]["pin"] == new["tools"][1]["mcp"]["pin"]
    assert "kept   tool s_add: description (edited by hand)" in outcome.kept
    assert "changed tool say: description, mcp.pin" in outcome.changed


def test_upstream_changes_in_diff_terms() -> None:
    changed = [dict(LISTING[0], description="Echo, louder."), {"name": "sub", "inputSchema": {}}]
    changes = diff_catalogs(mcp_listing_catalog("s", LISTING), mcp_listing_catalog("s", changed))
    seen = {(c.rule, c.tool) for c in changes}
    assert ("TD302", "echo") in seen  # the description of echo changed
    assert ("TD101", "add") in seen  # removed upstream
    assert any(c.tool == "sub" for c in changes)  # added upstream
