"""Tools of an upstream MCP server through the Executor: the SDK test server for real, over
stdio and streamable HTTP, in both protocol eras; results, errors, env, dry run."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
import time
from dataclasses import replace

import pytest
from toolcat.catalog import Catalog, FrozenDict, McpCommand, McpUpstream
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor.mcp import McpTransport, PreparedMcpCall
from toolcat.tests.support.mcp_upstream import (
    PNG,
    pinned_catalog,
    stdio_upstream,
    upstream_executor,
)

ERAS = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def _check_results(executor: Executor) -> None:
    echo = executor.execute(ToolCall("up_echo", {"text": "hi"}, "c1"))
    assert echo.ok and echo.content == "hi" and echo.data is None
    assert [dict(b) for b in echo.blocks] == [{"type": "text", "text": "hi"}]
    add = executor.execute(ToolCall("up_add", '{"a": 2, "b": 40}'))
    assert add.ok and add.content == "42"
    weather = executor.execute(ToolCall("up_structured", {"city": "Oslo"}))
    assert weather.ok and weather.data == {"city": "Oslo", "celsius": 21.5}
    image = executor.execute(ToolCall("up_image", {}))
    assert image.ok and [b["type"] for b in image.blocks] == ["text", "image"]
    assert base64.b64decode(image.blocks[1]["data"]) == PNG
    assert image.blocks[1]["mimeType"] == "image/png"
    assert image.content == "a pixel\n[image image/png, 72 bytes]"  # the text form
    failed = executor.execute(ToolCall("up_fail", {"message": "the disk is full"}))
    assert not failed.ok and failed.error is not None
    assert failed.error.type == "upstream_error"
    assert "the disk is full" in failed.error.msg
    assert json.loads(failed.content)["error"]["type"] == "upstream_error"
    assert [b["text"] for b in failed.blocks] == ["the disk is full"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_upstream_in_both_eras(mode: str) -> None:
    with upstream_executor(stdio_upstream("up"), mode=mode) as executor:
        _check_results(executor)
        assert executor.mcp.pool.status()["up"].protocol == ERAS[mode]
        assert executor.mcp.pool.status()["up"].state == "ready"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_http_upstream_in_both_eras(mode: str, http_url: str) -> None:
    with upstream_executor(McpUpstream("up", urls=(http_url,)), mode=mode) as executor:
        _check_results(executor)
        assert executor.mcp.pool.status()["up"].protocol == ERAS[mode]


def test_async_calls_share_the_sessions_of_sync_ones(stdio_executor: Executor) -> None:
    assert stdio_executor.execute(ToolCall("up_echo", {"text": "sync"})).ok

    async def turn() -> list[str]:
        calls = [ToolCall("up_add", {"a": i, "b": 1}) for i in range(5)]
        return [r.content for r in await stdio_executor.aexecute_many(calls)]

    assert asyncio.run(turn()) == ["1", "2", "3", "4", "5"]
    assert stdio_executor.mcp.pool.status()["up"].restarts == 0


def test_a_pool_on_the_callers_loop_awaits_its_calls_there() -> None:
    """serve's way: the sessions live on the server's own loop (``start(loop)``), so a
    call makes no hop to a thread of the pool's; a sync call on that loop is refused (it
    would wait for the loop it blocks), and ``aclose`` there stops the stdio server."""

    def pool_threads() -> set[int]:
        return {t.ident or 0 for t in threading.enumerate() if t.name == "toolcat-mcp-upstreams"}

    before = pool_threads()

    async def run() -> int:
        executor = upstream_executor(stdio_upstream("up"))
        pool = executor.mcp.pool
        loop = asyncio.get_running_loop()
        (first,) = pool.start(loop)
        await asyncio.wrap_future(first)
        assert pool.runs_on(loop) and pool.status()["up"].state == "ready"
        echo = await executor.aexecute(ToolCall("up_echo", {"text": "hi"}))
        assert echo.ok and echo.content == "hi"
        pid = await executor.aexecute(ToolCall("up_pid", {}))
        blocked = executor.execute(ToolCall("up_echo", {"text": "sync"}))
        assert not blocked.ok and blocked.error is not None
        assert blocked.error.type == "internal"
        assert pool_threads() == before  # no thread of this pool's ever started
        await executor.aclose()
        assert not pool.runs_on(loop)
        return int(pid.content)

    pid = asyncio.run(run())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_invalid_arguments_never_reach_the_upstream(stdio_executor: Executor) -> None:
    result = stdio_executor.execute(ToolCall("up_add", {"a": "two", "b": 1}))
    assert not result.ok and result.error is not None
    assert result.error.type == "invalid_arguments" and result.error.loc == ("a",)


def test_the_upstream_gets_only_its_declared_env_and_path(tmp_path: object) -> None:
    os.environ["TOOLCAT_TEST_SECRET"] = "hunter22"
    try:
        upstream = stdio_upstream("up", env=FrozenDict({"GREETING": "${WHO:-world}"}))
        with upstream_executor(upstream) as executor:
            seen = {
                name: json.loads(executor.execute(ToolCall("up_env", {"name": name})).content)
                for name in ("GREETING", "TOOLCAT_TEST_SECRET", "HOME", "PATH")
            }
    finally:
        del os.environ["TOOLCAT_TEST_SECRET"]
    assert seen["GREETING"] == "world"
    assert seen["TOOLCAT_TEST_SECRET"] is None and seen["HOME"] is None
    assert seen["PATH"] == os.environ["PATH"]


def test_dry_run_shows_the_upstream_call_with_secrets_masked(stdio_executor: Executor) -> None:
    shown = stdio_executor.prepare(ToolCall("up_echo", {"text": "hello"}))
    assert isinstance(shown, PreparedMcpCall)
    assert shown.to_dict() == {
        "mcp": {"server": "up", "tool": "echo"},
        "transport": "stdio",
        "endpoint": stdio_upstream().command[0],
        "arguments": {"text": "hello"},
    }


def test_a_sensitive_argument_is_masked_in_the_result_and_the_dry_run() -> None:
    upstream = stdio_upstream("up")
    catalog = pinned_catalog(upstream, env={})
    echo = catalog.get("up_echo")
    assert echo is not None
    tools = [replace(t, sensitive_arguments=("text",)) if t is echo else t for t in catalog]
    masked = Catalog(tools, [], env={}, mcp_servers=[upstream])
    settings = ExecutorSettings(env={}, transports={McpCommand: McpTransport(connect_timeout=60)})
    with Executor(masked, settings) as executor:
        result = executor.execute(ToolCall("up_echo", {"text": "hunter22-secret"}))
        shown = executor.prepare(ToolCall("up_echo", {"text": "hunter22-secret"}))
    assert result.ok and "hunter22-secret" not in result.content
    assert all("hunter22-secret" not in json.dumps(dict(b)) for b in result.blocks)
    assert isinstance(shown, PreparedMcpCall) and shown.arguments == {"text": "***"}
