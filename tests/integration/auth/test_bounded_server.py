"""`toolcat serve --transport http` bounded against slow and greedy clients, over real
sockets: connections that never finish their headers are closed, sessions are limited
in all and per caller and expire when idle, and one caller's unanswered confirmation
questions never hold up another caller's (the official MCP SDK client, in the
2025-11-25 era that asks mid-call)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from toolcat.executor.mcp_server import hash_api_key
from toolcat.testing import BackgroundServer

from .conftest import RESOURCE, Served, start_serve
from .test_callers import Orders

KEYS = {who: f"{who}-key-0123456789abcdef" for who in ("alice", "bob", "carol")}
CONFIRM_TIMEOUT = 4
_KEY_LINES = "".join(f"      - {{name: {w}, hash: '{hash_api_key(k)}'}}\n" for w, k in KEYS.items())

CATALOG = f"""\
toolcat: 1
services:
  shop:
    base_url: ${{SHOP_URL}}
    timeout: 5
tools:
  - name: place_order
    description: Place an order.
    service: shop
    method: POST
    path: /orders
    confirm: true
    parameters:
      item: {{type: string, in: body}}
server:
  resource: {RESOURCE}
  auth:
    api_keys:
{_KEY_LINES}"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def shop() -> Iterator[tuple[Orders, str]]:
    found = Orders()
    with BackgroundServer(found.app()) as server:
        yield found, server.url


@pytest.fixture(scope="module")
def served(shop: tuple[Orders, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve-bounded")
    path = folder / "catalog.yaml"
    path.write_text(CATALOG)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["SHOP_URL"] = shop[1]
    server = start_serve(
        path,
        env,
        folder / "stderr.log",
        "--header-timeout=1",
        "--max-sessions=5",
        "--max-sessions-per-caller=3",
        "--session-idle-timeout=3",
        f"--confirm-timeout={CONFIRM_TIMEOUT}",
    )
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(10)


def _address(served: Served) -> tuple[str, int]:
    host, port = served.url.removeprefix("http://").split("/")[0].split(":")
    return host, int(port)


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(4096) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_connections_that_never_finish_their_headers_are_closed(served: Served) -> None:
    address = _address(served)
    silent = [socket.create_connection(address) for _ in range(20)]
    partial = [socket.create_connection(address) for _ in range(20)]
    for sock in partial:  # a request line and half a header, then nothing
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
    kept = socket.create_connection(address)  # a whole request, then half of the next
    kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    first = b""
    while b"alive" not in first:  # the whole first answer, however it is split
        first += kept.recv(4096)
    assert first.startswith(b"HTTP/1.1 200")
    kept.sendall(b"GET /healthz HTTP/1.1\r\nHo")
    try:
        health = httpx.get(f"http://{address[0]}:{address[1]}/healthz", timeout=5)
        assert health.status_code == 200  # served meanwhile
        # the --header-timeout of 1 s, with room for a loaded machine
        assert all(_closed_by_server(s, 5) for s in [*silent, *partial, kept])
    finally:
        for sock in [*silent, *partial, kept]:
            sock.close()


def _open(served: Served, who: str) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {KEYS[who]}",
        "Accept": "application/json, text/event-stream",
    }
    return httpx.post(served.url, json=INITIALIZE, headers=headers, timeout=10)


def _close(served: Served, who: str, session: str) -> int:
    headers = {"Authorization": f"Bearer {KEYS[who]}", "Mcp-Session-Id": session}
    return httpx.delete(served.url, headers=headers, timeout=10).status_code


def test_sessions_are_bounded_per_caller_and_in_all_and_expire(served: Served) -> None:
    alice = [_open(served, "alice") for _ in range(3)]
    assert [a.status_code for a in alice] == [200] * 3
    refused = _open(served, "alice")  # a fourth of one caller's
    assert refused.status_code == 429 and refused.headers["retry-after"] == "30"
    assert "too many open sessions for this caller" in refused.json()["error"]["message"]
    bob = [_open(served, "bob") for _ in range(2)]  # another caller is not held up
    assert [b.status_code for b in bob] == [200, 200]
    assert _open(served, "carol").status_code == 503  # --max-sessions 5 in all
    assert _close(served, "alice", alice[0].headers["mcp-session-id"]) in (200, 204)
    assert _open(served, "alice").status_code == 200  # a closed one makes room
    time.sleep(4)  # past --session-idle-timeout 3: every session expired
    assert [_open(served, "alice").status_code for _ in range(3)] == [200] * 3
    assert _open(served, "carol").status_code == 200


@asynccontextmanager
async def _caller(served: Served, who: str, elicit: Any) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEYS[who]}"}, timeout=30)
    transport = streamable_http_client(served.url, http_client=http)
    async with http, Client(transport, mode="legacy", elicitation_callback=elicit) as c:
        yield c


def test_one_callers_unanswered_questions_never_delay_another(
    served: Served, shop: tuple[Orders, str]
) -> None:
    time.sleep(3.5)  # the sessions of the test before expire
    orders = shop[0]
    before = orders.orders

    async def never(context: Any, params: Any) -> types.ElicitResult:
        await anyio.sleep(3600)  # a user who walked away
        raise AssertionError("unreachable")

    async def accept(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirm": True})

    waited: list[float] = []

    async def run() -> None:
        async with (
            _caller(served, "alice", never) as alice,
            _caller(served, "bob", accept) as bob,
            anyio.create_task_group() as tg,
        ):
            for n in range(3):  # three questions alice's user never answers
                tg.start_soon(alice.call_tool, "place_order", {"item": f"a-{n}"})
            await anyio.sleep(0.5)
            started = time.monotonic()
            result = await bob.call_tool("place_order", {"item": "b"})
            waited.append(time.monotonic() - started)
            assert result.is_error is False
            tg.cancel_scope.cancel()

    anyio.run(run)
    # bob is asked at once: well within one --confirm-timeout, not behind alice's three
    assert waited[0] < CONFIRM_TIMEOUT - 1
    assert orders.orders == before + 1
