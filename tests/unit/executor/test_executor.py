"""The Executor: confirmation, several calls per turn, dry runs, telemetry and logs."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any, TypeVar

import httpx
import pytest
from toolcat.catalog import BearerAuth, BodySpec
from toolcat.executor import Executor, ExecutorSettings, PreparedRequest, ToolCall

_P = TypeVar("_P")


@pytest.fixture()
def confirm_catalog(f: Any) -> Any:
    return f.catalog(f.tool("danger", method="DELETE", confirm=True), f.tool("safe"))


@pytest.mark.parametrize("answer,ok", [(True, True), (False, False)])
def test_confirmation_callback(f: Any, confirm_catalog: Any, answer: bool, ok: bool) -> None:
    asked: list[tuple[str, str]] = []

    def confirm(call: ToolCall, tool: Any) -> bool:
        asked.append((call.name, tool.name))
        return answer

    rec = f.Recorder()
    with Executor(
        confirm_catalog, ExecutorSettings(client=rec.client(), env={}, confirm=confirm)
    ) as ex:
        result = ex.execute(ToolCall("danger", {}))
        ex.execute(ToolCall("safe", {}))
    assert asked == [("danger", "danger")]  # only confirm:true tools ask
    assert result.ok is ok and len(rec.requests) == (2 if ok else 1)
    if not ok:
        assert result.error is not None
        assert result.error.type == "not_confirmed" and "not sent" in result.content


def test_no_callback_means_refused(f: Any, confirm_catalog: Any) -> None:
    with Executor(
        confirm_catalog, ExecutorSettings(client=f.Recorder(f.forbid).client(), env={})
    ) as ex:
        error = ex.execute(ToolCall("danger", {})).error
        assert error is not None and error.type == "not_confirmed"


def test_async_confirmation_callback(f: Any, confirm_catalog: Any) -> None:
    async def confirm(call: ToolCall, tool: Any) -> bool:
        await asyncio.sleep(0)
        return call.id == "yes"

    async def go() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(f.Recorder())) as client:
            ex = Executor(
                confirm_catalog, ExecutorSettings(async_client=client, env={}, confirm=confirm)
            )
            return await ex.aexecute_many(
                [ToolCall("danger", {}, "yes"), ToolCall("danger", {}, "no")]
            )

    yes, no = asyncio.run(go())
    assert yes.ok and no.error.type == "not_confirmed"
    # an async callback also works from the sync API
    with Executor(
        confirm_catalog, ExecutorSettings(client=f.Recorder().client(), env={}, confirm=confirm)
    ) as ex:
        assert ex.execute(ToolCall("danger", {}, "yes")).ok


def test_invalid_calls_are_never_confirmed(f: Any, confirm_catalog: Any) -> None:
    def confirm(call: ToolCall, tool: Any) -> bool:
        raise AssertionError("asked about an invalid call")

    with Executor(
        confirm_catalog,
        ExecutorSettings(client=f.Recorder(f.forbid).client(), env={}, confirm=confirm),
    ) as ex:
        error = ex.execute(ToolCall("danger", {"bogus": 1})).error
        assert error is not None and error.type == "invalid_arguments"


def test_async_concurrency_is_bounded_and_order_kept(f: Any) -> None:
    active = 0
    peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01 * (5 - int(request.url.params["n"]) % 5))
        active -= 1
        return httpx.Response(200, json={"n": int(request.url.params["n"])})

    tool = f.tool(params=(f.p("n", "query", {"type": "integer"}),))

    async def go(concurrent: bool) -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            ex = Executor(
                f.catalog(tool), ExecutorSettings(async_client=client, env={}, max_concurrency=3)
            )
            return await ex.aexecute_many(
                [ToolCall("t", {"n": i}) for i in range(12)], concurrent=concurrent
            )

    results = asyncio.run(go(True))
    assert [r.data["n"] for r in results] == list(range(12)) and peak == 3
    peak = 0
    results = asyncio.run(go(False))
    assert [r.data["n"] for r in results] == list(range(12)) and peak == 1


def test_sync_many_runs_in_parallel(f: Any) -> None:
    gate = threading.Barrier(4, timeout=5)

    def handler(request: httpx.Request) -> httpx.Response:
        gate.wait()  # only returns when four requests are in flight at once
        return httpx.Response(200, json={})

    with Executor(
        f.catalog(f.tool()),
        ExecutorSettings(
            client=httpx.Client(transport=httpx.MockTransport(handler)), env={}, max_concurrency=4
        ),
    ) as ex:
        results = ex.execute_many([ToolCall("t", {}, str(i)) for i in range(4)])
    assert all(r.ok for r in results)


def test_one_failure_never_discards_the_others(f: Any) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("n") == "2":
            raise httpx.ConnectError("down")
        return httpx.Response(200, json={})

    tool = f.tool(params=(f.p("n", "query", {"type": "integer"}),))
    with Executor(
        f.catalog(tool),
        ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(handler)), env={}),
    ) as ex:
        results = ex.execute_many(
            [ToolCall("t", {"n": i}) for i in range(4)] + [ToolCall("zzz", {})]
        )
    assert [r.ok for r in results] == [True, True, False, True, False]
    assert results[2].error is not None
    assert results[4].error is not None
    assert results[2].error.type == "connection_error" and results[4].error.type == "unknown_tool"


def test_a_bug_becomes_an_internal_result(
    f: Any, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    from toolcat.executor.http import _transport

    def broken(*args: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(_transport, "shape_reply", broken)
    with Executor(
        f.catalog(f.tool()), ExecutorSettings(client=f.Recorder().client(), env={})
    ) as ex:
        result = ex.execute(ToolCall("t", {}))
    assert result.error is not None
    assert result.error.type == "internal" and "RuntimeError" in result.error.msg


def test_prepare_returns_errors_as_results(f: Any) -> None:
    with Executor(f.catalog(f.tool()), ExecutorSettings(env={})) as ex:
        refused = ex.prepare(ToolCall("t", {"x": 1}))
        assert not isinstance(refused, PreparedRequest) and refused.error is not None
        assert refused.error.type == "invalid_arguments"
        assert isinstance(ex.prepare(ToolCall("t", {})), PreparedRequest)


def test_logs_never_hold_secrets(f: Any, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG, logger="toolcat.executor")
    rec = f.Recorder(lambda q: httpx.Response(502, text=f"proxy saw {q.headers['authorization']}"))
    with Executor(
        f.catalog(f.tool(), auth=BearerAuth("${T}")),
        ExecutorSettings(client=rec.client(), env={"T": "log-secret-9"}),
    ) as ex:
        result = ex.execute(ToolCall("t", {}, "c9"))
    assert result.status == 502
    assert "log-secret-9" not in caplog.text and "log-secret-9" not in result.content
    assert any(r.name == "toolcat.executor" and "c9" in r.getMessage() for r in caplog.records)


def test_spans_and_metrics(f: Any) -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import (
        HistogramDataPoint,
        InMemoryMetricReader,
        NumberDataPoint,
    )
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    rec = f.Recorder(lambda q: httpx.Response(200 if q.url.params.get("ok") else 503, json={}))
    tool = f.tool("get_thing", params=(f.p("ok", "query"),))
    with Executor(
        f.catalog(tool),
        ExecutorSettings(
            client=rec.client(), env={}, tracer_provider=provider, meter_provider=meters
        ),
    ) as ex:
        ex.execute(ToolCall("get_thing", {"ok": "1"}, "call-a"))
        ex.execute(ToolCall("get_thing", {}, "call-b"))
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["execute_tool get_thing"] * 2
    ok, bad = spans
    assert ok.attributes is not None and bad.attributes is not None
    assert ok.attributes["gen_ai.operation.name"] == "execute_tool"
    assert (
        ok.attributes["gen_ai.tool.name"] == "get_thing"
        and ok.attributes["gen_ai.tool.call.id"] == "call-a"
    )
    assert "error.type" not in ok.attributes
    assert (
        bad.attributes["error.type"] == "http_error"
        and bad.attributes["http.response.status_code"] == 503
    )
    data = reader.get_metrics_data()
    assert data is not None
    metrics = {
        m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
    }
    assert sum(p.value for p in _points(metrics["toolcat.tool.calls"], NumberDataPoint)) == 2
    assert sum(p.value for p in _points(metrics["toolcat.tool.errors"], NumberDataPoint)) == 1
    assert sum(p.count for p in _points(metrics["toolcat.tool.duration"], HistogramDataPoint)) == 2


def _points(metric: Any, kind: type[_P]) -> list[_P]:
    """The metric's data points, each checked to be of ``kind`` (for the type checker too)."""
    points = list(metric.data.data_points)
    assert all(isinstance(p, kind) for p in points), points
    return [p for p in points if isinstance(p, kind)]


def test_telemetry_can_be_off(f: Any) -> None:
    with Executor(
        f.catalog(f.tool()), ExecutorSettings(client=f.Recorder().client(), env={}, telemetry=False)
    ) as ex:
        assert ex.execute(ToolCall("t", {})).ok


def test_elapsed_is_measured(f: Any) -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        time.sleep(0.05)
        return httpx.Response(200, json={})

    with Executor(
        f.catalog(f.tool(method="POST", body=BodySpec(required=False))),
        ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(slow)), env={}),
    ) as ex:
        assert ex.execute(ToolCall("t", {})).elapsed >= 0.05


def test_async_confirmations_are_asked_one_at_a_time(f: Any, confirm_catalog: Any) -> None:
    open_questions = 0
    most = 0

    async def confirm(call: ToolCall, tool: Any) -> bool:
        nonlocal open_questions, most
        open_questions += 1
        most = max(most, open_questions)
        await asyncio.sleep(0.01)
        open_questions -= 1
        return True

    async def go() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(f.Recorder())) as client:
            ex = Executor(
                confirm_catalog, ExecutorSettings(async_client=client, env={}, confirm=confirm)
            )
            return await ex.aexecute_many([ToolCall("danger", {}, str(i)) for i in range(5)])

    assert all(r.ok for r in asyncio.run(go())) and most == 1


def test_telemetry_without_opentelemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``otel`` extra is optional: a fresh copy of the module imports and records nothing."""
    import importlib.util
    import sys

    from toolcat.executor import _telemetry

    for name in [m for m in sys.modules if m == "opentelemetry" or m.startswith("opentelemetry.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    spec = importlib.util.spec_from_file_location("toolcat_telemetry_copy", _telemetry.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    telemetry = module.Telemetry(True)
    assert telemetry.enabled is False and telemetry.tracing() is False
    with telemetry.span("t", "id", "svc") as span:
        span.finish(error_type="timeout", status=None)
    telemetry.record("t", "timeout", 0.1)
