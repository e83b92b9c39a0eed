"""Tools of upstream MCP servers at run time: connect, supervise, check pins, call.

:func:`open_client` and :func:`list_all_tools` are what ``toolcat import mcp`` and the
runtime connect and list with. The MCP SDK is imported when an upstream is first reached,
not with this package.
"""

from ._connect import list_all_tools, open_client
from ._hooks import CallHooks, call_hooks

__all__ = ["CallHooks", "call_hooks", "list_all_tools", "open_client"]
