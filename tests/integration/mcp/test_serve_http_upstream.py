"""An `McpServer` in this process in front of the SDK test server over streamable HTTP.

Real parts: the upstream on a loopback port (uvicorn), an ``McpServer`` whose loader
gives a catalog pinned to that upstream's tools, and ``mcp.Client`` on the server
itself, in both eras. The server is never started with run_stdio/run_http here, so its
first tools/list starts the upstreams.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from toolcat.catalog import McpUpstream
from toolcat.executor.mcp_server import McpServer, McpServerSettings
from toolcat.loader import LoadResult
from toolcat.testing import BackgroundServer
from toolcat.tests.support.mcp_upstream import http_app, pinned_catalog


@pytest.fixture(scope="module")
def upstream_url() -> Iterator[str]:
    with BackgroundServer(http_app()) as server:
        yield f"{server.url}/mcp"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_http_upstream_is_served_in_front_of_either_era(upstream_url: str, mode: str) -> None:
    catalog = pinned_catalog(McpUpstream("up", urls=(upstream_url,)))
    server = McpServer(
        ["inline"], McpServerSettings(loader=lambda paths: LoadResult(catalog, (), ()))
    )

    async def session() -> None:
        try:
            async with Client(server.server, mode=mode, cache=None) as c:
                with anyio.fail_after(30):
                    while "up_image" not in {t.name for t in (await c.list_tools()).tools}:
                        await anyio.sleep(0.1)
                image = await c.call_tool("up_image", {})
                assert [b.type for b in image.content] == ["text", "image"]
                assert isinstance(image.content[1], types.ImageContent)
                weather = await c.call_tool("up_structured", {"city": "Bergen"})
                assert weather.structured_content == {"city": "Bergen", "celsius": 21.5}
                seen: list[Any] = []

                async def progress(
                    progress: float, total: float | None, message: str | None
                ) -> None:
                    seen.append(progress)

                slow = await c.call_tool("up_slow", {"seconds": 0.3}, progress_callback=progress)
                assert slow.is_error is False and len(seen) >= 2
                status = server.readiness()["upstreams"]["up"]
                assert status == {
                    "state": "ready",
                    "restarts": 0,
                    "refused_tools": 0,
                    "protocol": "2026-07-28",  # the upstream speaks the newest era it can
                }
        finally:
            await server.aclose()

    anyio.run(session)
