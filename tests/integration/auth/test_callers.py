"""Who a caller is, over real sockets: `toolcat serve` over HTTP trusting the test issuer,
the official MCP client SDK, and an upstream on 127.0.0.1 that numbers the orders it gets.

Tokens without ``sub`` (client credentials) are told apart by their client; a token that
names no one, or whose times are strings, is refused; scopes split on ASCII spaces only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from toolcat.catalog.serving import ServeAuth
from toolcat.executor.mcp_server import Authenticator
from toolcat.testing import BackgroundServer

from .conftest import RESOURCE, Issuer, Served, start_serve
from .test_access import session


class Orders:
    """Numbers each order it receives; counts the reads."""

    def __init__(self) -> None:
        self.orders = 0
        self.reads = 0

    async def order(self, request: Request) -> Response:
        self.orders += 1
        return JSONResponse({"id": f"o-{self.orders}"}, 201)

    async def read(self, request: Request) -> Response:
        self.reads += 1
        return JSONResponse({"reads": self.reads})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/orders", self.order, methods=["POST"]),
                Route("/stock", self.read, methods=["GET"]),
            ]
        )


def _catalog(issuer_url: str) -> str:
    return f"""\
toolcat: 1
services:
  shop:
    base_url: ${{SHOP_URL}}
    timeout: 5
tools:
  - name: create_order
    description: Place an order.
    service: shop
    method: POST
    path: /orders
    confirm: false
    idempotency_key: request_id
    parameters:
      item: {{type: string, in: body}}
      request_id: {{type: string, in: header, name: Idempotency-Key, required: false}}
  - name: read_stock
    description: Read the stock.
    service: shop
    method: GET
    path: /stock
server:
  resource: {RESOURCE}
  auth:
    required_scopes: [tools:call]
    jwt:
      issuer: {issuer_url}/
      jwks_url: {issuer_url}/jwks
      algorithms: [RS256]
  quotas:
    - name: stock
      tools: [read_stock]
      rate: 1/minute
"""


@pytest.fixture(scope="module")
def shop() -> Iterator[tuple[Orders, str]]:
    found = Orders()
    with BackgroundServer(found.app()) as server:
        yield found, server.url


@pytest.fixture(scope="module")
def served(
    issuer: Issuer, shop: tuple[Orders, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve-callers")
    path = folder / "catalog.yaml"
    path.write_text(_catalog(issuer.url))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["SHOP_URL"] = shop[1]
    server = start_serve(path, env, folder / "stderr.log")
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(10)


def _initialize(served: Served, token: str) -> httpx.Response:
    """An initialize request with ``token``, as a client opens a session."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
    }
    return httpx.post(served.url, json=body, headers=headers, timeout=10)


def _error(text: str) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(text)["error"]
    return error


def test_clients_without_a_subject_are_told_apart(
    served: Served, issuer: Issuer, shop: tuple[Orders, str]
) -> None:
    orders, _ = shop
    tenant_a = issuer.token(sub=None, client_id="tenant-a")
    tenant_b = issuer.token(sub=None, client_id="tenant-b")
    order = ("create_order", {"item": "paper", "request_id": "r-1"})
    stock: tuple[str, dict[str, Any]] = ("read_stock", {})
    _, a = session(served, tenant_a, [order, stock, stock])
    _, b = session(served, tenant_b, [order, stock])
    # each client its own idempotency record: B's order is sent, and B gets its own result
    assert json.loads(a[0][1])["id"] == "o-1" and json.loads(b[0][1])["id"] == "o-2"
    assert orders.orders == 2
    # ... and its own quota bucket: A's second read is limited, B's first is not
    assert a[1][0] is False and _error(a[2][1])["type"] == "rate_limited"
    assert b[1][0] is False
    # the same client again: its own record answers, nothing is sent
    _, again = session(served, issuer.token(sub=None, client_id="tenant-a"), [order])
    assert json.loads(again[0][1].split("\n")[0])["id"] == "o-1" and orders.orders == 2


def test_azp_names_the_client_when_client_id_is_absent(served: Served, issuer: Issuer) -> None:
    token = issuer.token(sub=None, client_id=None, azp="tenant-c")
    _, results = session(served, token, [("read_stock", {})])
    assert results[0][0] is False


def test_a_token_that_names_no_one_is_refused(served: Served, issuer: Issuer) -> None:
    answer = _initialize(served, issuer.token(sub=None, client_id=None))
    assert answer.status_code == 401
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]
    assert "the token names no caller" in served.stderr()
    empty = _initialize(served, issuer.token(sub="", client_id=""))  # empty names no one
    assert empty.status_code == 401


@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
def test_times_given_as_strings_are_refused(served: Served, issuer: Issuer, claim: str) -> None:
    import time

    now = int(time.time())
    value = {"exp": now + 300, "nbf": now - 10, "iat": now}[claim]
    good: dict[str, Any] = {claim: value}
    assert _initialize(served, issuer.token(**good)).status_code == 200
    bad: dict[str, Any] = {claim: str(value)}
    refused = _initialize(served, issuer.token(**bad))
    assert refused.status_code == 401
    assert f"the '{claim}' claim is not a number" in served.stderr()


def test_scopes_split_on_ascii_spaces_only(served: Served, issuer: Issuer) -> None:
    assert _initialize(served, issuer.token(scope="profile tools:call")).status_code == 200
    for space in ("\u00a0", "\u3000", "\t", "\n"):  # not a separator in RFC 6749
        answer = _initialize(served, issuer.token(scope=f"profile{space}tools:call"))
        assert answer.status_code == 403, repr(space)
        assert 'error="insufficient_scope"' in answer.headers["www-authenticate"]


def test_the_client_claims_are_configurable(issuer: Issuer) -> None:
    auth = Authenticator(
        ServeAuth(jwt=_jwt(issuer), client_claims=("appid",)), resource=RESOURCE, env={}
    )

    async def check() -> tuple[Any, Any]:
        try:
            named = await auth.authenticate(issuer.token(sub=None, client_id=None, appid="app-9"))
            unnamed = await auth.authenticate(issuer.token(sub=None, client_id="agent-1"))
            return named, unnamed
        finally:
            await auth.aclose()

    named, unnamed = anyio.run(check)
    assert named is not None and named.client_id == "app-9" and named.subject is None
    assert named.key == json.dumps(["jwt", issuer.url + "/", "client", "app-9"]).replace(" ", "")
    assert unnamed is None  # client_id is not one of the configured claims


def _jwt(issuer: Issuer) -> Any:
    from toolcat.catalog.serving import JwtSettings

    return JwtSettings(issuer=issuer.url + "/", jwks_url=issuer.url + "/jwks")
