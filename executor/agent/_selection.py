"""The tools of one run in search mode: the pinned ones, ``search_tools``, then those found."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolcat.executor import ToolCall, ToolResult

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition

    from ._loop import AgentLoop

__all__ = ["Selection"]


class Selection:
    """The tools of one run in search mode: pinned, ``search_tools``, then those found."""

    def __init__(self, loop: AgentLoop, extra: Sequence[str]) -> None:
        from toolcat.executor import search_tool_definition

        self.catalog = loop.catalog
        self.pinned = tuple(dict.fromkeys((*loop.pinned, *extra)))
        for name in self.pinned:
            self.catalog[name]  # an unknown name raises UnknownToolError
        self.callable = frozenset((*loop.default_tools, *self.pinned))
        self.loop = loop
        limit = loop.max_tools
        self.room = None if limit is None else limit - len(self.pinned) - 1
        if self.room is not None and self.room < 0:
            raise ValueError(f"more pinned tools than the {limit} tools a request may carry")
        self.found: list[str] = []
        self.version = 0
        self._definition = search_tool_definition()
        self.name = self._definition.name

    def tools(self) -> tuple[ToolDefinition, ...]:
        return (
            *(self.catalog[n] for n in self.pinned),
            self._definition,
            *(self.catalog[n] for n in self.found),
        )

    def search(self, call: ToolCall) -> ToolResult:
        from toolcat.executor import run_search_tool

        result, names = run_search_tool(
            self.catalog, call, self.callable, searcher=self.loop.semantic_search()
        )
        before = list(self.found)
        for name in reversed(names):  # the best match is the most recent: it leaves last
            if name in self.pinned:
                continue
            if name in self.found:
                self.found.remove(name)
            self.found.append(name)
        if self.room is not None:
            del self.found[: max(0, len(self.found) - self.room)]
        if self.found != before:
            self.version += 1
        return result
