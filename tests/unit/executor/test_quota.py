"""Quotas (server.quotas, server.concurrency): token buckets per caller x tool or per
caller x quota, calls at once per service; a call over a limit is ``rate_limited`` with
``retry_after`` and nothing is sent."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from pathlib import Path

import httpx
import pytest
from toolcat.catalog import Catalog
from toolcat.catalog.serving import QuotaPolicy, QuotaRule
from toolcat.executor import (
    ERROR_TYPES,
    AuditLog,
    Bucket,
    CallerIdentity,
    Executor,
    ExecutorSettings,
    MemoryQuotaStore,
    QuotaGuard,
    StreamSink,
    ToolCall,
    ToolContext,
)
from toolcat.tests.support import CatalogFiles

CATALOG = """\
toolcat: 1
services:
  s: {base_url: "http://api.test"}
  slow: {base_url: "http://slow.test"}
tools:
  - {name: get_item, service: s, method: GET, path: /items, description: Read., tags: [read]}
  - {name: list_items, service: s, method: GET, path: /list, description: List., tags: [read]}
  - {name: put_item, service: s, method: PUT, path: /items, description: Write., confirm: false}
  - {name: wait, service: slow, method: GET, path: /wait, description: Slow.}
toolsets:
  reads: [get_item, list_items]
server:
  quotas:
    - {name: reads, rate: 2/minute, toolsets: [reads], per: rule}
    - {name: writes, rate: 1/second, burst: 3, tools: [put_item], when: {groups: writers}}
  concurrency:
    slow: 1
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _load(tmp_path: Path, text: str = CATALOG) -> tuple[Catalog, QuotaPolicy]:
    catalog, result = CatalogFiles(tmp_path).load(text, "c.yaml")
    assert result.server is not None
    return catalog, result.server.quotas


def who(sub: str, **claims: object) -> ToolContext:
    return ToolContext(CallerIdentity.make(subject=sub, method="jwt", claims=claims))


def test_rate_limited_is_a_documented_error_type() -> None:
    assert "rate_limited" in ERROR_TYPES
    table = (Path(__file__).resolve().parents[3] / "docs" / "executor.md").read_text()
    for kind in ERROR_TYPES:  # every error type has its row in the table
        assert f"| `{kind}` |" in table, kind


def test_the_catalog_compiles_to_rules(tmp_path: Path) -> None:
    _, policy = _load(tmp_path)
    reads, writes = policy.rules
    assert (reads.rate, reads.per_seconds, reads.burst, reads.scope) == (2, 60, 2, "rule")
    assert (writes.rate, writes.per_seconds, writes.burst) == (1, 1, 3)
    assert writes.when == (("groups", ("writers",)),)
    assert policy.concurrency == (("slow", 1),)


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        ("10/second", (10.0, 1.0)),
        ("10/s", (10.0, 1.0)),
        ("100/minute", (100.0, 60.0)),
        ("5/2min", (5.0, 120.0)),
        ("1000/hour", (1000.0, 3600.0)),
        ("5000/day", (5000.0, 86400.0)),
        (" 1.5 / 10 seconds ", (1.5, 10.0)),
        ("0/second", None),
        ("10/week", None),
        ("ten/minute", None),
        ("10", None),
        ("10/0s", None),
    ],
)
def test_rates(rate: str, expected: tuple[float, float] | None) -> None:
    from toolcat.loader._server import parse_rate

    assert parse_rate(rate) == expected


def test_token_bucket_refills_at_its_rate() -> None:
    clock = Clock()
    store = MemoryQuotaStore(clock)
    bucket = Bucket(("k",), rate=0.5, burst=2)
    assert store.take([bucket]) == 0 and store.take([bucket]) == 0
    assert store.take([bucket]) == pytest.approx(2.0)
    clock.now += 1.0
    assert store.take([bucket]) == pytest.approx(1.0)
    clock.now += 1.0
    assert store.take([bucket]) == 0
    clock.now += 100.0  # never more than burst
    assert [store.take([bucket]) for _ in range(3)][2] > 0


def test_all_buckets_or_none() -> None:
    store = MemoryQuotaStore(Clock())
    a, b = Bucket(("a",), 1, 1), Bucket(("b",), 1, 2)
    assert store.take([a, b]) == 0
    assert store.take([a, b]) > 0  # a is empty: b keeps its token
    assert store.take([b]) == 0


def test_the_store_forgets_the_oldest_buckets_beyond_its_bound() -> None:
    store = MemoryQuotaStore(Clock(), max_buckets=3)
    for n in range(10):
        store.take([Bucket((str(n),), 1, 1)])
    assert store.take([Bucket(("0",), 1, 1)]) == 0  # forgotten: full again
    assert store.take([Bucket(("9",), 1, 1)]) > 0


def test_per_rule_shares_one_bucket_across_the_toolset(tmp_path: Path) -> None:
    catalog, policy = _load(tmp_path)
    guard = QuotaGuard(policy, catalog, MemoryQuotaStore(Clock()))
    alice = CallerIdentity.make(subject="alice", method="jwt")
    assert guard.check(alice, "get_item").allowed
    assert guard.check(alice, "list_items").allowed
    third = guard.check(alice, "get_item")
    assert not third.allowed and third.rule == "reads" and third.retry_after == 30.0
    bob = CallerIdentity.make(subject="bob", method="jwt")
    assert guard.check(bob, "get_item").allowed  # per caller
    assert guard.check(None, "get_item").allowed  # anonymous callers share one bucket
    assert guard.check(alice, "put_item").allowed  # 'writes' needs groups: writers


def _executor(tmp_path: Path, sent: list[httpx.Request], **kwargs: object) -> Executor:
    catalog, policy = _load(tmp_path)

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"ok": True})

    return Executor(
        catalog,
        ExecutorSettings(
            env={},
            quotas=policy,
            client=httpx.Client(transport=httpx.MockTransport(handle)),
            async_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)),
            telemetry=False,
            **kwargs,  # type: ignore[arg-type]
        ),
    )


def test_over_the_limit_nothing_is_sent_and_the_model_reads_retry_after(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []
    out = io.StringIO()
    executor = _executor(tmp_path, sent, audit=AuditLog(StreamSink(out)))
    writer = who("w", groups=["writers"])
    results = [executor.execute(ToolCall("put_item", {}), context=writer) for _ in range(4)]
    assert [r.ok for r in results] == [True, True, True, False]
    limited = results[3]
    assert limited.error is not None and limited.error.type == "rate_limited"
    error = json.loads(limited.content)["error"]
    assert error["type"] == "rate_limited" and 0 < error["retry_after"] <= 1.0
    assert "writes" in error["message"] and "not sent" in error["message"]
    assert len(sent) == 3
    last = json.loads(out.getvalue().splitlines()[-1])
    assert (last["decision"], last["rule"], last["outcome"]) == (
        "rate_limited",
        "writes",
        "rate_limited",
    )


def test_the_service_concurrency_limit(tmp_path: Path) -> None:
    entered = threading.Event()
    release = threading.Event()
    sent: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if request.url.host == "slow.test":
            entered.set()
            release.wait(10)
        return httpx.Response(200, json={})

    catalog, policy = _load(tmp_path)
    executor = Executor(
        catalog,
        ExecutorSettings(
            env={},
            quotas=policy,
            client=httpx.Client(transport=httpx.MockTransport(handle)),
            telemetry=False,
        ),
    )
    first: list[bool] = []
    worker = threading.Thread(
        target=lambda: first.append(executor.execute(ToolCall("wait", {})).ok)
    )
    worker.start()
    assert entered.wait(10)
    second = executor.execute(ToolCall("wait", {}))
    other = executor.execute(ToolCall("get_item", {}))  # another service: not limited
    release.set()
    worker.join(10)
    assert first == [True] and other.ok
    assert second.error is not None and second.error.type == "rate_limited"
    assert (
        "calls at once" in second.error.msg and json.loads(second.content)["error"]["retry_after"]
    )
    assert executor.execute(ToolCall("wait", {})).ok  # the slot was given back
    assert [r.url.host for r in sent] == ["slow.test", "api.test", "slow.test"]


def test_async_calls_share_the_limits(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(tmp_path, sent)

    async def run() -> list[bool]:
        results = await executor.aexecute_many(
            [ToolCall("get_item", {}), ToolCall("list_items", {}), ToolCall("get_item", {})],
            context=who("alice"),
        )
        return [r.ok for r in results]

    assert sorted(asyncio.run(run())) == [False, True, True]
    assert len(sent) == 2


def test_no_quotas_costs_nothing(tmp_path: Path) -> None:
    catalog, _ = _load(tmp_path)
    executor = Executor(catalog, ExecutorSettings(env={}, telemetry=False))
    assert not executor.quotas.enabled
    assert QuotaGuard(QuotaPolicy((QuotaRule("r", 1, 1, 1),)), catalog).enabled
