"""Retries, Retry-After, timeouts, slow and huge responses, resets and redirects, for real."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from toolcat.executor import Executor, ToolCall
from toolcat.tests.support import CatalogFiles

CATALOG = """
toolcat: 1
services:
  api:
    base_url: {url}
    timeout: {{connect: 2, read: 2, total: 5}}
    retry: {{attempts: 3, backoff: 0.01, max_backoff: 0.05, on_status: [429, 503],
        retry_after_cap: 5}}
    max_response_bytes: 1000000
    max_response_chars: 300
tools:
  - name: flaky
    description: Fails a few times.
    service: api
    method: GET
    path: /flaky/{{key}}
    parameters:
      key: {{type: string, description: k}}
      fail: {{type: integer, description: f}}
  - name: flaky_post
    description: Fails a few times, not idempotent.
    service: api
    method: POST
    path: /flaky/{{key}}
    parameters:
      key: {{type: string, description: k}}
      fail: {{type: integer, in: query, description: f}}
  - name: flaky_post_unsafe
    description: Opted in to retries.
    service: api
    method: POST
    path: /flaky/{{key}}
    retry_unsafe: true
    parameters:
      key: {{type: string, description: k}}
      fail: {{type: integer, in: query, description: f}}
  - name: busy
    description: Retry-After.
    service: api
    method: GET
    path: /retry-after/{{key}}
    parameters:
      key: {{type: string, description: k}}
      after: {{type: string, description: seconds}}
      status: {{type: integer, default: 503, description: s}}
  - name: slow
    description: Slow.
    service: api
    method: GET
    path: /slow
    timeout: {{read: 0.3}}
    parameters:
      delay: {{type: number, description: d}}
  - name: trickle
    description: Each chunk in time, the whole too slow.
    service: api
    method: GET
    path: /trickle
    timeout: {{read: 1, total: 0.5}}
    parameters:
      every: {{type: number, description: e}}
  - name: huge
    description: Big.
    service: api
    method: GET
    path: /huge
    parameters:
      size: {{type: integer, description: s}}
      declare: {{type: integer, required: false, description: d}}
  - name: big_json
    description: Long JSON.
    service: api
    method: GET
    path: /big
    parameters:
      n: {{type: integer, description: n}}
  - name: binary
    description: A PNG.
    service: api
    method: GET
    path: /binary
  - name: status
    description: Any status.
    service: api
    method: GET
    path: /status/{{code}}
    parameters:
      code: {{type: integer, description: c}}
      pad: {{type: integer, required: false, description: p}}
  - name: redirect
    description: Redirects.
    service: api
    method: GET
    path: /redirect
    parameters:
      to: {{type: string, description: t}}
"""


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)

    async def async_sleep(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture()
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture()
def executor(server: Any, catalog_files: CatalogFiles, sleeps: Sleeps) -> Any:
    url, _ = server
    with Executor(
        catalog_files.catalog(CATALOG.format(url=url)),
        env={},
        sleep=sleeps,
        async_sleep=sleeps.async_sleep,
    ) as ex:
        yield ex


def test_idempotent_get_retried_until_success(executor: Any, server: Any, sleeps: Sleeps) -> None:
    result = executor.execute(ToolCall("flaky", {"key": "a", "fail": 2}))
    assert result.ok and result.data == {"ok": True, "attempt": 3}
    assert len(sleeps.calls) == 2 and all(0 < s <= 0.05 for s in sleeps.calls)


def test_retries_exhausted_gives_the_last_error(executor: Any, server: Any) -> None:
    result = executor.execute(ToolCall("flaky", {"key": "b", "fail": 5}))
    assert not result.ok and result.status == 503 and result.error.type == "http_error"
    assert server[1].counters["b"] == 3
    assert '"try again"' in result.content  # a bounded excerpt of the body


def test_post_not_retried_unless_opted_in(executor: Any, server: Any) -> None:
    assert executor.execute(ToolCall("flaky_post", {"key": "c", "fail": 1})).status == 503
    assert server[1].counters["c"] == 1
    assert executor.execute(ToolCall("flaky_post_unsafe", {"key": "d", "fail": 1})).ok
    assert server[1].counters["d"] == 2


def test_retry_after_is_honoured(executor: Any, server: Any, sleeps: Sleeps) -> None:
    result = executor.execute(ToolCall("busy", {"key": "e", "after": "2", "status": 429}))
    assert result.ok and sleeps.calls == [2.0]


def test_retry_after_above_the_cap_is_not_waited_for(
    executor: Any, server: Any, sleeps: Sleeps
) -> None:
    result = executor.execute(ToolCall("busy", {"key": "f", "after": "120"}))
    assert not result.ok and result.status == 503 and sleeps.calls == []
    assert "120" in result.error.msg and server[1].counters["f"] == 1


def test_async_retries(executor: Any, server: Any, sleeps: Sleeps) -> None:
    async def go() -> Any:
        async with executor:
            return await executor.aexecute(ToolCall("busy", {"key": "g", "after": "1"}))

    result = asyncio.run(go())
    assert result.ok and sleeps.calls == [1.0]


def test_read_timeout(executor: Any) -> None:
    start = time.monotonic()
    result = executor.execute(ToolCall("slow", {"delay": 2}))
    assert result.error.type == "timeout" and "read timeout" in result.error.msg
    assert time.monotonic() - start < 1.5


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_total_timeout_bounds_a_trickling_response(executor: Any, mode: str) -> None:
    call = ToolCall("trickle", {"every": 0.1})
    start = time.monotonic()
    if mode == "sync":
        result = executor.execute(call)
    else:

        async def go() -> Any:
            async with executor:
                return await executor.aexecute(call)

        result = asyncio.run(go())
    assert result.error.type == "timeout", result.content
    assert time.monotonic() - start < 1.5


@pytest.mark.parametrize("declare", [0, 1])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_huge_response_is_capped(executor: Any, declare: int, mode: str) -> None:
    call = ToolCall("huge", {"size": 50_000_000, "declare": declare})
    if mode == "sync":
        result = executor.execute(call)
    else:

        async def go() -> Any:
            async with executor:
                return await executor.aexecute(call)

        result = asyncio.run(go())
    assert result.error.type == "response_too_large" and result.status == 200
    assert "1000000 bytes" in result.error.msg


def test_long_text_is_cut_with_a_marker(executor: Any) -> None:
    result = executor.execute(ToolCall("big_json", {"n": 200}))
    assert result.ok and len(result.data["items"]) == 200  # the data is whole
    assert result.content.startswith('{"items":[{"id":0')
    assert "[... truncated:" in result.content and "characters omitted]" in result.content
    assert len(result.content) < 400


def test_binary_is_summarized(executor: Any) -> None:
    result = executor.execute(ToolCall("binary", {}))
    assert result.ok and result.data == {"content_type": "image/png", "size": 8 + 1024}
    assert result.content == "binary response: image/png, 1032 bytes (not shown)"


def test_upstream_error_has_status_and_bounded_excerpt(executor: Any) -> None:
    result = executor.execute(ToolCall("status", {"code": 404, "pad": 5000}))
    assert not result.ok and result.status == 404
    assert result.error.type == "http_error" and result.error.msg == "HTTP 404 Not Found"
    assert len(result.content) < 800 and "truncated" in result.content


def test_redirect_within_host_is_followed_and_other_hosts_refused(
    executor: Any, server: Any
) -> None:
    url, state = server
    result = executor.execute(ToolCall("redirect", {"to": f"{url}/status/200"}))
    assert result.ok and state.seen[-1]["path"] == "/status/200"
    count = len(state.seen)
    result = executor.execute(ToolCall("redirect", {"to": "http://localhost.invalid:9/steal"}))
    assert result.error.type == "refused_by_policy" and "localhost.invalid" in result.error.msg
    assert len(state.seen) == count + 1  # only the redirecting request


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_connection_reset_and_refused(
    catalog_files: CatalogFiles, resetting_server: Any, sleeps: Sleeps, mode: str
) -> None:
    catalog = catalog_files.catalog(CATALOG.format(url=resetting_server.url))
    dead = catalog_files.catalog(CATALOG.format(url="http://127.0.0.1:9"))

    async def both() -> Any:
        async with (
            Executor(catalog, env={}, async_sleep=sleeps.async_sleep) as ex,
            Executor(dead, env={}, async_sleep=sleeps.async_sleep) as ex2,
        ):
            return (
                await ex.aexecute(ToolCall("flaky", {"key": "x", "fail": 0})),
                await ex2.aexecute(ToolCall("flaky", {"key": "x", "fail": 0})),
            )

    if mode == "sync":
        with (
            Executor(catalog, env={}, sleep=sleeps) as ex,
            Executor(dead, env={}, sleep=sleeps) as ex2,
        ):
            reset = ex.execute(ToolCall("flaky", {"key": "x", "fail": 0}))
            refused = ex2.execute(ToolCall("flaky", {"key": "x", "fail": 0}))
    else:
        reset, refused = asyncio.run(both())
    assert reset.error is not None
    assert reset.error.type == "connection_error", reset.content
    assert resetting_server.accepted == 3  # GET is idempotent: three attempts
    assert refused.error is not None
    assert refused.error.type == "connection_error" and "could not connect" in refused.error.msg
