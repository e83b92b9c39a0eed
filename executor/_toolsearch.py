"""The ``search_tools`` tool: a model searches a large catalog instead of seeing every tool.

The agent loop and the MCP server both offer it (``tool_selection="search"``,
``toolcat serve --tool-search``). A call runs ``Catalog.search`` over the tools
the caller may use and answers with their names and descriptions (and, for MCP
clients that cannot reload their tool list, each tool's input schema).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from toolcat.catalog import HttpCommand, ToolAnnotations, ToolDefinition
from toolcat.catalog.common import freeze

from ._arguments import parse_arguments
from ._calls import ToolCall, ToolError, ToolResult
from ._results import error_result

if TYPE_CHECKING:
    from toolcat.catalog import Catalog

    from ._semantic import SemanticSearch

__all__ = [
    "MAX_SEARCH_RESULTS",
    "SEARCH_TOOL_NAME",
    "run_search_tool",
    "search_tool_definition",
]

#: The name of the search tool; a catalog tool of that name cannot be used with search.
SEARCH_TOOL_NAME = "search_tools"
#: The most tools one ``search_tools`` call returns (its ``limit`` argument, default 5).
MAX_SEARCH_RESULTS = 20
_DEFAULT_RESULTS = 5
_DESCRIPTION_CHARS = 300


def search_tool_definition() -> ToolDefinition:
    """``search_tools`` as a tool every provider exporter understands (it is never dispatched)."""
    return ToolDefinition(
        name=SEARCH_TOOL_NAME,
        description=(
            "Search the catalog for tools that can do a task. Only a few tools are loaded; "
            "call this with a short description of what you need (plain words, e.g. "
            "'list open pull requests'). The tools found become callable in your next turn."
        ),
        input_schema=freeze(
            {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "what the tool should do"},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_SEARCH_RESULTS,
                        "description": f"how many tools (default {_DEFAULT_RESULTS})",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            }
        ),
        command=HttpCommand(service="", method="POST", path="/"),
        annotations=ToolAnnotations(title="Search tools", read_only=True, open_world=False),
    )


def run_search_tool(
    catalog: Catalog,
    call: ToolCall,
    searchable: Iterable[str] | None = None,
    *,
    schemas: bool = False,
    searcher: SemanticSearch | None = None,
) -> tuple[ToolResult, tuple[str, ...]]:
    """Answer one ``search_tools`` call: the result the model reads and the names found.

    ``searchable`` limits the answer to those tools (``None``: the whole catalog);
    ``schemas`` adds each tool's input schema to the answer. ``searcher`` ranks with
    embeddings fused with the lexical ranking (``search.embeddings``); when its
    endpoint fails the answer is lexical and carries a ``note`` saying so.
    """
    args = parse_arguments(call.arguments)
    if isinstance(args, ToolError):
        return error_result(call, [args]), ()
    query, limit = args.get("query"), args.get("limit")
    if limit is None:  # absent, or null from a model in strict mode
        limit = _DEFAULT_RESULTS
    problems = []
    if not isinstance(query, str):
        problems.append(ToolError("invalid_arguments", "'query' must be a string", ("query",)))
    if (
        isinstance(limit, bool)
        or not isinstance(limit, int)
        or not 1 <= limit <= MAX_SEARCH_RESULTS
    ):
        problems.append(
            ToolError(
                "invalid_arguments",
                f"'limit' must be an integer from 1 to {MAX_SEARCH_RESULTS}",
                ("limit",),
            )
        )
    unknown = sorted(set(args) - {"query", "limit"})
    if unknown:
        problems.append(ToolError("invalid_arguments", f"unknown argument {unknown[0]!r}"))
    if problems:
        return error_result(call, problems), ()
    assert isinstance(query, str)
    note = None
    if searcher is not None:
        results = searcher.search_only(query, limit, only=searchable)
        hits, note = list(results), results.note
    else:
        hits = catalog.search_index.search(query, limit, only=searchable)
    found = tuple(h.name for h in hits)
    tools: list[dict[str, Any]] = []
    for hit in hits:
        tool = catalog[hit.name]
        item: dict[str, Any] = {"name": tool.name, "description": _short(tool.description)}
        if schemas:
            item["input_schema"] = tool.input_schema
        tools.append(item)
    data: dict[str, Any] = {"query": query, "tools": tools}
    if not tools:
        data["note"] = "no tool matches; try other words"
    elif note:
        data["note"] = note
    content = json.dumps(data, ensure_ascii=False)
    return ToolResult(call, True, content, data=data), found


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DESCRIPTION_CHARS else text[: _DESCRIPTION_CHARS - 1] + "…"
