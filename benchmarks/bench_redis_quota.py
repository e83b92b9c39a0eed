"""Per-call overhead of the Redis-backed quota (``server.redis``) against the in-process
one, same run.

    python benchmarks/bench_redis_quota.py [--checks 2000] [--calls 300] [--rounds 10]
                                           [--redis URL]

A redis-server from the system (Debian: ``apt-get install redis-server``) is started on a
free loopback port with nothing written to disk, unless ``--redis`` names one; without
either the script says "skipped" and exits 0. Two measurements, each in rounds that
alternate which side goes first, reported as medians of the per-round figures:

1. ``QuotaGuard.check`` alone (one quota on the tool, a bucket that never runs dry):
   ``MemoryQuotaStore`` against ``RedisQuotaStore`` (one Lua script per check).
2. ``Executor.execute`` of a POST to a loopback service (uvicorn in this process), with no
   quota, with the quota in process, and with the quota in Redis: the ratio Redis / in
   process is what a call pays for sharing its quota with other replicas.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from toolcat.catalog.serving import QuotaPolicy, QuotaRule, RedisSettings
from toolcat.executor import (
    Executor,
    ExecutorSettings,
    MemoryQuotaStore,
    QuotaGuard,
    QuotaStore,
    RedisQuotaStore,
    RedisState,
    ToolCall,
    connect_redis,
)
from toolcat.loader import load_catalog
from toolcat.testing import BackgroundServer

CATALOG = """\
toolcat: 1
services:
  shop: {base_url: "URL"}
tools:
  - name: create_order
    description: Create an order.
    service: shop
    method: POST
    path: /orders
    confirm: false
    parameters:
      item: {type: string, in: body, required: true, description: What to order.}
"""
# a bucket that never runs dry: every check takes a token and is allowed
POLICY = QuotaPolicy((QuotaRule("orders", 1e9, 1.0, 1_000_000_000),))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_redis(workdir: str) -> tuple[subprocess.Popen[bytes] | None, str | None]:
    server = shutil.which("redis-server")
    if server is None:
        return None, None
    port = _free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
         "no", "--dir", workdir],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    return None, None


def app() -> Starlette:
    async def orders(request: Request) -> Response:
        body = await request.json()
        return JSONResponse({"id": "o-1", "item": body.get("item")}, 201)

    return Starlette(routes=[Route("/orders", orders, methods=["POST"])])


def per_round(sides: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Each side's seconds per operation, one figure per round; the order rotates."""
    names = list(sides)
    out: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            out[name].append(sides[name]())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=2000, help="quota checks per round")
    parser.add_argument("--calls", type=int, default=300, help="executor calls per round")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--redis", metavar="URL", help="use this Redis (default: start one)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        proc = None
        url = args.redis
        if url is None:
            proc, url = start_redis(tmp)
        if url is None:
            print("skipped: no redis-server (apt-get install redis-server) and no --redis URL")
            return 0
        try:
            return run(args, url, Path(tmp))
        finally:
            if proc is not None:
                proc.kill()
                proc.wait(10)


def run(args: argparse.Namespace, url: str, tmp: Path) -> int:
    state: RedisState = connect_redis(RedisSettings(url, prefix=f"bench-{time.time_ns()}:"))
    with BackgroundServer(app()) as server:
        catalog_file = tmp / "catalog.yaml"
        catalog_file.write_text(CATALOG.replace("URL", server.url))
        catalog = load_catalog([catalog_file]).catalog
        assert catalog is not None

        # 1. the check alone
        guards = {
            "in process": QuotaGuard(POLICY, catalog, MemoryQuotaStore()),
            "Redis": QuotaGuard(POLICY, catalog, RedisQuotaStore(state)),
        }

        def checks(guard: QuotaGuard) -> Callable[[], float]:
            def go() -> float:
                t = time.perf_counter()
                for _ in range(args.checks):
                    assert guard.check(None, "create_order").allowed
                seconds: float = (time.perf_counter() - t) / args.checks
                return seconds

            return go

        check_times = per_round({k: checks(g) for k, g in guards.items()}, args.rounds)

        # 2. a whole call
        stores: dict[str, tuple[QuotaPolicy | None, QuotaStore | None]] = {
            "no quota": (None, None),
            "in process": (POLICY, MemoryQuotaStore()),
            "Redis": (POLICY, RedisQuotaStore(state)),
        }
        executors = {
            name: Executor(
                catalog, ExecutorSettings(quotas=policy, quota_store=store, telemetry=False)
            )
            for name, (policy, store) in stores.items()
        }
        call = ToolCall("create_order", json.dumps({"item": "x"}))
        for ex in executors.values():  # warm: connections, plans
            for _ in range(20):
                assert ex.execute(call).ok

        def calls(ex: Executor) -> Callable[[], float]:
            def go() -> float:
                t = time.perf_counter()
                for _ in range(args.calls):
                    assert ex.execute(call).ok
                seconds: float = (time.perf_counter() - t) / args.calls
                return seconds

            return go

        call_times = per_round({k: calls(e) for k, e in executors.items()}, args.rounds)
        for ex in executors.values():
            ex.close()
    state.close()

    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    print(f"Redis-backed quota vs in-process, {args.rounds} rounds (medians)")
    mem, red = med(check_times["in process"]), med(check_times["Redis"])
    print(f"  QuotaGuard.check, {args.checks} per round:")
    print(f"    in process {mem * 1e6:8.1f} us   Redis {red * 1e6:8.1f} us   "
          f"ratio {red / mem:6.1f}x   (+{(red - mem) * 1e6:.1f} us a check)")  # fmt: skip
    bare, mem, red = (med(call_times[k]) for k in ("no quota", "in process", "Redis"))
    ratios = [r / m for r, m in zip(call_times["Redis"], call_times["in process"], strict=True)]
    print(f"  Executor.execute of a loopback POST, {args.calls} per round:")
    print(f"    no quota {bare * 1e3:7.3f} ms   in process {mem * 1e3:7.3f} ms   "
          f"Redis {red * 1e3:7.3f} ms")  # fmt: skip
    print(f"    Redis / in process: {med(ratios):.3f}x (median of per-round ratios; "
          f"+{(red - mem) * 1e6:.0f} us a call)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
