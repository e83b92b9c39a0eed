"""toolcat in front of toolcat: `toolcat serve` (stdio, a subprocess) as the upstream of an
Executor, its tools pinned as listed, each call reaching the sample warehouse service."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import (
    Catalog,
    FrozenDict,
    McpCommand,
    McpUpstream,
    ToolDefinition,
    freeze,
    mcp_pin,
)
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor.mcp import McpTransport, list_all_tools, open_client

CATALOG = """\
toolcat: 1
services:
  warehouse:
    base_url: ${WAREHOUSE_URL}
    timeout: 5
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, pattern: "^[A-Z0-9-]+$", description: The SKU}
"""


@pytest.fixture
def inner(tmp_path: Path, warehouse: str) -> McpUpstream:
    path = tmp_path / "inner.yaml"
    path.write_text(CATALOG)
    return McpUpstream(
        "inner",
        command=(sys.executable, "-m", "toolcat.cli", "serve", str(path)),
        env=FrozenDict({"WAREHOUSE_URL": warehouse}),
    )


async def _listed(upstream: McpUpstream) -> list[dict[str, Any]]:
    async with open_client(upstream, env={}) as client:
        return await list_all_tools(client)


def test_toolcat_serve_as_an_upstream(inner: McpUpstream) -> None:
    listed = asyncio.run(_listed(inner))
    assert [t["name"] for t in listed] == ["get_item"]
    tools = [
        ToolDefinition(
            name=f"inner_{t['name']}",
            description=t["description"],
            input_schema=freeze(t["inputSchema"]),
            command=McpCommand("inner", t["name"], mcp_pin(t)),
        )
        for t in listed
    ]
    catalog = Catalog(tools, [], env={}, mcp_servers=[inner])
    settings = ExecutorSettings(env={}, transports={McpCommand: McpTransport(connect_timeout=60)})
    with Executor(catalog, settings) as executor:
        result = executor.execute(ToolCall("inner_get_item", {"sku": "B-BOLT-M6"}))
        assert result.ok, result.content
        assert json.loads(result.content)["sku"] == "B-BOLT-M6"
        missing = executor.execute(ToolCall("inner_get_item", {"sku": "NOPE-1"}))
        assert missing.error is not None and missing.error.type == "upstream_error"
        assert "404" in missing.error.msg  # the inner toolcat's http_error, as its text
