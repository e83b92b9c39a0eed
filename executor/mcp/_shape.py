"""An upstream's ``CallToolResult`` as a ``ToolResult``: its blocks whole, a text form,
``structuredContent`` as ``data``, ``isError`` as an ``upstream_error``; within budgets."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import orjson
from toolcat.catalog.common import freeze
from toolcat.executor._calls import ToolCall, ToolError, ToolResult
from toolcat.executor._redact import Redactor
from toolcat.executor._results import error_result, truncate

from ._stdio import ASK_FOR_LESS

if TYPE_CHECKING:
    from ._transport import McpPlan

__all__ = ["block_text", "shape_result"]

_EXCERPT = 2000  # characters of an upstream's error text in the error's message


def block_text(block: dict[str, Any]) -> str:
    """The text form of one content block (what providers without blocks read)."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        size = len(str(block.get("data", ""))) * 3 // 4
        return f"[{kind} {block.get('mimeType', '')}, {size} bytes]"
    if kind == "resource_link":
        return f"[resource link: {block.get('name', '')} <{block.get('uri', '')}>]"
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return str(resource["text"])
        return f"[resource {resource.get('uri', '')} ({resource.get('mimeType', '')})]"
    return f"[{kind} block]"


def shape_result(call: ToolCall, plan: McpPlan, result: Any, redactor: Redactor) -> ToolResult:
    """``result`` (the SDK's ``CallToolResult``) for the model and the caller."""
    blocks = [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in result.content]
    structured = result.structured_content
    size = len(orjson.dumps(blocks)) + (len(orjson.dumps(structured)) if structured else 0)
    name = plan.command.server
    if size > plan.max_bytes:
        return error_result(
            call,
            [
                ToolError(
                    "response_too_large",
                    f"MCP server {name!r} answered {plan.command.tool!r} with {size} bytes, "
                    f"over the {plan.max_bytes} bytes a result may have{ASK_FOR_LESS}",
                )
            ],
        )
    if redactor:
        for block in blocks:
            if block.get("type") == "text":
                block["text"] = redactor(str(block.get("text", "")))
        structured = redactor.value(structured)
    texts = [block_text(b) for b in blocks]
    text = "\n".join(texts)
    if not texts and structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    frozen = tuple(freeze(b) for b in blocks)
    if result.is_error:
        message = text if len(text) <= _EXCERPT else text[:_EXCERPT] + "…"
        error = ToolError("upstream_error", f"MCP server {name!r}: {message or 'the tool failed'}")
        return replace(error_result(call, [error]), data=structured, blocks=frozen)
    content = truncate(text, plan.max_chars)
    return ToolResult(
        call,
        ok=True,
        content=content,
        data=structured,
        blocks=frozen,
        truncated=content != text,
    )
