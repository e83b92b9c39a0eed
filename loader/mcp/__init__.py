"""`toolcat import mcp`: an MCP server's tool listing to a reviewable, pinned catalog.

The import policy (:mod:`._policy`: selection, rules, overrides, the confirm policy), the
listing to tool documents, each pinned (:mod:`._import`), and the catalog written out
(:mod:`._emit`). Connecting to the server is the command's (``toolcat.executor.mcp``);
loading a catalog never imports this package.
"""

from ._emit import mcp_catalog_document, mcp_listing_catalog, render_mcp_catalog, render_mcp_header
from ._import import McpImportResult, McpToolReport, import_mcp_tools
from ._policy import (
    MCP_CONFIRM_POLICIES,
    McpOverride,
    McpPolicy,
    McpPolicyError,
    McpRule,
    McpSelection,
    effective_hints,
    mcp_policy_file,
    parse_mcp_hint,
)

__all__ = [
    "MCP_CONFIRM_POLICIES",
    "McpImportResult",
    "McpOverride",
    "McpPolicy",
    "McpPolicyError",
    "McpRule",
    "McpSelection",
    "McpToolReport",
    "effective_hints",
    "import_mcp_tools",
    "mcp_catalog_document",
    "mcp_listing_catalog",
    "mcp_policy_file",
    "parse_mcp_hint",
    "render_mcp_catalog",
    "render_mcp_header",
]
