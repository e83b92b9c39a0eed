"""Retries, backoff, Retry-After, redirects and caps, with a mock transport and a fake sleep."""

from __future__ import annotations

import asyncio
import email.utils
import time
from typing import Any

import httpx
import pytest
from toolcat.catalog import BodySpec, RetryPolicy, Timeouts
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor.http._retry import backoff_delay, retry_after

POLICY = RetryPolicy(
    attempts=4, backoff=0.5, max_backoff=1.5, on_status=(429, 503), retry_after_cap=10
)


class Script:
    """Answers with the given responses (or raises the given errors) in order."""

    def __init__(self, *steps: Any) -> None:
        self.steps = list(steps)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        step = self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]
        if isinstance(step, Exception):
            raise step
        response: httpx.Response = step(request) if callable(step) else step
        return response


def _run(
    f: Any,
    script: Script,
    *,
    method: str = "GET",
    policy: RetryPolicy = POLICY,
    mode: str = "sync",
    **command: Any,
) -> tuple[Any, list[float]]:
    sleeps: list[float] = []

    async def asleep(s: float) -> None:
        sleeps.append(s)

    body = BodySpec() if method in ("POST", "PATCH") else None
    tool = f.tool(method=method, body=body, retry=policy, **command)
    cat = f.catalog(tool)
    transport = httpx.MockTransport(script)
    if mode == "sync":
        with Executor(
            cat,
            ExecutorSettings(client=httpx.Client(transport=transport), env={}, sleep=sleeps.append),
        ) as ex:
            return ex.execute(ToolCall("t", {})), sleeps

    async def go() -> Any:
        async with httpx.AsyncClient(transport=transport) as client:
            ex = Executor(cat, ExecutorSettings(async_client=client, env={}, async_sleep=asleep))
            return await ex.aexecute(ToolCall("t", {}))

    return asyncio.run(go()), sleeps


def r(status: int, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers=headers, json={"status": status})


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_status_retries_with_exponential_backoff(f: Any, mode: str) -> None:
    script = Script(r(503), r(503), r(503), r(200))
    result, sleeps = _run(f, script, mode=mode)
    assert result.ok and len(script.requests) == 4
    # attempt n waits between half and all of min(cap, base * 2**(n-1))
    for n, s in enumerate(sleeps, 1):
        full = min(1.5, 0.5 * 2 ** (n - 1))
        assert full / 2 <= s <= full


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gives_up_after_attempts(f: Any, mode: str) -> None:
    script = Script(r(503))
    result, sleeps = _run(f, script, mode=mode)
    assert result.status == 503 and len(script.requests) == 4 and len(sleeps) == 3


def test_other_statuses_are_not_retried(f: Any) -> None:
    script = Script(r(500), r(200))
    result, sleeps = _run(f, script)
    assert result.status == 500 and len(script.requests) == 1 and sleeps == []


@pytest.mark.parametrize(
    "method,unsafe,expected",
    [
        ("POST", False, 1),
        ("PATCH", False, 1),
        ("POST", True, 2),
        ("PUT", False, 2),
        ("DELETE", False, 2),
    ],
)
def test_only_idempotent_or_opted_in_methods_retry(
    f: Any, method: str, unsafe: bool, expected: int
) -> None:
    script = Script(r(503), r(200))
    _run(f, script, method=method, retry_unsafe=unsafe)
    assert len(script.requests) == expected


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_connect_errors_are_retried(f: Any, mode: str) -> None:
    script = Script(httpx.ConnectError("refused"), httpx.ConnectError("refused"), r(200))
    result, sleeps = _run(f, script, mode=mode)
    assert result.ok and len(sleeps) == 2


def test_connect_errors_on_post_are_not_retried(f: Any) -> None:
    script = Script(httpx.ConnectError("refused"), r(200))
    result, _ = _run(f, script, method="POST")
    assert result.error.type == "connection_error" and len(script.requests) == 1


def test_retry_after_seconds_and_dates(f: Any) -> None:
    script = Script(r(429, **{"retry-after": "3"}), r(200))
    assert _run(f, script)[1] == [3.0]
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    script = Script(r(503, **{"retry-after": when}), r(200))
    (waited,) = _run(f, script)[1]
    assert 3.5 <= waited <= 5.0
    script = Script(r(429, **{"retry-after-ms": "1500", "retry-after": "3"}), r(200))
    assert _run(f, script)[1] == [1.5]


def test_retry_after_over_the_cap_returns_the_response(f: Any) -> None:
    script = Script(r(503, **{"retry-after": "3600"}), r(200))
    result, sleeps = _run(f, script)
    assert (
        result.status == 503
        and sleeps == []
        and "3600s, more than the cap of 10s" in result.error.msg
    )


def test_retries_stop_at_the_total_deadline(f: Any) -> None:
    script = Script(r(503, **{"retry-after": "8"}), r(200))
    result, sleeps = _run(f, script, timeouts=Timeouts(total=5))
    assert result.status == 503 and sleeps == []


def test_timeouts_become_results(f: Any) -> None:
    result, _ = _run(f, Script(httpx.ReadTimeout("slow")), policy=RetryPolicy())
    assert result.error.type == "timeout" and "read timeout" in result.error.msg
    result, _ = _run(f, Script(httpx.ConnectTimeout("slow")), policy=RetryPolicy())
    assert result.error.type == "timeout" and "connect timeout" in result.error.msg


def test_per_request_timeouts_come_from_tool_then_service(f: Any) -> None:
    seen: list[dict[str, float]] = []

    def capture(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return r(200)

    _run(f, Script(capture), timeouts=Timeouts(read=2.5))
    assert seen[0]["read"] == 2.5 and seen[0]["connect"] <= 10 and seen[0]["pool"] <= 10


def test_backoff_and_retry_after_helpers() -> None:
    assert backoff_delay(1, 1.0, 10.0, rng=lambda: 0.0) == 0.5
    assert backoff_delay(3, 1.0, 10.0, rng=lambda: 1.0) == 4.0
    assert backoff_delay(10, 1.0, 10.0, rng=lambda: 1.0) == 10.0
    assert retry_after(httpx.Headers({"retry-after": "7"})) == 7.0
    assert retry_after(httpx.Headers({"retry-after": "soon"})) is None
    assert retry_after(httpx.Headers({})) is None


# -- redirects ----------------------------------------------------------------------------


def test_relative_redirect_followed_303_becomes_get(f: Any) -> None:
    script = Script(httpx.Response(303, headers={"location": "/v1/done"}), r(200))
    result, _ = _run(f, script, method="POST")
    assert result.ok
    assert [(q.method, q.url.path, q.content) for q in script.requests] == [
        ("POST", "/v1/items", b"{}"),
        ("GET", "/v1/done", b""),
    ]


@pytest.mark.parametrize(("method", "status"), [("POST", 307), ("PUT", 308), ("DELETE", 302)])
def test_a_redirect_never_resends_a_non_safe_method(f: Any, method: str, status: int) -> None:
    script = Script(
        httpx.Response(status, headers={"location": "http://api.test/v1/again"}), r(200)
    )
    result, _ = _run(f, script, method=method)
    assert result.error.type == "refused_by_policy" and result.status == status
    assert "never re-sent" in result.error.msg
    assert len(script.requests) == 1


def test_307_keeps_a_safe_method(f: Any) -> None:
    script = Script(httpx.Response(307, headers={"location": "http://api.test/v1/again"}), r(200))
    result, _ = _run(f, script, method="GET")
    assert result.ok
    assert [(q.method, q.url.path) for q in script.requests] == [
        ("GET", "/v1/items"),
        ("GET", "/v1/again"),
    ]


@pytest.mark.parametrize(
    "target",
    [
        "http://evil.test/x",
        "https://api.test/v1/x",
        "http://api.test:8080/x",
        "//evil.test/x",
        "/admin",
        "http://api.test/v1x/items",
        "/v1/../admin",
    ],
)
def test_redirect_off_the_origin_is_refused(f: Any, target: str) -> None:
    script = Script(httpx.Response(302, headers={"location": target}), r(200))
    result, _ = _run(f, script)
    assert result.error.type == "refused_by_policy" and result.status == 302
    assert len(script.requests) == 1


def test_redirect_loops_stop(f: Any) -> None:
    script = Script(httpx.Response(302, headers={"location": "/v1/items"}))
    result, _ = _run(f, script, policy=RetryPolicy())
    assert result.error.msg == "more than 5 redirects" and len(script.requests) == 6


# -- size cap -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_response_cap(f: Any, mode: str) -> None:
    tool = f.tool()
    cat = f.catalog(tool, max_response_bytes=1000)

    def big(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter([b"x" * 600] * 4))

    transport = httpx.MockTransport(big)
    if mode == "sync":
        with Executor(
            cat, ExecutorSettings(client=httpx.Client(transport=transport), env={})
        ) as ex:
            result = ex.execute(ToolCall("t", {}))
    else:

        async def go() -> Any:
            async def agen() -> Any:
                for _ in range(4):
                    yield b"x" * 600

            def abig(request: httpx.Request) -> httpx.Response:
                return httpx.Response(200, content=agen())

            async with httpx.AsyncClient(transport=httpx.MockTransport(abig)) as client:
                return await Executor(cat, ExecutorSettings(async_client=client, env={})).aexecute(
                    ToolCall("t", {})
                )

        result = asyncio.run(go())
    assert result.error is not None
    assert result.error.type == "response_too_large" and "1000 bytes" in result.error.msg


def test_head_with_a_large_content_length_is_fine(f: Any) -> None:
    tool = f.tool(method="HEAD")
    cat = f.catalog(tool, max_response_bytes=1000)
    answer = httpx.Response(
        200, headers={"content-length": "50000000", "content-type": "video/mp4"}
    )
    transport = httpx.MockTransport(lambda r: answer)
    with Executor(cat, ExecutorSettings(client=httpx.Client(transport=transport), env={})) as ex:
        result = ex.execute(ToolCall("t", {}))
    assert result.ok and result.headers["content-length"] == "50000000"
