"""OpenAI Responses API: flat ``function`` tools, ``function_call`` items, ``function_call_output``.

One tool is ``{"type": "function", name, description, parameters, strict}``. With the
API's own tool search a ``{"type": "tool_search"}`` tool leads the list and every
function but the pinned ones carries ``defer_loading: true``; with namespaces the
functions are grouped into ``{"type": "namespace", name, description, tools}`` items.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from toolcat.catalog.common import NAMESPACE_LIMITS, PROVIDER_LIMITS, namespace_groups
from toolcat.executor._calls import ToolCall

from ._common import BuiltinProvider, Converted, need, plain, strict_parameters
from ._result import ExportNote
from ._search import MODEL

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.catalog.common import Namespace, NamespaceKind
    from toolcat.executor._calls import ToolResult

__all__ = [
    "PROVIDER",
    "TOOL_SEARCH_TOOL",
    "OpenAIResponses",
    "arrange_for_search",
    "to_openai_responses_tool",
]


#: The API's own tool search, run on its side.
TOOL_SEARCH_TOOL: Mapping[str, Any] = MappingProxyType({"type": "tool_search"})


def to_openai_responses_tool(
    tool: ToolDefinition, *, strict: bool = False
) -> tuple[dict[str, Any], list[ExportNote]]:
    """One Responses API tool (flat); ``strict`` is always written: the API defaults it to
    true. ``allowed_callers`` when the catalog marks who may call it (``callers:``)."""
    parameters, is_strict, notes = strict_parameters(tool, strict)
    item = {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
        "strict": is_strict,
    }
    if tool.callers:
        item["allowed_callers"] = ["direct" if c == MODEL else "programmatic" for c in tool.callers]
    return item, notes


def arrange_for_search(
    items: Sequence[dict[str, Any]],
    tools: Sequence[ToolDefinition],
    defer: bool,
    pinned: Collection[str],
    namespaces: NamespaceKind | None,
    toolsets: Mapping[str, Iterable[str]] | None,
) -> tuple[list[dict[str, Any]], list[ExportNote]]:
    """The functions for tool search and namespaces: ``tool_search`` first (when
    ``defer``), then the pinned functions as they are, then the rest, each with
    ``defer_loading: true`` (when ``defer``), in their namespaces (when ``namespaces``)."""
    by_name = {t.name: item for t, item in zip(tools, items, strict=True)}
    keep = frozenset(pinned) if defer else frozenset()
    rest = [t for t in tools if t.name not in keep]

    def function(name: str) -> dict[str, Any]:
        item = by_name[name]
        return {**item, "defer_loading": True} if defer else item

    out: list[dict[str, Any]] = [dict(TOOL_SEARCH_TOOL)] if defer else []
    out += [by_name[t.name] for t in tools if t.name in keep]
    notes: list[ExportNote] = []
    if namespaces is None:
        return out + [function(t.name) for t in rest], notes
    groups, alone = namespace_groups(rest, namespaces, toolsets)
    for group in groups:
        item, group_notes = _namespace_item(group, namespaces, function)
        out.append(item)
        notes += group_notes
    if alone and namespaces == "service":
        most = NAMESPACE_LIMITS.max_namespaces
        message = f"{len(alone)} functions outside any namespace: more than {most} namespaces"
        notes.append(ExportNote("", "", message))
    return out + [function(n) for n in alone], notes


def _namespace_item(
    group: Namespace, kind: str, function: Callable[[str], dict[str, Any]]
) -> tuple[dict[str, Any], list[ExportNote]]:
    """One ``namespace`` tool, and notes on a renamed or oversized namespace."""
    limits = NAMESPACE_LIMITS
    notes = []
    if group.name != group.source:
        message = f"namespace {group.source!r} sent as {group.name!r} ({limits.name_rule})"
        notes.append(ExportNote("", "", message))
    if len(group.tools) > limits.advised_size:
        message = (
            f"namespace {group.name!r} holds {len(group.tools):,} functions; OpenAI advises "
            f"fewer than {limits.advised_size + 1} per namespace"
        )
        notes.append(ExportNote("", "", message))
    description = f"The {kind} {group.source}: {', '.join(group.tools)}"
    if len(description) > limits.max_description_chars:
        description = description[: limits.max_description_chars - 3] + "..."
    tools = [function(n) for n in group.tools]
    item = {"type": "namespace", "name": group.name, "description": description, "tools": tools}
    return item, notes


class OpenAIResponses(BuiltinProvider):
    """Responses API: a response or its ``output`` items in; ``function_call_output`` out."""

    name = "openai-responses"
    supports_strict = True
    limits = PROVIDER_LIMITS["openai-responses"]

    supports_defer = True
    supports_namespaces = True

    def convert(self, tool: ToolDefinition, *, strict: bool, examples: bool = False) -> Converted:
        return to_openai_responses_tool(tool, strict=strict)

    def arrange(
        self,
        items: list[dict[str, Any]],
        tools: Sequence[ToolDefinition],
        defer: bool,
        pinned: frozenset[str],
        namespaces: NamespaceKind | None,
        toolsets: Mapping[str, Iterable[str]] | None,
        variant: str | None = None,
    ) -> tuple[list[dict[str, Any]], list[ExportNote]]:
        if variant is not None:
            raise ValueError("openai-responses has one tool search: pass defer=True")
        return arrange_for_search(items, tools, defer, pinned, namespaces, toolsets)

    def parameters(self, item: dict[str, Any]) -> Any:
        return item["parameters"]

    def parse_calls(self, message: Any) -> list[ToolCall]:
        payload = plain(message)
        if isinstance(payload, Mapping):
            payload = payload.get("output", [payload])
        return [
            ToolCall(
                need(item, "name", "a function_call item"),
                item.get("arguments", "{}"),
                item.get("call_id") or item.get("id"),
            )
            for item in payload
            if isinstance(item, Mapping) and item.get("type") == "function_call"
        ]

    def format_result(self, result: ToolResult) -> dict[str, Any]:
        return {
            "type": "function_call_output",
            "call_id": result.call.id or "",
            "output": result.content,
        }


PROVIDER = OpenAIResponses()
