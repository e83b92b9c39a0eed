"""Every reader of a tool's command takes a tool of an upstream MCP server beside HTTP tools."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from toolcat.catalog import (
    Catalog,
    HttpCommand,
    McpCommand,
    McpUpstream,
    Service,
    ToolAnnotations,
    ToolDefinition,
)
from toolcat.catalog.common import freeze
from toolcat.catalog.diff import diff_catalogs
from toolcat.cli._cmd_list import table, tool_summary
from toolcat.cli._docsite import build_site
from toolcat.cli._envuses import collect_variables
from toolcat.executor import providers

PIN = "sha256:" + "a" * 64


def _catalog(**mcp: object) -> Catalog:
    schema = freeze(
        {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to say."}},
            "required": ["text"],
        }
    )
    fields: dict[str, object] = {"server": "memory", "tool": "echo", "pin": PIN}
    fields.update(mcp)
    echo = ToolDefinition(
        name="memory_echo",
        description="Echo the text back.",
        input_schema=schema,
        command=McpCommand(**fields),  # type: ignore[arg-type]
        annotations=ToolAnnotations(read_only=True),
    )
    http = ToolDefinition(
        name="get_item",
        description="Get an item.",
        input_schema=freeze({"type": "object", "properties": {}}),
        command=HttpCommand(service="items", method="GET", path="/items"),
    )
    upstream = McpUpstream(
        name="memory",
        command=("npx", "-y", "server-memory"),
        env=freeze({"MEMORY_FILE_PATH": "${MEMORY_FILE}"}),
    )
    return Catalog(
        [echo, http],
        [Service(name="items", base_url="https://items.example")],
        mcp_servers=[upstream],
    )


def test_the_catalog_finds_a_tool_s_server_and_refuses_the_other_kind() -> None:
    catalog = _catalog()
    assert catalog.upstream_for(catalog["memory_echo"]).name == "memory"
    assert catalog.service_for(catalog["get_item"]).name == "items"
    with pytest.raises(TypeError, match="MCP server 'memory'"):
        catalog.service_for(catalog["memory_echo"])
    with pytest.raises(TypeError, match="service 'items'"):
        catalog.upstream_for(catalog["get_item"])
    assert [t.target for t in catalog] == ["memory", "items"]


def test_list_shows_the_server_and_the_upstream_tool() -> None:
    catalog = _catalog(arguments=freeze({"text": "message"}))
    lines = table(tuple(catalog)).splitlines()
    assert lines[1].split()[:4] == ["memory_echo", "MCP", "echo", "memory"]
    summary = tool_summary(catalog, catalog["memory_echo"])
    assert (summary["server"], summary["tool"], summary["pin"]) == ("memory", "echo", PIN)
    assert "method" not in summary and "service" not in summary
    assert summary["parameters"] == [{"argument": "text", "name": "message", "required": True}]


def test_every_provider_exports_a_tool_of_an_mcp_server() -> None:
    catalog = _catalog()
    for name in providers.names():
        text = json.dumps(providers.get(name).tools(catalog))
        assert "memory_echo" in text and "get_item" in text, name
    exported = providers.get("mcp").tools([catalog["memory_echo"]])[0]
    # stated hints are kept; what is not stated takes MCP's defaults, not a method's
    assert exported["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": True,
    }


def test_search_finds_a_tool_by_its_server() -> None:
    hits = _catalog().search("memory")
    assert [h.name for h in hits] == ["memory_echo"]


def test_env_names_the_variables_of_mcp_servers() -> None:
    found = collect_variables(_catalog())
    assert [(v.name, [what for _, what in v.uses]) for v in found] == [
        ("MEMORY_FILE", ["mcp server memory: env.MEMORY_FILE_PATH"])
    ]


def test_diff_of_two_mcp_tools_and_of_a_tool_that_changed_kind() -> None:
    old, new = _catalog(), _catalog()
    assert diff_catalogs(old, new) == ()
    http = HttpCommand(service="items", method="POST", path="/echo")
    swapped = Catalog(
        [dataclasses.replace(old["memory_echo"], command=http), old["get_item"]],
        old.services.values(),
    )
    assert diff_catalogs(old, swapped) == diff_catalogs(old, swapped)  # it does not raise


def test_the_docs_site_shows_the_server_and_the_upstream_tool(tmp_path: Path) -> None:
    report = build_site(_catalog(), tmp_path / "site")
    assert report.tools == 2
    page = next((tmp_path / "site" / "tools").glob("memory_echo*.html")).read_text()
    assert "MCP server <code>memory</code>" in page
    assert "tool <code>echo</code> of MCP server <code>memory</code>" in page
