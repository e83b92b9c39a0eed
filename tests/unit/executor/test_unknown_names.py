"""A model-chosen tool name is echoed bounded and never becomes a telemetry attribute value."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from toolcat.executor import MAX_ECHOED_NAME_CHARS, Executor, ExecutorSettings, ToolCall, echo_name

HUGE_NAME = "n" * 10_000_000


def test_a_huge_unknown_name_is_echoed_cut_with_a_marker(f: Any) -> None:
    with Executor(
        f.catalog(f.tool("get_thing")), ExecutorSettings(client=f.Recorder().client(), env={})
    ) as ex:
        started = time.perf_counter()
        result = ex.execute(ToolCall(HUGE_NAME, {}, "c1"))
        elapsed = time.perf_counter() - started
    assert result.error is not None and result.error.type == "unknown_tool"
    assert len(result.content) < 1000 and "…[+" in result.content
    assert json.loads(result.content)["error"]["type"] == "unknown_tool"
    assert len(json.dumps(result.to_dict())) < 2000
    assert result.call.id == "c1" and len(result.call.name) < MAX_ECHOED_NAME_CHARS + 30
    assert elapsed < 1.0  # no fuzzy match against 10 MB


def test_a_short_unknown_name_keeps_its_hint(f: Any) -> None:
    with Executor(
        f.catalog(f.tool("get_thing")), ExecutorSettings(client=f.Recorder().client(), env={})
    ) as ex:
        result = ex.execute(ToolCall("get_thin", {}))
    assert "no tool named 'get_thin'; did you mean: get_thing?" in result.content
    assert result.call.name == "get_thin"


def test_echo_name() -> None:
    assert echo_name("a" * MAX_ECHOED_NAME_CHARS) == "a" * MAX_ECHOED_NAME_CHARS
    assert echo_name("a" * (MAX_ECHOED_NAME_CHARS + 5)).endswith("a…[+5 chars]")
    assert echo_name(17) == "17"


def test_unknown_names_share_one_telemetry_value(f: Any) -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer = sdk_trace.TracerProvider()
    tracer.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    rec = f.Recorder(lambda q: httpx.Response(200, json={}))
    with Executor(
        f.catalog(f.tool("get_thing")),
        ExecutorSettings(
            client=rec.client(), env={}, tracer_provider=tracer, meter_provider=meters
        ),
    ) as ex:
        for name in ("get_thing", "nope-1", "nope-2", HUGE_NAME):
            ex.execute(ToolCall(name, {}))
    spans = exporter.get_finished_spans()
    span_names = {(s.attributes or {}).get("gen_ai.tool.name") for s in spans}
    assert span_names == {"get_thing", "_unknown"}
    assert {s.name for s in spans} == {"execute_tool get_thing", "execute_tool _unknown"}
    data = reader.get_metrics_data()
    assert data is not None
    values = {
        (p.attributes or {}).get("gen_ai.tool.name")
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
        for p in m.data.data_points
    }
    assert values == {"get_thing", "_unknown"}
