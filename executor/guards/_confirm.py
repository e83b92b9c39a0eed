"""Confirmation as a guard: a ``confirm: true`` tool runs only when the user says yes."""

from __future__ import annotations

import asyncio
import inspect
import threading
import weakref
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from toolcat.executor._calls import ToolError
from toolcat.executor._flow import Flow
from toolcat.executor._results import error_result

from ._base import CallState, Guard

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor._calls import ToolCall, ToolResult
    from toolcat.executor._settings import ConfirmCallback
    from toolcat.executor._transport import Plan

__all__ = ["Confirmation"]


class Confirmation(Guard):
    """Asks ``confirm(call, tool)``, one question at a time; without a callback every
    ``confirm: true`` tool is refused (``not_confirmed``)."""

    def __init__(self, confirm: ConfirmCallback | None) -> None:
        self.confirm = confirm
        self._lock = threading.Lock()
        # one per event loop and caller, held only while a question waits: a caller's entry
        # goes with its last question, and nobody waits on another caller's user
        self._async_locks: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock]
        self._async_locks = weakref.WeakValueDictionary()

    def applies(self, plan: Plan | None) -> bool:
        return plan is not None and plan.tool.confirm

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        plan = state.plan
        if plan is None or not plan.tool.confirm:
            return None
        who = state.identity
        ask = _Ask(self, state.call, plan.tool, who.key if who is not None else "")
        answer = self.confirm is not None and (yield ask)
        if answer:
            return None
        return error_result(
            state.call,
            [ToolError("not_confirmed", "the user did not confirm this call; it was not sent")],
        )


class _Ask:
    """The question, asked in this thread or awaited on the loop."""

    __slots__ = ("call", "caller", "guard", "tool")

    def __init__(
        self, guard: Confirmation, call: ToolCall, tool: ToolDefinition, caller: str
    ) -> None:
        self.guard, self.call, self.tool, self.caller = guard, call, tool, caller

    def run(self) -> bool:
        assert self.guard.confirm is not None
        with self.guard._lock:  # one question at a time
            answer = self.guard.confirm(self.call, self.tool)
            if inspect.isawaitable(answer):
                answer = _run_awaitable(answer)
        return bool(answer)

    async def arun(self) -> bool:
        assert self.guard.confirm is not None
        locks = self.guard._async_locks
        key = (id(asyncio.get_running_loop()), self.caller)
        lock = locks.get(key)
        if lock is None:
            lock = locks[key] = asyncio.Lock()
        async with lock:  # one question at a time to one caller
            answer = self.guard.confirm(self.call, self.tool)
            if inspect.isawaitable(answer):
                answer = await answer
        return bool(answer)


def _run_awaitable(awaitable: Awaitable[Any]) -> Any:
    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with ThreadPoolExecutor(max_workers=1) as pool:  # a loop runs in this thread
        return pool.submit(asyncio.run, wait()).result()
