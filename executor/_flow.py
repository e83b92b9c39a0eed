"""Sans-I/O steps and their two drivers: a step yields what it needs done, a driver does it.

A call is written once, as a generator (a *flow*) that yields an :class:`Effect` where it
needs I/O (send a request, ask the user, a round trip to a shared store) and receives the
effect's answer. :func:`drive` runs a flow in this thread; :func:`adrive` awaits each
effect on the running event loop. This is the shape of httpx's ``Auth.auth_flow``: the
steps are not written twice, and the async path pays for no thread or event loop it does
not need (a sync facade over an async pipeline would start a loop per blocking call).

An exception raised by an effect (``asyncio.CancelledError`` included) is thrown into
the flow where it yielded, so the flow's ``try``/``finally`` sees every way a call ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Protocol, TypeVar

__all__ = ["Blocking", "Effect", "Flow", "Io", "adrive", "drive", "no_io"]

T = TypeVar("T")


class Effect(Protocol):
    """Something a flow needs done: blocking in this thread, or awaited on the loop."""

    def run(self) -> Any: ...

    async def arun(self) -> Any: ...


#: A step written once: yields effects, receives their answers, returns ``T``.
Flow = Generator[Effect, Any, T]


class Blocking:
    """A blocking call (a shared store's round trip): in this thread when driven
    synchronously, in a worker thread under the event loop."""

    __slots__ = ("args", "fn", "kwargs")

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.fn = fn
        self.args = args
        self.kwargs = kwargs

    def run(self) -> Any:
        return self.fn(*self.args, **self.kwargs)

    async def arun(self) -> Any:
        return await asyncio.to_thread(self.fn, *self.args, **self.kwargs)


class Io:
    """One I/O step that has a sync and an async form (an exchange, a wait)."""

    __slots__ = ("async_fn", "sync_fn")

    def __init__(self, sync_fn: Callable[[], Any], async_fn: Callable[[], Awaitable[Any]]) -> None:
        self.sync_fn = sync_fn
        self.async_fn = async_fn

    def run(self) -> Any:
        return self.sync_fn()

    async def arun(self) -> Any:
        return await self.async_fn()


def no_io(value: T) -> Flow[T]:
    """A flow that needs nothing done and returns ``value`` (a hook without I/O)."""
    return value
    yield  # a generator: the driver gets StopIteration(value) at the first step


def drive(flow: Flow[T]) -> T:
    """Run ``flow`` to its end in this thread."""
    answer: Any = None
    failure: BaseException | None = None
    while True:
        try:
            effect = flow.send(answer) if failure is None else flow.throw(failure)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        try:
            answer, failure = effect.run(), None
        except BaseException as exc:  # the flow decides (KeyboardInterrupt included)
            answer, failure = None, exc


async def adrive(flow: Flow[T]) -> T:
    """Run ``flow`` to its end on the running event loop."""
    answer: Any = None
    failure: BaseException | None = None
    while True:
        try:
            effect = flow.send(answer) if failure is None else flow.throw(failure)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        try:
            answer, failure = await effect.arun(), None
        except BaseException as exc:  # cancellation included: the flow audits, re-raises
            answer, failure = None, exc
