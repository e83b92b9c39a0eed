"""Anthropic Messages API: ``tools``, ``tool_use`` blocks and ``tool_result`` blocks.

One tool is ``{name, description, input_schema}``. With the API's own tool search
(:func:`deferred_tools`), every tool but the pinned ones carries
``defer_loading: true`` and a tool-search tool leads the list; the model's searches
come back as ``server_tool_use`` and ``tool_search_tool_result`` blocks, which the
API runs itself: they are never tool calls for the executor.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from toolcat.catalog.common import PROVIDER_LIMITS, freeze
from toolcat.executor._calls import ToolCall

from ._common import BuiltinProvider, Converted, need, plain

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor._calls import ToolResult

__all__ = [
    "MAX_DEFERRED_TOOLS",
    "PROVIDER",
    "SERVER_BLOCK_TYPES",
    "TOOL_SEARCH_BETA",
    "TOOL_SEARCH_TOOLS",
    "Anthropic",
    "SearchVariant",
    "deferred_tools",
    "found_tools",
    "to_anthropic_tool",
    "tool_search_tool",
]

SearchVariant = Literal["bm25", "regex"]

#: The ``anthropic-beta`` value that turns on tool search and ``defer_loading``.
TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20"
#: The API's tool-search tools: variant -> (type, name).
TOOL_SEARCH_TOOLS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "bm25": ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
        "regex": ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
    }
)
#: The most tools one request may carry with tool search (the API's documented catalog
#: limit); past it the agent loop uses toolcat's own ``search_tools`` instead.
MAX_DEFERRED_TOOLS = 10_000
#: Reply blocks the API produces and runs itself; they stay in the conversation as they are.
SERVER_BLOCK_TYPES = frozenset({"server_tool_use", "tool_search_tool_result"})


def to_anthropic_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One Anthropic Messages API tool."""
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": freeze(tool.input_schema),
    }


def tool_search_tool(variant: SearchVariant = "bm25") -> dict[str, Any]:
    """The API's tool-search tool: ``bm25`` (queries in words) or ``regex`` (patterns)."""
    try:
        kind, name = TOOL_SEARCH_TOOLS[variant]
    except KeyError:
        raise ValueError(f"tool search variant must be bm25 or regex, not {variant!r}") from None
    return {"type": kind, "name": name}


def deferred_tools(
    specs: Sequence[Mapping[str, Any]],
    pinned: Collection[str] = (),
    variant: SearchVariant = "bm25",
) -> list[dict[str, Any]]:
    """A request's ``tools`` for the API's tool search: the search tool, the ``pinned``
    tools as they are, then every other tool with ``defer_loading: true``.

    >>> [t.get("defer_loading") for t in deferred_tools([{"name": "a"}, {"name": "b"}], ["a"])]
    [None, None, True]
    """
    if len(specs) > MAX_DEFERRED_TOOLS:
        raise ValueError(
            f"{len(specs)} tools are more than the {MAX_DEFERRED_TOOLS} that Anthropic's tool "
            "search accepts in one request"
        )
    keep = frozenset(pinned)
    first = [dict(s) for s in specs if s.get("name") in keep]
    rest = [{**s, "defer_loading": True} for s in specs if s.get("name") not in keep]
    return [tool_search_tool(variant), *first, *rest]


def found_tools(message: Any) -> list[str]:
    """The tool names that the API's tool searches of one reply found, in order."""
    payload = plain(message)
    if isinstance(payload, Mapping):
        payload = payload.get("content", [])
    names: list[str] = []
    for block in payload if isinstance(payload, list | tuple) else ():
        if not isinstance(block, Mapping) or block.get("type") != "tool_search_tool_result":
            continue
        content = block.get("content")
        refs = content.get("tool_references", []) if isinstance(content, Mapping) else []
        names += [
            r["tool_name"]
            for r in refs
            if isinstance(r, Mapping) and isinstance(r.get("tool_name"), str)
        ]
    return list(dict.fromkeys(names))


class Anthropic(BuiltinProvider):
    """Messages API: a message or its content blocks in; a ``tool_result`` block out."""

    name = "anthropic"
    limits = PROVIDER_LIMITS["anthropic"]

    def convert(self, tool: ToolDefinition, *, strict: bool) -> Converted:
        return to_anthropic_tool(tool), []

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
