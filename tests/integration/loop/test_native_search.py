"""Anthropic's own tool search in the loop, and the catalog's pinned tools (search.pinned).

A scripted Anthropic endpoint over real sockets that answers like the API: it refuses
deferred tools without the beta header or without a search tool, and a reply may hold
``server_tool_use`` and ``tool_search_tool_result`` blocks before a ``tool_use`` of a
tool the search found. The sample warehouse service answers the calls.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.catalog import Catalog
from toolcat.executor import Executor, ExecutorSettings
from toolcat.executor.agent import (
    AgentLoop,
    AnthropicClient,
    LoopResult,
    LoopSettings,
    OpenAIChatClient,
)
from toolcat.executor.providers.anthropic import TOOL_SEARCH_BETA
from toolcat.loader import load_catalog
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn, make_service

REPO = Path(__file__).resolve().parents[3]
SEARCH_TYPE = "tool_search_tool_bm25_20251119"


@pytest.fixture(scope="module")
def warehouse() -> Iterator[str]:
    with BackgroundServer(make_service()) as server:
        yield server.url


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo catalog with ``search: {pinned: [get_item]}`` added."""
    folder = tmp_path_factory.mktemp("demo")
    text = (REPO / "examples" / "demo" / "catalog.yaml").read_text(encoding="utf-8")
    spec = json.dumps(str(REPO / "specs" / "sample-service.yaml"))
    text = text.replace("../../specs/sample-service.yaml", spec)
    (folder / "catalog.yaml").write_text(text + "\nsearch:\n  pinned: [get_item]\n")
    return folder


@pytest.fixture(scope="module")
def demo(demo_dir: Path) -> Catalog:
    result = load_catalog([str(demo_dir)], progress=False)
    assert result.catalog is not None, result.diagnostics
    return result.catalog


def names(body: Mapping[str, Any]) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


def run(
    catalog: Catalog,
    env: dict[str, str],
    turns: list[Any],
    *,
    client_kw: dict[str, Any] | None = None,
    prompt: str = "Is order 1 shipped?",
    **loop_kw: Any,
) -> tuple[LoopResult, ScriptedModel]:
    scripted = ScriptedModel(turns)
    with BackgroundServer(scripted.app) as endpoint:

        async def go() -> LoopResult:
            client = AnthropicClient(
                endpoint.url, "claude", api_key_env=None, backoff=0.01, **(client_kw or {})
            )
            executor = Executor(catalog, ExecutorSettings(env=env))
            try:
                loop = AgentLoop(client, executor, LoopSettings(catalog=catalog, **loop_kw))
                return await loop.arun(prompt)
            finally:
                await client.aclose()
                await executor.aclose()

        return asyncio.run(go()), scripted


def search_and_call(tool: str, arguments: dict[str, Any], query: str) -> ScriptedTurn:
    return ScriptedTurn(
        text="Let me look.",
        tool_searches=[{"query": query, "found": [tool, "order_status"]}],
        tool_calls=[{"name": tool, "arguments": arguments}],
    )


@pytest.mark.parametrize("stream", [False, True])
def test_native_search_finds_a_deferred_tool_and_calls_it(
    demo: Catalog, warehouse: str, stream: bool
) -> None:
    turns = [
        search_and_call("search_items", {"q": "steel"}, "search items by name"),
        ScriptedTurn(text="Steel gadgets are in stock."),
    ]
    result, scripted = run(
        demo,
        {"WAREHOUSE_URL": warehouse},
        turns,
        tool_selection="native-search",
        stream=stream,
    )
    assert result.stop_reason == "final_answer"
    assert result.final_text == "Steel gadgets are in stock."
    first, second = scripted.requests
    # the beta header, the search tool first, the pinned tool as is, the rest deferred
    assert TOOL_SEARCH_BETA in first.headers["anthropic-beta"].split(",")
    tools = first.body["tools"]
    assert tools[0] == {"type": SEARCH_TYPE, "name": "tool_search_tool_bm25"}
    assert [t["name"] for t in tools[1:]] == [
        "get_item",
        "place_order",
        "search_items",
        "order_status",
    ]
    assert {t["name"]: t.get("defer_loading", False) for t in tools[1:]} == {
        "get_item": False,
        "place_order": True,
        "search_items": True,
        "order_status": True,
    }
    assert all("input_schema" in t for t in tools[1:])
    # only the tool_use block ran; the server blocks went back as the API wrote them
    assert [c.name for c in result.steps[0].calls] == ["search_items"]
    assert [r.ok for r in result.steps[0].results] == [True]
    sent = second.body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    kinds = [b["type"] for b in sent[1]["content"]]
    assert kinds == ["text", "server_tool_use", "tool_search_tool_result", "tool_use"]
    server_use, server_result = sent[1]["content"][1:3]
    assert server_use == {
        "type": "server_tool_use",
        "id": "srvtoolu_0",
        "name": "tool_search_tool_bm25",
        "input": {"query": "search items by name"},
    }
    assert server_result["tool_use_id"] == "srvtoolu_0"
    assert [r["tool_name"] for r in server_result["content"]["tool_references"]] == [
        "search_items",
        "order_status",
    ]
    results = sent[2]["content"]
    assert [b["type"] for b in results] == ["tool_result"]
    assert results[0]["tool_use_id"] == "toolu_0"
    assert "steel" in results[0]["content"].lower()
    assert second.body["tools"] == first.body["tools"]  # the list never changes
    assert TOOL_SEARCH_BETA in second.headers["anthropic-beta"]


def test_pause_turn_is_sent_back_to_go_on(demo: Catalog, warehouse: str) -> None:
    turns = [
        ScriptedTurn(
            tool_searches=[{"query": "orders", "found": ["order_status"]}],
            stop_reason="pause_turn",
        ),
        ScriptedTurn(text="Nothing to run."),
    ]
    result, scripted = run(
        demo, {"WAREHOUSE_URL": warehouse}, turns, tool_selection="native-search"
    )
    assert result.stop_reason == "final_answer" and result.final_text == "Nothing to run."
    assert len(scripted.requests) == 2
    last = scripted.requests[1].body["messages"][-1]
    assert last["role"] == "assistant"
    assert [b["type"] for b in last["content"]] == ["server_tool_use", "tool_search_tool_result"]


def test_regex_variant_and_a_search_error(demo: Catalog, warehouse: str) -> None:
    turns = [
        ScriptedTurn(
            tool_searches=[{"pattern": "order.*", "error": "invalid_tool_input"}],
            stop_reason="pause_turn",
        ),
        ScriptedTurn(text="The search failed."),
    ]
    result, scripted = run(
        demo,
        {"WAREHOUSE_URL": warehouse},
        turns,
        tool_selection="native-search",
        search_variant="regex",
        pinned=[],
    )
    assert result.final_text == "The search failed."
    tools = scripted.requests[0].body["tools"]
    assert tools[0] == {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
    assert all(t["defer_loading"] is True for t in tools[1:])  # pinned=[]: nothing pinned
    reply = scripted.requests[1].body["messages"][1]["content"]
    assert reply[0]["input"] == {"pattern": "order.*"}
    assert reply[1]["content"]["error_code"] == "invalid_tool_input"


def test_the_beta_header_joins_one_given(demo: Catalog, warehouse: str) -> None:
    _, scripted = run(
        demo,
        {"WAREHOUSE_URL": warehouse},
        [ScriptedTurn(text="hi")],
        client_kw={"headers": {"Anthropic-Beta": "other-2025-01-01"}},
        tool_selection="native-search",
    )
    headers = scripted.requests[0].headers  # starlette: lower-case names
    assert headers["anthropic-beta"] == f"other-2025-01-01,{TOOL_SEARCH_BETA}"


def test_all_mode_sends_no_beta_header_and_no_deferral(demo: Catalog, warehouse: str) -> None:
    _, scripted = run(demo, {"WAREHOUSE_URL": warehouse}, [ScriptedTurn(text="hi")])
    request = scripted.requests[0]
    assert "anthropic-beta" not in request.headers
    assert not any("defer_loading" in t for t in request.body["tools"])


def test_over_the_deferred_limit_falls_back_to_search_tools(
    demo: Catalog, warehouse: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(AnthropicClient, "max_deferred_tools", 3)
    result, scripted = run(
        demo,
        {"WAREHOUSE_URL": warehouse},
        [ScriptedTurn(text="hi")],
        tool_selection="native-search",
    )
    assert result.final_text == "hi"
    body = scripted.requests[0].body
    assert names(body) == ["get_item", "search_tools"]
    assert "anthropic-beta" not in scripted.requests[0].headers


def test_native_search_needs_anthropic(demo: Catalog) -> None:
    client = OpenAIChatClient("http://127.0.0.1:9/v1", "m", api_key_env=None)
    with pytest.raises(ValueError, match="needs a model client with the API's own tool search"):
        AgentLoop(
            client, Executor(demo), LoopSettings(catalog=demo, tool_selection="native-search")
        )
    with pytest.raises(ValueError, match="search_variant must be"):
        AgentLoop(client, Executor(demo), LoopSettings(catalog=demo, search_variant="fuzzy"))  # type: ignore[arg-type]


def test_catalog_pins_are_the_default_pins_in_search_mode(demo: Catalog, warehouse: str) -> None:
    assert demo.pinned() == ("get_item",)
    _, scripted = run(
        demo, {"WAREHOUSE_URL": warehouse}, [ScriptedTurn(text="hi")], tool_selection="search"
    )
    assert names(scripted.requests[0].body) == ["get_item", "search_tools"]
    _, scripted = run(
        demo,
        {"WAREHOUSE_URL": warehouse},
        [ScriptedTurn(text="hi")],
        tool_selection="search",
        pinned=["order_status"],  # given: instead of the catalog's
    )
    assert names(scripted.requests[0].body) == ["order_status", "search_tools"]


# -- toolcat chat ------------------------------------------------------------------------


def chat(
    catalog: str, args: list[str], turns: list[Any], env_extra: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], ScriptedModel]:
    scripted = ScriptedModel(turns)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(env_extra)
    with BackgroundServer(scripted.app) as endpoint:
        argv = [sys.executable, "-m", "toolcat.cli", "chat", catalog, "Which items are steel?"]
        argv += ["--base-url", endpoint.url, "--model", "claude", *args]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    return proc, scripted


def test_chat_native_search_over_loopback(demo_dir: Path, warehouse: str) -> None:
    turns = [
        search_and_call("search_items", {"q": "steel"}, "find items"),
        ScriptedTurn(text="Steel gadgets."),
    ]
    proc, scripted = chat(
        str(demo_dir),
        ["--provider", "anthropic", "--tool-selection", "native-search", "--tool", "order_status"],
        turns,
        {"WAREHOUSE_URL": warehouse},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("Steel gadgets.")
    assert '-> tool_search_tool_bm25 {"query": "find items"} (API)' in proc.stderr
    assert "<- found 2 tools: search_items, order_status (API)" in proc.stderr
    assert "-> search_items" in proc.stderr and "<- search_items ok (HTTP 200" in proc.stderr
    tools = scripted.requests[0].body["tools"]
    pinned = [t["name"] for t in tools[1:] if not t.get("defer_loading")]
    assert pinned == ["get_item", "order_status"]  # the catalog's pin, then --tool
    assert [b["type"] for b in scripted.requests[1].body["messages"][1]["content"]] == [
        "text",
        "server_tool_use",
        "tool_search_tool_result",
        "tool_use",
    ]


@pytest.mark.parametrize(
    "args, first",
    [
        ([], ["get_item", "search_tools"]),
        (["--tool", "order_status"], ["get_item", "order_status", "search_tools"]),
        (["--no-catalog-pins", "--tool", "order_status"], ["order_status", "search_tools"]),
    ],
)
def test_chat_search_mode_uses_the_catalog_pins(
    demo_dir: Path, warehouse: str, args: list[str], first: list[str]
) -> None:
    proc, scripted = chat(
        str(demo_dir),
        ["--tool-selection", "search", *args],
        [ScriptedTurn(text="ok")],
        {"WAREHOUSE_URL": warehouse},
    )
    assert proc.returncode == 0, proc.stderr
    assert [t["function"]["name"] for t in scripted.requests[0].body["tools"]] == first


def test_chat_native_search_needs_anthropic(demo_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolcat.cli", "chat", str(demo_dir), "hi"]
        + ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
        + ["--tool-selection", "native-search"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "native-search needs --provider anthropic" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- GitHub's 1,223 tools ---------------------------------------------------------------


@pytest.fixture(scope="module")
def github(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    folder = tmp_path_factory.mktemp("github")
    spec = corpus_dir / "github-api.github.com.json"
    (folder / "github.yaml").write_text(
        "toolcat: 1\nservices:\n  github:\n    base_url: ${GH_URL}\n"
        f"openapi:\n  - spec: {json.dumps(str(spec))}\n    service: github\n"
        "search:\n  pinned: [meta_root, 'meta_get-*']\n",
        encoding="utf-8",
    )
    result = load_catalog([str(folder / "github.yaml")], progress=False)
    assert result.catalog is not None
    assert len(result.catalog) == 1223
    return result.catalog


@pytest.fixture
def fake_github() -> Iterator[tuple[list[str], str]]:
    seen: list[str] = []

    async def anything(request: Request) -> JSONResponse:
        seen.append(f"{request.method} {request.url.path}")
        return JSONResponse([{"number": 7, "title": "Crash on start"}])

    app = Starlette(routes=[Route("/{path:path}", anything, methods=["GET", "POST"])])
    with BackgroundServer(app) as server:
        yield seen, server.url


def test_native_search_among_githubs_1223_tools(
    github: Catalog, fake_github: tuple[list[str], str]
) -> None:
    seen, url = fake_github
    pins = github.pinned()
    assert pins[0] == "meta_root" and len(pins) > 1  # the name, then the glob's matches
    turns = [
        ScriptedTurn(
            tool_searches=[{"query": "list repository issues", "found": ["issues_list-for-repo"]}],
            tool_calls=[
                {"name": "issues_list-for-repo", "arguments": {"owner": "octo", "repo": "hello"}}
            ],
        ),
        ScriptedTurn(text="One open issue: #7."),
    ]
    result, scripted = run(
        github, {"GH_URL": url}, turns, tool_selection="native-search", prompt="Open issues?"
    )
    assert result.stop_reason == "final_answer", result.final_text
    assert seen == ["GET /repos/octo/hello/issues"]
    tools = scripted.requests[0].body["tools"]
    assert len(tools) == 1224 and tools[0]["type"] == SEARCH_TYPE
    loaded = [t["name"] for t in tools[1:] if not t.get("defer_loading")]
    assert loaded == list(pins)
    assert sum(1 for t in tools if t.get("defer_loading")) == 1223 - len(pins)
