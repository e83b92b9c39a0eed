"""Replicas without sticky sessions (issue 12, item 2).

Two real `toolcat serve --transport http` processes on 127.0.0.1 serve the
same catalog; the client's HTTP requests go to them in turn (a round-robin
transport, what a load balancer without session affinity does), so consecutive
requests of one client land on different replicas.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]


class RoundRobin(httpx2.AsyncBaseTransport):
    """Sends each request to the next replica's port; counts what each one got."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.sent = [0] * len(ports)
        self._next = 0
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        index = self._next % len(self.ports)
        self._next += 1
        self.sent[index] += 1
        request.url = request.url.copy_with(port=self.ports[index])
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def start(catalog: Path, env: dict[str, str], *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *TOOLCAT,
            "serve",
            str(catalog),
            "--transport",
            "http",
            "--port",
            "0",
            # the balancer's Host names another port than the replica's own
            "--allowed-host",
            "127.0.0.1",
            *flags,
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.fixture
def replicas(catalog_file: Path, serve_env: dict[str, str]) -> Iterator[Any]:
    started: list[subprocess.Popen[str]] = []

    def run(count: int, *flags: str) -> list[int]:
        procs = [start(catalog_file, serve_env, *flags) for _ in range(count)]
        started.extend(procs)
        ports = []
        for proc in procs:
            assert proc.stderr is not None
            seen: list[str] = []
            found = None
            for _ in range(20):  # the ready line, after any warnings printed first
                seen.append(proc.stderr.readline())
                found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", seen[-1])
                if found or not seen[-1]:
                    break
            assert found, seen
            ports.append(int(found.group(1)))
        return ports

    yield run
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


def rr_client(transport: RoundRobin) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(10, read=30))


async def legacy_session(transport: RoundRobin) -> list[Any]:
    """A 2025-era client (initialize handshake) whose requests alternate replicas."""
    url = f"http://127.0.0.1:{transport.ports[0]}/mcp"
    results: list[Any] = []
    async with (
        rr_client(transport) as http,
        streamable_http_client(url, http_client=http) as (r, w),
        ClientSession(r, w) as s,
    ):
        with anyio.fail_after(30):
            await s.initialize()
            results.append([t.name for t in (await s.list_tools()).tools])
            for sku in ("G-STEEL-10", "W-BLUE-01", "B-BOLT-M6"):
                results.append(await s.call_tool("get_item", {"sku": sku}))
    return results


def test_stateless_serves_a_2025_client_whose_requests_alternate_replicas(
    replicas: Any,
) -> None:
    transport = RoundRobin(replicas(2, "--stateless"))
    results = anyio.run(legacy_session, transport)
    assert results[0] == ["get_item", "create_order"]
    stock = [r.structured_content["stock"] for r in results[1:] if not r.is_error]
    assert stock == [7, 42, 310]
    assert min(transport.sent) >= 2, transport.sent  # both replicas answered


def test_without_stateless_a_2025_session_is_unknown_to_the_other_replica(
    replicas: Any,
) -> None:
    transport = RoundRobin(replicas(2))
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the SDK's error, whatever it is
        anyio.run(legacy_session, transport)
    assert "Session not found" in repr(caught.value)


def test_a_2026_client_needs_no_session_on_any_replica(replicas: Any) -> None:
    transport = RoundRobin(replicas(2))

    async def session() -> list[int]:
        url = f"http://127.0.0.1:{transport.ports[0]}/mcp"
        stock = []
        async with rr_client(transport) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                assert client.protocol_version == "2026-07-28"
                with anyio.fail_after(30):
                    for sku in ("G-STEEL-10", "W-BLUE-01", "B-BOLT-M6", "W-RED-02"):
                        result = await client.call_tool("get_item", {"sku": sku})
                        assert result.is_error is False, result
                        stock.append(result.structured_content["stock"])
        return stock

    assert anyio.run(session) == [7, 42, 310, 0]
    assert min(transport.sent) >= 2, transport.sent


def test_a_reload_reaches_listeners_on_every_replica(replicas: Any, catalog_file: Path) -> None:
    ports = replicas(2, "--stateless", "--watch", "--poll-interval", "0.1")

    async def listen(port: int, ready: anyio.Event, heard: list[int]) -> None:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            async with client.listen(tools_list_changed=True) as sub:
                ready.set()
                async for event in sub:
                    assert type(event).__name__ == "ToolsListChanged"
                    heard.append(port)
                    break

    async def main() -> tuple[list[int], list[str]]:
        heard: list[int] = []
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                ready = [anyio.Event() for _ in ports]
                for port, event in zip(ports, ready, strict=True):
                    tg.start_soon(listen, port, event, heard)
                for event in ready:
                    await event.wait()
                catalog_file.write_text(
                    catalog_file.read_text().replace(
                        "description: One item by SKU.", "description: One item by its SKU."
                    )
                )
        # every replica serves the new list, whichever the next request lands on
        transport = RoundRobin(ports)
        described = []
        async with rr_client(transport) as http:
            url = f"http://127.0.0.1:{ports[0]}/mcp"
            async with Client(streamable_http_client(url, http_client=http)) as client:
                for _ in ports:
                    tools = {t.name: t for t in (await client.list_tools()).tools}
                    described.append(tools["get_item"].description or "")
        return heard, described

    heard, described = anyio.run(main)
    assert sorted(heard) == sorted(ports)
    assert described == ["One item by its SKU."] * 2


def test_stateless_needs_http(catalog_file: Path) -> None:
    done = subprocess.run(
        [*TOOLCAT, "serve", str(catalog_file), "--stateless"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--stateless needs --transport http" in done.stderr
