"""The audit log (server.audit): one JSON line per call, allowed or refused, with masked
arguments; rotation by size; fail closed for non-safe methods while it cannot be written."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from toolcat.catalog import Catalog
from toolcat.catalog.serving import AuditSettings, ServerSettings
from toolcat.executor import (
    AuditLog,
    CallerIdentity,
    Executor,
    ExecutorSettings,
    RotatingFileSink,
    StreamSink,
    ToolCall,
    ToolContext,
)
from toolcat.tests.support import CatalogFiles

CATALOG = """\
toolcat: 1
services:
  s:
    base_url: "http://api.test"
    auth: {type: bearer, token: "${API_TOKEN}"}
tools:
  - {name: get_item, service: s, method: GET, path: /items, description: Read.}
  - name: login
    service: s
    method: POST
    path: /login
    description: Log in.
    confirm: false
    parameters:
      user: {type: string}
      password: {type: string, format: password}
      otp: {type: string, sensitive: true}
      profile:
        type: object
        properties:
          pin: {type: string, writeOnly: true}
          note: {type: string}
      keys:
        type: array
        items: {type: object, properties: {secret: {anyOf: [{type: string, writeOnly: true}]}}}
    body:
      json: {user: "{{ user }}"}
  - name: secret_pin
    service: s
    method: POST
    path: /pin
    description: Set a PIN.
    confirm: false
    parameters:
      pin: {type: string}
"""

ACCESS = """\
server:
  access:
    - {name: readers, when: {groups: readers}, allow: {tools: [get_item]}}
"""


def _load(tmp_path: Path, text: str = CATALOG) -> tuple[Catalog, ServerSettings | None]:
    catalog, result = CatalogFiles(tmp_path).load(text, "c.yaml")
    return catalog, result.server


def _executor(
    tmp_path: Path, audit: Any, text: str = CATALOG, sent: list[httpx.Request] | None = None
) -> Executor:
    catalog, server = _load(tmp_path, text)
    got = [] if sent is None else sent

    def handle(request: httpx.Request) -> httpx.Response:
        got.append(request)
        return httpx.Response(201 if request.method == "POST" else 200, json={"ok": True})

    return Executor(
        catalog,
        ExecutorSettings(
            env={"API_TOKEN": "tok-SECRET-123"},
            access=server.access if server else None,
            audit=audit,
            client=httpx.Client(transport=httpx.MockTransport(handle)),
            async_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)),
            telemetry=False,
        ),
    )


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    text = stream.getvalue()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def who(sub: str = "alice", **claims: object) -> CallerIdentity:
    return CallerIdentity.make(subject=sub, method="jwt", client_id="agent-1", claims=claims)


def test_a_line_per_call_with_identity_decision_status_and_outcome(tmp_path: Path) -> None:
    out = io.StringIO()
    executor = _executor(tmp_path, AuditLog(StreamSink(out)))
    ok = executor.execute(ToolCall("get_item", {}, "c1"), context=ToolContext(who()))
    assert ok.ok
    bad = executor.execute(ToolCall("get_item", {"nope": 1}, "c2"))
    assert not bad.ok
    first, second = _lines(out)
    assert first["identity"] == {
        "subject": "alice",
        "client": "agent-1",
        "method": "jwt",
        "issuer": None,
    }
    assert first["tool"] == "get_item" and first["call_id"] == "c1"
    assert first["decision"] == "allow" and first["rule"] is None
    assert first["status"] == 200 and first["outcome"] == "ok"
    assert first["duration_ms"] >= 0 and first["time"].endswith("Z")
    assert len(first["request_id"]) == 32 and first["request_id"] != second["request_id"]
    assert second["identity"] is None and second["outcome"] == "invalid_arguments"
    assert second["arguments"] == {"nope": 1} and second["status"] is None


def test_sensitive_arguments_and_the_calls_secrets_are_masked(tmp_path: Path) -> None:
    out = io.StringIO()
    executor = _executor(tmp_path, AuditLog(StreamSink(out)))
    args = {
        "user": "bob tok-SECRET-123",
        "password": "hunter2!",
        "otp": "123456",
        "profile": {"pin": "9999", "note": "hi"},
        "keys": [{"secret": "k-1"}, {"secret": "k-2"}],
    }
    executor.execute(ToolCall("login", args))
    (line,) = _lines(out)
    assert line["arguments"] == {
        "user": "bob ***",  # the service's token, wherever an argument holds it
        "password": "***",
        "otp": "***",
        "profile": {"pin": "***", "note": "hi"},
        "keys": [{"secret": "***"}, {"secret": "***"}],
    }
    raw = out.getvalue()
    for secret in ("hunter2", "123456", "9999", "k-1", "tok-SECRET"):
        assert secret not in raw


def test_a_refused_call_is_audited_with_the_rule(tmp_path: Path) -> None:
    out = io.StringIO()
    executor = _executor(tmp_path, AuditLog(StreamSink(out)), CATALOG + ACCESS)
    reader = ToolContext(who(groups=["readers"]))
    assert executor.execute(ToolCall("get_item", {}), context=reader).ok
    refused = executor.execute(ToolCall("login", {"password": "pw-x"}), context=reader)
    assert refused.error is not None and refused.error.type == "forbidden"
    allowed, denied = _lines(out)
    assert allowed["decision"] == "allow" and allowed["rule"] == "readers"
    assert denied["decision"] == "deny" and denied["rule"] is None
    assert denied["outcome"] == "forbidden" and denied["arguments"] == {"password": "***"}


@pytest.mark.parametrize(
    "subject",
    [
        'alice\n{"forged": true}',
        "alice\r\nX-Injected: 1",
        "alice\u2028next\u0085line\x00",
        '"}\n{"tool":"drop_all","decision":"allow"',
    ],
)
def test_newlines_in_a_subject_cannot_forge_a_line(tmp_path: Path, subject: str) -> None:
    out = io.StringIO()
    executor = _executor(tmp_path, AuditLog(StreamSink(out)))
    identity = CallerIdentity.make(subject=subject, method="jwt", client_id=subject)
    executor.execute(ToolCall("get_item", {}), context=ToolContext(identity))
    executor.execute(ToolCall(subject, {subject: subject}), context=ToolContext(identity))
    raw = out.getvalue()
    assert raw.count("\n") == 2 and raw.isascii()
    first, second = _lines(out)
    assert first["identity"]["subject"] == subject and first["tool"] == "get_item"
    assert second["tool"] == subject and second["outcome"] == "unknown_tool"


def test_a_long_subject_and_long_arguments_are_cut(tmp_path: Path) -> None:
    out = io.StringIO()
    executor = _executor(tmp_path, AuditLog(StreamSink(out), max_argument_chars=100))
    identity = CallerIdentity.make(subject="s" * 5000, method="api_key")
    executor.execute(ToolCall("secret_pin", {"pin": "x" * 5000}), context=ToolContext(identity))
    (line,) = _lines(out)
    assert len(line["identity"]["subject"]) < 300
    assert line["arguments"]["_chars"] > 5000 and len(line["arguments"]["_truncated"]) == 100


def test_rotation_by_size_keeps_backups(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    sink = RotatingFileSink(str(path), max_bytes=2000, backups=2)
    executor = _executor(tmp_path, AuditLog(sink))
    for n in range(40):
        executor.execute(ToolCall("get_item", {}, f"c{n}"))
    sink.close()
    files = [path, tmp_path / "audit.jsonl.1", tmp_path / "audit.jsonl.2"]
    assert all(f.is_file() and f.stat().st_size <= 2000 for f in files)
    assert not (tmp_path / "audit.jsonl.3").exists()
    ids = [json.loads(x)["call_id"] for f in reversed(files) for x in f.read_text().splitlines()]
    assert ids == [f"c{n}" for n in range(40 - len(ids), 40)]  # newest last, none lost between
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def _unwritable(tmp_path: Path) -> str:
    return str(tmp_path / "no-such-dir" / "audit.jsonl")


def test_unwritable_log_refuses_non_safe_calls_before_sending(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sent: list[httpx.Request] = []
    settings = AuditSettings(_unwritable(tmp_path))
    executor = _executor(tmp_path, settings, sent=sent)
    with caplog.at_level(logging.WARNING, "toolcat.executor"):
        write = executor.execute(ToolCall("secret_pin", {"pin": "1"}))
        read = executor.execute(ToolCall("get_item", {}))
    assert write.error is not None and write.error.type == "refused_by_policy"
    assert "audit log" in write.error.msg
    assert read.ok  # a safe method proceeds, with a warning
    assert [r.method for r in sent] == ["GET"]
    assert "audit log cannot be written" in caplog.text


@pytest.mark.parametrize(
    ("fail_closed", "sent_methods"),
    [("always", []), ("never", ["POST", "GET"]), ("non_safe", ["GET"])],
)
def test_fail_closed_is_configurable(
    tmp_path: Path, fail_closed: Any, sent_methods: list[str]
) -> None:
    sent: list[httpx.Request] = []
    settings = AuditSettings(_unwritable(tmp_path), fail_closed=fail_closed)
    executor = _executor(tmp_path, settings, sent=sent)
    executor.execute(ToolCall("secret_pin", {"pin": "1"}))
    executor.execute(ToolCall("get_item", {}))
    assert [r.method for r in sent] == sent_methods


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_closes_non_safe_calls_after_the_first_lost_line(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(tmp_path, AuditSettings("/dev/full"), sent=sent)
    executor.execute(ToolCall("get_item", {}))  # the write fails: now known unwritable
    refused = executor.execute(ToolCall("secret_pin", {"pin": "1"}))
    assert refused.error is not None and refused.error.type == "refused_by_policy"
    assert [r.method for r in sent] == ["GET"]


def test_the_log_heals_when_it_can_be_written_again(tmp_path: Path) -> None:
    folder = tmp_path / "later"
    sent: list[httpx.Request] = []
    executor = _executor(tmp_path, AuditSettings(str(folder / "a.jsonl")), sent=sent)
    assert not executor.execute(ToolCall("secret_pin", {"pin": "1"})).ok
    folder.mkdir()
    assert executor.execute(ToolCall("secret_pin", {"pin": "1"})).ok
    lines = (folder / "a.jsonl").read_text().splitlines()
    assert [json.loads(x)["outcome"] for x in lines] == ["ok"]
    executor.close()


def test_async_calls_are_audited_too(tmp_path: Path) -> None:
    out = io.StringIO()
    executor = _executor(tmp_path, AuditLog(StreamSink(out)))

    async def run() -> None:
        await executor.aexecute_many(
            [ToolCall("get_item", {}, "a"), ToolCall("secret_pin", {"pin": "1"}, "b")],
            context=ToolContext(who()),
        )

    asyncio.run(run())
    lines = _lines(out)
    assert sorted(x["call_id"] for x in lines) == ["a", "b"]
    assert {x["identity"]["subject"] for x in lines} == {"alice"}


def test_dash_writes_to_standard_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    executor = _executor(tmp_path, AuditSettings("-"))
    executor.execute(ToolCall("get_item", {}))
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["tool"] == "get_item"


def test_spans_carry_the_same_caller_and_decision(tmp_path: Path) -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    catalog, server = _load(tmp_path, CATALOG + ACCESS)
    assert server is not None
    with Executor(
        catalog,
        ExecutorSettings(
            env={},
            access=server.access,
            client=httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200))),
            tracer_provider=provider,
        ),
    ) as executor:
        reader = ToolContext(who("a" * 300, groups=["readers"]))
        executor.execute(ToolCall("get_item", {}), context=reader)
        executor.execute(ToolCall("secret_pin", {"pin": "1"}), context=reader)
        executor.execute(ToolCall("get_item", {}))  # no caller
    allowed, denied, anonymous = (s.attributes or {} for s in exporter.get_finished_spans())
    assert allowed["enduser.id"] == "a" * 256  # cut: bounded attribute size
    assert allowed["toolcat.client.id"] == "agent-1"
    assert allowed["toolcat.auth.method"] == "jwt"
    assert (allowed["toolcat.decision"], allowed["toolcat.decision.rule"]) == ("allow", "readers")
    assert denied["toolcat.decision"] == "deny" and denied["error.type"] == "forbidden"
    assert "enduser.id" not in anonymous and anonymous["toolcat.decision"] == "deny"
