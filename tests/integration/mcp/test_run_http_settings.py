"""run_http serves as its McpServerSettings say: the path, the port, the callers' auth."""

from __future__ import annotations

import hashlib
from pathlib import Path

import anyio
import httpx
from toolcat.catalog.serving import ApiKeyEntry, ServeAuth, ServerSettings
from toolcat.executor.mcp_server import McpServer, McpServerSettings

CATALOG = """\
toolcat: 1
services:
  s: {base_url: 'http://127.0.0.1:9'}
tools:
  - name: ping
    description: Ping.
    service: s
    method: GET
    path: /ping
"""

KEY = "k-" + "x" * 30


def test_run_http_serves_the_path_port_and_auth_of_its_settings(tmp_path: Path) -> None:
    (tmp_path / "catalog.yaml").write_text(CATALOG)
    digest = "sha256:" + hashlib.sha256(KEY.encode()).hexdigest()
    serving = ServerSettings(auth=ServeAuth(api_keys=(ApiKeyEntry("ci", digest),)))
    settings = McpServerSettings(port=0, path="/tools", serving=serving, drain_timeout=1.0)
    server = McpServer([str(tmp_path / "catalog.yaml")], settings)
    server.load()
    seen: dict[str, int] = {}

    async def scenario() -> None:
        ready = anyio.Event()
        urls: list[str] = []

        def on_ready(url: str) -> None:
            urls.append(url)
            ready.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(server.run_http, on_ready)
            with anyio.fail_after(20):
                await ready.wait()
            url = urls[0]
            async with httpx.AsyncClient(timeout=10) as client:
                seen["health"] = (
                    await client.get(url.removesuffix("/tools") + "/healthz")
                ).status_code
                seen["anonymous"] = (await client.post(url, json={})).status_code
                keyed = await client.post(url, json={}, headers={"Authorization": f"Bearer {KEY}"})
                seen["keyed"] = keyed.status_code
            server.lifecycle.request_drain()  # as SIGTERM: run_http returns, sockets closed

    anyio.run(scenario)
    assert seen["health"] == 200
    assert seen["anonymous"] == 401  # serving.auth is on: the key is required
    assert seen["keyed"] not in (401, 404)  # through auth, and /tools is where MCP is
