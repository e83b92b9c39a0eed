"""A load-and-fault run: `toolcat serve` replicas behind HAProxy, with Redis and the sample
service, all on 127.0.0.1 (benchmarks/bench_replicas.py and its test).

:class:`Cluster` starts the parts (Debian's ``haproxy`` and ``redis-server``, the replicas
as ``python -m toolcat.cli serve`` processes, the sample service in a thread that counts
what reaches it) and stops every process it started on exit, also on failure: SIGTERM,
then SIGKILL after a grace. :func:`run_load` sends a fixed number of calls from concurrent
MCP clients (2026-07-28 ``Client`` and 2025-era ``ClientSession`` alternately) with a
deadline per attempt and a bounded number of retries, while the faults of the plan fire
at fixed fractions of the calls answered.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
from toolcat.testing import BackgroundServer, make_service

__all__ = ["Cluster", "LoadFigures", "cluster_parts_missing", "run_load", "settle_figures"]

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
#: Error types in a tool's answer that a client retries (with the same idempotency key).
RETRYABLE_TOOL_ERRORS = frozenset({"in_progress", "unavailable", "connection_error"})
#: Failed attempts that surely never reached the upstream: a draining replica's refusal,
#: a running call with the same idempotency key.
_CLEAN = frozenset(
    {"jsonrpc -32001: the server is shutting down; retry the request", "tool in_progress"}
)
#: JSON-RPC errors that are the client's own mistake: never retried.
_CLIENT_ERRORS = frozenset({-32600, -32601, -32602})

_CATALOG = """\
toolcat: 1
server:
  quotas:
    - name: search-budget
      rate: {quota}/day
      tools: [search_items]
{redis}services:
  warehouse: {{base_url: "{upstream}", timeout: 5}}
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{{sku}}
    parameters:
      sku: {{type: string, description: The SKU}}
  - name: search_items
    description: Items whose name has every word.
    service: warehouse
    method: GET
    path: /items
    parameters:
      q: {{type: string, description: Words}}
  - name: create_order
    description: Order an item.
    service: warehouse
    method: POST
    path: /orders
    confirm: false
{idempotency}    parameters:
      sku: {{type: string, description: The SKU}}
      quantity: {{type: integer, minimum: 1, description: How many}}
      customer: {{type: string, description: Who}}
      request_id: {{type: string, in: header, name: Idempotency-Key, description: One per order}}
"""


def cluster_parts_missing() -> list[str]:
    """The programs a :class:`Cluster` needs that are not installed."""
    return [name for name in ("haproxy", "redis-server") if _program(name) is None]


def _program(name: str) -> str | None:
    return shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.access(p, os.X_OK)), None
    )


def shared_state_supported() -> tuple[bool, bool]:
    """Whether this toolcat's catalog takes ``server.redis`` and ``idempotency_key`` (asked
    of ``toolcat validate``, in a subprocess: this package imports no other toolcat layer)."""
    with tempfile.TemporaryDirectory() as folder:
        found = []
        for redis, idem in ((True, False), (False, True)):
            path = Path(folder) / "probe.yaml"
            path.write_text(_catalog("http://127.0.0.1:9", 10, 6379 if redis else None, idem))
            done = subprocess.run(
                [*TOOLCAT, "validate", str(path)],
                capture_output=True,
                timeout=120,
                check=False,
            )
            found.append(done.returncode == 0)
    return found[0], found[1]


def _catalog(upstream: str, quota: int, redis_port: int | None, idempotency: bool) -> str:
    redis = f"  redis: {{url: 'redis://127.0.0.1:{redis_port}/0'}}\n" if redis_port else ""
    idem = "    idempotency_key: request_id\n" if idempotency else ""
    return _CATALOG.format(upstream=upstream, quota=quota, redis=redis, idempotency=idem)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _Counting:
    """ASGI in front of the sample service: counts the requests that reach it, per route
    and per ``Idempotency-Key``; ``delay`` seconds per request keep calls in flight."""

    def __init__(self, app: Any, delay: float) -> None:
        self.app = app
        self.delay = delay
        self.routes: Counter[str] = Counter()
        self.keys: Counter[str] = Counter()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.routes[f"{scope['method']} {scope['path']}"] += 1
            for name, value in scope["headers"]:
                if name == b"idempotency-key":
                    self.keys[value.decode("latin-1")] += 1
            if self.delay:
                await anyio.sleep(self.delay)
        await self.app(scope, receive, send)


@dataclass
class _Proc:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path


class Cluster:
    """``replicas`` x `toolcat serve --stateless` behind HAProxy (health-checked on
    ``/readyz``), Redis when ``redis`` and this toolcat supports ``server.redis``, and the
    sample service. Use as a context manager; ``url`` is HAProxy's MCP endpoint."""

    def __init__(
        self,
        replicas: int = 3,
        *,
        redis: bool = True,
        quota: int = 60,
        drain_timeout: float = 5.0,
        upstream_delay: float = 0.02,
        start_timeout: float = 90.0,
    ) -> None:
        self.replicas = replicas
        self.quota = quota
        self.drain_timeout = drain_timeout
        self.start_timeout = start_timeout
        self.folder = Path(tempfile.mkdtemp(prefix="toolcat-cluster-"))
        self.redis_supported, self.idempotency_supported = shared_state_supported()
        self.use_redis = redis and self.redis_supported
        self.service = _Counting(make_service(stock=1_000_000), upstream_delay)
        self._upstream = BackgroundServer(self.service)
        self._procs: list[_Proc] = []
        self.ports = [_free_port() for _ in range(replicas)]
        self.port = _free_port()
        self.redis_port = _free_port() if self.use_redis else None
        self.replica_procs: list[_Proc | None] = [None] * replicas
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.faults: list[str] = []

    # -- lifecycle ---------------------------------------------------------------------

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        self._upstream.start()
        if self.redis_port is not None:
            self._spawn(
                "redis",
                [
                    _program("redis-server") or "redis-server",
                    "--port",
                    str(self.redis_port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--protected-mode",
                    "yes",
                ],
            )
            redis = self._procs[-1]
            self._wait(lambda: _answers_ping(self.redis_port or 0), "redis-server", redis)
        self.catalog = self.folder / "catalog.yaml"
        self.catalog.write_text(
            _catalog(self._upstream.url, self.quota, self.redis_port, self.idempotency_supported)
        )
        for index in range(self.replicas):
            self.start_replica(index)
        for index, replica in enumerate(self.replica_procs):
            assert replica is not None
            self._wait(functools.partial(_ready, self.ports[index]), f"replica {index}", replica)
        config = self.folder / "haproxy.cfg"
        config.write_text(self._haproxy_config())
        haproxy = self._spawn(
            "haproxy", [_program("haproxy") or "haproxy", "-f", str(config), "-db"]
        )
        self._wait(lambda: _ready(self.port), "haproxy", haproxy)

    def start_replica(self, index: int) -> None:
        """Start replica ``index`` on its port (again, after a kill); does not wait."""
        self.replica_procs[index] = self._spawn(
            f"replica{index}",
            [
                *TOOLCAT,
                "serve",
                str(self.catalog),
                "--transport",
                "http",
                "--port",
                str(self.ports[index]),
                "--allowed-host",
                "127.0.0.1",  # clients name HAProxy's port
                "--stateless",
                "--drain-timeout",
                str(self.drain_timeout),
            ],
        )

    def signal_replica(self, index: int, sig: signal.Signals) -> None:
        proc = self.replica_procs[index]
        if proc is not None and proc.proc.poll() is None:
            proc.proc.send_signal(sig)
            self.faults.append(f"{sig.name} replica {index}")

    def replica_exit(self, index: int, timeout: float) -> int | None:
        """The exit status of replica ``index``'s latest process, waiting up to ``timeout``."""
        proc = self.replica_procs[index]
        if proc is None:
            return None
        try:
            return proc.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        """Stop everything started: SIGTERM, then SIGKILL after 10 s; remove the folder."""
        for item in reversed(self._procs):
            if item.proc.poll() is None:
                item.proc.terminate()
        deadline = time.monotonic() + 10
        for item in reversed(self._procs):
            try:
                item.proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                item.proc.kill()
                item.proc.wait(10)
        self._upstream.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def running(self) -> list[str]:
        """The processes started that still run (none after ``close``)."""
        return [item.name for item in self._procs if item.proc.poll() is None]

    def logs(self) -> str:
        """The last lines each process wrote (for a failure's message)."""
        parts = []
        for item in self._procs:
            try:
                tail = item.log.read_text(errors="replace").splitlines()[-15:]
            except OSError:
                continue
            parts.append(f"--- {item.name}\n" + "\n".join(tail))
        return "\n".join(parts)

    def _spawn(self, name: str, argv: list[str]) -> _Proc:
        log = self.folder / f"{name}-{len(self._procs)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
            )
        item = _Proc(name, proc, log)
        self._procs.append(item)
        return item

    def _wait(self, ready: Callable[[], bool], what: str, item: _Proc) -> None:
        deadline = time.monotonic() + self.start_timeout
        while not ready():
            if item.proc.poll() is not None:
                raise RuntimeError(f"{what} did not start:\n{self.logs()}")
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{what} was not ready in {self.start_timeout} s:\n{self.logs()}"
                )
            time.sleep(0.1)

    def _haproxy_config(self) -> str:
        servers = "\n".join(
            f"    server r{i} 127.0.0.1:{port} check" for i, port in enumerate(self.ports)
        )
        return f"""\
global
    maxconn 2000
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout http-request 10s
    retries 3
    option redispatch
    # only a connection that failed: the request never reached a replica
    retry-on conn-failure
frontend mcp
    bind 127.0.0.1:{self.port}
    default_backend replicas
backend replicas
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 300ms fall 1 rise 2
{servers}
"""

    # -- what the upstream saw ---------------------------------------------------------

    def duplicated_keys(self) -> dict[str, int]:
        """Idempotency keys the upstream received more than once, with their counts."""
        return {key: count for key, count in self.service.keys.items() if count > 1}

    def duplicated(self) -> int:
        """Idempotency keys the upstream received more than once."""
        return sum(1 for count in self.service.keys.values() if count > 1)

    def searches_sent(self) -> int:
        return self.service.routes["GET /items"]

    def orders_sent(self) -> int:
        return self.service.routes["POST /orders"]


def _ready(port: int) -> bool:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/readyz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


# -- the load ----------------------------------------------------------------------------


@dataclass
class _Call:
    index: int
    tool: str
    arguments: dict[str, Any]
    attempts: int = 0
    started: float = 0.0
    outcome: str = "lost"  # completed, tool_error, rate_limited, retryable, failed, lost
    latency: float | None = None
    errors: list[str] = field(default_factory=list)  # each failed attempt's kind


@dataclass
class LoadFigures:
    """What :func:`run_load` counted; ``duplicated`` and ``overshoot`` from the upstream."""

    calls: int
    concurrency: int
    replicas: int
    completed: int = 0
    tool_errors: int = 0  # answered with an error that is not retryable (other than quota)
    rate_limited: int = 0  # answered rate_limited: the quota held
    failed_retryable: int = 0  # every attempt failed with a retryable error
    failed: int = 0  # answered with a JSON-RPC error that is the client's own mistake
    lost: int = 0  # the last attempt got no answer before its deadline
    retries: int = 0
    orders: int = 0  # create_order calls in the plan
    orders_sent: int = 0  # POST /orders requests the upstream received
    duplicated: int | None = None  # idempotency keys the upstream saw twice or more
    quota: int = 0
    searches_sent: int = 0
    overshoot: int = 0  # searches the upstream received past the quota
    p50: float = 0.0
    p99: float = 0.0
    elapsed: float = 0.0
    throughput: float = 0.0  # answered calls per second
    faults: list[str] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)  # kinds of retried failures
    # idempotency keys of orders with an attempt cut short (no answer, a dropped stream, a
    # drain deadline): their request may have reached the upstream
    cut_orders: list[str] = field(default_factory=list)
    # idempotency keys of orders that failed with a retryable error on every attempt
    unanswered_orders: list[str] = field(default_factory=list)
    duplicated_keys: dict[str, int] = field(default_factory=dict)

    @property
    def answered(self) -> int:
        return self.completed + self.tool_errors + self.rate_limited + self.failed

    def as_dict(self) -> dict[str, Any]:
        out = {
            k: v
            for k, v in self.__dict__.items()
            if k not in ("errors", "cut_orders", "unanswered_orders")
        }
        out["cut_orders"] = len(self.cut_orders)
        out["unanswered_orders"] = len(self.unanswered_orders)
        out["answered"] = self.answered
        out["errors"] = dict(self.errors.most_common(8))
        return out


def _plan(calls: int, run: str) -> list[_Call]:
    """A fixed mix: 5 in 10 get_item (safe), 2 search_items (safe, under the quota),
    3 create_order (POST, each with its own idempotency key)."""
    skus = ("W-BLUE-01", "G-STEEL-10", "B-BOLT-M6", "W-RED-02")
    plan = []
    for i in range(calls):
        kind = i % 10
        if kind < 5:
            plan.append(_Call(i, "get_item", {"sku": skus[i % 4]}))
        elif kind < 7:
            plan.append(_Call(i, "search_items", {"q": "widget"}))
        else:
            arguments = {"sku": skus[i % 4], "quantity": 1, "customer": f"c{i % 7}"}
            arguments["request_id"] = f"{run}-{i}"
            plan.append(_Call(i, "create_order", arguments))
    return plan


ClientCall = Callable[[str, dict[str, Any]], Awaitable[Any]]


@asynccontextmanager
async def _client(url: str, legacy: bool) -> AsyncIterator[ClientCall]:
    from mcp import Client, ClientSession
    from mcp.client.streamable_http import streamable_http_client

    if legacy:  # a 2025-era client: initialize, then requests without a session
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session.call_tool
    else:
        async with Client(url) as client:
            yield client.call_tool


def _error_kind(exc: BaseException) -> tuple[str, str]:
    """("failed" or "retryable", a short name) for an exception a call raised."""
    from mcp.shared.exceptions import MCPError

    leaves: list[BaseException] = []

    def walk(e: BaseException) -> None:
        if isinstance(e, BaseExceptionGroup):
            for inner in e.exceptions:
                walk(inner)
        else:
            leaves.append(e)

    walk(exc)
    if any(isinstance(leaf, TimeoutError) for leaf in leaves):
        return "timeout", "timeout"
    for leaf in leaves:
        if isinstance(leaf, MCPError):
            code = leaf.error.code
            kind = "failed" if code in _CLIENT_ERRORS else "retryable"
            return kind, f"jsonrpc {code}: {leaf.error.message[:60]}"
    first = leaves[0] if leaves else exc
    return "retryable", type(first).__name__


async def run_load(  # noqa: C901, PLR0915  the load run with its fault schedule and per-call retries, read top to bottom
    url: str,
    calls: int,
    concurrency: int,
    *,
    faults: Sequence[tuple[float, Callable[[], None]]] = (),
    attempt_timeout: float = 10.0,
    max_attempts: int = 10,
    deadline: float = 600.0,
    run: str = "run",
    replicas: int = 0,
) -> LoadFigures:
    """Send ``calls`` calls through ``url`` from ``concurrency`` MCP clients.

    Each call is retried (same arguments, so the same idempotency key) after a retryable
    failure, up to ``max_attempts`` attempts with a backoff of 0.25 s doubling to 3 s;
    an attempt with no answer in ``attempt_timeout`` seconds is abandoned (and retried).
    ``faults`` are ``(fraction, action)``: each action runs once that fraction of the
    calls is answered or given up. Everything stops after ``deadline`` seconds: calls not
    answered by then are lost.
    """
    plan = _plan(calls, run)
    queue = iter(plan)
    finished = 0
    figures = LoadFigures(calls, concurrency, replicas)

    def take() -> _Call | None:
        return next(queue, None)

    def finish(call: _Call, outcome: str) -> None:
        nonlocal finished
        call.outcome = outcome
        if outcome not in ("lost", "retryable"):
            call.latency = time.monotonic() - call.started
        finished += 1

    async def attempt_failed(call: _Call, kind: str, name: str) -> bool:
        """Count a failed attempt; False when the call is given up."""
        figures.errors[name] += 1
        call.errors.append(name)
        if kind == "failed" or call.attempts >= max_attempts:
            finish(call, {"failed": "failed", "timeout": "lost"}.get(kind, "retryable"))
            return False
        figures.retries += 1
        await anyio.sleep(min(3.0, 0.25 * 2 ** (call.attempts - 1)))
        return True

    async def worker(number: int) -> None:
        legacy = number % 2 == 1
        current: _Call | None = None
        while True:
            if current is None:
                current = take()
                if current is None:
                    return
                current.started = time.monotonic()
            try:
                async with _client(url, legacy) as call_tool:
                    while current is not None:
                        current.attempts += 1
                        with anyio.fail_after(attempt_timeout):
                            result = await call_tool(current.tool, current.arguments)
                        outcome, error = _outcome(result)
                        if outcome == "retry":
                            if not await attempt_failed(current, "retryable", error):
                                current = None
                            continue
                        finish(current, outcome)
                        current = take()
                        if current is not None:
                            current.started = time.monotonic()
            except TimeoutError:
                if current is not None and not await attempt_failed(current, "timeout", "timeout"):
                    current = None
            except Exception as exc:  # the client, its transport, the server: classified
                kind, name = _error_kind(exc)
                if current is not None and not await attempt_failed(current, kind, name):
                    current = None

    async def fire_faults() -> None:
        pending = sorted(faults, key=lambda f: f[0])
        while pending:
            if finished >= pending[0][0] * calls:
                await anyio.to_thread.run_sync(pending.pop(0)[1])
            else:
                await anyio.sleep(0.02)

    started = time.monotonic()
    with anyio.move_on_after(deadline):
        async with anyio.create_task_group() as tg:
            tg.start_soon(fire_faults)
            async with anyio.create_task_group() as workers:
                for number in range(concurrency):
                    workers.start_soon(worker, number)
            tg.cancel_scope.cancel()
    figures.elapsed = time.monotonic() - started
    outcomes = Counter(c.outcome for c in plan)
    figures.completed = outcomes["completed"]
    figures.tool_errors = outcomes["tool_error"]
    figures.rate_limited = outcomes["rate_limited"]
    figures.failed_retryable = outcomes["retryable"]
    figures.failed = outcomes["failed"]
    figures.lost = outcomes["lost"]
    figures.orders = sum(1 for c in plan if c.tool == "create_order")
    figures.cut_orders = [
        str(c.arguments["request_id"])
        for c in plan
        if c.tool == "create_order" and any(e not in _CLEAN for e in c.errors)
    ]
    figures.unanswered_orders = [
        str(c.arguments["request_id"])
        for c in plan
        if c.tool == "create_order" and c.outcome == "retryable"
    ]
    latencies = sorted(c.latency for c in plan if c.latency is not None)
    if latencies:
        figures.p50 = statistics.median(latencies)
        figures.p99 = latencies[min(len(latencies) - 1, math.ceil(0.99 * len(latencies)) - 1)]
    figures.throughput = figures.answered / figures.elapsed if figures.elapsed else 0.0
    return figures


def _outcome(result: Any) -> tuple[str, str]:
    """("completed" | "rate_limited" | "tool_error" | "retry", the error type) of a result."""
    if not result.is_error:
        return "completed", ""
    kind = ""
    try:
        kind = str(json.loads(result.content[0].text)["error"]["type"])
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        kind = "unparsed"
    if kind in RETRYABLE_TOOL_ERRORS:
        return "retry", f"tool {kind}"
    if kind == "rate_limited":
        return "rate_limited", kind
    return "tool_error", kind


def settle_figures(figures: LoadFigures, cluster: Cluster) -> LoadFigures:
    """Add what the upstream saw: duplicates (when idempotency keys are supported) and
    the quota's overshoot (searches received past ``quota``; the budget refills by
    ``quota`` a day, less than one call in a run of minutes)."""
    figures.replicas = cluster.replicas
    figures.faults = list(cluster.faults)
    figures.orders_sent = cluster.orders_sent()
    figures.duplicated = cluster.duplicated()
    figures.duplicated_keys = cluster.duplicated_keys()
    figures.quota = cluster.quota
    figures.searches_sent = cluster.searches_sent()
    refill = int(figures.elapsed * cluster.quota / 86400)
    figures.overshoot = max(0, figures.searches_sent - cluster.quota - refill)
    return figures
