"""An MCP server over a catalog: tools/list from the IR, tools/call through the executor core.

Pipeline (module names)::

    PATHs ──> loader (toolcat.loader.load_catalog, or the one given) ──> LoadResult
          ──> McpServer (_server) ── tools/list ──> provider "mcp"
                   ├─ tools/call ──> toolcat.executor.Executor
                   ├─ --watch: LoadResult.files polled against a snapshot (_watch)
                   └─ HTTP: HostGuard (_hosts) answers only allowed Host and Origin values
"""

from ._hosts import HostGuard, HostPolicy
from ._server import CatalogLoadFailed, McpServer

__all__ = ["CatalogLoadFailed", "HostGuard", "HostPolicy", "McpServer"]
