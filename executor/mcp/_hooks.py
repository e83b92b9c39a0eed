"""What a call's own client wants from an upstream's messages: progress and elicitation.

The MCP server sets :data:`call_hooks` around a call; the transport then forwards the
upstream's progress notifications and elicitation requests for that call to these
callbacks, on the caller's event loop. Without hooks, progress is dropped and an
elicitation is declined.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

__all__ = ["CallHooks", "ElicitHook", "ProgressHook", "call_hooks"]

#: ``progress(progress, total, message)``, as the SDK's progress callbacks take it
ProgressHook = Callable[[float, "float | None", "str | None"], Awaitable[None]]
#: ``elicit(params)``: ``params`` is the upstream's ``ElicitRequestParams``; returns an
#: ``ElicitResult`` (or the SDK's ``ErrorData``)
ElicitHook = Callable[[Any], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class CallHooks:
    """The callbacks of one call (either may be ``None``)."""

    progress: ProgressHook | None = None
    elicit: ElicitHook | None = None


#: The hooks of the call running in this context (set by the MCP server around a call).
call_hooks: ContextVar[CallHooks | None] = ContextVar("toolcat_mcp_call_hooks", default=None)
