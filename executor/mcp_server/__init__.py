"""An MCP server over a catalog: tools/list from the IR, tools/call through the executor core.

Pipeline (module names)::

    catalog (loaded by the caller) ──> McpCatalogServer (_server) ── tools/list ──> provider "mcp"
                                             └─ tools/call ──> toolcat.executor.Executor
"""

from ._server import CatalogLoadFailed, McpCatalogServer

__all__ = ["CatalogLoadFailed", "McpCatalogServer"]
