"""An MCP server over a catalog: tools/list from the IR, tools/call through the executor core.

Pipeline (module names)::

    PATHs ──> loader (toolcat.loader.load_catalog, or the one given) ──> LoadResult
          ──> McpServer (_server) ── tools/list ──> provider "mcp"
                   ├─ tools/call ──> toolcat.executor.Executor
                   └─ --watch: LoadResult.files polled against a snapshot (_watch)
"""

from ._server import CatalogLoadFailed, McpServer

__all__ = ["CatalogLoadFailed", "McpServer"]
