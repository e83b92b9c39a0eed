"""Anthropic Messages API: ``tools``, ``tool_use`` blocks and ``tool_result`` blocks.

One tool is ``{name, description, input_schema}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolcat.catalog import DEFAULT_SCHEMA_BUDGET, freeze
from toolcat.executor._calls import ToolCall

from . import _limits
from ._common import export_each, need, plain, refuse_strict, select_tools
from ._result import ExportResult

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition
    from toolcat.executor._calls import ToolResult

__all__ = ["PROVIDER", "Anthropic", "to_anthropic_tool"]


def to_anthropic_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One Anthropic Messages API tool."""
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": freeze(tool.input_schema),
    }


class Anthropic:
    """Messages API: a message or its content blocks in; a ``tool_result`` block out."""

    name = "anthropic"
    supports_strict = False
    limits = _limits.ANTHROPIC

    def tools(
        self,
        catalog: Catalog | Iterable[ToolDefinition],
        *,
        strict: bool = False,
        toolset: str | None = None,
        budget: int | None = DEFAULT_SCHEMA_BUDGET,
    ) -> ExportResult:
        refuse_strict(self.name, strict)
        tools = select_tools(catalog, toolset)
        return export_each(self.name, tools, lambda t: (to_anthropic_tool(t), []), budget)

    def parse_calls(self, message: Any) -> list[ToolCall]:
        payload = plain(message)
        if isinstance(payload, Mapping):
            payload = payload.get("content", [payload])
        if isinstance(payload, str):
            return []
        return [
            ToolCall(
                need(block, "name", "a tool_use block"),
                block.get("input", {}),
                block.get("id"),
            )
            for block in payload
            if isinstance(block, Mapping) and block.get("type") == "tool_use"
        ]

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": result.call.id or "",
            "content": result.content,
        }
        if not result.ok:
            block["is_error"] = True
        return block


PROVIDER = Anthropic()
