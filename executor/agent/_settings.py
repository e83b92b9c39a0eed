"""One settings object for an agent loop: whoever builds one (the CLI, an app) fills it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from toolcat.catalog import Catalog
    from toolcat.executor import ToolContext

    from ._protocols import TextCallback
    from ._trace import LoopStep

__all__ = ["MAX_CALLS_PER_TURN", "LoopSettings", "ToolSelection"]

#: The most tool calls of one model turn that run; the calls past it are not sent and
#: get an error result instead. ``LoopSettings(max_calls_per_turn=)``,
#: ``toolcat chat --max-calls-per-turn``.
MAX_CALLS_PER_TURN = 32

ToolSelection = Literal["all", "search", "native-search"]


@dataclass(frozen=True, slots=True)
class LoopSettings:
    """How an :class:`AgentLoop` runs; every field has a default.

    >>> LoopSettings(toolset="read", max_iterations=4).max_iterations
    4

    ``catalog``: the tools offered (default: the executor's catalog), ``toolset`` of it;
    ``system``: the system prompt; ``tool_choice``: ``auto``, ``none``, ``required`` or a
    tool name; ``stream`` with ``on_text`` for the answer's pieces; ``on_step`` after each
    step; ``concurrent``: the calls of one reply at once; ``tool_selection``: every tool,
    toolcat's ``search_tools`` with ``pinned`` tools (``None``: the catalog's), or the
    API's own tool search; ``max_tools`` per request (default: the provider's limit);
    ``context``: the caller every tool call runs for.
    """

    catalog: Catalog | None = None
    toolset: str | None = None
    system: str | None = None
    max_iterations: int = 10
    max_calls_per_turn: int = MAX_CALLS_PER_TURN
    tool_choice: str = "auto"
    stream: bool = False
    on_text: TextCallback | None = None
    on_step: Callable[[LoopStep], None] | None = None
    concurrent: bool = True
    tracer_provider: Any = None
    tool_selection: ToolSelection = "all"
    pinned: Sequence[str] | None = None
    max_tools: int | None = None
    context: ToolContext | None = None
    search_variant: Literal["bm25", "regex"] = "bm25"
