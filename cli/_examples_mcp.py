"""The examples of MCP tools, run offline (`toolcat test`): no upstream is started.

An example of a tool bound to an upstream tool carries ``arguments`` (what the model
sends), optionally ``request`` (the upstream's arguments after renames, fixed values and
context-bound ones) and a recorded ``response`` (the upstream's ``CallToolResult``:
``content``, ``structuredContent``, ``isError``), and ``result`` (what the model must
get). The arguments go through the real executor (argument check, guards) and the MCP
transport's own steps: its ``prepare`` maps them to the upstream's, and its result
shaping turns the recorded answer into what the model reads. Only the exchange with the
upstream is replaced, by :class:`RecordedMcpTransport`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcat.executor.mcp import McpTransport, shape_result

if TYPE_CHECKING:
    from toolcat.catalog import ToolExample
    from toolcat.executor import ToolCall
    from toolcat.executor.mcp import McpPlan, McpRequest

__all__ = ["RecordedMcpTransport", "run_mcp_example"]


@dataclass
class _Exchange:
    response: Any = None  # the recorded CallToolResult (a mapping), or None
    sent: list[dict[str, Any]] = field(default_factory=list)  # the upstream arguments


class RecordedMcpTransport(McpTransport):
    """The MCP transport with its upstream replaced by the example's recorded answer."""

    def __init__(self) -> None:
        super().__init__()
        self.exchange = _Exchange()

    def send(self, call: ToolCall, plan: McpPlan, request: McpRequest) -> Any:
        from mcp_types import CallToolResult, TextContent
        from toolcat.catalog.common import thaw
        from toolcat.executor import Delivery

        self.exchange.sent.append(dict(request.arguments))
        recorded = thaw(self.exchange.response)
        if recorded is None:  # nothing recorded: an empty answer
            result = CallToolResult(content=[TextContent(type="text", text="")])
        else:
            result = CallToolResult.model_validate(recorded)
        return Delivery(shape_result(call, plan, result, request.redactor))

    async def asend(self, call: ToolCall, plan: McpPlan, request: McpRequest) -> Any:
        return self.send(call, plan, request)


def check_response(example: ToolExample) -> str | None:
    """Why the example's recorded ``response`` is not a ``CallToolResult`` (None: it is)."""
    if example.response is None:
        return None
    from mcp_types import CallToolResult
    from pydantic import ValidationError
    from toolcat.catalog.common import thaw

    try:
        CallToolResult.model_validate(thaw(example.response))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        return f"the recorded response is not an MCP CallToolResult: {where}: {first['msg']}"
    return None


def run_mcp_example(
    executor: Any, transport: RecordedMcpTransport, tool: Any, example: ToolExample, index: int
) -> Any:
    """Run one example of an MCP tool; its :class:`ExampleOutcome`."""
    from toolcat.catalog.common import thaw
    from toolcat.executor import ToolCall

    from ._examples import Findings, unified

    findings = Findings(tool, example, index)
    add = findings.add

    bad = check_response(example)
    if bad is not None:
        add("TC069", bad)
        return findings.outcome()
    transport.exchange.response = example.response
    transport.exchange.sent = []
    call = ToolCall(tool.name, thaw(example.arguments), id=f"example-{index + 1}")
    result = executor.execute(call)
    sent = transport.exchange.sent
    if not sent and example.request is None and example.result is None and not result.ok:
        error = result.error
        add("TC069", f"the call failed before reaching the upstream: {error.type}: {error.msg}", "")
    if example.request is not None:
        want = thaw(example.request)
        got = sent[-1] if sent else None
        if got != want:
            why = "the upstream's arguments differ"
            if got is None and result.error is not None:
                why = f"no call reached the upstream ({result.error.type}: {result.error.msg})"
            add("TC066", why, unified(want, got, "upstream arguments"))
    if example.result is not None:
        findings.compare_result(example.result, result.content)
    return findings.outcome()
