"""search_tools in the agent loop with search.embeddings: fused finds, and a note when down."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import Catalog, HttpCommand, Service, ToolDefinition
from toolcat.catalog.common import freeze
from toolcat.catalog.search import EmbeddingsSettings, SearchSettings
from toolcat.executor import Executor, ExecutorSettings
from toolcat.executor.agent import AgentLoop, LoopResult, LoopSettings, OpenAIChatClient
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn
from toolcat.tests.support import EmbeddingsService


def tool(name: str, description: str) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description=description,
        input_schema=freeze({"type": "object", "properties": {}}),
        command=HttpCommand(service="svc", method="GET", path=f"/{name}"),
    )


TOOLS = [
    tool("get_weather", "Current weather conditions for a city."),
    tool("send_sms", "Send a text message to a phone number."),
    tool("create_invoice", "Create an invoice for a customer."),
]


@pytest.fixture
def endpoint() -> Iterator[tuple[EmbeddingsService, str]]:
    app = EmbeddingsService()
    with BackgroundServer(app) as server:
        yield app, server.url


def search_once(catalog: Catalog, query: str) -> dict[str, Any]:
    turns = [
        ScriptedTurn(tool_calls=[{"name": "search_tools", "arguments": {"query": query}}]),
        ScriptedTurn(text="done"),
    ]
    scripted = ScriptedModel(turns)
    with BackgroundServer(scripted.app) as model:

        async def go() -> LoopResult:
            client = OpenAIChatClient(model.url + "/v1", "m", api_key_env=None, backoff=0.01)
            executor = Executor(catalog, ExecutorSettings(env={}))
            try:
                loop = AgentLoop(
                    client, executor, LoopSettings(catalog=catalog, tool_selection="search")
                )
                return await loop.arun("go")
            finally:
                await client.aclose()
                await executor.aclose()

        result = asyncio.run(go())
    answer: dict[str, Any] = json.loads(result.steps[0].results[0].content)
    return answer


def catalog(url: str, cache: Path) -> Catalog:
    settings = EmbeddingsSettings(url=url, model="fake", cache=str(cache), timeout=2)
    return Catalog(
        TOOLS, [Service("svc", "http://127.0.0.1:9")], search=SearchSettings(embeddings=settings)
    )


def test_search_tools_ranks_with_embeddings(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    cat = catalog(url, tmp_path)
    assert cat.search("custo invo") == []  # nothing lexical
    answer = search_once(cat, "custo invo")
    assert answer["tools"][0]["name"] == "create_invoice"
    assert "note" not in answer
    assert app.requests == 2


def test_search_tools_notes_a_failing_endpoint(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    app.mode = "error"
    answer = search_once(catalog(url, tmp_path), "weather in a city")
    assert [t["name"] for t in answer["tools"]] == ["get_weather"]
    assert "HTTP 500" in answer["note"] and "lexical" in answer["note"]
