"""The catalog-side commands on tools of MCP servers, from the written file alone.

No upstream runs here: validate, list, schema, docs, search, env, diff and test read
the catalog, as CI does.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from toolcat.cli import main
from toolcat.executor import providers

GOOD = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "good" / "mcp-servers.yaml"


@pytest.fixture
def catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "catalog.yaml"
    shutil.copy(GOOD, path)
    monkeypatch.chdir(tmp_path)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_is_clean(catalog: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "validate", "catalog.yaml") == (0, "", "toolcat: no problems in 1 file\n")


def test_list_shows_server_and_upstream_tool(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "list", "catalog.yaml")
    rows = [line.split()[:4] for line in out.splitlines()]
    assert code == 0 and rows == [
        ["NAME", "METHOD", "PATH", "SERVICE"],
        ["memory_create_entities", "MCP", "create_entities", "memory"],
        ["tickets_search", "MCP", "search", "tickets"],
        ["get_ticket", "GET", "/tickets/{id}", "tickets_api"],
    ]
    code, out, _ = run(capsys, "list", "catalog.yaml", "--format", "json")
    search = json.loads(out)["tools"][1]
    assert (search["server"], search["tool"]) == ("tickets", "search")
    assert search["pin"].startswith("sha256:") and "method" not in search
    assert search["parameters"] == [{"argument": "text", "name": "query", "required": True}]


@pytest.mark.parametrize("provider", providers.names())
def test_schema_exports_every_tool_for_every_provider(
    catalog: Path, capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    code, out, _ = run(capsys, "schema", "catalog.yaml", "--provider", provider)
    assert code == 0
    for name in ("memory_create_entities", "tickets_search", "get_ticket"):
        assert f'"{name}"' in out


def test_the_mcp_export_carries_the_upstream_s_annotations_and_output_schema(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "schema", "catalog.yaml", "--provider", "mcp")
    search = {t["name"]: t for t in json.loads(out)}["tickets_search"]
    assert search["annotations"] == {
        "title": "Search tickets",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    }
    assert search["outputSchema"] == {
        "type": "object",
        "properties": {"tickets": {"type": "array"}},
    }
    # the model never sees the context-bound argument
    assert list(search["inputSchema"]["properties"]) == ["text"]


def test_search_finds_a_tool_by_its_server(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = catalog.read_text(encoding="utf-8").replace("memory", "knowledge")
    text = text.replace("knowledge_create_entities", "create_entities")
    text = text.replace("knowledge graph", "graph")
    catalog.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "search", "catalog.yaml", "knowledge", "--format", "json")
    assert code == 0
    assert [r["name"] for r in json.loads(out)["results"]] == ["create_entities"]


def test_env_names_the_variables_of_mcp_servers(
    catalog: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TICKETS_TOKEN", raising=False)
    code, out, err = run(capsys, "env", "catalog.yaml")
    lines = out.splitlines()[1:]
    assert [line.split()[0] for line in lines] == ["MEMORY_FILE", "TICKETS_TOKEN"]
    assert "catalog.yaml:9 (mcp server memory: env.MEMORY_FILE_PATH)" in lines[0]
    assert "catalog.yaml:16 (mcp server tickets: auth.token)" in lines[1]
    assert code == 0 and "not set: TICKETS_TOKEN" in err  # it has no default


def test_docs_show_the_server_the_upstream_tool_and_the_pin(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(capsys, "docs", "catalog.yaml", "-o", "site")
    assert code == 0
    page = (catalog.parent / "site" / "tools" / "tickets_search.html").read_text()
    assert "MCP server <code>tickets</code>" in page
    assert "tool <code>search</code> of MCP server <code>tickets</code>, pinned" in page
    assert "argument query" in page  # where the renamed argument goes


def test_diff_says_the_upstream_definition_changed(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = catalog.read_text(encoding="utf-8")
    pin = "sha256:612f4cc17cfe4058401d8d6d58680e7a7dcd4807b71733ecf1ce6d4341f4c46a"
    new = catalog.parent / "new.yaml"
    new.write_text(
        old.replace(pin, "sha256:" + "e" * 64).replace("on_change: warn", "on_change: accept"),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "diff", "catalog.yaml", "new.yaml")
    assert "the upstream definition of tickets/search changed since review" in out
    assert "TD204" in out and "on_change warn -> accept" in out
    assert code == 1  # a safety finding fails the diff by default


def test_test_passes_over_examples_of_mcp_tools(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = catalog.read_text(encoding="utf-8").replace(
        "    annotations: {read_only: true",
        "    examples:\n      - arguments: {text: printer}\n    annotations: {read_only: true",
    )
    catalog.write_text(text, encoding="utf-8")
    # offline, no caller: the tool's required claims.team refuses the call, as for HTTP tools
    code, out, err = run(capsys, "test", "catalog.yaml")
    assert code == 1 and "needs claims.team" in out + err and "Traceback" not in err
    # optional, it is left out and the example runs
    optional = "team: {type: string, from: claims.team, required: false}"
    catalog.write_text(text.replace("team: {type: string, from: claims.team}", optional))
    code, _, err = run(capsys, "test", "catalog.yaml")
    assert code == 0 and "Traceback" not in err
