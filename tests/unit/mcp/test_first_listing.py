"""The first listings' wait for the upstreams' first connections: requests that come while
it runs wait with the first one, until one deadline; later ones do not wait at all."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from toolcat.executor.mcp_server._reload import first_connections
from toolcat.executor.mcp_server._served import Served


def _served(warming: list[Any]) -> Served:
    return Served(catalog=None, executor=None, tools={}, listed=[], warming=warming)  # type: ignore[arg-type]


def test_concurrent_first_listings_share_one_deadline_and_later_ones_do_not_wait() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        # an upstream that hangs: its first connection never ends
        never: concurrent.futures.Future[None] = concurrent.futures.Future()
        served = _served([never])
        first = asyncio.create_task(first_connections(served, 1.5))
        await asyncio.sleep(0.05)  # the first one waits now, and has set the deadline
        assert served.warm_until is not None
        joined = loop.time()
        left = served.warm_until - joined
        await first_connections(served, 1.5)  # comes while the first one waits: waits too
        waited = loop.time() - joined
        assert waited >= left - 0.05  # until the first one's deadline, not a new one
        assert waited < left + 1.0
        await first
        later = loop.time()
        await first_connections(served, 1.5)
        assert loop.time() - later < 0.1 and served.warming == []

    asyncio.run(run())


def test_upstreams_that_connect_end_the_wait() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        served = _served([done])
        loop.call_later(0.05, done.set_result, None)
        start = loop.time()
        await first_connections(served, 30.0)
        assert loop.time() - start < 5.0

    asyncio.run(run())
