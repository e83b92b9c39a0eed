"""HTTP upstreams for real (uvicorn on 127.0.0.1): credentials, replicas, a lost session."""

from __future__ import annotations

import json
import socket

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.catalog import BearerAuth, FrozenDict, McpUpstream, OAuth2ClientCredentials
from toolcat.executor import ToolCall, ToolContext
from toolcat.testing import BackgroundServer
from toolcat.tests.support.mcp_upstream import http_app, upstream_executor


def _seen(executor: object, **context: object) -> dict[str, str]:
    result = executor.execute(ToolCall("up_headers", {}), **context)  # type: ignore[attr-defined]
    assert result.ok, result.content
    seen: dict[str, str] = json.loads(result.content)
    return seen


def test_static_headers_and_bearer_auth_and_never_the_callers_token(http_url: str) -> None:
    upstream = McpUpstream(
        "up",
        urls=(http_url,),
        headers=FrozenDict({"X-Team": "${TEAM}"}),
        auth=BearerAuth("${UP_TOKEN}"),
    )
    env = {"TEAM": "ops", "UP_TOKEN": "upstream-secret-1"}
    with upstream_executor(upstream, env=env) as executor:
        seen = _seen(executor, context=ToolContext.make(token="the-callers-own-token"))
        dry = executor.prepare(ToolCall("up_echo", {"text": "x"}))
    assert seen["authorization"] == "Bearer upstream-secret-1"
    assert seen["x-team"] == "ops"
    assert "the-callers-own-token" not in json.dumps(seen)
    assert "upstream-secret-1" not in json.dumps(dry.to_dict())


def test_oauth_client_credentials_fetch_one_token(http_url: str) -> None:
    grants: list[dict[str, str]] = []

    async def token(request: Request) -> JSONResponse:
        grants.append(dict(await request.form()))  # type: ignore[arg-type]
        return JSONResponse(
            {"access_token": "cc-token-9", "token_type": "Bearer", "expires_in": 600}
        )

    with BackgroundServer(Starlette(routes=[Route("/token", token, methods=["POST"])])) as idp:
        auth = OAuth2ClientCredentials(f"{idp.url}/token", "toolcat", "${CLIENT_SECRET}")
        upstream = McpUpstream("up", urls=(http_url,), auth=auth)
        with upstream_executor(upstream, env={"CLIENT_SECRET": "s3cret"}) as executor:
            assert _seen(executor)["authorization"] == "Bearer cc-token-9"
            assert executor.execute(ToolCall("up_echo", {"text": "again"})).ok
    assert len(grants) == 1 and grants[0]["grant_type"] == "client_credentials"


def _dead_url() -> str:
    with socket.socket() as sock:  # a port nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"


def test_replicas_skip_one_that_is_down(http_url: str) -> None:
    dead = _dead_url()
    upstream = McpUpstream("up", urls=(dead, http_url))
    with upstream_executor(upstream, connect_timeout=10) as executor:
        for i in range(4):
            result = executor.execute(ToolCall("up_add", {"a": i, "b": 0}))
            assert result.ok and result.content == str(i)
        status = executor.mcp.pool.status()["up"]
    assert status.state == "ready" and status.down == (dead,)


def test_a_lost_session_is_re_established() -> None:
    first = BackgroundServer(http_app()).start()
    port = first.port
    upstream = McpUpstream("up", urls=(f"{first.url}/mcp",))
    try:
        with upstream_executor(upstream, mode="legacy") as executor:
            assert executor.execute(ToolCall("up_echo", {"text": "one"})).ok
            first.stop()  # the server restarts: its sessions are gone
            with BackgroundServer(http_app(), port=port):
                results = [executor.execute(ToolCall("up_echo", {"text": "two"})) for _ in range(2)]
                assert results[-1].ok and results[-1].content == "two"
    finally:
        first.stop()
