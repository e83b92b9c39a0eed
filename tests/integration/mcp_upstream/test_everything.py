"""The reference server ``@modelcontextprotocol/server-everything`` (TypeScript SDK, over
stdio) as an upstream: every kind of block comes back whole, progress passes through.

Skips unless it is installed: set MCP_SERVER_EVERYTHING to its ``mcp-server-everything``
binary (``.ci/run`` installs it into ``.ci/node``) or put it on PATH.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import (
    Catalog,
    McpCommand,
    McpUpstream,
    ToolAnnotations,
    ToolDefinition,
    freeze,
    mcp_pin,
)
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor.mcp import CallHooks, McpTransport, call_hooks, list_all_tools, open_client

LOCAL = Path(__file__).resolve().parents[3] / ".ci/node/node_modules/.bin/mcp-server-everything"
EVERYTHING = (
    os.environ.get("MCP_SERVER_EVERYTHING")
    or shutil.which("mcp-server-everything")
    or (str(LOCAL) if LOCAL.exists() else None)
)
pytestmark = pytest.mark.skipif(
    EVERYTHING is None,
    reason="server-everything not installed (set MCP_SERVER_EVERYTHING to "
    "node_modules/.bin/mcp-server-everything, as .ci/run does)",
)


async def _listed(upstream: McpUpstream) -> list[dict[str, Any]]:
    async with open_client(upstream, env={}) as client:
        return await list_all_tools(client)


@pytest.fixture(scope="module")
def executor() -> Any:
    assert EVERYTHING is not None
    upstream = McpUpstream("every", command=(EVERYTHING, "stdio"))
    tools = []
    for listed in asyncio.run(_listed(upstream)):
        hints = listed.get("annotations") or {}
        output = listed.get("outputSchema")
        tools.append(
            ToolDefinition(
                name="every_" + listed["name"].replace("-", "_"),
                description=listed.get("description", ""),
                input_schema=freeze(listed["inputSchema"]),
                output_schema=freeze(output) if output is not None else None,
                command=McpCommand("every", listed["name"], mcp_pin(listed)),
                annotations=ToolAnnotations(
                    read_only=hints.get("readOnlyHint"),
                    destructive=hints.get("destructiveHint"),
                    idempotent=hints.get("idempotentHint"),
                    open_world=hints.get("openWorldHint"),
                ),
            )
        )
    catalog = Catalog(tools, [], env={}, mcp_servers=[upstream])
    settings = ExecutorSettings(env={}, transports={McpCommand: McpTransport(connect_timeout=60)})
    with Executor(catalog, settings) as executor:
        yield executor


def test_every_pin_holds_and_text_comes_back(executor: Executor) -> None:
    echo = executor.execute(ToolCall("every_echo", {"message": "hello"}))
    assert echo.ok and echo.content == "Echo: hello"
    assert executor.mcp.pool.status()["every"].refused == {}
    assert executor.execute(ToolCall("every_get_sum", {"a": 2, "b": 3})).content.endswith("5.")


def test_blocks_of_every_kind_come_back_whole(executor: Executor) -> None:
    image = executor.execute(ToolCall("every_get_tiny_image", {}))
    assert image.ok and "image" in [b["type"] for b in image.blocks]
    links = executor.execute(ToolCall("every_get_resource_links", {"count": 2}))
    assert [b["type"] for b in links.blocks].count("resource_link") == 2
    embedded = executor.execute(
        ToolCall("every_get_resource_reference", {"resourceType": "Text", "resourceId": 1})
    )
    assert embedded.ok and "resource" in [b["type"] for b in embedded.blocks]
    weather = executor.execute(ToolCall("every_get_structured_content", {"location": "New York"}))
    assert weather.ok and isinstance(weather.data, dict) and "temperature" in weather.data


def test_progress_of_a_long_operation_passes_through(executor: Executor) -> None:
    seen: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(value)

    async def run() -> bool:
        token = call_hooks.set(CallHooks(progress=progress))
        try:
            call = ToolCall("every_trigger_long_running_operation", {"duration": 1, "steps": 3})
            return (await executor.aexecute(call)).ok
        finally:
            call_hooks.reset(token)

    assert asyncio.run(run())
    assert len(seen) == 3
