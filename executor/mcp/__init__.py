"""Tools of upstream MCP servers at run time: connect, supervise, check pins, call.

``McpTransport`` runs the tools whose command is an ``McpCommand`` (the executor registers
it by default); its :class:`UpstreamPool` holds the sessions. :func:`open_client` and
:func:`list_all_tools` are what ``toolcat import mcp`` connects and lists with.
The MCP SDK is imported when an upstream is first reached, not with this package.
"""

from ._connect import describe, first_leaf, list_all_tools, open_client
from ._hooks import CallHooks, call_hooks
from ._pool import ReplicaStatus, UpstreamPool, UpstreamState, UpstreamStatus
from ._shape import shape_result
from ._transport import McpPlan, McpRequest, McpTransport, PreparedMcpCall

__all__ = [
    "CallHooks",
    "McpPlan",
    "McpRequest",
    "McpTransport",
    "PreparedMcpCall",
    "ReplicaStatus",
    "UpstreamPool",
    "UpstreamState",
    "UpstreamStatus",
    "call_hooks",
    "describe",
    "first_leaf",
    "list_all_tools",
    "open_client",
    "shape_result",
]
