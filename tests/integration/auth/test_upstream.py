"""Upstream credentials over real sockets: `toolcat serve` over HTTP, the test issuer
(JWKS, introspection, RFC 8693 token exchange), the official MCP client SDK sending
tokens, and the sample warehouse service recording the Authorization it receives."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import jwt
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.types import ASGIApp, Receive, Scope, Send
from toolcat.testing import BackgroundServer, make_service

from .conftest import RESOURCE, Issuer, Served, start_serve

OWN_TOKEN = "warehouse-own-token-42"
API_KEY = "ci-bot-key-0123456789"


class Recording:
    """The sample service, recording the Authorization header of each request."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        self.app = make_service()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            self.seen.append({"path": scope["path"], **headers})
        inner: ASGIApp = self.app
        await inner(scope, receive, send)

    def auth(self) -> list[str]:
        return [s.get("authorization", "") for s in self.seen]


def catalog(issuer_url: str, exchange_timeout: float = 1.0) -> str:
    tool = """\
  - name: {name}
    description: One item by SKU.
    service: {service}
    method: GET
    path: /items/{{sku}}
    parameters:
      sku: {{type: string, description: The SKU}}
"""
    tools = "".join(
        tool.format(name=f"get_item_{s}", service=f"wh_{s}") for s in ("own", "fw", "ex")
    )
    return f"""\
toolcat: 1
services:
  wh_own:
    base_url: ${{WAREHOUSE_URL}}
    auth: {{type: bearer, token: "${{WAREHOUSE_TOKEN}}"}}
    timeout: 5
  wh_fw:
    base_url: ${{WAREHOUSE_URL}}
    auth: {{type: forward_caller_token}}
    timeout: 5
  wh_ex:
    base_url: ${{WAREHOUSE_URL}}
    timeout: 5
    auth:
      type: token_exchange
      token_url: {issuer_url}/token
      client_id: toolcat-exchange
      client_secret: ${{EXCHANGE_SECRET}}
      audience: warehouse
      scopes: [items:read]
      timeout: {exchange_timeout}
tools:
{tools}server:
  resource: {RESOURCE}
  auth:
    required_scopes: [tools:call]
    jwt:
      issuer: {issuer_url}/
      jwks_url: {issuer_url}/jwks
      algorithms: [RS256]
      jwks_min_refresh: 1
    introspection:
      url: {issuer_url}/introspect
      client_id: toolcat
      client_secret: ${{INTROSPECTION_SECRET}}
    api_keys:
      - name: ci-bot
        hash: "sha256:{hashlib.sha256(API_KEY.encode()).hexdigest()}"
        scopes: [tools:call]
"""


@pytest.fixture(scope="module")
def sample() -> Iterator[tuple[Recording, str]]:
    found = Recording()
    with BackgroundServer(found) as server:
        yield found, server.url


@pytest.fixture(scope="module")
def served(
    issuer: Issuer, sample: tuple[Recording, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve-upstream")
    path = folder / "catalog.yaml"
    path.write_text(catalog(issuer.url))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        WAREHOUSE_URL=sample[1],
        WAREHOUSE_TOKEN=OWN_TOKEN,
        EXCHANGE_SECRET="s3cret-exchange",
        INTROSPECTION_SECRET="s3cret-introspection",
    )
    server = start_serve(path, env, folder / "stderr.log")
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(10)


def call(
    served: Served,
    token: str,
    name: str,
    sku: str = "W-BLUE-01",
    timing: list[float] | None = None,
) -> tuple[bool, str]:
    """(is_error, text) of one tools/call through the MCP SDK, sending ``token``; the
    seconds the tools/call took (the session set up) go to ``timing``."""

    async def run() -> tuple[bool, str]:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=20)
        async with (
            client,
            streamable_http_client(served.url, http_client=client) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            start = time.monotonic()
            result = await s.call_tool(name, {"sku": sku})
            if timing is not None:
                timing.append(time.monotonic() - start)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            return bool(result.is_error), text

    return anyio.run(run)


def _bearer(header: str) -> str:
    assert header.startswith("Bearer "), header
    return header.removeprefix("Bearer ")


def test_own_credentials_never_carry_the_callers_token(
    served: Served, issuer: Issuer, sample: tuple[Recording, str]
) -> None:
    recording = sample[0]
    token = issuer.token(sub="own-caller")
    before = len(recording.seen)
    assert call(served, token, "get_item_own") == (
        False,
        '{"sku":"W-BLUE-01","name":"Blue widget","stock":42,"price":4.5}',
    )
    (seen,) = recording.seen[before:]
    assert seen["authorization"] == f"Bearer {OWN_TOKEN}"
    assert all(token not in value for value in seen.values())


def test_a_forwarded_jwt_reaches_the_sample_service(
    served: Served, issuer: Issuer, sample: tuple[Recording, str]
) -> None:
    recording = sample[0]
    token = issuer.token(sub="forward-caller")
    before = len(recording.seen)
    is_error, text = call(served, token, "get_item_fw")
    assert not is_error and "Blue widget" in text
    assert recording.auth()[before:] == [f"Bearer {token}"]


def test_a_forwarded_opaque_token_reaches_the_sample_service(
    served: Served, issuer: Issuer, sample: tuple[Recording, str]
) -> None:
    recording = sample[0]
    opaque = "opaque-token-for-forwarding-0123456789"
    issuer.opaque[opaque] = {
        "active": True,
        "sub": "opaque-caller",
        "scope": "tools:call",
        "aud": RESOURCE,
        "iss": issuer.url + "/",
        "exp": int(time.time()) + 300,
    }
    before = len(recording.seen)
    assert call(served, opaque, "get_item_fw")[0] is False
    assert recording.auth()[before:] == [f"Bearer {opaque}"]


def test_an_api_key_is_never_forwarded(served: Served, sample: tuple[Recording, str]) -> None:
    recording = sample[0]
    before = len(recording.seen)
    is_error, text = call(served, API_KEY, "get_item_fw")
    assert is_error and "refused_by_policy" in text and "not sent" in text
    assert recording.seen[before:] == []
    assert API_KEY not in text


def test_an_exchanged_token_reaches_the_sample_service_and_is_cached(
    served: Served, issuer: Issuer, sample: tuple[Recording, str]
) -> None:
    recording = sample[0]
    token = issuer.token(sub="exchange-caller", jti="exchange-1")
    before, asked = len(recording.seen), len(issuer.exchanges)
    for sku in ("W-BLUE-01", "G-STEEL-10"):
        is_error, text = call(served, token, "get_item_ex", sku)
        assert not is_error, text
    (form,) = issuer.exchanges[asked:]  # the second call used the cached token
    assert form["subject_token"] == token and form["audience"] == "warehouse"
    assert form["scope"] == "items:read" and "resource" not in form
    sent = recording.auth()[before:]
    assert len(sent) == 2 and sent[0] == sent[1] and token not in sent[0]
    claims = jwt.decode(
        _bearer(sent[0]), issuer.key.public_key(), algorithms=["RS256"], audience="warehouse"
    )
    assert claims["sub"] == "exchange-caller" and claims["act"] == {"sub": "toolcat-exchange"}
    assert claims["scope"] == "items:read"
    # another subject gets its own exchanged token
    other = issuer.token(sub="someone-else")
    assert call(served, other, "get_item_ex")[0] is False
    assert len(issuer.exchanges) == asked + 2
    assert recording.auth()[-1] != sent[0]


@pytest.mark.parametrize("mode", ["slow", "down", "garbage", "injection"])
def test_a_broken_exchange_endpoint_fails_closed_in_bounded_time(
    served: Served, issuer: Issuer, sample: tuple[Recording, str], mode: str
) -> None:
    recording = sample[0]
    token = issuer.token(sub=f"broken-{mode}")  # a subject never exchanged: no cache
    before = len(recording.seen)
    issuer.exchange_mode = mode
    timing: list[float] = []
    try:
        is_error, text = call(served, token, "get_item_ex", timing=timing)
    finally:
        issuer.exchange_mode = "ok"
    assert is_error and "token-exchange endpoint" in text, text
    assert timing[0] < 2.8  # the exchange timeout is 1 s; the slow endpoint takes 3 s
    assert recording.seen[before:] == []
    for secret in (token, "s3cret-exchange", "X-Injected"):
        assert secret not in text


def test_newlines_in_claims_reach_no_header(
    served: Served, issuer: Issuer, sample: tuple[Recording, str]
) -> None:
    recording = sample[0]
    token = issuer.token(sub="mallory\r\nX-Evil: 1", jti="inject")
    before = len(recording.seen)
    assert call(served, token, "get_item_fw")[0] is False
    assert call(served, token, "get_item_ex")[0] is False
    for seen in recording.seen[before:]:
        assert "x-evil" not in seen


def test_no_token_reaches_the_server_log(
    served: Served, issuer: Issuer, sample: tuple[Recording, str]
) -> None:
    token = issuer.token(sub="logged-caller", jti="log")
    call(served, token, "get_item_fw")
    call(served, token, "get_item_ex")
    time.sleep(0.2)
    log = Path(served.log).read_text()
    sent = {_bearer(a) for a in sample[0].auth() if a.startswith("Bearer ")}
    assert token in sent and len(sent) > 3
    for secret in (*sent, "s3cret-exchange", token.rsplit(".", 1)[1]):
        assert secret not in log
