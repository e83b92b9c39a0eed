"""Benchmark: a load-and-fault run of `toolcat serve` replicas behind HAProxy.

Run: ``python benchmarks/bench_replicas.py [--calls 1000] [--concurrency 16]
[--baseline-calls 200] [--rounds 3] [--out benchmarks/results/replicas.md]``.

Everything on 127.0.0.1, with Debian's ``haproxy`` and ``redis-server`` (``apt-get install
haproxy redis-server``): three ``toolcat serve --transport http --stateless`` replicas
behind HAProxy (round robin, health-checked on ``/readyz``), Redis (``server.redis``, when
this toolcat has it), and the sample service in this process, counting what reaches it.
Concurrent MCP clients (2026-07-28 ``Client`` and 2025-era ``ClientSession``, alternately)
send a fixed mix of calls: 5 in 10 ``get_item``, 2 ``search_items`` (under a quota of 60 a
day for the whole run), 3 ``create_order`` (POST, each with its own idempotency key, the
same on every retry). A failed attempt is retried (at most 10 attempts, backoff 0.25 s to
3 s, 10 s per attempt). Mid-run replica 0 gets SIGKILL (at 30 % of the calls answered)
and replica 1 gets SIGTERM (at 50 %; it drains and exits). The sample service takes
``--upstream-delay`` seconds per request (default 0.1), so calls are in flight when
the faults strike.

Figures: calls completed; failed with a retryable error (every attempt); lost (no answer);
duplicated at the upstream (idempotency keys received twice; target 0); quota overshoot
(searches received past the quota, across replicas; target 0); p50/p99 latency per call,
retries included; and throughput (answered calls per second) with one and with three
replicas and no faults, as a ratio (``--rounds`` interleaved rounds, the median ratio).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import time
from pathlib import Path

import anyio
from toolcat.tests.support import (
    Cluster,
    LoadFigures,
    cluster_parts_missing,
    run_load,
    settle_figures,
)

HERE = Path(__file__).resolve().parent


def measure(
    replicas: int, calls: int, concurrency: int, *, faults: bool, quota: int, delay: float
) -> LoadFigures:
    with Cluster(replicas, quota=quota, upstream_delay=delay) as cluster:
        plan = []
        if faults:
            plan = [
                (0.3, lambda: cluster.signal_replica(0, signal.SIGKILL)),
                (0.5, lambda: cluster.signal_replica(1, signal.SIGTERM)),
            ]
        run = f"r{replicas}-{int(time.time())}"
        figures = anyio.run(
            lambda: run_load(
                cluster.url, calls, concurrency, faults=plan, run=run, replicas=replicas
            )
        )
        settle_figures(figures, cluster)
        if faults:
            status = cluster.replica_exit(1, 30)
            figures.faults.append(f"replica 1 exited {status}")
        figures.faults.append(
            "shared state: "
            + ("Redis" if cluster.use_redis else "in each process")
            + (", idempotency keys" if cluster.idempotency_supported else ", no idempotency keys")
        )
        return figures


def table(ones: list[LoadFigures], threes: list[LoadFigures], fault: LoadFigures) -> str:
    ratios = [
        t.throughput / o.throughput for o, t in zip(ones, threes, strict=True) if o.throughput
    ]
    ratio = statistics.median(ratios) if ratios else 0.0
    one = statistics.median(o.throughput for o in ones)
    three = statistics.median(t.throughput for t in threes)
    dup = "n/a" if fault.duplicated is None else str(fault.duplicated)
    rows = [
        ("calls (3 replicas, faults)", str(fault.calls)),
        ("concurrent clients", str(fault.concurrency)),
        ("completed", str(fault.completed)),
        ("answered rate_limited (the quota held)", str(fault.rate_limited)),
        ("answered with another tool error", str(fault.tool_errors + fault.failed)),
        ("failed with a retryable error (every attempt)", str(fault.failed_retryable)),
        ("lost (never answered)", str(fault.lost)),
        ("retried attempts", str(fault.retries)),
        (
            "create_order: calls / requests the upstream got",
            f"{fault.orders} / {fault.orders_sent}",
        ),
        (
            "create_order calls cut mid-flight (no answer, a dropped stream)",
            str(len(fault.cut_orders)),
        ),
        (
            "create_order calls left unknown (in_progress on every retry)",
            str(len(fault.unanswered_orders)),
        ),
        ("duplicated at the upstream (idempotency keys sent twice)", dup),
        (
            "quota: allowed / searches the upstream got / overshoot",
            f"{fault.quota} / {fault.searches_sent} / {fault.overshoot}",
        ),
        ("p50 / p99 latency per call (retries included)", f"{fault.p50:.3f} s / {fault.p99:.3f} s"),
        (f"throughput, 1 replica, no faults (median of {len(ones)})", f"{one:.1f} calls/s"),
        (f"throughput, 3 replicas, no faults (median of {len(threes)})", f"{three:.1f} calls/s"),
        (
            "throughput ratio 3 / 1 (median of the rounds' ratios; each round)",
            f"{ratio:.2f}x ({', '.join(f'{r:.2f}' for r in ratios)})",
        ),
        ("faults", "; ".join(fault.faults)),
        ("retried because of", ", ".join(f"{k} x{v}" for k, v in fault.errors.most_common(5))),
    ]
    lines = ["| figure | value |", "| --- | --- |"]
    lines += [f"| {name} | {value.replace('|', '/')} |" for name, value in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--baseline-calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="1-vs-3 throughput rounds")
    parser.add_argument("--quota", type=int, default=60)
    parser.add_argument(
        "--upstream-delay", type=float, default=0.1, help="seconds the sample service takes"
    )
    parser.add_argument("--out", type=Path, default=HERE / "results" / "replicas.md")
    args = parser.parse_args()
    missing = cluster_parts_missing()
    if missing:
        print(f"needs {', '.join(missing)} (apt-get install haproxy redis-server)", file=sys.stderr)
        return 2
    quota = args.quota
    ones, threes = [], []
    for _ in range(args.rounds):  # interleaved: a busy moment weighs on both sides
        ones.append(
            measure(
                1,
                args.baseline_calls,
                args.concurrency,
                faults=False,
                quota=quota,
                delay=args.upstream_delay,
            )
        )
        threes.append(
            measure(
                3,
                args.baseline_calls,
                args.concurrency,
                faults=False,
                quota=quota,
                delay=args.upstream_delay,
            )
        )
    fault = measure(
        3, args.calls, args.concurrency, faults=True, quota=quota, delay=args.upstream_delay
    )
    text = table(ones, threes, fault)
    cores = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    report = (
        "# Load-and-fault run (bench_replicas.py)\n\n"
        f"{cores} CPU cores, load average {load:.1f} at the end; every process on this "
        "machine.\n\n" + text + "\n"
    )
    print(report)
    args.out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
