"""HTTP upstreams for real (uvicorn on 127.0.0.1): credentials (static, client credentials,
the caller's token forwarded or exchanged per caller), replicas, a lost session."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from toolcat.catalog import (
    BearerAuth,
    ForwardCallerToken,
    FrozenDict,
    McpHealth,
    McpUpstream,
    OAuth2ClientCredentials,
    TokenExchange,
    mcp_pin,
)
from toolcat.executor import ToolCall, ToolContext, ToolResult
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
    assert seen["authorization"] == "Bearer ***"  # what the session sends is masked in answers
    assert seen["authorization-sha256"] == _sha("Bearer upstream-secret-1")
    assert seen["x-team"] == "ops"
    assert "the-callers-own-token" not in json.dumps(seen)
    assert "upstream-secret-1" not in json.dumps(dry.to_dict())


def test_oauth_client_credentials_fetch_one_token_and_renew_it(http_url: str) -> None:
    grants: list[dict[str, str]] = []

    async def token(request: Request) -> JSONResponse:
        grants.append(dict(await request.form()))  # type: ignore[arg-type]
        # the cache keeps a 1 s token for half a second
        body = {"access_token": f"cc-{len(grants)}", "token_type": "Bearer"}
        return JSONResponse({**body, "expires_in": 1})

    with BackgroundServer(Starlette(routes=[Route("/token", token, methods=["POST"])])) as idp:
        auth = OAuth2ClientCredentials(f"{idp.url}/token", "toolcat", "${CLIENT_SECRET}")
        upstream = McpUpstream("up", urls=(http_url,), auth=auth)
        with upstream_executor(upstream, env={"CLIENT_SECRET": "s3cret"}) as executor:
            first = _seen(executor)
            time.sleep(0.6)  # the first token expires while the session stays open
            second = _seen(executor)
            assert executor.mcp.pool.status()["up"].restarts == 0
    number = {_sha(f"Bearer cc-{n}"): n for n in range(1, len(grants) + 1)}
    # a new token on the same session (no restart)
    assert number[first["authorization-sha256"]] < number[second["authorization-sha256"]]
    assert first["authorization"] == second["authorization"] == "Bearer ***"
    assert grants[0]["grant_type"] == "client_credentials"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


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
    assert status.state == "ready" and status.down == (dead,)  # for 10 s after it failed


def test_replicas_reached_with_each_callers_token_are_probed_without_one(http_url: str) -> None:
    """With no caller there is no token to connect with: the probes ask each replica only
    whether it answers HTTP. A 401 passes (the replica is there); a closed port fails, and
    that replica is out of the rotation before any call finds it."""

    async def locked(request: Request) -> JSONResponse:
        assert "authorization" not in request.headers  # a probe sends no credentials
        return JSONResponse({"error": "unauthorized"}, status_code=401)

    with BackgroundServer(Starlette(routes=[Route("/mcp", locked, methods=["POST"])])) as gate:
        dead = _dead_url()
        upstream = McpUpstream(
            "up",
            urls=(http_url, f"{gate.url}/mcp", dead),
            auth=ForwardCallerToken(),
            health=McpHealth(interval=0.2, timeout=2.0),
        )
        with upstream_executor(upstream) as executor:
            pool = executor.mcp.pool
            pool.start()  # connects nothing: there is no caller; the probes start
            deadline = time.monotonic() + 30
            states: list[str] = []
            while states != ["up", "up", "down"]:
                assert time.monotonic() < deadline, states
                time.sleep(0.05)
                states = [r.state for r in pool.status()["up"].replicas]
            status = pool.status()["up"]
            assert status.state == "idle"  # no session was opened to probe
            assert status.replicas[2].error  # why the closed port failed
            alice = ToolContext.make(token="alice-token-1")
            for _ in range(4):  # a call tries the closed port last: each one is answered
                result = executor.execute(ToolCall("up_echo", {"text": "hi"}), context=alice)
                assert result.ok, result.content


def test_a_lost_session_is_re_established() -> None:
    """A handshake-era server that restarted answers the old session's requests with 404
    (it did not take them): the session is opened again and the call sent again, so even
    the first call after the restart is answered. Before, calls got `upstream_error`
    "Session not found" until the next re-listing found the session gone."""
    first = BackgroundServer(http_app()).start()
    port = first.port
    upstream = McpUpstream("up", urls=(f"{first.url}/mcp",))
    try:
        with upstream_executor(upstream, mode="legacy") as executor:
            assert executor.execute(ToolCall("up_echo", {"text": "one"})).ok
            first.stop()  # the server restarts: its sessions are gone
            with BackgroundServer(http_app(), port=port):
                for text in ("two", "three"):
                    result = executor.execute(ToolCall("up_echo", {"text": text}))
                    assert result.ok and result.content == text, result.content
            status = executor.mcp.pool.status()["up"]
        assert status.restarts == 1
    finally:
        first.stop()


class _AnswersLikeTypeScript:
    """The SDK server, answering a session it does not know as the TypeScript SDK's
    example server does (so does the Notion server): 400 with the JSON-RPC error -32000
    "Bad Request: No valid session ID provided", where MCP says 404."""

    BODY = json.dumps(
        {
            "jsonrpc": "2.0",
            "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"},
            "id": None,
        }
    ).encode()

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        replaced = False

        async def answer(message: dict[str, Any]) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 404:
                replaced = True
                headers = [(b"content-type", b"application/json")]
                await send({"type": "http.response.start", "status": 400, "headers": headers})
                await send({"type": "http.response.body", "body": self.BODY})
            elif not replaced:  # the 404's own body is dropped
                await send(message)

        await self.app(scope, receive, answer)


def test_a_session_refused_with_400_as_the_typescript_example_does_is_re_established() -> None:
    """The 400 says what the 404 would: the server no longer knows the session, and did not
    take the call. Its -32000 is not the SDK's lost connection (which the call may have
    survived upstream): the call is sent again on a new session. Before, it got
    `unavailable` "the service may have received it"."""
    first = BackgroundServer(_AnswersLikeTypeScript(http_app())).start()
    port = first.port
    upstream = McpUpstream("up", urls=(f"{first.url}/mcp",))
    try:
        with upstream_executor(upstream, mode="legacy") as executor:
            assert executor.execute(ToolCall("up_echo", {"text": "one"})).ok
            first.stop()
            with BackgroundServer(_AnswersLikeTypeScript(http_app()), port=port):
                result = executor.execute(ToolCall("up_echo", {"text": "two"}))
        assert result.ok and result.content == "two", result.content
    finally:
        first.stop()


def test_calls_in_flight_when_the_server_restarted_all_reach_the_new_session() -> None:
    """Each call the 404 answered is sent again; the first to see it opens the new session
    and the others use that one, rather than ending it again under each other."""
    first = BackgroundServer(http_app()).start()
    port = first.port
    upstream = McpUpstream("up", urls=(f"{first.url}/mcp",))
    try:
        with upstream_executor(upstream, mode="legacy") as executor:
            assert executor.execute(ToolCall("up_echo", {"text": "one"})).ok
            first.stop()
            with BackgroundServer(http_app(), port=port):

                async def together() -> list[ToolResult]:
                    calls = (ToolCall("up_echo", {"text": f"t{i}"}) for i in range(6))
                    return list(await asyncio.gather(*map(executor.aexecute, calls)))

                results = asyncio.run(together())
            status = executor.mcp.pool.status()["up"]
        assert [r.content for r in results] == [f"t{i}" for i in range(6)]
        assert status.restarts == 1
    finally:
        first.stop()


def test_forward_caller_token_opens_a_session_per_caller(http_url: str) -> None:
    upstream = McpUpstream("up", urls=(http_url,), auth=ForwardCallerToken())
    with upstream_executor(upstream) as executor:
        pool = executor.mcp.pool
        headers_tool = executor.catalog.get("up_headers")
        assert headers_tool is not None
        pool.start()  # connects nothing: there is no caller yet
        assert pool.offered(headers_tool) and pool.status()["up"].state == "idle"
        alice = _seen(executor, context=ToolContext.make(token="alice-token-1"))
        assert pool.status()["up"].state == "ready"  # alice's session
        bob = _seen(executor, context=ToolContext.make(token="bob-token-2"))
        again = _seen(executor, context=ToolContext.make(token="alice-token-1"))
        nobody = executor.execute(ToolCall("up_headers", {}))
    # the caller's token echoed back is masked in the result: compare its digest
    assert alice["authorization"] == "Bearer ***"
    assert alice["authorization-sha256"] == _sha("Bearer alice-token-1")
    assert again["authorization-sha256"] == alice["authorization-sha256"]
    assert bob["authorization-sha256"] == _sha("Bearer bob-token-2")
    assert nobody.error is not None and nobody.error.type == "refused_by_policy"
    assert "carries none" in nobody.error.msg


def test_token_exchange_sends_a_token_meant_for_the_server(http_url: str) -> None:
    grants: list[dict[str, str]] = []

    async def token(request: Request) -> JSONResponse:
        form = dict(await request.form())
        grants.append(form)  # type: ignore[arg-type]
        subject = str(form["subject_token"])
        return JSONResponse(
            {"access_token": f"for-up-{subject}", "token_type": "Bearer", "expires_in": 600}
        )

    with BackgroundServer(Starlette(routes=[Route("/token", token, methods=["POST"])])) as idp:
        auth = TokenExchange(f"{idp.url}/token", "toolcat", "${SECRET}", audience="up")
        upstream = McpUpstream("up", urls=(http_url,), auth=auth)
        with upstream_executor(upstream, env={"SECRET": "s"}) as executor:
            seen = _seen(executor, context=ToolContext.make(token="alice-token-1"))
            result = executor.execute(
                ToolCall("up_echo", {"text": "alice-token-1"}),
                context=ToolContext.make(token="alice-token-1"),
            )
    assert seen["authorization-sha256"] == _sha("Bearer for-up-alice-token-1")
    assert [g["audience"] for g in grants] == ["up"]  # one exchange, cached
    assert result.ok and "alice-token-1" not in result.content  # the caller's token is masked


@pytest.mark.parametrize("json_response", [False, True], ids=["sse", "json"])
def test_an_answer_over_the_bound_is_response_too_large(
    json_response: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with BackgroundServer(http_app(json_response=json_response)) as server:
        upstream = McpUpstream("up", urls=(f"{server.url}/mcp",))
        with upstream_executor(upstream, mode="legacy") as executor:
            big = executor.execute(ToolCall("up_big", {"n": 12_000_000}))
            assert big.error is not None and big.error.type == "response_too_large", big.content
            assert "10000000 bytes" in big.error.msg and "ask for less" in big.error.msg
            assert executor.execute(ToolCall("up_echo", {"text": "after"})).content == "after"
    # the SDK's own traceback for the cut answer is not logged (toolcat call printed it)
    assert not [r for r in caplog.records if r.exc_info], caplog.text


async def _unreadable_upstream(request: Request) -> Response:
    """A streamable-HTTP server below the SDK: it lists one tool, and answers its call
    with a result that is not an object."""
    message = await request.json()
    if "id" not in message:
        return Response(status_code=202)
    method, reply = message["method"], {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        version = message["params"]["protocolVersion"]
        info = {"name": "raw", "version": "0"}
        reply["result"] = {"protocolVersion": version, "capabilities": {"tools": {}}}
        reply["result"]["serverInfo"] = info
    elif method == "tools/list":
        reply["result"] = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    else:
        reply["result"] = [1, 2]
    return JSONResponse(reply)


def test_an_answer_the_sdk_cannot_read_is_an_invalid_response_in_one_line(
    tmp_path: Path,
) -> None:
    app = Starlette(routes=[Route("/mcp", _unreadable_upstream, methods=["POST"])])
    with BackgroundServer(app) as server:
        pin = mcp_pin({"name": "echo", "inputSchema": {"type": "object"}})
        catalog = tmp_path / "catalog.yaml"
        catalog.write_text(
            f"toolcat: 1\nmcp_servers:\n  raw: {{url: '{server.url}/mcp'}}\ntools:\n"
            f"- name: raw_echo\n  description: Echo.\n"
            f"  mcp: {{server: raw, tool: echo, pin: '{pin}'}}\n"
        )
        argv = [sys.executable, "-m", "toolcat.cli", "call", str(catalog), "raw_echo"]
        done = subprocess.run(
            [*argv, "--args", "{}"], capture_output=True, text=True, timeout=60, check=False
        )
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["type"] == "invalid_response"
    assert "not valid JSON-RPC (Failed to parse JSON response" in error["message"]
    # the SDK logs its parse failure with a traceback: not under a command
    assert "Traceback" not in done.stderr, done.stderr
