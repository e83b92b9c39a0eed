"""What a call's own client wants from an upstream's messages: progress and elicitation.

The MCP server sets :data:`call_hooks` around a call; the transport then forwards the
upstream's progress notifications and elicitation requests for that call to these
callbacks, on the caller's event loop. Without hooks, progress is dropped and an
elicitation is declined.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ._connect import describe

__all__ = [
    "CallHooks",
    "ElicitHook",
    "ProgressHook",
    "call_hooks",
    "on_caller",
    "progress_callback",
]

log = logging.getLogger("toolcat.mcp")

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


def progress_callback(hooks: CallHooks | None, caller: asyncio.AbstractEventLoop | None) -> Any:
    """The SDK's ``progress_callback`` for a call with ``hooks``: each upstream progress
    notification goes to ``hooks.progress`` on the ``caller``'s loop (``None``: none)."""
    if hooks is None or hooks.progress is None:
        return None
    hook = hooks.progress

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        try:
            await on_caller(hook(progress, total, message), caller)
        except Exception as exc:  # the caller's client is gone: the call goes on
            log.debug("a progress notification was not forwarded: %s", describe(exc))

    return forward


async def on_caller(coro: Any, caller: asyncio.AbstractEventLoop | None) -> Any:
    """Await ``coro`` on the caller's loop (where its client lives), or here without one."""
    if caller is None or caller is asyncio.get_running_loop():
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, caller))
