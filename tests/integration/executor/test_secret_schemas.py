"""A value the schema marks secret (``format: password``, ``writeOnly``, ``sensitive: true``)
is masked wherever the schema reaches it: in the audit line, the dry run (``toolcat call
--dry-run``), error texts and the log, through every keyword that reaches a subinstance.
The request itself still carries it: masking is for what is shown, not what is sent."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from toolcat.cli._app import main
from toolcat.executor import AuditLog, Executor, ExecutorSettings, StreamSink, ToolCall
from toolcat.loader import load_catalog

SECRET = "s3cr3t-VALUE-9"
TOP = "top-SECRET-44"

CATALOG = """\
toolcat: 1
services:
  s: {{base_url: "http://api.test"}}
definitions:
  Key: {{type: string, format: password}}
  Node:
    type: object
    properties:
      pw: {{type: string, writeOnly: true}}
      kids: {{type: array, items: {{$ref: "#/$defs/Node"}}}}
tools:
  - name: put
    description: Store a value.
    service: s
    method: POST
    path: /put
    parameters:
      top: {{type: string, sensitive: true, required: false}}
      v: {schema}
"""

# keyword -> (the schema of argument v, its value); SECRET is the value to mask
CASES: dict[str, tuple[str, Any]] = {
    "properties": (
        "{type: object, properties: {pw: {type: string, format: password}}}",
        {"pw": SECRET, "note": "shown"},
    ),
    "additionalProperties": (
        "{type: object, additionalProperties: {type: string, format: password}}",
        {"any-name": SECRET},
    ),
    "patternProperties": (
        '{type: object, patternProperties: {"^key_": {type: string, writeOnly: true}}}',
        {"key_a": SECRET, "note": "shown"},
    ),
    "items": ("{type: array, items: {type: string, format: password}}", [SECRET]),
    "prefixItems": (
        "{type: array, prefixItems: [{type: string}, {type: string, format: password}]}",
        ["shown", SECRET],
    ),
    "allOf": ("{allOf: [{type: string}, {format: password}]}", SECRET),
    "anyOf": ("{anyOf: [{type: integer}, {type: string, writeOnly: true}]}", SECRET),
    "oneOf": (
        "{oneOf: [{type: object, properties: {pw: {type: string, format: password}}}]}",
        {"pw": SECRET},
    ),
    "$ref": ('{$ref: "#/$defs/Key"}', SECRET),
    "$defs (recursive)": (
        '{$ref: "#/$defs/Node"}',
        {"pw": "other-secret-1", "kids": [{"kids": [{"pw": SECRET}]}]},
    ),
    "unevaluatedProperties": (
        "{type: object, properties: {note: {type: string}}, "
        "unevaluatedProperties: {type: string, format: password}}",
        {"note": "shown", "extra": SECRET},
    ),
    "dependentSchemas": (
        "{type: object, dependentSchemas: {user: {properties: {pw: {format: password}}}}}",
        {"user": "shown", "pw": SECRET},
    ),
    "if/then/else": (
        "{type: object, if: {required: [kind]}, then: {properties: {pw: {writeOnly: true}}}, "
        "else: {properties: {key: {format: password}}}}",
        {"kind": "a", "pw": SECRET},
    ),
    "else": (
        "{type: object, if: {required: [kind]}, then: {properties: {pw: {writeOnly: true}}}, "
        "else: {properties: {key: {format: password}}}}",
        {"key": SECRET},
    ),
}


def _catalog(tmp_path: Path, schema: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(CATALOG.format(schema=schema))
    return path


@pytest.mark.parametrize("keyword", list(CASES))
def test_a_dry_run_masks_the_secret(
    keyword: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema, value = CASES[keyword]
    path = _catalog(tmp_path, schema)
    args = json.dumps({"v": value, "top": TOP})
    assert main(["call", str(path), "put", "--args", args, "--dry-run"]) == 0
    out = capsys.readouterr()
    assert "POST http://api.test/put" in out.out
    assert SECRET not in out.out + out.err and TOP not in out.out + out.err
    assert "***" in out.out


@pytest.mark.parametrize("keyword", list(CASES))
def test_audit_errors_and_logs_mask_the_secret(
    keyword: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    schema, value = CASES[keyword]
    result = load_catalog([str(_catalog(tmp_path, schema))], progress=False)
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    sent: list[bytes] = []

    def echo(request: httpx.Request) -> httpx.Response:  # an upstream that echoes, failing
        sent.append(request.content)
        return httpx.Response(500, text=f"bad request: {request.content.decode()}")

    audit = io.StringIO()
    executor = Executor(
        result.catalog,
        ExecutorSettings(
            env={},
            audit=AuditLog(StreamSink(audit)),
            client=httpx.Client(transport=httpx.MockTransport(echo)),
            telemetry=False,
        ),
    )
    caplog.set_level(logging.DEBUG, logger="toolcat")
    outcome = executor.execute(ToolCall("put", {"v": value, "top": TOP}))
    assert SECRET.encode() in sent[0] and TOP.encode() in sent[0]  # sent as it is
    assert outcome.error is not None and outcome.status == 500
    shown = [outcome.content, outcome.error.msg, audit.getvalue(), caplog.text]
    for text in shown:
        assert SECRET not in text and TOP not in text
    line = json.loads(audit.getvalue())
    assert "***" in json.dumps(line["arguments"]) and line["arguments"]["top"] == "***"


def test_a_violation_that_quotes_a_secret_is_masked(tmp_path: Path) -> None:
    path = _catalog(
        tmp_path, "{type: object, additionalProperties: {format: password, minLength: 40}}"
    )
    result = load_catalog([str(path)], progress=False)
    assert result.catalog is not None
    executor = Executor(result.catalog, ExecutorSettings(env={}, telemetry=False))
    outcome = executor.execute(ToolCall("put", {"v": {"db": SECRET}}))
    assert outcome.error is not None and outcome.error.type == "invalid_arguments"
    assert "shorter than" in outcome.error.msg and SECRET not in outcome.content
