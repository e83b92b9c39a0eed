"""Benchmark: a load-and-fault run of `toolcat serve` replicas behind HAProxy (issue 12, item 7).

Run: ``python benchmarks/bench_replicas.py [--calls 1000] [--concurrency 16]
[--baseline-calls 300] [--out benchmarks/results/replicas.md]``.

Everything on 127.0.0.1, with Debian's ``haproxy`` and ``redis-server`` (``apt-get install
haproxy redis-server``): three ``toolcat serve --transport http --stateless`` replicas
behind HAProxy (round robin, health-checked on ``/readyz``), Redis (``server.redis``, when
this toolcat has it), and the sample service in this process, counting what reaches it.
Concurrent MCP clients (2026-07-28 ``Client`` and 2025-era ``ClientSession``, alternately)
send a fixed mix of calls: 5 in 10 ``get_item``, 2 ``search_items`` (under a quota of 60 a
day for the whole run), 3 ``create_order`` (POST, each with its own idempotency key, the
same on every retry). A failed attempt is retried (at most 10 attempts, backoff 0.25 s to
3 s, 10 s per attempt). Mid-run replica 0 gets SIGKILL (at 30 % of the calls answered)
and replica 1 gets SIGTERM (at 50 %; it drains and exits).

Figures: calls completed; failed with a retryable error (every attempt); lost (no answer);
duplicated at the upstream (idempotency keys received twice; target 0); quota overshoot
(searches received past the quota, across replicas; target 0); p50/p99 latency per call,
retries included; and throughput (answered calls per second) with one and with three
replicas and no faults, as a ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

import anyio
from toolcat.testing import Cluster, LoadFigures, cluster_parts_missing, run_load, settle_figures

HERE = Path(__file__).resolve().parent


def measure(
    replicas: int, calls: int, concurrency: int, *, faults: bool, quota: int
) -> LoadFigures:
    with Cluster(replicas, quota=quota) as cluster:
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


def table(one: LoadFigures, three: LoadFigures, fault: LoadFigures) -> str:
    ratio = three.throughput / one.throughput if one.throughput else 0.0
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
        ("duplicated at the upstream (idempotency keys sent twice)", dup),
        (
            "quota: allowed / searches the upstream got / overshoot",
            f"{fault.quota} / {fault.searches_sent} / {fault.overshoot}",
        ),
        ("p50 / p99 latency per call (retries included)", f"{fault.p50:.3f} s / {fault.p99:.3f} s"),
        ("throughput, 1 replica, no faults", f"{one.throughput:.1f} calls/s"),
        ("throughput, 3 replicas, no faults", f"{three.throughput:.1f} calls/s"),
        ("throughput ratio 3 / 1", f"{ratio:.2f}x"),
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
    parser.add_argument("--baseline-calls", type=int, default=300)
    parser.add_argument("--quota", type=int, default=60)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "replicas.md")
    args = parser.parse_args()
    missing = cluster_parts_missing()
    if missing:
        print(f"needs {', '.join(missing)} (apt-get install haproxy redis-server)", file=sys.stderr)
        return 2
    quota = args.quota
    one = measure(1, args.baseline_calls, args.concurrency, faults=False, quota=quota)
    three = measure(3, args.baseline_calls, args.concurrency, faults=False, quota=quota)
    fault = measure(3, args.calls, args.concurrency, faults=True, quota=quota)
    text = table(one, three, fault)
    cores = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    report = (
        "# Load-and-fault run (bench_replicas.py)\n\n"
        f"{cores} CPU cores, load average {load:.1f} at the end; every process on this "
        "machine.\n\n" + text + "\n"
    )
    print(report)
    args.out.write_text(report)
    args.out.with_suffix(".json").write_text(
        json.dumps(
            {"one": one.as_dict(), "three": three.as_dict(), "faults": fault.as_dict()},
            indent=1,
        )
        + "\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
