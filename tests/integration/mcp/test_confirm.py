"""`confirm: true` tools with the official SDK's default client, in both protocol eras.

Real parts: `toolcat serve` in a subprocess (stdio, or streamable HTTP on 127.0.0.1),
``mcp.Client`` (``mode="legacy"`` negotiates 2025-11-25 and gets a mid-call elicitation;
the default ``mode="auto"`` negotiates 2026-07-28 and gets an ``InputRequiredResult``),
and the sample warehouse service, wrapped to record every request it receives.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client.session import ElicitationFnT
from mcp.shared.exceptions import MCPError
from toolcat.testing import BackgroundServer, make_service
from toolcat.tests.support import RedisServer, RedisUnavailable

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
ARGS = {"sku": "B-BOLT-M6", "quantity": 2, "customer": "ACME"}
KEY = "k" * 32  # TOOLCAT_CONFIRM_KEYS of the replica tests: a shared 32-byte key
TIMEOUT = 5  # --confirm-timeout of every server here: the slow answers take longer


@dataclass
class Recorder:
    """The sample service, wrapped: ``orders`` holds the body of every POST /orders."""

    app: Any = field(default_factory=make_service)
    orders: list[dict[str, Any]] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if scope["path"] == "/orders":
            self.orders.append(json.loads(body))
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


@pytest.fixture
def service() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder()
    with BackgroundServer(recorder) as server:
        yield server.url, recorder


@pytest.fixture
def env(serve_env: dict[str, str], service: tuple[str, Recorder]) -> dict[str, str]:
    return {**serve_env, "WAREHOUSE_URL": service[0], "TOOLCAT_CONFIRM_KEYS": KEY}


@contextmanager
def http_server(catalog: Path, env: dict[str, str], log: Path, *extra: str) -> Iterator[str]:
    """`toolcat serve --transport http` on a free port of 127.0.0.1; its URL."""
    with open(log, "w") as errors:
        proc = subprocess.Popen(
            [*TOOLCAT, "serve", str(catalog), "--transport", "http", "--port", "0", *extra],
            stderr=errors,
            env=env,
        )
    try:
        deadline = time.monotonic() + 60
        while not (found := re.search(r"http://127\.0\.0\.1:\d+/mcp", log.read_text())):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield found.group(0)
    finally:
        proc.terminate()
        proc.wait(10)


@asynccontextmanager
async def client(
    target: str | StdioServerParameters | Transport,
    mode: str,
    elicit: ElicitationFnT | None = None,
) -> AsyncIterator[Client]:
    async with Client(target, mode=mode, elicitation_callback=elicit) as c:
        yield c


def stdio(catalog: Path, env: dict[str, str], *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=TOOLCAT[0], args=[*TOOLCAT[1:], "serve", str(catalog), *extra], env=env
    )


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is True
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    error: dict[str, Any] = json.loads(block.text)["error"]
    return error


ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_accept_runs_once_decline_cancel_and_no_answer_do_not(
    transport: str,
    mode: str,
    catalog_file: Path,
    env: dict[str, str],
    service: tuple[str, Recorder],
    tmp_path: Path,
) -> None:
    orders = service[1].orders
    asked: list[str] = []
    answers = ["accept", "decline", "cancel", "late"]

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        action = answers.pop(0)
        if action == "late":  # the user answers after the server stopped waiting
            await anyio.sleep(TIMEOUT + 1.5)
            action = "accept"
        return types.ElicitResult(
            action=action,  # type: ignore[arg-type]
            content={"confirm": True} if action == "accept" else None,
        )

    async def session(target: str | StdioServerParameters) -> None:
        async with client(target, mode, elicit) as c:
            assert c.protocol_version == ERAS[mode]
            ran = await c.call_tool("create_order", ARGS)
            assert ran.is_error is False and ran.structured_content is not None
            assert ran.structured_content["status"] == "created"
            assert orders == [ARGS]  # sent once
            declined = error_of(await c.call_tool("create_order", ARGS))
            assert declined["type"] == "not_confirmed" and "declined" in declined["message"]
            cancelled = error_of(await c.call_tool("create_order", ARGS))
            assert cancelled["type"] == "not_confirmed" and "dismissed" in cancelled["message"]
            late = error_of(await c.call_tool("create_order", ARGS))
            assert late["type"] == "not_confirmed"
            assert f"did not answer within {TIMEOUT} s" in late["message"]
        await anyio.sleep(0.5)  # a late answer that did get through would have landed by now
        assert orders == [ARGS]

    extra = ["--confirm-timeout", str(TIMEOUT)]
    if transport == "stdio":
        anyio.run(session, stdio(catalog_file, env, *extra))
    else:
        with http_server(catalog_file, env, tmp_path / "serve.log", *extra) as url:
            anyio.run(session, url)
    assert len(asked) == 4 and asked[0].startswith("Run create_order with {")
    assert '"customer": "ACME"' in asked[0]


async def unused(context: Any, params: Any) -> types.ElicitResult:
    """Declares the elicitation capability; the tests below answer by hand."""
    raise AssertionError("the calls of these tests are answered by hand")


async def ask(c: Client, arguments: dict[str, Any]) -> types.InputRequiredResult:
    """A 2026-07-28 call driven by hand: the server's question."""
    first = await c.session.call_tool("create_order", arguments, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert first.input_requests is not None and first.request_state is not None
    request = first.input_requests["confirm"]
    assert isinstance(request, types.ElicitRequest)
    assert isinstance(request.params, types.ElicitRequestFormParams)
    assert request.params.message.startswith("Run create_order with {")
    return first


ACCEPT: dict[str, types.InputResponse] = {
    "confirm": types.ElicitResult(action="accept", content={"confirm": True})
}


async def answer(
    c: Client,
    state: str | None,
    arguments: dict[str, Any] = ARGS,
    responses: dict[str, types.InputResponse] | None = ACCEPT,
) -> types.CallToolResult | types.InputRequiredResult:
    return await c.session.call_tool(
        "create_order",
        arguments,
        input_responses=responses,
        request_state=state,
        allow_input_required=True,
    )


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_confirmation_runs_one_call_with_the_arguments_asked_about(
    transport: str,
    catalog_file: Path,
    env: dict[str, str],
    service: tuple[str, Recorder],
    tmp_path: Path,
) -> None:
    orders = service[1].orders

    async def session(target: str | StdioServerParameters) -> None:
        async with client(target, "2026-07-28", unused) as c:
            # invalid arguments are refused before anybody is asked
            invalid = await answer(c, None, {**ARGS, "quantity": 0}, None)
            assert isinstance(invalid, types.CallToolResult)
            assert error_of(invalid)["type"] == "invalid_arguments"
            # an answer without the server's state is no confirmation: it asks
            forged = await answer(c, None)
            assert isinstance(forged, types.InputRequiredResult)
            state = (await ask(c, ARGS)).request_state
            assert state is not None
            # the arguments changed between the question and the answer: refused
            other = {**ARGS, "quantity": 200}
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await answer(c, state, other)
            # a tampered state: refused
            flipped = state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1]
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await answer(c, flipped)
            # a declined answer does not run; the state is not spent by it
            declined = await answer(
                c, state, responses={"confirm": types.ElicitResult(action="decline")}
            )
            assert isinstance(declined, types.CallToolResult)
            assert error_of(declined)["type"] == "not_confirmed"
            # accept with confirm: false is no confirmation either
            unticked: dict[str, types.InputResponse] = {
                "confirm": types.ElicitResult(action="accept", content={"confirm": False})
            }
            refused = await answer(c, state, responses=unticked)
            assert isinstance(refused, types.CallToolResult)
            assert error_of(refused)["type"] == "not_confirmed"
            assert orders == []
            ran = await answer(c, state)
            assert isinstance(ran, types.CallToolResult) and ran.is_error is False
            assert orders == [ARGS]
            # the same confirmation again (a retried request): not sent twice
            replayed = await answer(c, state)
            assert isinstance(replayed, types.CallToolResult)
            error = error_of(replayed)
            assert error["type"] == "not_confirmed" and "already used" in error["message"]
            assert orders == [ARGS]

    if transport == "stdio":
        anyio.run(session, stdio(catalog_file, env))
    else:
        with http_server(catalog_file, env, tmp_path / "serve.log") as url:
            anyio.run(session, url)


def test_replicas_that_share_the_key_accept_each_others_confirmations(
    catalog_file: Path, env: dict[str, str], service: tuple[str, Recorder], tmp_path: Path
) -> None:
    orders = service[1].orders
    other_key = {**env, "TOOLCAT_CONFIRM_KEYS": "o" * 32}

    async def session(a: str, b: str, c_url: str) -> None:
        async with client(a, "2026-07-28", unused) as on_a:
            state = (await ask(on_a, ARGS)).request_state
        async with client(c_url, "2026-07-28", unused) as on_c:  # another key: not its state
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await answer(on_c, state)
        assert orders == []
        async with client(b, "2026-07-28", unused) as on_b:  # the answer lands on another replica
            ran = await answer(on_b, state)
            assert isinstance(ran, types.CallToolResult) and ran.is_error is False
            again = await answer(on_b, state)
            assert isinstance(again, types.CallToolResult)
            assert error_of(again)["type"] == "not_confirmed"
        assert orders == [ARGS]

    with (
        http_server(catalog_file, env, tmp_path / "a.log") as a,
        http_server(catalog_file, env, tmp_path / "b.log") as b,
        http_server(catalog_file, other_key, tmp_path / "c.log") as c_url,
    ):
        anyio.run(session, a, b, c_url)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    try:
        server = RedisServer(tmp_path)
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        yield server.url


def test_with_redis_a_confirmation_runs_once_across_replicas(
    catalog_file: Path,
    env: dict[str, str],
    service: tuple[str, Recorder],
    tmp_path: Path,
    redis_url: str,
) -> None:
    """The replicas share the sealing key and a Redis: the same accepted answer, sent to
    one replica and then to another, runs the call once (without Redis, each replica
    keeps its own record and the second would run it again)."""
    orders = service[1].orders

    async def session(a: str, b: str) -> None:
        async with client(a, "2026-07-28", unused) as on_a:
            state = (await ask(on_a, ARGS)).request_state
            ran = await answer(on_a, state)
            assert isinstance(ran, types.CallToolResult) and ran.is_error is False
        async with client(b, "2026-07-28", unused) as on_b:
            again = await answer(on_b, state)
            assert isinstance(again, types.CallToolResult)
            assert error_of(again)["type"] == "not_confirmed"
            assert "already used" in error_of(again)["message"]

    with (
        http_server(catalog_file, env, tmp_path / "a.log", "--redis", redis_url) as a,
        http_server(catalog_file, env, tmp_path / "b.log", "--redis", redis_url) as b,
    ):
        anyio.run(session, a, b)
    assert orders == [ARGS]


def test_a_client_without_elicitation_is_told_why(
    catalog_file: Path, env: dict[str, str], service: tuple[str, Recorder]
) -> None:
    async def session() -> None:
        for mode in ("legacy", "auto"):
            async with client(stdio(catalog_file, env), mode) as c:
                error = error_of(await c.call_tool("create_order", ARGS))
                assert error["type"] == "not_confirmed" and "--yes" in error["message"]

    anyio.run(session)
    assert service[1].orders == []


@pytest.mark.parametrize(
    ("setting", "value"),
    [("TOOLCAT_CONFIRM_KEYS", "short-secret-value"), ("--confirm-timeout", "0")],
)
def test_a_bad_setting_is_one_line_exit_2(
    setting: str, value: str, catalog_file: Path, env: dict[str, str]
) -> None:
    args = [*TOOLCAT, "serve", str(catalog_file)]
    if setting.startswith("--"):
        args += [setting, value]
    else:
        env = {**env, setting: value}
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert value not in proc.stderr or setting.startswith("--")  # a key is never printed


def test_a_confirmation_belongs_to_the_caller_it_was_asked_of(
    catalog_file: Path, env: dict[str, str], service: tuple[str, Recorder], tmp_path: Path
) -> None:
    """With authentication, the state is bound to the verified caller: another caller
    cannot answer with it."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from toolcat.executor.mcp_server import hash_api_key

    keys = {"alice": "alice-key-0123456789", "bob": "bob-key-0123456789"}
    hashes = [f"--api-key-hash={who}={hash_api_key(key)}" for who, key in keys.items()]
    hashes.append("--resource=https://toolcat.test/mcp")  # needed with --port 0

    @asynccontextmanager
    async def as_caller(url: str, who: str) -> AsyncIterator[Client]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {keys[who]}"}, timeout=20)
        async with (
            http,
            client(streamable_http_client(url, http_client=http), "2026-07-28", unused) as c,
        ):
            yield c

    async def session(url: str) -> None:
        async with as_caller(url, "alice") as alice:
            state = (await ask(alice, ARGS)).request_state
            async with as_caller(url, "bob") as bob:
                with pytest.raises(MCPError, match="Invalid or expired requestState"):
                    await answer(bob, state)
            assert service[1].orders == []
            ran = await answer(alice, state)
            assert isinstance(ran, types.CallToolResult) and ran.is_error is False
        assert service[1].orders == [ARGS]

    with http_server(catalog_file, env, tmp_path / "serve.log", *hashes) as url:
        anyio.run(session, url)
