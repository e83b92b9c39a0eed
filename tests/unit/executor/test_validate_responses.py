"""A service's ``validate_responses`` checks each response against its OpenAPI spec."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest
from toolcat.executor import Executor, ExecutorSettings, ToolCall, ToolResult
from toolcat.loader import load_catalog

SPEC = """\
openapi: 3.0.3
info: {title: things, version: "1"}
servers: [{url: "https://things.example/v1"}]
paths:
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [id, name]
                properties:
                  id: {type: integer}
                  name: {type: string}
"""


def _catalog(tmp_path: Path, mode: str, spec_line: str = "spec: things.yaml") -> Path:
    (tmp_path / "things.yaml").write_text(SPEC)
    path = tmp_path / "catalog.yaml"
    path.write_text(
        f"""\
toolcat: 1
services:
  things:
    base_url: https://things.example/v1
    validate_responses: {mode}
    {spec_line}
tools:
  - name: getThing
    description: Get a thing.
    service: things
    method: GET
    path: /things/{{id}}
    parameters:
      id: {{type: integer, description: The id.}}
"""
    )
    return path


def _run(path: Path, body: object, meters: object = None) -> ToolResult:
    result = load_catalog([str(path)])
    assert result.catalog is not None, result.diagnostics

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=body)

    client = httpx.Client(transport=httpx.MockTransport(answer))
    with (
        client,
        Executor(
            result.catalog,
            ExecutorSettings(client=client, env={}, meter_provider=meters, telemetry=bool(meters)),
        ) as executor,
    ):
        return executor.execute(ToolCall("getThing", {"id": 7}))


def test_a_conforming_response_has_no_note(tmp_path: Path) -> None:
    result = _run(_catalog(tmp_path, "warn"), {"id": 7, "name": "seven"})
    assert result.ok and result.notes == ()


def test_warn_keeps_the_result_with_a_note_and_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolcat.executor"):
        result = _run(_catalog(tmp_path, "warn"), {"id": "seven"})
    assert result.ok
    assert json.loads(result.content) == {"id": "seven"}
    (note,) = result.notes
    assert note.startswith("the response does not conform to the service's OpenAPI spec")
    assert "name" in note
    assert "does not conform to the spec of service things" in caplog.text
    assert result.to_dict()["notes"] == [note]


def test_error_gives_the_model_a_typed_error(tmp_path: Path) -> None:
    result = _run(_catalog(tmp_path, "error"), {"id": 7})
    assert not result.ok
    assert result.error is not None and result.error.type == "nonconforming_response"
    error = json.loads(result.content)["error"]
    assert error["type"] == "nonconforming_response" and error["status"] == 200


def test_imported_services_know_their_spec(tmp_path: Path) -> None:
    (tmp_path / "things.yaml").write_text(SPEC)
    result = load_catalog([str(tmp_path / "things.yaml")])
    assert result.catalog is not None
    service = next(iter(result.catalog.services.values()))
    assert service.spec == str(tmp_path / "things.yaml")


def test_without_a_spec_it_warns_at_load(tmp_path: Path) -> None:
    path = _catalog(tmp_path, "warn", spec_line="")
    result = load_catalog([str(path)])
    assert [d.code for d in result.diagnostics] == ["TC122"]
    assert result.catalog is not None  # a warning: the catalog still loads


def test_a_nonconforming_response_is_counted(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk.metrics")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint

    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    _run(_catalog(tmp_path, "warn"), {"id": "seven"}, meters)
    _run(_catalog(tmp_path, "warn"), {"id": 7, "name": "seven"}, meters)
    data = reader.get_metrics_data()
    assert data is not None
    points = [
        p
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
        if m.name == "toolcat.response.nonconforming"
        for p in m.data.data_points
    ]
    assert len(points) == 1 and isinstance(points[0], NumberDataPoint)
    assert points[0].value == 1
    assert dict(points[0].attributes or {}) == {
        "gen_ai.tool.name": "getThing",
        "toolcat.service.name": "things",
        "mode": "warn",
    }
