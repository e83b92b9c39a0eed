"""Every call that reached, or may have reached, a service has exactly one audit line with
its outcome, however it ends: an answer, an upstream timeout, the caller's own deadline,
a cancelled task (after or before the request left), an interrupt in a sync call.

The upstream is the session's Starlette app on 127.0.0.1 (``server``): ``/slow`` records
the request before it waits, so "the request reached the service" is an observed fact.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import pytest
from toolcat.executor import AuditLog, Executor, ExecutorSettings, StreamSink, ToolCall

CATALOG = """\
toolcat: 1
services:
  up: {base_url: "URL", timeout: 30}
  quick: {base_url: "URL", timeout: 0.3}
tools:
  - name: wait
    description: Answers after ?delay seconds.
    service: up
    method: GET
    path: /slow
    parameters:
      delay: {type: number}
  - name: wait_briefly
    description: The same, with a 0.3 s timeout.
    service: quick
    method: GET
    path: /slow
    parameters:
      delay: {type: number}
  - name: ask_first
    description: Needs the user's yes.
    service: up
    method: GET
    path: /slow
    confirm: true
    parameters:
      delay: {type: number}
"""


def _lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _executor(catalog_files: Any, url: str, out: io.StringIO, **settings: Any) -> Executor:
    catalog = catalog_files.catalog(CATALOG.replace("URL", url))
    return Executor(catalog, ExecutorSettings(audit=AuditLog(StreamSink(out)), **settings))


async def _until_seen(state: Any, count: int = 1) -> None:
    while len(state.seen) < count:
        await asyncio.sleep(0.01)


def test_an_answered_call_and_an_upstream_timeout_have_one_line_each(
    server: Any, catalog_files: Any
) -> None:
    url, state = server
    out = io.StringIO()
    with _executor(catalog_files, url, out) as ex:
        assert ex.execute(ToolCall("wait", {"delay": 0})).ok
        timed_out = ex.execute(ToolCall("wait_briefly", {"delay": 3}))
    assert timed_out.error is not None and timed_out.error.type == "timeout"
    assert [(line["tool"], line["outcome"]) for line in _lines(out)] == [
        ("wait", "ok"),
        ("wait_briefly", "timeout"),
    ]
    assert len(state.seen) == 2


@pytest.mark.parametrize("how", ["cancel", "caller_deadline"])
def test_a_call_cut_after_its_request_left_is_written_down_as_unknown(
    server: Any, catalog_files: Any, how: str
) -> None:
    url, state = server
    out = io.StringIO()

    async def go() -> None:
        async with _executor(catalog_files, url, out) as ex:
            call = ex.aexecute(ToolCall("wait", {"delay": 5}, id="c1"))
            if how == "cancel":
                task = asyncio.ensure_future(call)
                await _until_seen(state)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            else:
                with pytest.raises(TimeoutError):
                    async with asyncio.timeout(0.5):  # the caller's own deadline
                        await call

    asyncio.run(go())
    lines = _lines(out)
    assert len(state.seen) == 1  # the service got it ...
    assert len(lines) == 1  # ... and the audit log has it, once
    assert (lines[0]["tool"], lines[0]["call_id"], lines[0]["outcome"]) == (
        "wait",
        "c1",
        "unknown",
    )


def test_a_call_cancelled_while_the_user_is_asked_is_written_down_as_cancelled(
    server: Any, catalog_files: Any
) -> None:
    url, state = server
    out = io.StringIO()
    asked = asyncio.Event()

    async def never(call: ToolCall, tool: Any) -> bool:
        asked.set()
        await asyncio.Event().wait()  # the user never answers
        return True

    async def go() -> None:
        async with _executor(catalog_files, url, out, confirm=never) as ex:
            task = asyncio.ensure_future(ex.aexecute(ToolCall("ask_first", {"delay": 0})))
            await asked.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(go())
    assert state.seen == []
    assert [(line["tool"], line["outcome"]) for line in _lines(out)] == [("ask_first", "cancelled")]


def test_an_interrupted_sync_call_is_written_down_before_the_interrupt_goes_on(
    server: Any, catalog_files: Any
) -> None:
    url, state = server
    out = io.StringIO()

    def interrupted(call: ToolCall, tool: Any) -> bool:
        raise KeyboardInterrupt  # Ctrl-C while the user is asked

    with _executor(catalog_files, url, out, confirm=interrupted) as ex:
        with pytest.raises(KeyboardInterrupt):
            ex.execute(ToolCall("ask_first", {"delay": 0}))
    assert state.seen == []
    assert [line["outcome"] for line in _lines(out)] == ["cancelled"]


def test_concurrent_calls_cancelled_together_each_have_their_line(
    server: Any, catalog_files: Any
) -> None:
    url, state = server
    out = io.StringIO()

    async def go() -> None:
        async with _executor(catalog_files, url, out) as ex:
            calls = [ToolCall("wait", {"delay": 5}, id=str(i)) for i in range(4)]
            task = asyncio.ensure_future(ex.aexecute_many(calls))
            await _until_seen(state, 4)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(go())
    lines = _lines(out)
    assert sorted(line["call_id"] for line in lines) == ["0", "1", "2", "3"]
    assert {line["outcome"] for line in lines} == {"unknown"}
