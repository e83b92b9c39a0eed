"""Shared state without a Redis: the URL check, the in-process idempotency store, what a
quota guard decides when its shared store does not answer, and that nothing imports the
redis library until a Redis is configured."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import pytest
from toolcat.catalog.serving import QuotaPolicy, QuotaRule, redis_url_problem
from toolcat.executor import (
    Bucket,
    MemoryIdempotencyStore,
    QuotaGuard,
    SharedStateError,
)

from .factory import catalog, tool


@pytest.mark.parametrize(
    "url",
    [
        "redis://localhost:6379/0",
        "redis://localhost",
        "rediss://user:pw@redis.example:6380/2",
        "unix:///run/redis.sock",
        "redis://[::1]:6379/0",
    ],
)
def test_usable_urls(url: str) -> None:
    assert redis_url_problem(url) is None


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("localhost:6379", "must start with redis://"),
        ("http://localhost:6379", "got 'http'"),
        ("redis://:6379/0", "names no host"),
        ("redis://localhost:port/0", "cannot be read"),
        ("redis://localhost:6379/zero", "must be a number"),
        ("unix://", "needs the socket's path"),
        ("redis://[::1/0", "cannot be read"),
    ],
)
def test_malformed_urls_say_why_in_one_line(url: str, words: str) -> None:
    problem = redis_url_problem(url)
    assert problem is not None and words in problem and "\n" not in problem


def test_the_memory_store_records_once_then_keeps_the_result() -> None:
    now = [0.0]
    store = MemoryIdempotencyStore(clock=lambda: now[0], max_records=2)
    assert store.begin("k", 10) is None
    assert store.begin("k", 10) == {"state": "running"}
    store.finish("k", {"ok": True}, 60)
    assert store.begin("k", 10) == {"state": "done", "result": {"ok": True}}
    now[0] = 61.0  # expired: a new attempt may go
    assert store.begin("k", 10) is None
    store.forget("k")
    assert store.begin("k", 10) is None
    store.begin("a", 10)
    store.begin("b", 10)  # past max_records: the oldest ("k") is forgotten
    assert store.begin("k", 10) is None


class _Down:
    """A shared store whose Redis does not answer."""

    shared = True

    def take(self, buckets: Sequence[Bucket]) -> float:
        raise SharedStateError("Redis did not answer (quota): ConnectionError")

    def acquire(self, service: str, limit: int) -> str | None:
        raise SharedStateError("Redis did not answer (concurrency): ConnectionError")

    def release(self, service: str, lease: str) -> None:
        raise AssertionError("nothing was taken")


def test_a_store_that_does_not_answer_closes_non_safe_calls_and_opens_safe_ones() -> None:
    tools = catalog(tool("read", method="GET"), tool("write", method="POST"))
    policy = QuotaPolicy((QuotaRule("all", 10, 60, 10),), (("svc", 2),))
    guard = QuotaGuard(policy, tools, _Down())
    assert guard.shared
    assert guard.check(None, "read").allowed
    closed = guard.check(None, "write")
    assert not closed.allowed and closed.unavailable and closed.retry_after == 1.0
    with guard.slot("svc", safe=True) as slot:
        assert slot.allowed
    with guard.slot("svc") as slot:
        assert not slot.allowed and slot.unavailable


def test_importing_the_executor_does_not_import_redis() -> None:
    code = (
        "import sys\n"
        "import toolcat.executor\n"
        "from toolcat.executor import Executor, QuotaGuard, MemoryIdempotencyStore\n"
        "from toolcat.executor.mcp_server import McpServer\n"
        "assert 'redis' not in sys.modules, 'redis imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
