"""Health probes and graceful drain of `toolcat serve --transport http` (issue 12, item 3).

The server is the real command in a subprocess on 127.0.0.1, port 0. The
upstream is a loopback service whose ``/slow`` answers only when the test
releases it, so "a call is in flight" is an observed fact, never a sleep.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from toolcat.testing import BackgroundServer

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
CATALOG = """\
toolcat: 1
services:
  slow: {base_url: "URL", timeout: 60}
tools:
  - name: wait
    description: Answers when the test says so.
    service: slow
    method: GET
    path: /slow
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class Gate:
    """The upstream: ``/slow`` sets ``arrived`` and answers once ``release`` is set."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.release = threading.Event()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.arrived.set()
        await anyio.to_thread.run_sync(self.release.wait, 60)
        body = b'{"done": true}'
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


@pytest.fixture
def gate() -> Iterator[tuple[Gate, str]]:
    upstream = Gate()
    with BackgroundServer(upstream) as server:
        yield upstream, server.url
        upstream.release.set()


class Served:
    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url
        self.base = url.rsplit("/", 1)[0]
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def close(self) -> None:
        self._reader.join(10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    def get(self, path: str, **headers: str) -> httpx.Response:
        with httpx.Client(timeout=10) as client:
            return client.get(self.base + path, headers=headers)


def serve(tmp_path: Path, upstream: str, *flags: str) -> Served:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(CATALOG.replace("URL", upstream))
    proc = subprocess.Popen(
        [*TOOLCAT, "serve", str(catalog), "--transport", "http", "--port", "0", *flags],
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stderr is not None
    for _ in range(20):
        line = proc.stderr.readline()
        found = re.search(r"http://\S+/mcp", line)
        if found or not line:
            break
    if not found:
        proc.kill()
        proc.wait(10)
        pytest.fail(f"no ready line: {line!r}")
    return Served(proc, found.group(0))


@pytest.fixture
def stopper() -> Iterator[list[Served]]:
    started: list[Served] = []
    yield started
    for served in started:
        if served.proc.poll() is None:
            served.proc.kill()
        served.proc.wait(10)
        served.close()


def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    """Poll an observable condition (a probe's answer), failing after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail("the condition was not met in time")
        time.sleep(0.02)


async def call_wait(url: str, outcome: dict[str, Any]) -> None:
    async with (
        create_mcp_http_client() as http,
        streamable_http_client(url, http_client=http) as (r, w),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        # listed first: the SDK lists the tools after a call that it has not seen listed,
        # and that request could meet a server that has just finished its drain
        await session.list_tools()
        try:
            result = await session.call_tool("wait", {})
            outcome["result"] = result
        except MCPError as exc:
            outcome["error"] = exc


def start_call(url: str) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            anyio.run(call_wait, url, outcome)
        except BaseException as exc:  # reported by the test, not lost in the thread
            outcome.setdefault("crash", exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_probes_answer_any_host_without_credentials(
    tmp_path: Path, gate: tuple[Gate, str], stopper: list[Served]
) -> None:
    served = serve(tmp_path, gate[1])
    stopper.append(served)
    alive = served.get("/healthz", Host="10.1.2.3:8000")
    assert (alive.status_code, alive.json()) == (200, {"status": "alive"})
    ready = served.get("/readyz", Host="10.1.2.3:8000")
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ready"
    assert body["catalog_loaded"] is True and body["tools"] == 1
    assert body["draining"] is False and body["last_reload_error"] is None
    # the MCP path itself is still behind the Host check
    with httpx.Client(timeout=10) as client:
        refused = client.post(served.url, json=INITIALIZE, headers={**HEADERS, "Host": "10.1.2.3"})
    assert refused.status_code == 421
    with httpx.Client(timeout=10) as client:
        wrong = client.post(served.base + "/readyz")
    assert wrong.status_code == 405


def test_sigterm_drains_in_flight_call_then_exits_zero(
    tmp_path: Path, gate: tuple[Gate, str], stopper: list[Served]
) -> None:
    upstream, url = gate
    served = serve(tmp_path, url, "--drain-timeout", "30")
    stopper.append(served)
    thread, outcome = start_call(served.url)
    assert upstream.arrived.wait(20), outcome
    served.proc.send_signal(signal.SIGTERM)
    wait_for(lambda: served.get("/readyz").status_code == 503)
    probe = served.get("/readyz").json()
    assert probe["draining"] is True and probe["catalog_loaded"] is True
    assert served.get("/healthz").status_code == 200  # alive while it drains
    with httpx.Client(timeout=10) as client:
        fresh = client.post(served.url, json=INITIALIZE, headers=HEADERS)
    assert fresh.status_code == 503
    assert fresh.headers["retry-after"] == "5"
    error = fresh.json()
    assert error["id"] == 7 and error["error"]["data"]["retryable"] is True
    assert served.proc.poll() is None  # still waiting for the call
    started = time.monotonic()
    upstream.release.set()
    thread.join(20)
    assert "result" in outcome, outcome
    assert outcome["result"].is_error is not True
    assert '"done"' in outcome["result"].content[0].text
    assert served.proc.wait(15) == 0
    assert time.monotonic() - started < 15


def test_call_past_the_drain_deadline_is_cancelled_with_an_error(
    tmp_path: Path, gate: tuple[Gate, str], stopper: list[Served]
) -> None:
    upstream, url = gate
    audit = tmp_path / "audit.jsonl"
    served = serve(tmp_path, url, "--drain-timeout", "1", "--audit-log", str(audit))
    stopper.append(served)
    thread, outcome = start_call(served.url)
    assert upstream.arrived.wait(20), outcome
    started = time.monotonic()
    served.proc.send_signal(signal.SIGTERM)
    assert served.proc.wait(15) == 0  # the upstream never answered
    assert time.monotonic() - started < 12  # 1 s deadline, 2 s grace, slack: not the 60 s call
    thread.join(20)
    assert "error" in outcome, outcome
    assert outcome["error"].code == -32001
    assert "drain deadline" in outcome["error"].message
    assert outcome["error"].data["retryable"] is True
    # the call reached the upstream before the deadline cut it: its one audit line says so
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(line["tool"], line["outcome"]) for line in lines] == [("wait", "unknown")]


def test_broken_reload_stays_ready_and_says_so(
    tmp_path: Path, gate: tuple[Gate, str], stopper: list[Served]
) -> None:
    exporter = importlib.util.find_spec("opentelemetry.exporter.prometheus") is not None
    flags = ["--watch", "--poll-interval", "0.05", "--settle", "0"]
    served = serve(tmp_path, gate[1], *flags, *(["--metrics"] if exporter else []))
    stopper.append(served)
    (tmp_path / "catalog.yaml").write_text("toolcat: 1\ntools: [{name: broken}]\n")
    wait_for(lambda: served.get("/readyz").json()["failed_reloads"] >= 1)
    probe = served.get("/readyz")
    assert probe.status_code == 200
    body = probe.json()
    assert body["tools"] == 1 and body["last_reload_error"].startswith("the catalog has")
    assert str(tmp_path) not in probe.text
    if exporter:
        text = served.get("/metrics").text
        assert re.search(r'toolcat_catalog_reloads_total\{[^}]*outcome="failed"[^}]*\} 1', text)


async def call_twice(url: str) -> list[bool | None]:
    async with (
        create_mcp_http_client() as http,
        streamable_http_client(url, http_client=http) as (r, w),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        ok = await session.call_tool("wait", {})
        unknown = await session.call_tool("no_such_tool_4711", {})
        return [ok.is_error, unknown.is_error]


def test_metrics_in_prometheus_format_with_bounded_labels(
    tmp_path: Path, gate: tuple[Gate, str], stopper: list[Served]
) -> None:
    pytest.importorskip("opentelemetry.exporter.prometheus", reason="the otel extra is absent")
    upstream, url = gate
    upstream.release.set()
    served = serve(tmp_path, url, "--metrics")
    stopper.append(served)
    assert anyio.run(call_twice, served.url) == [False, True]
    scraped = served.get("/metrics", Host="10.1.2.3:8000")
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    text = scraped.text
    calls = re.search(r'toolcat_tool_calls_total\{[^}]*gen_ai_tool_name="wait"[^}]*\} (\S+)', text)
    assert calls is not None and float(calls.group(1)) == 1.0, text
    assert 'gen_ai_tool_name="_unknown"' in text
    assert "no_such_tool_4711" not in text  # a model-chosen name never becomes a label
    assert "toolcat_tool_duration_seconds_bucket" in text


def test_metrics_are_off_by_default(
    tmp_path: Path, gate: tuple[Gate, str], stopper: list[Served]
) -> None:
    served = serve(tmp_path, gate[1])
    stopper.append(served)
    assert served.get("/metrics").status_code == 404


async def call_then_leave(url: str, upstream: Gate) -> None:
    """Call ``wait`` with the official SDK client and leave (close the connection) once the
    upstream has the request."""
    async with (
        create_mcp_http_client() as http,
        streamable_http_client(url, http_client=http) as (r, w),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        await session.list_tools()
        async with anyio.create_task_group() as group:
            group.start_soon(session.call_tool, "wait", {})
            await anyio.to_thread.run_sync(upstream.arrived.wait, 20)
            group.cancel_scope.cancel()


def test_a_client_that_leaves_mid_call_leaves_one_audit_line(
    tmp_path: Path, gate: tuple[Gate, str], stopper: list[Served]
) -> None:
    upstream, url = gate
    audit = tmp_path / "audit.jsonl"
    served = serve(tmp_path, url, "--audit-log", str(audit))
    stopper.append(served)
    anyio.run(call_then_leave, served.url, upstream)
    assert upstream.arrived.is_set()
    upstream.release.set()  # the upstream answers a client that is gone
    served.proc.send_signal(signal.SIGTERM)
    assert served.proc.wait(15) == 0
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert len(lines) == 1, lines
    assert lines[0]["tool"] == "wait" and lines[0]["outcome"] in ("ok", "unknown")
