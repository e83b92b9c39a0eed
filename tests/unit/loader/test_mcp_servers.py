"""mcp_servers: entries and mcp: tools compile to McpUpstream and McpCommand."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from toolcat.catalog import (
    BearerAuth,
    McpCommand,
    McpHealth,
    McpUpstream,
    NoAuth,
    ToolAnnotations,
)
from toolcat.loader import load_catalog

GOOD = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "good" / "mcp-servers.yaml"
PIN = "sha256:" + "0" * 64


def test_the_servers_compile_with_every_field() -> None:
    catalog = load_catalog([GOOD], progress=False).catalog
    assert catalog is not None
    memory, tickets = catalog.mcp_servers["memory"], catalog.mcp_servers["tickets"]
    assert memory == McpUpstream(
        name="memory",
        command=("npx", "-y", "@modelcontextprotocol/server-memory"),
        env=memory.env,
        cwd=os.path.normpath(GOOD.parent / ".." / "servers" / "memory"),
        timeout=20.0,
        source=memory.source,
        extensions=memory.extensions,
    )
    assert dict(memory.env) == {"MEMORY_FILE_PATH": "${MEMORY_FILE:-/tmp/memory.json}"}
    assert dict(memory.extensions) == {"x-owner": "knowledge-team"}
    assert memory.stdio and memory.auth == NoAuth() and memory.on_change == "refuse"
    assert tickets.urls == ("https://tickets-a.example/mcp", "https://tickets-b.example/mcp")
    assert tickets.auth == BearerAuth(token="${TICKETS_TOKEN}")  # raw: resolved at connect
    assert dict(tickets.headers) == {"X-Team": "ops"} and tickets.on_change == "warn"
    assert not tickets.stdio and tickets.command == () and tickets.timeout == 30.0


def test_a_tool_compiles_to_its_upstream_tool_with_renames_and_fixed_arguments() -> None:
    catalog = load_catalog([GOOD], progress=False).catalog
    assert catalog is not None
    search = catalog["tickets_search"]
    command = search.command
    assert isinstance(command, McpCommand)
    assert (command.server, command.tool, command.timeout) == ("tickets", "search", None)
    assert command.pin == "sha256:612f4cc17cfe4058401d8d6d58680e7a7dcd4807b71733ecf1ce6d4341f4c46a"
    assert dict(command.arguments) == {"text": "query"}
    assert dict(command.fixed) == {"limit": 20}
    # the model sees the reviewed schema without the context-bound argument
    assert list(search.input_schema["properties"]) == ["text"]
    assert dict(search.context_arguments) == {"team": "claims.team"}
    assert search.output_schema is not None and search.extensions["x-owner"] == "ops"
    # the upstream's hints as reviewed: nothing is derived from a method
    assert search.annotations == ToolAnnotations(
        title="Search tickets", read_only=True, open_world=False
    )
    create = catalog["memory_create_entities"]
    assert create.annotations == ToolAnnotations() and create.confirm
    assert isinstance(create.command, McpCommand) and create.command.timeout == 5.0
    assert create.input_schema["$defs"]["Entity"]["required"] == ["name", "entityType"]
    assert catalog.upstream_for(create).name == "memory"
    assert catalog.service_for(catalog["get_ticket"]).name == "tickets_api"


def _load(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "catalog.yaml"
    path.write_text(text, encoding="utf-8")
    result = load_catalog([path], progress=False)
    return [f"{d.code}@{d.line}" for d in result.diagnostics]


SERVER = "toolcat: 1\nmcp_servers:\n  s: {command: [srv]}\n"


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        # a minimal tool is clean: no parameters, no description is a lint warning only
        (f"  - name: t\n    mcp: {{server: s, tool: t, pin: '{PIN}'}}\n", ["TC101@5"]),
        (f"  - name: t\n    description: d\n    mcp: {{server: s, tool: t, pin: '{PIN}'}}\n", []),
        # the pin and the tool are required; a typo is named
        ("  - name: t\n    description: d\n    mcp: {server: s, tool: t}\n", ["TC005@7"]),
        (
            f"  - name: t\n    description: d\n    mcp: {{server: s, tol: t, pin: '{PIN}'}}\n",
            ["TC003@7"],
        ),
        # mcp.timeout is a number of seconds above 0
        (
            f"  - name: t\n    description: d\n    mcp: {{server: s, tool: t, pin: '{PIN}', "
            "timeout: 0}\n",
            ["TC008@7"],
        ),
        # a context argument may be renamed for the upstream; fixed arguments are not checked
        # against anything the catalog cannot know
        (
            f"  - name: t\n    description: d\n    mcp: {{server: s, tool: t, pin: '{PIN}', "
            "arguments: {tenant: tenantId}, fixed: {mode: fast}}\n"
            "    parameters:\n      tenant: {type: string, from: claims.tenant}\n",
            [],
        ),
    ],
)
def test_tool_cases(tmp_path: Path, tool: str, expected: list[str]) -> None:
    assert _load(tmp_path, SERVER + "tools:\n" + tool) == expected


def test_a_server_in_another_file_is_found(tmp_path: Path) -> None:
    (tmp_path / "servers.yaml").write_text(SERVER, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(
        f"toolcat: 1\ntools:\n  - name: t\n    description: d\n"
        f"    mcp: {{server: s, tool: t, pin: '{PIN}'}}\n",
        encoding="utf-8",
    )
    result = load_catalog([tmp_path], progress=False)
    assert result.diagnostics == () and result.catalog is not None
    assert result.catalog.upstream_for(result.catalog["t"]).command == ("srv",)


def test_a_tool_of_a_broken_server_is_not_unknown(tmp_path: Path) -> None:
    text = (
        "toolcat: 1\nmcp_servers:\n  s: {command: [srv], url: 'https://s.example/mcp'}\n"
        f"tools:\n  - name: t\n    description: d\n    mcp: {{server: s, tool: t, pin: '{PIN}'}}\n"
    )
    assert _load(tmp_path, text) == ["TC092@3"]


def test_server_concurrency_may_name_an_mcp_server(tmp_path: Path) -> None:
    text = SERVER + "server:\n  concurrency: {s: 2, nope: 1}\n"
    assert _load(tmp_path, text) == ["TC081@5"]


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        # the probes of replicas: defaults without the key, numbers of seconds above 0
        ("  s: {url: [https://a.example/mcp, https://b.example/mcp]}\n", McpHealth(10.0, 5.0)),
        (
            "  s: {url: [https://a.example/mcp, https://b.example/mcp], "
            "health: {interval: 2, timeout: 0.5}}\n",
            McpHealth(2.0, 0.5),
        ),
        ("  s: {url: https://a.example/mcp, health: {interval: 0}}\n", ["TC008@3"]),
        ("  s: {url: https://a.example/mcp, health: {every: 5}}\n", ["TC003@3"]),
        # a stdio server has one endpoint: nothing to balance
        ("  s: {command: [srv], health: {interval: 5}}\n", ["TC092@3"]),
    ],
)
def test_health_cases(tmp_path: Path, server: str, expected: McpHealth | list[str]) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text("toolcat: 1\nmcp_servers:\n" + server, encoding="utf-8")
    result = load_catalog([path], progress=False)
    if isinstance(expected, McpHealth):
        assert result.diagnostics == () and result.catalog is not None
        assert result.catalog.mcp_servers["s"].health == expected
    else:
        assert [f"{d.code}@{d.line}" for d in result.diagnostics] == expected


@pytest.mark.parametrize(
    ("budget", "expected"),
    [("", 20000), (", max_response_chars: 500", 500)],
    ids=["default", "set"],
)
def test_the_result_budget_of_a_server(tmp_path: Path, budget: str, expected: int) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(f"toolcat: 1\nmcp_servers:\n  s: {{command: [srv]{budget}}}\n")
    catalog = load_catalog([path], progress=False).catalog
    assert catalog is not None and catalog.mcp_servers["s"].max_response_chars == expected


def test_a_result_budget_is_a_positive_number_of_characters(tmp_path: Path) -> None:
    text = "toolcat: 1\nmcp_servers:\n  s: {command: [srv], max_response_chars: 0}\n"
    assert _load(tmp_path, text) == ["TC008@3"]
