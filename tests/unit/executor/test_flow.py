"""The two drivers of a flow: each effect runs its way, and whatever an effect raises
(cancellation included) is thrown into the flow where it yielded."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from toolcat.executor._flow import Blocking, Flow, Io, adrive, drive


def _steps(seen: list[str]) -> Flow[str]:
    where = yield Blocking(lambda: threading.current_thread().name)
    seen.append(f"blocking in {where}")
    got: str = yield Io(lambda: "sync", _async_answer)
    try:
        yield Io(_raise, _araise)
    except LookupError as exc:
        seen.append(f"caught {exc}")
    return got


def _raise() -> None:
    raise LookupError("from the effect")


async def _araise() -> None:
    raise LookupError("from the effect")


async def _async_answer() -> str:
    await asyncio.sleep(0)
    return "async"


def test_drive_runs_every_effect_in_this_thread() -> None:
    seen: list[str] = []
    assert drive(_steps(seen)) == "sync"
    assert seen == [f"blocking in {threading.current_thread().name}", "caught from the effect"]


def test_adrive_awaits_io_and_sends_blocking_work_to_a_thread() -> None:
    seen: list[str] = []
    assert asyncio.run(adrive(_steps(seen))) == "async"
    assert seen[0] != f"blocking in {threading.current_thread().name}"
    assert seen[1] == "caught from the effect"


def test_a_cancelled_effect_reaches_the_flow_s_finally() -> None:
    ended: list[Any] = []
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    def flow() -> Flow[None]:
        try:
            yield Io(lambda: None, forever)
        finally:
            ended.append("finally ran")

    async def go() -> None:
        task = asyncio.ensure_future(adrive(flow()))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert ended == ["finally ran"]
