"""One loaded catalog as the server serves it: its executor, the tools tools/list lists,
and the error raised when a catalog cannot be served."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError
from toolcat.executor import SEARCH_TOOL_NAME, Executor, ExecutorSettings, search_tool_definition

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition
    from toolcat.loader import LoadResult

    from ._server import McpServer

__all__ = ["CatalogLoadFailed", "Served", "build_served", "default_loader"]


class CatalogLoadFailed(ToolcatError):
    """The catalog given to ``toolcat serve`` has errors; ``diagnostics`` says which."""

    def __init__(self, diagnostics: Sequence[Any], files: Sequence[str] = ()) -> None:
        self.diagnostics = tuple(diagnostics)
        self.files = tuple(files)  # the catalog files read, as `toolcat validate` counts them
        errors = sum(1 for d in diagnostics if str(getattr(d, "severity", "error")) == "error")
        super().__init__(f"the catalog has {errors} error(s)")


@dataclass
class Served:
    """One loaded catalog with its executor and exported tools: swapped as a whole."""

    catalog: Catalog
    executor: Executor
    tools: dict[str, ToolDefinition]
    listed: list[dict[str, Any]]
    validators: dict[str, Any] = field(default_factory=dict)
    exported: dict[str, dict[str, Any]] = field(default_factory=dict)  # every tool, by name
    inflight: int = 0  # calls running on this catalog; a retired one closes when it drops to 0
    retired: bool = False
    searcher: Any = None  # SemanticSearch, for a catalog with search.embeddings (first search)
    started: bool = False  # its upstream MCP servers were started
    warming: list[Any] = field(default_factory=list)  # their first connections (futures)
    warm_until: float | None = None  # the loop time the first listings wait until


def build_served(server: McpServer, catalog: Catalog) -> Served:
    """``catalog`` (or its toolset) with the executor of ``server``'s settings; raises
    ``UnknownToolsetError``, ``UnknownToolError`` (a pin) or ``ValueError``."""
    from toolcat.catalog import HttpCommand
    from toolcat.catalog.schema import DEFAULT_SCHEMA_BUDGET, budget_tool
    from toolcat.executor.providers import to_mcp_tool

    tools = catalog.toolset(server.toolset)  # UnknownToolsetError when it is not there
    subset = catalog.subset([t.name for t in tools]) if server.toolset else catalog
    exported = {}
    for tool in tools:
        # listed within the schema budget, as every export; calls check the full schema
        item = to_mcp_tool(budget_tool(tool, DEFAULT_SCHEMA_BUDGET)[0])
        command = tool.command
        if isinstance(command, HttpCommand) and command.response.select:
            # the selected value has no declared shape
            item.pop("outputSchema", None)
        exported[tool.name] = item
    listed = list(exported.values())
    if server.tool_search:
        if SEARCH_TOOL_NAME in exported:
            raise ValueError(
                f"the catalog has a tool named {SEARCH_TOOL_NAME!r}: --tool-search "
                "cannot offer its own tool of that name"
            )
        for name in server.pinned:
            subset[name]  # an unknown name raises UnknownToolError
        pins = [n for n in catalog.pinned(server.toolset) if n in exported]
        pins = list(dict.fromkeys([*(pins if server.catalog_pins else ()), *server.pinned]))
        listed = [exported[n] for n in pins if n in exported]
        listed.append(to_mcp_tool(search_tool_definition()))
    executor = Executor(
        subset,
        ExecutorSettings(
            env=server.env,
            confirm=server._confirm,
            access=server._access,
            audit=server.audit,
            quotas=server._quotas,
            quota_store=server._quota_store,
            shared=server.shared,
            idempotency=server._idempotency,
            idempotency_seconds=server._idempotency_seconds,
        ),
    )
    tool_map = {t.name: t for t in tools}
    return Served(subset, executor, tool_map, listed, exported=exported)


def default_loader(paths: Sequence[str]) -> LoadResult:
    """The PATHs read by ``toolcat.loader.load_catalog``, without progress output."""
    from toolcat.loader import load_catalog

    return load_catalog(paths, progress=False)
