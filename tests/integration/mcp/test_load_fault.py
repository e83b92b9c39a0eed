"""The load-and-fault run, small (issue 12, item 7; the full one is benchmarks/bench_replicas.py).

Two real `toolcat serve --stateless` replicas behind Debian's HAProxy, with Redis and the
sample service, on 127.0.0.1. A fixed number of calls from concurrent MCP clients; one
third in, replica 0 gets SIGKILL and is started again (as an orchestrator would); at
60 %, replica 1 gets SIGTERM and drains. Every call must be answered, none twice at the
upstream, only an order cut mid-flight may stay unknown, and the quota must hold across
replicas; no process may outlive the test.
"""

from __future__ import annotations

import signal

import anyio
import pytest
from toolcat.tests.support import Cluster, cluster_parts_missing, run_load, settle_figures

CALLS = 240
CONCURRENCY = 8
QUOTA = 20

pytestmark = pytest.mark.skipif(
    bool(cluster_parts_missing()),
    reason=f"needs {' and '.join(cluster_parts_missing())} (apt-get install haproxy redis-server)",
)


def test_replicas_behind_haproxy_survive_sigkill_and_sigterm() -> None:
    cluster = Cluster(2, quota=QUOTA, upstream_delay=0.1)  # calls in flight at the faults
    with cluster:

        def kill_and_restart() -> None:
            cluster.signal_replica(0, signal.SIGKILL)
            assert cluster.replica_exit(0, 10) == -signal.SIGKILL
            cluster.start_replica(0)

        faults = [
            (0.3, kill_and_restart),
            (0.6, lambda: cluster.signal_replica(1, signal.SIGTERM)),
        ]
        figures = anyio.run(
            lambda: run_load(cluster.url, CALLS, CONCURRENCY, faults=faults, deadline=240)
        )
        settle_figures(figures, cluster)
        drained = cluster.replica_exit(1, 30)
        summary = figures.as_dict()
    assert cluster.running() == [], "a process outlived the cluster"
    assert figures.faults == ["SIGKILL replica 0", "SIGTERM replica 1"], summary
    assert drained == 0, summary  # SIGTERM drains, then exits 0
    assert figures.lost == 0, summary
    assert figures.failed == 0, summary
    assert figures.tool_errors == 0, summary
    assert figures.completed + figures.rate_limited + figures.failed_retryable == CALLS, summary
    if cluster.idempotency_supported:
        # No order is sent twice. An order cut mid-flight (its replica killed after sending
        # it) may stay unknown: its retries get in_progress until the record expires
        # (docs/catalog-format.md, Idempotency keys), so it ends failed, retryable. Nothing
        # else may.
        assert figures.duplicated == 0, summary
        assert set(figures.unanswered_orders) <= set(figures.cut_orders), summary
        assert figures.failed_retryable == len(figures.unanswered_orders), summary
        cut = len(figures.cut_orders)
        assert figures.orders - cut <= figures.orders_sent <= figures.orders, summary
    else:
        assert figures.failed_retryable == 0, summary
    if cluster.use_redis:
        assert figures.overshoot == 0, summary
        assert figures.rate_limited > 0, summary
