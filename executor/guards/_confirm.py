"""Confirmation as a guard: a ``confirm: true`` tool runs only when the user says yes."""

from __future__ import annotations

import asyncio
import inspect
import threading
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

__all__ = ["Confirmation"]


class Confirmation(Guard):
    """Asks ``confirm(call, tool)``, one question at a time; without a callback every
    ``confirm: true`` tool is refused (``not_confirmed``)."""

    def __init__(self, confirm: ConfirmCallback | None) -> None:
        self.confirm = confirm
        self._lock = threading.Lock()
        self._async_locks: dict[int, asyncio.Lock] = {}  # one per event loop

    def before(self, state: CallState) -> Flow[ToolResult | None]:
        plan = state.plan
        if plan is None or not plan.tool.confirm:
            return None
        answer = self.confirm is not None and (yield _Ask(self, state.call, plan.tool))
        if answer:
            return None
        return error_result(
            state.call,
            [ToolError("not_confirmed", "the user did not confirm this call; it was not sent")],
        )


class _Ask:
    """The question, asked in this thread or awaited on the loop."""

    __slots__ = ("call", "guard", "tool")

    def __init__(self, guard: Confirmation, call: ToolCall, tool: ToolDefinition) -> None:
        self.guard, self.call, self.tool = guard, call, tool

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
        key = id(asyncio.get_running_loop())
        lock = locks.get(key)
        if lock is None:
            lock = locks[key] = asyncio.Lock()
        async with lock:  # one question at a time
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
