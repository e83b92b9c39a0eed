"""toolcat diff on tools of MCP servers: the rules of the upstream side, one case a row."""

from __future__ import annotations

import pytest
from toolcat.catalog.diff import CHANGE_RULES, diff_catalogs
from toolcat.tests.support import CatalogFiles

PIN_A = "sha256:" + "a" * 64
PIN_B = "sha256:" + "b" * 64
SERVERS = """toolcat: 1
services:
  svc: {base_url: "https://svc.example"}
mcp_servers:
  memory:
    command: [npx, -y, server-memory]
    env: {MEMORY_FILE_PATH: "${MEMORY_FILE}"}
    on_change: ON_CHANGE
  other: {url: "https://other.example/mcp"}
"""
TOOL = """tools:
  - name: memory_add
    description: Add observations.
    mcp: {server: SERVER, tool: TOOL, pin: "PIN", arguments: {text: RENAMED}, fixed: FIXED}
    parameters:
      text: {type: string, description: The observation.}
"""
HTTP_TOOL = """tools:
  - name: memory_add
    description: Add observations.
    service: svc
    method: POST
    path: /observations
    parameters:
      text: {type: string, description: The observation.}
"""
BASE = {
    "SERVER": "memory",
    "TOOL": "add_observations",
    "PIN": PIN_A,
    "RENAMED": "contents",
    "FIXED": "{}",
    "ON_CHANGE": "refuse",
}


def _text(**changes: str) -> str:
    values = {**BASE, **changes}
    text = SERVERS + TOOL
    for key, value in values.items():
        text = text.replace(key, value)
    return text


CASES = [
    pytest.param({"PIN": PIN_B}, [("TD308", "/command/pin")], id="pin"),
    pytest.param({"SERVER": "other"}, [("TD115", "/command/server")], id="server"),
    pytest.param({"TOOL": "add"}, [("TD116", "/command/tool")], id="upstream-tool"),
    pytest.param({"RENAMED": "observations"}, [("TD113", "/command/arguments/text")], id="rename"),
    pytest.param({"FIXED": "{dry_run: true}"}, [("TD113", "/command/fixed")], id="fixed"),
    pytest.param({"ON_CHANGE": "warn"}, [("TD204", "/mcp_server/on_change")], id="loosened"),
    pytest.param({"ON_CHANGE": "accept"}, [("TD204", "/mcp_server/on_change")], id="accept"),
    pytest.param(
        {"ON_CHANGE": "refuse\n    max_response_chars: 500"},
        [("TD307", "/mcp_server/max_response_chars")],
        id="result-budget",
    ),
]


@pytest.mark.parametrize("changes, expected", CASES)
def test_an_upstream_change_is_classified(
    catalog_files: CatalogFiles, changes: dict[str, str], expected: list[tuple[str, str]]
) -> None:
    old = catalog_files.catalog(_text(), "old.yaml")
    new = catalog_files.catalog(_text(**changes), "new.yaml")
    assert [(c.rule, c.location) for c in diff_catalogs(old, new)] == expected
    assert diff_catalogs(old, old) == ()


def test_the_pin_message_names_the_upstream_tool(catalog_files: CatalogFiles) -> None:
    old = catalog_files.catalog(_text(), "old.yaml")
    new = catalog_files.catalog(_text(PIN=PIN_B), "new.yaml")
    (change,) = diff_catalogs(old, new)
    assert change.message.startswith(
        "the upstream definition of memory/add_observations changed since review"
    )
    assert CHANGE_RULES[change.rule].kind == "note"


def test_a_stricter_on_change_is_a_note_and_a_looser_one_a_safety_finding(
    catalog_files: CatalogFiles,
) -> None:
    loose = catalog_files.catalog(_text(ON_CHANGE="accept"), "old.yaml")
    strict = catalog_files.catalog(_text(ON_CHANGE="refuse"), "new.yaml")
    (tightened,) = diff_catalogs(loose, strict)
    assert (tightened.rule, tightened.kind) == ("TD307", "note")
    (loosened,) = diff_catalogs(strict, loose)
    assert (loosened.rule, loosened.kind) == ("TD204", "safety")


def test_server_values_that_may_hold_secrets_are_named_not_shown(
    catalog_files: CatalogFiles,
) -> None:
    old = catalog_files.catalog(_text(), "old.yaml")
    changed = _text().replace("${MEMORY_FILE}", "s3cr3t").replace("server-memory", "srv-v2")
    new = catalog_files.catalog(changed, "new.yaml")
    changes = [(c.rule, c.location, c.message) for c in diff_catalogs(old, new)]
    assert changes == [
        ("TD115", "/mcp_server/command", "the server's command changed"),
        ("TD307", "/mcp_server/env", "the server's environment changed: MEMORY_FILE_PATH"),
    ]


def test_a_tool_that_moves_between_http_and_mcp_says_so(catalog_files: CatalogFiles) -> None:
    mcp = catalog_files.catalog(_text(), "old.yaml")
    http = catalog_files.catalog(SERVERS.replace("ON_CHANGE", "refuse") + HTTP_TOOL, "new.yaml")
    changes = [(c.rule, c.message) for c in diff_catalogs(mcp, http)]
    assert (
        "TD114",
        "calls POST /observations of service 'svc' now "
        "(was tool 'add_observations' of MCP server 'memory')",
    ) in changes


def test_a_likely_rename_of_a_tool_of_an_mcp_server(catalog_files: CatalogFiles) -> None:
    old = catalog_files.catalog(_text(), "old.yaml")
    new = catalog_files.catalog(_text().replace("memory_add", "memory_add_observations"), "n.yaml")
    messages = sorted(c.message for c in diff_catalogs(old, new))
    assert messages == [
        "tool added (likely renamed from 'memory_add': same server and tool)",
        "tool removed (likely renamed to 'memory_add_observations': same server and tool)",
    ]


REPLICAS = '["https://a.example/mcp", "https://b.example/mcp"]'


def test_a_change_of_the_replicas_health_probes_is_a_note(catalog_files: CatalogFiles) -> None:
    tool = TOOL.replace("SERVER", "other").replace("TOOL", "add").replace("PIN", PIN_A)
    tool = tool.replace("RENAMED", "contents").replace("FIXED", "{}")
    servers = SERVERS.replace("ON_CHANGE", "refuse")
    replicas = servers.replace('"https://other.example/mcp"', REPLICAS)
    old = catalog_files.catalog(replicas + tool, "old.yaml")
    probed = replicas.replace(f"{REPLICAS}}}", f"{REPLICAS}, health: {{interval: 2}}}}")
    new = catalog_files.catalog(probed + tool, "new.yaml")
    changes = [(c.rule, c.kind, c.location, c.message) for c in diff_catalogs(old, new)]
    assert changes == [
        (
            "TD307",
            "note",
            "/mcp_server/health",
            "the server's health probes every 10 s (timeout 5 s) -> every 2 s (timeout 5 s)",
        )
    ]
