"""What passes through to the caller's own client: upstream progress, an upstream's
elicitation (handshake era), and cancellation back upstream. The MCP server sets
``call_hooks`` around a call; here the test does, on its own event loop."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from toolcat.catalog import FrozenDict
from toolcat.executor import ToolCall
from toolcat.executor.mcp import CallHooks, call_hooks
from toolcat.tests.support.mcp_upstream import stdio_upstream, upstream_executor


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_progress_reaches_the_callers_loop(mode: str) -> None:
    seen: list[tuple[float, float | None, str | None, bool]] = []

    async def run() -> None:
        loop = asyncio.get_running_loop()

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append((value, total, message, asyncio.get_running_loop() is loop))

        token = call_hooks.set(CallHooks(progress=progress))
        try:
            result = await executor.aexecute(ToolCall("up_slow", {"seconds": 0.3}))
        finally:
            call_hooks.reset(token)
        assert result.ok and result.content == "slept 0.3"

    with upstream_executor(stdio_upstream("up"), mode=mode) as executor:
        asyncio.run(run())
    assert [s[0] for s in seen] == [0, 1, 2]
    assert all(total == 3 and on_loop for _, total, _, on_loop in seen)


def test_an_elicitation_goes_to_the_calls_client_and_is_declined_without_one() -> None:
    asked: list[str] = []

    async def elicit(params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"ok": True})

    async def run() -> tuple[str, str]:
        token = call_hooks.set(CallHooks(elicit=elicit))
        try:
            answered = await executor.aexecute(ToolCall("up_ask", {"question": "Delete?"}))
        finally:
            call_hooks.reset(token)
        declined = await executor.aexecute(ToolCall("up_ask", {"question": "Again?"}))
        return answered.content, declined.content

    with upstream_executor(stdio_upstream("up"), mode="legacy") as executor:
        answered, declined = asyncio.run(run())
    assert json.loads(answered) == {"action": "accept", "content": {"ok": True}}
    assert json.loads(declined)["action"] == "decline"
    assert asked == ["Delete?"]


def test_a_cancelled_call_is_cancelled_upstream(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled"
    upstream = stdio_upstream("up", env=FrozenDict({"MCP_UPSTREAM_CANCELLED_FILE": str(marker)}))

    async def run() -> None:
        assert (await executor.aexecute(ToolCall("up_echo", {"text": "warm"}))).ok
        task = asyncio.create_task(executor.aexecute(ToolCall("up_slow", {"seconds": 30})))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with upstream_executor(upstream) as executor:
        asyncio.run(run())
        deadline = time.monotonic() + 10
        while not marker.exists():
            assert time.monotonic() < deadline, "the upstream never heard of the cancellation"
            time.sleep(0.05)
        assert executor.execute(ToolCall("up_echo", {"text": "after"})).content == "after"
