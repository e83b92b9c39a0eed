"""Active health checks of the replicas of an HTTP upstream that lists several URLs.

One probe task per replica runs on the pool's loop, every ``health.interval`` seconds
(:class:`~toolcat.catalog.McpHealth`). A connected replica is pinged on its open session:
``ping`` in the handshake era, and in the 2026-07-28 era, which has no ping, one
``server/discover`` at the version the session speaks. A replica that is down or not
connected is connected again (initialize or discover, then the tool listing and the pin
check). Either is bounded by ``health.timeout``.

A replica that fails its probe is out of the rotation (calls try it only after every other)
and is probed less often while it keeps failing (the interval doubled, up to four times
it); one that passes again is back in. A ping that fails ends the session only when no
call runs on it, so calls in flight finish where they are. Each change of state is logged
once, not each probe.

The replicas of a server reached with each caller's credentials (``forward_caller_token``,
``token_exchange``) cannot be connected without a caller: :class:`ReachProber` asks them
only whether they answer HTTP (see there).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from toolcat.catalog import MissingVariableError
from toolcat.executor._calls import CallStopped

from ._connect import describe, resolve_url

if TYPE_CHECKING:
    from ._link import Link
    from ._pool import _Server

__all__ = ["Prober", "ReachProber", "Replica", "ping"]

log = logging.getLogger("toolcat.mcp")

_MAX_SLOWDOWN = 4  # a replica that keeps failing is probed every 4 intervals at most


@dataclass(slots=True)
class Replica:
    """What the probes know of one replica: ``up`` (``None`` before the first verdict),
    why its last probe failed, and how many probes in a row did."""

    index: int
    label: str
    up: bool | None = None
    error: str | None = None
    failures: int = 0


async def ping(client: Any) -> None:
    """One round trip on ``client``'s session that any server answers in its era."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    version = client.protocol_version
    if version in MODERN_PROTOCOL_VERSIONS:
        await client.session.send_discover(version)
    else:
        await client.session.send_ping()


class Prober:
    """The probes of one server's replicas (its shared links, one per URL)."""

    def __init__(self, server: _Server) -> None:
        self.server = server
        self.health = server.upstream.health
        self.replicas = [Replica(link.index, link.label) for link in server.links]
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Start probing, on the pool's loop (again: nothing more)."""
        if self._tasks:
            return
        name = self.server.upstream.name
        self._tasks = [
            self.server.pool.spawn(self._watch(link, replica), f"toolcat-mcp-probe-{name}")
            for link, replica in zip(self.server.links, self.replicas, strict=True)
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def down(self, index: int) -> bool:
        """Whether replica ``index`` failed its last probe."""
        return self.replicas[index].up is False

    async def _watch(self, link: Link, replica: Replica) -> None:
        while True:
            verdict = await self._probe(link)
            if verdict is not False:
                self._note(replica, verdict)
            slowdown = min(2 ** max(replica.failures - 1, 0), _MAX_SLOWDOWN)
            await asyncio.sleep(self.health.interval * slowdown)

    async def _probe(self, link: Link) -> str | None | Literal[False]:
        """``None``: the replica answered; a text: why not; ``False``: no verdict (a call
        is connecting it now)."""
        timeout = self.health.timeout
        if not link.alive:
            try:
                connected = await link.reconnect(timeout)
            except CallStopped as stop:
                return link.error or stop.error.msg
            return None if connected else False
        try:
            await asyncio.wait_for(ping(link.client), timeout)
            return None
        except TimeoutError:
            why = f"no answer to a ping within {timeout:g} s"
        except Exception as exc:  # whatever the session raises: the replica did not answer
            why = describe(exc)
        if not link.busy:  # the next probe connects again; a running call keeps its session
            link.broken(f"a health probe failed: {why}")
        return why

    def _note(self, replica: Replica, error: str | None) -> None:
        name = self.server.upstream.name
        if error is None:
            if replica.up is False:
                log.warning("MCP server %s: replica %s is up again", name, replica.label)
            replica.up, replica.error, replica.failures = True, None, 0
            return
        if replica.up is not False:
            log.warning(
                "MCP server %s: replica %s is down (it gets calls only when every other "
                "replica is down too): %s",
                name,
                replica.label,
                error,
            )
        replica.up, replica.error = False, error
        replica.failures += 1


#: What a reachability probe sends: a JSON-RPC ping any MCP endpoint reads.
_PING = {"jsonrpc": "2.0", "id": "toolcat-health", "method": "ping"}


class ReachProber(Prober):
    """The probes of replicas that each caller's own credentials reach.

    With no caller there is no token to open a session with, so a probe POSTs one JSON-RPC
    ``ping`` with no credentials and reads only the status: any answer below 500 passes (a
    401 too: the replica is there and asks for credentials), while no answer within
    ``health.timeout``, a refused connection or a 5xx fails. The answer's body is not read.
    """

    async def _probe(self, link: Link) -> str | None | Literal[False]:
        import httpx2

        timeout = self.health.timeout
        try:
            url = resolve_url(self.server.upstream, self.server.pool.env, link.index)
        except MissingVariableError as exc:
            return str(exc)
        accept = {"Accept": "application/json, text/event-stream"}
        try:
            async with httpx2.AsyncClient(timeout=timeout) as http:
                async with http.stream("POST", url, json=_PING, headers=accept) as answer:
                    status = answer.status_code
        except httpx2.TimeoutException:
            return f"no answer within {timeout:g} s"
        except httpx2.HTTPError as exc:
            return describe(exc)
        return f"HTTP {status}" if status >= 500 else None
