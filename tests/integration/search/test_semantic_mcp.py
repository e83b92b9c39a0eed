"""`toolcat serve --tool-search` with search.embeddings, through the MCP client SDK over stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from toolcat.testing import BackgroundServer
from toolcat.tests.support import EmbeddingsService

CATALOG = """\
toolcat: 1
services:
  svc: {base_url: 'http://127.0.0.1:9'}
tools:
  - {name: get_weather, description: Current weather for a city., service: svc, method: GET,
     path: /w}
  - {name: send_sms, description: Send a text message to a phone., service: svc, method: POST,
     path: /s, confirm: false}
  - {name: create_invoice, description: Create an invoice for a customer., service: svc,
     method: POST, path: /i, confirm: false}
search:
  embeddings: {url: '${EMB_URL}/v1', model: fake, api_key: '${EMB_KEY}', cache: vectors,
               timeout: 3}
"""


@pytest.fixture
def endpoint() -> Iterator[tuple[EmbeddingsService, str]]:
    app = EmbeddingsService()
    with BackgroundServer(app) as server:
        yield app, server.url


def test_search_tools_is_fused_and_notes_a_failure(
    endpoint: tuple[EmbeddingsService, str], tmp_path: Path
) -> None:
    app, url = endpoint
    (tmp_path / "c.yaml").write_text(CATALOG)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env |= {"EMB_URL": url, "EMB_KEY": "sk-mcp-secret-123"}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolcat.cli", "serve", str(tmp_path / "c.yaml"), "--tool-search"],
        env=env,
    )

    async def search(s: ClientSession, query: str) -> dict[str, Any]:
        found = await s.call_tool("search_tools", {"query": query})
        block = found.content[0]
        assert found.is_error is False and isinstance(block, types.TextContent)
        answer: dict[str, Any] = json.loads(block.text)
        return answer

    async def session() -> None:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with stdio_client(server, errlog) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                fused = await search(s, "custo invo")  # no lexical match
                assert [t["name"] for t in fused["tools"]][:1] == ["create_invoice"]
                assert "note" not in fused
                app.mode = "error"
                down = await search(s, "weather for a city")  # a new query: the endpoint again
                assert [t["name"] for t in down["tools"]][:1] == ["get_weather"]
                assert "HTTP 500" in str(down["note"]) and "sk-mcp" not in json.dumps(down)

    anyio.run(session)
    assert app.authorization[0] == "Bearer sk-mcp-secret-123"
    assert len(list((tmp_path / "vectors").rglob("*.vec"))) == 3
