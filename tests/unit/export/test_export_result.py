"""An export is the list of tools an SDK takes, with its notes; a request over the limit says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import orjson
import pydantic
import pytest
import toolcat
from toolcat.catalog import Catalog, ToolDefinition
from toolcat.cli._app import main
from toolcat.executor.providers import PROVIDERS, ExportNote, ExportResult, export_catalog

from .conftest import make_tool


@pytest.mark.parametrize("name", PROVIDERS)
def test_an_export_is_a_list_of_the_tools(catalog: Catalog, name: str) -> None:
    result = toolcat.provider(name).tools(catalog)
    assert isinstance(result, list) and isinstance(result, ExportResult)
    assert len(result) == len(result.tools) and result[0] == result.tools[0]
    assert list(result) == [*result] == result.tools and type(result.tools) is list
    assert json.dumps(result) == json.dumps(list(result)) == json.dumps(result.tools)
    assert orjson.dumps(result) == orjson.dumps(result.tools)
    assert result.provider == name and isinstance(result.notes, tuple)


def test_it_goes_where_an_sdk_takes_a_list_of_tools(catalog: Catalog) -> None:
    tools = toolcat.provider("openai").tools(catalog)
    # what an SDK does with it: validate it as a list of dicts, then send it as JSON
    checked = pydantic.TypeAdapter(list[dict[str, Any]]).validate_python(tools)
    request = httpx.Request("POST", "https://api.test/v1/chat", json={"tools": tools})
    assert json.loads(request.content)["tools"] == checked == tools.tools
    assert checked[0]["function"]["name"] == "get_order"


def test_the_repr_shows_the_provider_and_the_notes() -> None:
    note = ExportNote("t", "/properties/x", "oneOf rewritten as anyOf")
    result = ExportResult("openai", [{"type": "function"}], [note])
    assert repr(result) == (
        "ExportResult(provider='openai', tools=[{'type': 'function'}], notes=(ExportNote("
        "tool='t', pointer='/properties/x', message='oneOf rewritten as anyOf'),))"
    )
    assert str(note) == "t at /properties/x: oneOf rewritten as anyOf"


def _tools(count: int) -> list[ToolDefinition]:
    return [make_tool(f"tool_{i}", "GET", {}) for i in range(count)]


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_more_tools_than_the_api_takes_is_the_first_note(provider: str) -> None:
    result = toolcat.provider(provider).tools(_tools(130))
    assert len(result) == 130
    first = result.notes[0]
    assert (first.tool, first.pointer) == ("", "")
    assert (
        str(first)
        == first.message
        == (
            "130 tools, and the API takes at most 128 in one request (pick fewer with toolset=, "
            "or let the model search them: an AgentLoop with LoopSettings(tool_selection='search'))"
        )
    )
    assert [n for n in toolcat.provider(provider).tools(_tools(128)).notes if not n.tool] == []


@pytest.mark.parametrize("provider", ["anthropic", "gemini", "mcp"])
def test_a_provider_without_a_stated_count_has_no_such_note(provider: str) -> None:
    assert [n for n in toolcat.provider(provider).tools(_tools(130)).notes if not n.tool] == []


def test_the_note_counts_the_toolset_sent(catalog: Catalog) -> None:
    assert export_catalog(catalog, "openai", toolset="readonly").notes == ()


def test_the_cli_prints_the_limit_once_as_a_warning(tmp_path: Path, capsys: Any) -> None:
    tools = "".join(
        f"  - {{name: tool_{i}, description: Tool {i}., service: s, method: GET, path: /t{i}}}\n"
        for i in range(130)
    )
    path = tmp_path / "c.yaml"
    path.write_text(
        "toolcat: 1\nservices:\n  s: {base_url: 'https://api.example'}\ntools:\n" + tools
    )
    assert main(["schema", str(path), "--provider", "openai"]) == 0
    err = capsys.readouterr().err
    assert err.count("130 tools") == 1 and err.startswith("toolcat: warning: openai: 130 tools")
