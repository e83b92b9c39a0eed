"""A server that declares an older JSON Schema draft (draft-07, as zod-to-json-schema writes
it): `toolcat import mcp` writes its schemas in the catalog's 2020-12, the catalog loads, the
arguments are checked as the server means them, and the pin check reads the live schema
the same way."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from toolcat.catalog import McpCommand
from toolcat.catalog.common import mcp_schema
from toolcat.executor import Executor, ToolCall, sealed_validator
from toolcat.executor.mcp._pins import changed_parts
from toolcat.loader.mcp import import_mcp_tools, render_mcp_catalog
from toolcat.tests.support import CatalogFiles

DRAFT_07: dict[str, Any] = {
    "name": "plot",
    "description": "Plot points.",
    "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {
            "point": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"],
            }
        },
        "properties": {
            "origin": {"$ref": "#/definitions/point"},
            "range": {
                "type": "array",
                "items": [{"type": "number"}, {"type": "number"}],
                "additionalItems": False,
            },
            "style": {
                "type": "object",
                "properties": {"label": {"type": "string"}, "font": {"type": "string"}},
                "dependencies": {"font": ["label"]},
            },
        },
        "required": ["origin"],
    },
    "outputSchema": {
        "type": "object",
        "definitions": {"url": {"type": "string"}},
        "properties": {"image": {"$ref": "#/definitions/url"}},
    },
}


def _catalog_tool(catalog_files: CatalogFiles) -> Any:
    result = import_mcp_tools("charts", [DRAFT_07])
    catalog = catalog_files.catalog(render_mcp_catalog(result, {"command": ["charts-server"]}))
    return catalog.tools["charts_plot"]


def test_the_written_catalog_loads_in_2020_12(catalog_files: CatalogFiles) -> None:
    tool = _catalog_tool(catalog_files)
    schema = tool.input_schema
    assert schema["properties"]["origin"]["$ref"] == "#/$defs/point"
    assert "point" in schema["$defs"]
    assert schema["properties"]["range"]["prefixItems"] == [{"type": "number"}] * 2
    assert schema["properties"]["range"]["items"] is False
    assert schema["properties"]["style"]["dependentRequired"] == {"font": ["label"]}
    assert tool.output_schema["properties"]["image"]["$ref"] == "#/$defs/url"


@pytest.mark.parametrize(
    ("arguments", "refused"),
    [
        ({"origin": {"x": 1, "y": 2}, "range": [0, 10]}, None),
        ({"origin": {"x": 1}}, "origin.y"),  # the referenced definition is checked
        ({"origin": {"x": 1, "y": 2}, "range": [0, 10, 20]}, "range.2"),  # no third item
        (
            {"origin": {"x": 1, "y": 2}, "style": {"font": "serif"}},
            "style.label",
        ),  # font needs a label
    ],
)
def test_arguments_are_checked_as_the_server_means_them(
    catalog_files: CatalogFiles, arguments: dict[str, Any], refused: str | None
) -> None:
    tool = _catalog_tool(catalog_files)
    catalog = catalog_files.catalog(
        render_mcp_catalog(import_mcp_tools("charts", [DRAFT_07]), {"command": ["charts"]})
    )
    with Executor(catalog) as executor:
        prepared = executor.prepare(ToolCall(tool.name, arguments))
    shown = prepared.to_dict()
    locs = [".".join(str(p) for p in e.get("loc") or ()) for e in shown.get("errors") or ()]
    if refused is None:
        assert not shown.get("errors"), shown
    else:
        assert refused in locs, locs


def test_dependencies_become_dependent_required_and_schemas() -> None:
    schema = {"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}
    assert mcp_schema(schema) == {
        "dependentRequired": {"a": ["b"]},
        "dependentSchemas": {"c": {"required": ["d"]}},
    }
    already = {
        "$defs": {"p": {"items": {"type": "string"}}},
        "prefixItems": [{"$ref": "#/$defs/p"}],
    }
    assert mcp_schema(already) == already


def test_a_changed_description_is_the_only_change_named(catalog_files: CatalogFiles) -> None:
    tool = _catalog_tool(catalog_files)
    assert isinstance(tool.command, McpCommand)
    live = copy.deepcopy(DRAFT_07)
    assert changed_parts(tool, tool.command, live) == []
    live["description"] = "Plot points, and send them to the vendor."
    assert changed_parts(tool, tool.command, live) == ["description"]


# zod-to-json-schema's z.tuple([z.string()]).rest(z.number()), in a draft-07 output schema
ROW: dict[str, Any] = {
    "name": "row",
    "description": "A row: its label, then its numbers.",
    "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
    "outputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "row": {
                "type": "array",
                "items": [{"type": "string"}],
                "additionalItems": {"type": "number"},
            }
        },
        "required": ["row"],
    },
}


@pytest.mark.parametrize(
    ("data", "valid"),
    [({"row": ["a", 1, 2]}, True), ({"row": ["a"]}, True), ({"row": [1, 2]}, False)],
)
def test_an_output_schema_in_draft_07_checks_results_as_the_server_means_them(
    catalog_files: CatalogFiles, data: dict[str, Any], valid: bool
) -> None:
    """The rewritten output schema carries no draft-07 stamp: under it, ``items`` (the
    tuple's rest) would check the label too, and `toolcat serve` would refuse the
    server's valid results as not matching their output schema."""
    catalog = catalog_files.catalog(
        render_mcp_catalog(import_mcp_tools("sheet", [ROW]), {"command": ["sheet-server"]})
    )
    tool = catalog.tools["sheet_row"]
    assert tool.output_schema is not None and "$schema" not in tool.output_schema
    assert sealed_validator(tool.output_schema).is_valid(data) is valid
    assert isinstance(tool.command, McpCommand)
    assert changed_parts(tool, tool.command, ROW) == []
