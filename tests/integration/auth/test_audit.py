"""The audit log and quotas over real sockets: `toolcat serve` over HTTP with the access
policy's catalog (test_access.py) plus server.audit and server.quotas, the official MCP
client SDK, tokens from the test issuer, and the audit file read back."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Issuer, Served, start_serve
from .test_access import READER_KEY, WRITER_KEY, Upstream, session
from .test_access import catalog as access_catalog

QUOTAS = """\
  quotas:
    - name: orders
      when: {sub: quota-user}
      tools: [list_orders]
      rate: 2/minute
  concurrency:
    shop: 16
"""


def _catalog(issuer_url: str, audit: str | None) -> str:
    text = access_catalog(issuer_url) + QUOTAS
    if audit is not None:
        text += f"  audit: {{path: {json.dumps(audit)}, max_bytes: 1048576, backups: 2}}\n"
    return text


@pytest.fixture(scope="module")
def audited(
    issuer: Issuer, upstream: tuple[Upstream, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, Path]]:
    folder = tmp_path_factory.mktemp("serve-audit")
    path = folder / "catalog.yaml"
    log = folder / "audit.jsonl"
    path.write_text(_catalog(issuer.url, str(log)))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["SHOP_URL"] = upstream[1]
    server = start_serve(path, env, folder / "stderr.log")
    try:
        yield server, log
    finally:
        server.proc.terminate()
        server.proc.wait(10)


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Upstream, str]]:
    from toolcat.testing import BackgroundServer

    found = Upstream()
    with BackgroundServer(found.app()) as server:
        yield found, server.url


def _lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_every_call_allowed_or_refused_is_one_line(
    audited: tuple[Served, Path], upstream: tuple[Upstream, str]
) -> None:
    served, log = audited
    recorder, _ = upstream
    before = len(_lines(log)) if log.exists() else 0
    sent = len(recorder.seen)
    # the reader calls a tool hidden from its tools/list: refused, and audited as refused
    names, results = session(
        served, READER_KEY, [("get_item", {"sku": "A-1"}), ("delete_item", {"sku": "A-1"})]
    )
    assert "delete_item" not in names
    assert [r[0] for r in results] == [False, True]
    session(served, WRITER_KEY, [("delete_item", {"sku": "B-2"}), ("nope", {})])
    assert [s["method"] for s in recorder.seen[sent:]] == ["GET", "DELETE"]
    read, hidden, write, unknown = _lines(log)[before:]
    assert read["identity"]["subject"] == "reader" and read["identity"]["method"] == "api_key"
    assert (read["tool"], read["decision"], read["rule"]) == ("get_item", "allow", "reader-key")
    assert (read["status"], read["outcome"], read["arguments"]) == (200, "ok", {"sku": "A-1"})
    assert (hidden["tool"], hidden["decision"], hidden["outcome"]) == (
        "delete_item",
        "deny",
        "forbidden",
    )
    assert hidden["status"] is None and hidden["identity"]["subject"] == "reader"
    assert (write["decision"], write["rule"], write["status"]) == ("allow", "writers", 200)
    assert write["identity"]["subject"] == "writer"
    assert unknown["outcome"] == "unknown_tool"
    ids = [x["request_id"] for x in (read, hidden, write, unknown)]
    assert len(set(ids)) == 4
    assert all(x["call_id"] is not None and x["duration_ms"] >= 0 for x in (read, write))


def test_a_forged_subject_cannot_break_the_json_lines(
    audited: tuple[Served, Path], issuer: Issuer
) -> None:
    served, log = audited
    before = len(_lines(log)) if log.exists() else 0
    sub = 'mallory\n{"identity":{"subject":"admin"},"decision":"allow"}\r\n\u2028'
    token = issuer.token(sub=sub, client_id="evil\nclient", groups=["readers"])
    session(served, token, [("get_item", {"sku": "E-5"}), ("delete_item", {"sku": "E-5"})])
    raw = log.read_text()
    assert raw.isascii() and all(line.startswith('{"time":') for line in raw.splitlines())
    read, refused = _lines(log)[before:]
    assert read["identity"] == {
        "subject": sub,
        "client": "evil\nclient",
        "method": "jwt",
        "issuer": issuer.url + "/",
    }
    assert refused["decision"] == "deny" and refused["identity"]["subject"] == sub
    log_text = served.stderr()  # the server's own log: the forged text stays on its line
    assert not any(line.startswith('{"identity"') for line in log_text.splitlines())
    refusal = [line for line in log_text.splitlines() if "refused delete_item" in line]
    assert refusal and "\u2028" not in log_text and "\\u2028" in refusal[-1]


def test_a_quota_through_serve(
    audited: tuple[Served, Path], issuer: Issuer, upstream: tuple[Upstream, str]
) -> None:
    served, log = audited
    recorder, _ = upstream
    sent = len(recorder.seen)
    token = issuer.token(sub="quota-user", groups=["readers"], tenant_id="acme")
    calls = [("list_orders", {"status": "open"})] * 3
    _, results = session(served, token, calls)
    assert [r[0] for r in results] == [False, False, True]
    error = json.loads(results[2][1])["error"]
    assert error["type"] == "rate_limited" and 0 < error["retry_after"] <= 30
    assert "orders" in error["message"]
    assert len(recorder.seen) - sent == 2  # the third was not sent
    other = issuer.token(sub="someone-else", groups=["readers"], tenant_id="acme")
    assert session(served, other, calls[:1])[1][0][0] is False  # per caller
    limited = _lines(log)[-2]
    assert (limited["decision"], limited["rule"], limited["outcome"]) == (
        "rate_limited",
        "orders",
        "rate_limited",
    )


def test_an_audit_log_that_cannot_be_written_fails_closed_for_writes(
    issuer: Issuer, upstream: tuple[Upstream, str], tmp_path: Path
) -> None:
    recorder, url = upstream
    path = tmp_path / "catalog.yaml"
    path.write_text(_catalog(issuer.url, None))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["SHOP_URL"] = url
    unwritable = str(tmp_path / "missing-folder" / "audit.jsonl")
    server = start_serve(path, env, tmp_path / "stderr.log", "--audit-log", unwritable)
    try:
        sent = len(recorder.seen)
        _, results = session(
            server, WRITER_KEY, [("delete_item", {"sku": "F-6"}), ("get_item", {"sku": "F-6"})]
        )
    finally:
        server.proc.terminate()
        server.proc.wait(10)
    (write_refused, text), (read_failed, _) = results
    assert write_refused and not read_failed
    error = json.loads(text)["error"]
    assert error["type"] == "refused_by_policy" and "audit log" in error["message"]
    assert [s["method"] for s in recorder.seen[sent:]] == ["GET"]  # nothing deleted
    assert "the audit log cannot be written" in server.stderr()


def test_the_audit_log_cannot_take_stdout_on_stdio(issuer: Issuer, tmp_path: Path) -> None:
    import subprocess

    from .conftest import TOOLCAT

    path = tmp_path / "catalog.yaml"
    path.write_text(_catalog(issuer.url, None))
    env = {**os.environ, "SHOP_URL": "http://127.0.0.1:9"}
    proc = subprocess.run(
        [*TOOLCAT, "serve", str(path), "--audit-log", "-"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert "standard output carries MCP" in proc.stderr and "Traceback" not in proc.stderr
