"""Shared state in a real Redis: quotas counted across replicas, calls at once per
service, OAuth tokens fetched once for every replica, idempotency records, and what
happens when Redis goes away (fail closed for non-safe calls, open for safe ones and for
caches; never a traceback)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from toolcat.catalog.serving import RedisSettings
from toolcat.executor import (
    Executor,
    ExecutorSettings,
    RedisIdempotencyStore,
    RedisQuotaStore,
    RedisState,
    SharedStateError,
    ToolCall,
    ToolResult,
    connect_redis,
)
from toolcat.loader import load_catalog

from .conftest import Counts, RedisProcess, catalog_yaml

pytestmark = pytest.mark.timeout(120)

QUOTA = """\
server:
  quotas:
    - name: orders
      tools: [create_order]
      rate: 10/hour
"""
CONCURRENCY = """\
server:
  concurrency:
    shop: 2
"""


def _replica(path: Path, url: str, prefix: str) -> Executor:
    """One replica's executor, its counts and caches in the Redis at ``url``."""
    result = load_catalog([path])
    assert result.catalog is not None, result.diagnostics
    state = connect_redis(RedisSettings(url, prefix=prefix, timeout=0.5))
    return Executor(
        result.catalog,
        ExecutorSettings(
            quotas=result.server.quotas if result.server else None,
            quota_store=RedisQuotaStore(state),
            shared=state,
            idempotency=RedisIdempotencyStore(state),
        ),
    )


@pytest.fixture
def replicas(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    service: tuple[str, Counts],
    redis_server: RedisProcess,
    prefix: str,
) -> Iterator[tuple[Executor, Executor]]:
    """Two replicas of the catalog with the ``server:`` text given as the parameter."""
    path = tmp_path / "catalog.yaml"
    path.write_text(catalog_yaml(service[0], getattr(request, "param", "")))
    a, b = _replica(path, redis_server.url, prefix), _replica(path, redis_server.url, prefix)
    yield a, b
    for ex in (a, b):
        ex.close()
        assert ex.shared is not None
        ex.shared.close()


def _order(n: int, key: str | None = None) -> ToolCall:
    args: dict[str, str] = {"item": f"item-{n}"}
    if key is not None:
        args["request_id"] = key
    return ToolCall("create_order", json.dumps(args), id=f"c{n}")


@pytest.mark.parametrize("replicas", [QUOTA], indirect=True, ids=["quota"])
def test_two_replicas_share_one_quota_exactly(
    replicas: tuple[Executor, Executor], service: tuple[str, Counts]
) -> None:
    a, b = replicas
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda n: (a, b)[n % 2].execute(_order(n)), range(40)))
    ok = [r for r in results if r.ok]
    limited = [r for r in results if r.error is not None and r.error.type == "rate_limited"]
    assert len(ok) == 10 and len(limited) == 30  # 10 an hour, both replicas together
    assert service[1].orders == 10
    for ex in (a, b):
        late = ex.execute(_order(99))
        assert late.error is not None and late.error.type == "rate_limited"
        assert "quota 'orders'" in late.error.msg
    assert service[1].orders == 10


@pytest.mark.parametrize("replicas", [CONCURRENCY], indirect=True, ids=["concurrency"])
def test_calls_at_once_are_counted_across_replicas(
    replicas: tuple[Executor, Executor], service: tuple[str, Counts]
) -> None:
    a, b = replicas
    service[1].order_delay = 1.0
    start = threading.Barrier(6)

    def call(n: int) -> ToolResult:
        start.wait()
        return (a, b)[n % 2].execute(_order(n))

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(call, range(6)))
    sent = [r for r in results if r.ok]
    full = [r for r in results if r.error is not None and "calls at once" in r.error.msg]
    assert service[1].most_running <= 2
    assert len(sent) == service[1].orders >= 1
    assert len(sent) + len(full) == 6 and full


def test_a_retried_call_with_the_same_key_is_not_sent_twice(
    replicas: tuple[Executor, Executor], service: tuple[str, Counts]
) -> None:
    a, b = replicas
    first = a.execute(_order(1, key="k-1"))
    again = b.execute(_order(1, key="k-1"))  # the retry lands on the other replica
    assert first.ok and again.ok
    assert service[1].orders == 1 and service[1].keys == ["k-1"]
    assert again.data == first.data and again.status == 201
    assert again.call.id == "c1" and any("idempotency key" in n for n in again.notes)
    other = b.execute(_order(2, key="k-2"))
    assert other.ok and service[1].orders == 2
    no_key = a.execute(_order(3))  # no key: nothing recorded, sent as before
    assert no_key.ok and service[1].orders == 3


def test_a_call_with_the_same_key_while_the_first_runs_is_in_progress(
    replicas: tuple[Executor, Executor], service: tuple[str, Counts]
) -> None:
    a, b = replicas
    service[1].order_delay = 2.0
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(a.execute, _order(1, key="slow"))
        while service[1].running == 0 and not running.done():
            threading.Event().wait(0.01)
        second = b.execute(_order(1, key="slow"))
        first = running.result()
    assert first.ok
    assert second.error is not None and second.error.type == "in_progress"
    assert json.loads(second.content)["error"]["retry_after"] == 1.0
    assert service[1].orders == 1
    assert b.execute(_order(1, key="slow")).data == first.data  # done: its result


def test_async_calls_share_the_same_records(
    replicas: tuple[Executor, Executor], service: tuple[str, Counts]
) -> None:
    import asyncio

    a, b = replicas

    async def both() -> tuple[ToolResult, ToolResult]:
        first = await a.aexecute(_order(1, key="async-1"))
        second = await b.aexecute(_order(1, key="async-1"))
        await a.aclose()
        await b.aclose()
        return first, second

    first, second = asyncio.run(both())
    assert first.ok and second.ok and second.data == first.data
    assert service[1].orders == 1


def test_without_redis_the_record_is_kept_in_the_process(
    tmp_path: Path, service: tuple[str, Counts]
) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(catalog_yaml(service[0]))
    result = load_catalog([path])
    assert result.catalog is not None
    with Executor(result.catalog) as ex:
        assert ex.execute(_order(1, key="k")).ok
        assert ex.execute(_order(1, key="k")).ok
    assert service[1].orders == 1


_FETCH = textwrap.dedent(
    """
    import sys, threading
    from toolcat.catalog.serving import RedisSettings
    from toolcat.executor import Executor, ExecutorSettings, ToolCall, connect_redis
    from toolcat.loader import load_catalog

    path, url, prefix, go = sys.argv[1:5]
    catalog = load_catalog([path]).catalog
    state = connect_redis(RedisSettings(url, prefix=prefix))
    with Executor(catalog, ExecutorSettings(shared=state)) as ex:
        ex.tokens  # ready
        print("ready", flush=True)
        sys.stdin.readline()  # both processes start together
        out = []
        threads = [
            threading.Thread(target=lambda: out.append(ex.execute(ToolCall("whoami", "{}"))))
            for _ in range(4)
        ]
        for t in threads: t.start()
        for t in threads: t.join()
        print(sorted({r.content for r in out}), all(r.ok for r in out), ex.tokens.requests)
    """
)


def test_one_token_request_for_two_processes(
    tmp_path: Path, service: tuple[str, Counts], redis_server: RedisProcess, prefix: str
) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(catalog_yaml(service[0]))
    service[1].token_delay = 1.0  # both replicas need the token while it is being fetched
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _FETCH, str(path), redis_server.url, prefix, "go"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for p in procs:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=60) for p in procs]
    for out, err in outs:
        assert "True" in out, err
        assert "Traceback" not in err
    assert service[1].tokens == 1  # one request for 8 calls in two processes


def test_a_token_the_api_rejects_is_fetched_again_once(
    replicas: tuple[Executor, Executor], service: tuple[str, Counts]
) -> None:
    a, b = replicas
    assert a.execute(ToolCall("whoami", "{}")).ok
    assert b.execute(ToolCall("whoami", "{}")).ok
    assert service[1].tokens == 1 and b.tokens.requests == 0


def test_redis_killed_mid_run(
    tmp_path: Path,
    service: tuple[str, Counts],
    prefix: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    own = RedisProcess(tmp_path)  # this test kills its own Redis
    path = tmp_path / "catalog.yaml"
    path.write_text(catalog_yaml(service[0], QUOTA + "    - {tools: [read_stock], rate: 5/hour}\n"))
    ex = _replica(path, own.url, prefix)
    try:
        assert ex.execute(_order(1, key="before")).ok
        assert ex.execute(ToolCall("whoami", "{}")).ok
        own.kill()
        caplog.set_level(logging.WARNING, logger="toolcat.executor.shared")
        sent = service[1].orders
        unsafe = ex.execute(_order(2, key="after"))
        no_key = ex.execute(_order(3))
        assert unsafe.error is not None and unsafe.error.type == "unavailable"
        assert no_key.error is not None and no_key.error.type == "unavailable"
        assert json.loads(unsafe.content)["error"]["retry_after"] == 1.0
        assert service[1].orders == sent  # fail closed: neither was sent
        safe = ex.execute(ToolCall("read_stock", "{}"))
        assert safe.ok  # a safe call goes (fail open)
        token = ex.execute(ToolCall("whoami", "{}"))
        assert token.ok  # the token cache fails open (this replica's own copy here)
        assert ex.shared is not None and ex.shared.failures >= 2
        warnings = [r.getMessage() for r in caplog.records]
        assert any("shared state: Redis did not answer" in w for w in warnings)
        assert not any(r.exc_info for r in caplog.records)
        # Redis back on the same address: the next calls use it again (a fresh, empty one)
        own = RedisProcess(tmp_path, own.port)
        back = ex.execute(_order(4, key="after"))
        assert back.ok and service[1].orders == sent + 1
        assert ex.execute(_order(4, key="after")).ok and service[1].orders == sent + 1
    finally:
        own.kill()
        ex.close()
        assert ex.shared is not None
        ex.shared.close()


def test_an_unreachable_redis_is_one_line(redis_server: RedisProcess) -> None:
    from .conftest import free_port

    with pytest.raises(SharedStateError) as caught:
        connect_redis(RedisSettings(f"redis://127.0.0.1:{free_port()}/0", timeout=0.3))
    text = str(caught.value)
    assert text.startswith("cannot reach Redis at redis://127.0.0.1:") and "\n" not in text
    with pytest.raises(SharedStateError, match="malformed: it must start with redis://"):
        connect_redis(RedisSettings("127.0.0.1:6379"))
    state: RedisState = connect_redis(RedisSettings(redis_server.url))
    state.ping()
    state.close()


def test_the_password_is_not_shown() -> None:
    from .conftest import free_port

    url = f"redis://user:hunter2@127.0.0.1:{free_port()}/0"
    with pytest.raises(SharedStateError) as caught:
        connect_redis(RedisSettings(url, timeout=0.3))
    assert "hunter2" not in str(caught.value) and "user:***@" in str(caught.value)
