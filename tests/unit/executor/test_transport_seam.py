"""A second kind of command needs a transport and nothing else: a toy in-memory one runs
through the same core (parse, validate, guards, audit) as HTTP tools, sync and async."""

from __future__ import annotations

import asyncio
import io
import json
from dataclasses import dataclass, field
from typing import Any

from toolcat.catalog import Catalog, ToolDefinition
from toolcat.catalog.common import freeze
from toolcat.executor import (
    AuditLog,
    Executor,
    ExecutorSettings,
    PreparedRequest,
    Redactor,
    StreamSink,
    ToolCall,
    ToolResult,
)
from toolcat.executor._arguments import ArgumentChecker
from toolcat.executor._transport import Delivery


@dataclass(frozen=True)
class EchoCommand:
    """A toy kind of command: the tool answers with its arguments, from memory."""

    greeting: str


@dataclass(frozen=True)
class EchoPlan:
    tool: ToolDefinition
    checker: ArgumentChecker
    safe: bool = True
    target: str | None = None
    secrets: None = None  # no argument of this toy is secret


@dataclass
class EchoRequest:
    arguments: dict[str, Any]
    redactor: Redactor = field(default_factory=Redactor)

    def header(self, name: str) -> str | None:
        return None


class EchoTransport:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def plan(self, tool: ToolDefinition, catalog: Catalog) -> EchoPlan:
        return EchoPlan(tool, ArgumentChecker(tool.input_schema))

    def prepare(self, plan: EchoPlan, arguments: dict[str, Any], *, preview: bool) -> EchoRequest:
        return EchoRequest(arguments)

    def send(self, call: ToolCall, plan: EchoPlan, prepared: EchoRequest) -> Delivery:
        self.sent.append(prepared.arguments)
        command = plan.tool.command
        assert isinstance(command, EchoCommand)
        text = f"{command.greeting}, {prepared.arguments['name']}"
        return Delivery(ToolResult(call, True, text))

    async def asend(self, call: ToolCall, plan: EchoPlan, prepared: EchoRequest) -> Delivery:
        await asyncio.sleep(0)
        return self.send(call, plan, prepared)

    def dry_run(self, prepared: EchoRequest) -> PreparedRequest:
        return PreparedRequest("ECHO", "memory:", {}, prepared.arguments)


def _tool(name: str, *, confirm: bool = False) -> ToolDefinition:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    return ToolDefinition(
        name,
        "Greets.",
        freeze(schema),
        EchoCommand("hello"),  # type: ignore[arg-type]  # the IR knows HttpCommand only
        confirm=confirm,
    )


def _executor(**settings: Any) -> tuple[Executor, EchoTransport]:
    transport = EchoTransport()
    catalog = Catalog([_tool("greet"), _tool("greet_confirmed", confirm=True)], [])
    executor = Executor(catalog, ExecutorSettings(transports={EchoCommand: transport}, **settings))
    return executor, transport


def test_a_toy_command_runs_sync_and_async_through_its_transport() -> None:
    executor, transport = _executor()
    sync = executor.execute(ToolCall("greet", {"name": "ana"}))
    async_ = asyncio.run(executor.aexecute(ToolCall("greet", '{"name": "bo"}')))
    assert (sync.ok, sync.content) == (True, "hello, ana")
    assert (async_.ok, async_.content) == (True, "hello, bo")
    assert transport.sent == [{"name": "ana"}, {"name": "bo"}]
    shown = executor.prepare(ToolCall("greet", {"name": "cy"}))
    assert isinstance(shown, PreparedRequest) and shown.body == {"name": "cy"}
    assert transport.sent == [{"name": "ana"}, {"name": "bo"}]  # a dry run sends nothing


def test_the_core_checks_and_guards_a_toy_command_as_any_other() -> None:
    out = io.StringIO()
    executor, transport = _executor(audit=AuditLog(StreamSink(out)))
    invalid = executor.execute(ToolCall("greet", {"name": 7}))
    refused = executor.execute(ToolCall("greet_confirmed", {"name": "ana"}))  # no callback
    assert invalid.error is not None and invalid.error.type == "invalid_arguments"
    assert refused.error is not None and refused.error.type == "not_confirmed"
    assert transport.sent == []  # neither reached the transport
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["outcome"] for line in lines] == ["invalid_arguments", "not_confirmed"]


def test_a_command_without_a_transport_is_an_internal_result() -> None:
    executor = Executor(Catalog([_tool("greet")], []))
    result = executor.execute(ToolCall("greet", {"name": "ana"}))
    assert isinstance(result, ToolResult)
    assert result.error is not None and result.error.type == "internal"
