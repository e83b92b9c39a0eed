"""Every guard of the executor applies to a tool of an MCP server as to an HTTP tool: the
SDK test server over stdio for real, recording every call it receives, so each refusal is
shown to have sent nothing (arguments, access, quotas, confirmation), and what does go
upstream is shown as it arrived (context-bound arguments, masking, result budget, audit)."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import McpCommand, mcp_pin
from toolcat.executor import (
    AuditLog,
    CallerIdentity,
    Executor,
    ExecutorSettings,
    StreamSink,
    ToolCall,
    ToolContext,
    ToolResult,
)
from toolcat.executor.mcp import McpTransport
from toolcat.tests.support import CatalogFiles
from toolcat.tests.support.mcp_upstream import tool_definitions

PINS = {t["name"]: mcp_pin(t) for t in tool_definitions()}


def _catalog() -> str:
    command = json.dumps([sys.executable, "-m", "toolcat.tests.support.mcp_upstream"])
    return f"""\
toolcat: 1
mcp_servers:
  up:
    command: {command}
    env: {{MCP_UPSTREAM_CALLS_FILE: "${{CALLS}}"}}
    timeout: 60
tools:
  - name: up_echo
    description: Echo a text back.
    mcp: {{server: up, tool: echo, pin: "{PINS["echo"]}"}}
    parameters:
      text: {{type: string}}
  - name: up_add
    description: Add two integers.
    mcp: {{server: up, tool: add, pin: "{PINS["add"]}"}}
    parameters:
      a: {{type: integer}}
      b: {{type: integer}}
  - name: up_limited
    description: Echo, at most twice a minute.
    mcp: {{server: up, tool: echo, pin: "{PINS["echo"]}"}}
    parameters:
      text: {{type: string}}
  - name: up_confirmed
    description: Echo, once the user says yes.
    mcp: {{server: up, tool: echo, pin: "{PINS["echo"]}"}}
    confirm: true
    parameters:
      text: {{type: string}}
  - name: up_secret
    description: Echo a secret back.
    mcp: {{server: up, tool: echo, pin: "{PINS["echo"]}"}}
    parameters:
      text: {{type: string, sensitive: true, maxLength: 40}}
  - name: up_fail_secret
    description: Fail with a secret message.
    mcp: {{server: up, tool: fail, pin: "{PINS["fail"]}"}}
    parameters:
      message: {{type: string, sensitive: true}}
  - name: up_tenant
    description: Echo the caller's tenant.
    mcp: {{server: up, tool: echo, pin: "{PINS["echo"]}"}}
    parameters:
      text: {{type: string, from: claims.tenant_id}}
  - name: up_tenant_if_any
    description: Echo the caller's tenant, when it has one.
    mcp: {{server: up, tool: echo, pin: "{PINS["echo"]}"}}
    parameters:
      text: {{type: string, from: claims.tenant_id, required: false}}
  - name: up_slow
    description: Sleep, then answer.
    mcp: {{server: up, tool: slow, pin: "{PINS["slow"]}"}}
    parameters:
      seconds: {{type: number}}
  - name: up_big
    description: A text of n bytes.
    mcp: {{server: up, tool: big, pin: "{PINS["big"]}"}}
    parameters:
      n: {{type: integer}}
server:
  access:
    - {{name: interns-no-add, when: {{groups: interns}}, deny: {{tools: [up_add]}}}}
    - {{name: everyone, allow: {{tools: ["*"]}}}}
  quotas:
    - {{name: twice, tools: [up_limited], rate: 2/minute}}
  concurrency:
    up: 1
"""


@dataclass
class Upstream:
    executor: Executor
    calls: Path
    audit: io.StringIO

    def received(self) -> list[dict[str, Any]]:
        """Every call the server received so far, after a call that is sure to reach it
        (a call sent before it has reached the server by the time it answers)."""
        assert self.executor.execute(ToolCall("up_echo", {"text": "barrier"})).ok
        lines = self.calls.read_text(encoding="utf-8").splitlines()
        return [c for c in map(json.loads, lines) if c["arguments"] != {"text": "barrier"}]

    def lines(self, call_id: str) -> list[dict[str, Any]]:
        """The audit lines of the call with this id."""
        every = [json.loads(line) for line in self.audit.getvalue().splitlines()]
        return [line for line in every if line["call_id"] == call_id]


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upstream]:
    """One stdio upstream for the module (a start costs seconds here), with the catalog's
    access rules and quotas, an audit log in memory, and no confirmation callback."""
    folder = tmp_path_factory.mktemp("guards")
    calls = folder / "calls.jsonl"
    calls.touch()
    catalog, result = CatalogFiles(folder).load(_catalog())
    assert result.server is not None
    audit = io.StringIO()
    settings = ExecutorSettings(
        env={"CALLS": str(calls)},
        access=result.server.access,
        quotas=result.server.quotas,
        audit=AuditLog(StreamSink(audit)),
        transports={McpCommand: McpTransport(connect_timeout=60)},
    )
    with Executor(catalog, settings) as executor:
        assert executor.execute(ToolCall("up_echo", {"text": "started"})).content == "started"
        yield Upstream(executor, calls, audit)


def _caller(subject: str, **claims: Any) -> ToolContext:
    return ToolContext.make(CallerIdentity.make(subject=subject, method="jwt", claims=claims))


def _refused(result: ToolResult, kind: str) -> str:
    assert not result.ok and result.error is not None, result.content
    assert result.error.type == kind, result.error
    return result.error.msg


def test_invalid_arguments_are_refused_before_the_upstream(upstream: Upstream) -> None:
    result = upstream.executor.execute(ToolCall("up_add", {"a": "two", "b": 1}))
    _refused(result, "invalid_arguments")
    assert result.error is not None and result.error.loc == ("a",)
    missing = upstream.executor.execute(ToolCall("up_add", {"a": 1}))
    _refused(missing, "invalid_arguments")
    assert [c for c in upstream.received() if c["name"] == "add"] == []


def test_an_access_rule_refuses_and_nothing_is_sent(upstream: Upstream) -> None:
    intern = _caller("ivan", groups=["interns"])
    call = ToolCall("up_add", {"a": 2, "b": 3}, "access-1")
    message = _refused(upstream.executor.execute(call, context=intern), "forbidden")
    assert "interns-no-add" in message
    assert [c for c in upstream.received() if c["name"] == "add"] == []
    [line] = upstream.lines("access-1")
    assert line["decision"] == "deny" and line["rule"] == "interns-no-add"
    other = _caller("olga", groups=["staff"])  # the same call by a caller the rule allows
    allowed = upstream.executor.execute(ToolCall("up_add", {"a": 2, "b": 3}), context=other)
    assert allowed.ok and allowed.content == "5"
    assert [c["arguments"] for c in upstream.received() if c["name"] == "add"] == [{"a": 2, "b": 3}]


def test_a_quota_limits_the_calls_and_the_one_over_it_is_not_sent(upstream: Upstream) -> None:
    caller = _caller("quinn")
    results = [
        upstream.executor.execute(ToolCall("up_limited", {"text": f"quota-{i}"}), context=caller)
        for i in range(3)
    ]
    assert [r.ok for r in results] == [True, True, False]
    message = _refused(results[2], "rate_limited")
    assert "'twice'" in message and "it was not sent" in message
    sent = [str(c["arguments"].get("text")) for c in upstream.received()]
    assert [t for t in sent if t.startswith("quota-")] == ["quota-0", "quota-1"]
    other = _caller("rhea")  # buckets are per caller
    assert upstream.executor.execute(ToolCall("up_limited", {"text": "x"}), context=other).ok


def test_a_server_s_calls_at_once_are_bounded(upstream: Upstream) -> None:
    async def two_at_once() -> tuple[ToolResult, ToolResult]:
        executor = upstream.executor
        slow = asyncio.create_task(executor.aexecute(ToolCall("up_slow", {"seconds": 2}, "slow-1")))
        for _ in range(200):  # until the slow call has reached the server
            if '"slow"' in upstream.calls.read_text(encoding="utf-8"):
                break
            await asyncio.sleep(0.05)
        second = await executor.aexecute(ToolCall("up_echo", {"text": "second"}))
        return await slow, second

    first, second = asyncio.run(two_at_once())
    assert first.ok and first.content == "slept 2.0"
    message = _refused(second, "rate_limited")  # the server's one place was taken
    assert "it was not sent" in message
    assert [c["name"] for c in upstream.received()][-1:] == ["slow"]
    [line] = upstream.lines("slow-1")
    assert line["outcome"] == "ok"


def test_confirm_true_without_a_confirmation_is_not_sent(upstream: Upstream) -> None:
    call = ToolCall("up_confirmed", {"text": "confirm-me"}, "confirm-1")
    _refused(upstream.executor.execute(call), "not_confirmed")
    assert all(c["arguments"] != {"text": "confirm-me"} for c in upstream.received())
    [line] = upstream.lines("confirm-1")
    assert line["outcome"] == "not_confirmed"


def test_a_sensitive_argument_is_masked_in_the_audit_and_in_error_texts(
    upstream: Upstream,
) -> None:
    ok = upstream.executor.execute(ToolCall("up_secret", {"text": "hunter2-audit"}, "secret-1"))
    assert ok.ok and "hunter2-audit" not in ok.content  # the upstream echoed it: masked
    [line] = upstream.lines("secret-1")
    assert line["arguments"] == {"text": "***"} and line["outcome"] == "ok"
    # it went upstream as given: only what is shown is masked
    assert {"name": "echo", "arguments": {"text": "hunter2-audit"}} in upstream.received()

    failed = upstream.executor.execute(
        ToolCall("up_fail_secret", {"message": "disk key hunter2-error"}, "secret-2")
    )
    message = _refused(failed, "upstream_error")  # the upstream's text is the secret
    assert "***" in message and "hunter2-error" not in message
    assert "hunter2-error" not in failed.content
    assert all("hunter2-error" not in json.dumps(dict(b)) for b in failed.blocks)
    [line] = upstream.lines("secret-2")
    assert line["arguments"] == {"message": "***"}

    too_long = "hunter2-" + "x" * 40  # over maxLength: refused, the value not in the text
    invalid = upstream.executor.execute(ToolCall("up_secret", {"text": too_long}, "secret-3"))
    assert too_long not in _refused(invalid, "invalid_arguments")
    assert too_long not in invalid.content
    assert too_long not in upstream.audit.getvalue()


def test_a_context_bound_argument_comes_from_the_caller(upstream: Upstream) -> None:
    acme = _caller("ana", tenant_id="acme")
    result = upstream.executor.execute(ToolCall("up_tenant", {}), context=acme)
    assert result.ok and result.content == "acme"
    forged = ToolCall("up_tenant", {"text": "globex"}, "tenant-2")
    message = _refused(upstream.executor.execute(forged, context=acme), "invalid_arguments")
    assert "claims.tenant_id" in message
    nobody = _caller("nina")  # a caller without the claim: refused, nothing sent
    unbound = upstream.executor.execute(ToolCall("up_tenant", {}), context=nobody)
    assert "claims.tenant_id" in _refused(unbound, "refused_by_policy")
    echoed = [c["arguments"] for c in upstream.received() if c["name"] == "echo"]
    assert {"text": "acme"} in echoed and {"text": "globex"} not in echoed
    assert [a for a in echoed if a.get("text") in ("acme", "globex", None)] == [{"text": "acme"}]
    [line] = upstream.lines("tenant-2")
    assert line["outcome"] == "invalid_arguments"
    # an optional one (required: false) is left out when the caller has none
    optional = upstream.executor.execute(ToolCall("up_tenant_if_any", {}), context=nobody)
    assert optional.ok and optional.content == ""
    assert upstream.received()[-1] == {"name": "echo", "arguments": {}}


def test_the_result_budget_cuts_a_long_text_and_each_call_is_audited_once(
    upstream: Upstream,
) -> None:
    result = upstream.executor.execute(ToolCall("up_big", {"n": 50_000}, "big-1"))
    assert result.ok
    assert result.content.startswith("x" * 20_000)
    assert len(result.content) < 20_100
    assert "truncated: 30000 of 50000 characters omitted" in result.content
    [line] = upstream.lines("big-1")
    assert line["tool"] == "up_big" and line["outcome"] == "ok"
    assert line["arguments"] == {"n": 50_000}
