"""A real redis-server on a free loopback port (no persistence), and a small service that
counts what it is sent: orders (non-safe, with an Idempotency-Key), a slow call, a safe
read and an OAuth token endpoint. Tests skip with a reason when redis-server is absent."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from toolcat.testing import BackgroundServer
from toolcat.tests.support import RedisServer, RedisUnavailable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class RedisProcess(RedisServer):
    """:class:`toolcat.tests.support.RedisServer`; the test skips when none can be had."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        try:
            super().__init__(workdir, port)
        except RedisUnavailable as exc:
            pytest.skip(str(exc))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    server = RedisProcess(tmp_path_factory.mktemp("redis"))
    yield server
    server.kill()


_prefixes = iter(range(1_000_000))


@pytest.fixture
def prefix() -> str:
    """Keys of their own for each test (the session's Redis is shared)."""
    return f"t{next(_prefixes)}-{time.monotonic_ns()}:"


class Counts:
    def __init__(self) -> None:
        self.orders = 0
        self.reads = 0
        self.tokens = 0
        self.running = 0
        self.most_running = 0
        self.order_delay = 0.0
        self.token_delay = 0.0
        self.keys: list[str] = []

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]


def counting_app(counts: Counts) -> Any:
    async def orders(request: Request) -> Response:
        counts.orders += 1
        counts.running += 1
        counts.most_running = max(counts.most_running, counts.running)
        counts.keys.append(request.headers.get("idempotency-key", ""))
        try:
            if counts.order_delay:
                await asyncio.sleep(counts.order_delay)
        finally:
            counts.running -= 1
        body = await request.json()
        return JSONResponse({"id": f"o-{counts.orders}", "item": body.get("item")}, 201)

    async def read(request: Request) -> Response:
        counts.reads += 1
        return JSONResponse({"reads": counts.reads})

    async def token(request: Request) -> Response:
        counts.tokens += 1
        if counts.token_delay:
            await asyncio.sleep(counts.token_delay)
        return JSONResponse(
            {"access_token": f"tok-{counts.tokens}", "token_type": "Bearer", "expires_in": 3600}
        )

    async def protected(request: Request) -> Response:
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer tok-"):
            return JSONResponse({"error": "no token"}, 401)
        return JSONResponse({"token": auth.removeprefix("Bearer ")})

    return Starlette(
        routes=[
            Route("/orders", orders, methods=["POST"]),
            Route("/read", read, methods=["GET"]),
            Route("/token", token, methods=["POST"]),
            Route("/protected", protected, methods=["GET"]),
        ]
    )


@pytest.fixture(scope="module")
def _service() -> Iterator[tuple[str, Counts]]:
    counts = Counts()
    with BackgroundServer(counting_app(counts)) as server:
        yield server.url, counts


@pytest.fixture
def service(_service: tuple[str, Counts]) -> tuple[str, Counts]:
    _service[1].reset()
    return _service


def catalog_yaml(base_url: str, server: str = "") -> str:
    """Tools on the counting service; ``server`` is the text of a ``server:`` section."""
    return f"""\
toolcat: 1
services:
  shop:
    base_url: {base_url}
  secured:
    base_url: {base_url}
    auth:
      type: oauth2_client_credentials
      token_url: {base_url}/token
      client_id: c1
      client_secret: s3cret
tools:
  - name: create_order
    description: Create an order.
    service: shop
    method: POST
    path: /orders
    confirm: false
    idempotency_key: request_id
    parameters:
      item: {{type: string, in: body, required: true, description: What to order.}}
      request_id:
        type: string
        in: header
        name: Idempotency-Key
        required: false
        description: A new value for each order; the same value on a retry.
  - name: read_stock
    description: Read the stock.
    service: shop
    method: GET
    path: /read
  - name: whoami
    description: Call with the service's token.
    service: secured
    method: GET
    path: /protected
{server}"""
