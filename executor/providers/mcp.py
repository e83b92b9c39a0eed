"""MCP: ``tools/list`` tools, ``tools/call`` requests and ``CallToolResult`` values.

One tool is ``{name[, title], description, inputSchema[, outputSchema], annotations}``;
the annotations come from :func:`mcp_annotations`: what the tool states, else what
its HTTP method implies (for a tool of an upstream MCP server: MCP's own defaults).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolcat.catalog import HttpCommand, method_semantics
from toolcat.catalog.common import PROVIDER_LIMITS, freeze
from toolcat.executor._calls import ToolCall

from ._common import BuiltinProvider, Converted, need, plain

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor._calls import ToolResult

__all__ = ["PROVIDER", "Mcp", "mcp_annotations", "to_mcp_tool"]


def mcp_annotations(tool: ToolDefinition) -> dict[str, Any]:
    """MCP ``ToolAnnotations``: what the tool states, else derived from its HTTP method.

    Safe methods (GET, HEAD, OPTIONS, TRACE) are read-only; every other method
    is destructive (MCP's conservative default); safe methods, PUT and DELETE
    are idempotent (see :func:`toolcat.catalog.method_semantics`); every tool reaches an outside
    service, so ``openWorldHint`` defaults to true. A tool of an upstream MCP server has
    no method: what it does not state takes MCP's defaults (not read-only, destructive,
    not idempotent, open world), as its upstream's client would read it.
    """
    stated = tool.annotations
    command = tool.command
    read_only_default = idempotent_default = False
    if isinstance(command, HttpCommand):
        method = method_semantics(command.method)
        read_only_default, idempotent_default = method.read_only, method.idempotent
    read_only = stated.read_only if stated.read_only is not None else read_only_default
    destructive = stated.destructive if stated.destructive is not None else not read_only
    idempotent = stated.idempotent if stated.idempotent is not None else idempotent_default
    open_world = stated.open_world if stated.open_world is not None else True
    out: dict[str, Any] = {}
    if stated.title:
        out["title"] = stated.title
    out.update(
        readOnlyHint=read_only,
        destructiveHint=destructive,
        idempotentHint=idempotent,
        openWorldHint=open_world,
    )
    return out


def to_mcp_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One MCP tool as ``tools/list`` returns it.

    ``outputSchema`` is written only when the tool's output schema is an
    object schema (MCP requires ``"type": "object"`` there).
    """
    item: dict[str, Any] = {"name": tool.name}
    if tool.annotations.title:
        item["title"] = tool.annotations.title
    item["description"] = tool.description
    item["inputSchema"] = freeze(tool.input_schema)
    output = tool.output_schema
    if isinstance(output, Mapping) and output.get("type") == "object":
        item["outputSchema"] = freeze(output)
    item["annotations"] = mcp_annotations(tool)
    return item


class Mcp(BuiltinProvider):
    """MCP: a ``tools/call`` request or its params in; a ``CallToolResult`` out."""

    name = "mcp"
    carries_output_schemas = True
    limits = PROVIDER_LIMITS["mcp"]

    def convert(self, tool: ToolDefinition, *, strict: bool) -> Converted:
        return to_mcp_tool(tool), []

    def parse_calls(self, message: Any) -> list[ToolCall]:
        payload = plain(message)
        items = payload if isinstance(payload, list) else [payload]
        calls = []
        for item in items:
            request_id = None
            if isinstance(item, Mapping) and "params" in item:
                request_id = item.get("id")
                item = item["params"]
            args = item.get("arguments") if isinstance(item, Mapping) else None
            calls.append(
                ToolCall(
                    need(item, "name", "an MCP tools/call"),
                    {} if args is None else args,
                    None if request_id is None else str(request_id),
                )
            )
        return calls

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        """A ``CallToolResult``: text content, ``isError``, and ``structuredContent``
        when the data is an object and the text was not cut (the cap holds for both)."""
        out: dict[str, Any] = {
            "content": [{"type": "text", "text": result.content}],
            "isError": not result.ok,
        }
        if result.ok and isinstance(result.data, dict) and not result.truncated:
            out["structuredContent"] = result.data
        return out


PROVIDER = Mcp()
