"""UpstreamPool: the sessions of a catalog's MCP servers, supervised on one event loop.

One pool per executor. Its sessions live on one asyncio loop, by default a background
thread of the pool's own, so the sync ``Executor.execute`` (``submit(...).result()``) and
the async ``aexecute`` (``asyncio.wrap_future``) share them, whatever loop or thread the
caller is on; an SDK session is bound to the loop that opened it, so one loop for all is
what lets both drivers use one. A server that makes every call on its own long-lived loop
(``toolcat serve``) hands that loop to :meth:`UpstreamPool.start` instead: its calls then
reach the upstream with no hop between threads, each way.

Each upstream is one :class:`~._link.Link` per endpoint (a stdio command, or each URL of an
HTTP server: replicas, chosen round-robin among those not marked down: by a failed connect,
or by a failed health probe, see ``_probe``). A link connects at
first use (or at :meth:`UpstreamPool.start`), lists the tools and checks their pins; a
session that dies is reopened by the next call, with a growing wait between failed
attempts. Each link has its own lock and connect timeout, so an upstream that never
answers holds up no other.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import hashlib
import itertools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from toolcat.catalog import Catalog, McpCommand, McpUpstream, MissingVariableError, ToolDefinition
from toolcat.executor._identity import ToolContext
from toolcat.executor._redact import Redactor
from toolcat.executor._telemetry import Telemetry

from ._auth import per_caller
from ._connect import resolve_url
from ._link import Link
from ._pins import pin_problem
from ._probe import Prober, ReachProber

__all__ = [
    "CALLER_SESSION_SECONDS",
    "MAX_CALLER_SESSIONS",
    "ReplicaStatus",
    "UpstreamPool",
    "UpstreamState",
    "UpstreamStatus",
]

log = logging.getLogger("toolcat.mcp")

UpstreamState = Literal["idle", "starting", "ready", "failed", "restarting"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class ReplicaStatus:
    """One URL of an HTTP server that lists several: ``up`` (in the rotation) or ``down``
    (its last probe or connect failed: calls try it only when every other is down too),
    and why while it is down."""

    url: str  # as the catalog writes it (${VAR} unresolved)
    state: Literal["up", "down"]
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "state": self.state, "error": self.error}


@dataclass(frozen=True, slots=True)
class UpstreamStatus:
    """Where one upstream stands: its state, its last error, how often it was restarted,
    and the catalog tools it refuses (tool name -> why)."""

    state: UpstreamState
    error: str | None = None
    restarts: int = 0
    refused: Mapping[str, str] = field(default_factory=dict)
    protocol: str | None = None  # the protocol version the session speaks
    down: tuple[str, ...] = ()  # replicas marked down for a while (HTTP)
    replicas: tuple[ReplicaStatus, ...] = ()  # each URL of a server that lists several

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "error": self.error,
            "restarts": self.restarts,
            "refused": dict(self.refused),
            "protocol": self.protocol,
            "down": list(self.down),
            "replicas": [replica.to_dict() for replica in self.replicas],
        }


#: The most sessions per caller one server keeps (the oldest is closed past it).
MAX_CALLER_SESSIONS = 64
#: How long a session per caller is used (a new one then fetches fresh credentials).
CALLER_SESSION_SECONDS = 300.0


class _Server:
    """One ``mcp_servers:`` entry: its links and the catalog tools bound to it."""

    def __init__(self, upstream: McpUpstream, tools: list[ToolDefinition], pool: UpstreamPool):
        self.upstream = upstream
        self.tools = tools
        self.pool = pool
        self.count = len(upstream.urls) if not upstream.stdio else 1
        self.links = [Link(self, pool, index) for index in range(self.count)]
        self.per_caller = per_caller(upstream)
        # caller key -> (its links, when they were opened): sessions that carry its token
        self._callers: OrderedDict[str, tuple[list[Link], float]] = OrderedDict()
        self._turn = itertools.count()
        # the tools no live replica offers (each link's own verdict refuses its calls), and
        # the problem last logged per (replica, tool)
        self.refused: dict[str, str] = {}
        self._noted: dict[tuple[int, str], str | None] = {}
        self.checked = False
        # replicas of a server with several URLs are probed; those reached with each
        # caller's credentials only for an HTTP answer (a probe has no caller's token)
        self.prober: Prober | None = None
        if self.count > 1:
            self.prober = ReachProber(self) if self.per_caller else Prober(self)

    def pick(self, caller: ToolContext | None = None) -> list[Link]:
        """The links to try for one call, in order: round-robin among the replicas in the
        rotation, then those marked down. A server with credentials per caller uses the
        caller's own links. On the pool's loop (it starts the health probes)."""
        if self.prober is not None:
            self.prober.start()
        links = self._caller_links(caller) if self.per_caller else self.links
        now = time.monotonic()
        down = [link for link in links if self.down(link, now)]
        up = [link for link in links if link not in down]
        start = next(self._turn) % max(len(up), 1)
        return up[start:] + up[:start] + down

    def down(self, link: Link, now: float) -> bool:
        """Whether ``link`` is out of the rotation: a failed connect, or a failed probe."""
        if link.down_until > now:
            return True
        return self.prober is not None and self.prober.down(link.index)

    def replicas(self, now: float) -> tuple[ReplicaStatus, ...]:
        """The state of each URL, for a server that lists several."""
        if self.count < 2:
            return ()
        links = self.all_links()
        out = []
        for index, shared in enumerate(self.links):
            at = [link for link in links if link.index == index]
            down = [link for link in at if self.down(link, now)]
            if not down:
                out.append(ReplicaStatus(shared.label, "up"))
                continue
            probed = self.prober.replicas[index] if self.prober is not None else None
            error = probed.error if probed is not None and probed.error else None
            error = error or next((link.error for link in down if link.error), None)
            out.append(ReplicaStatus(shared.label, "down", self._masked(error, at)))
        return tuple(out)

    def _masked(self, error: str | None, links: list[Link]) -> str | None:
        """``error`` without the credentials the links send, nor the URL as resolved (a
        ``${VAR}`` in it may be a key): an error may echo either."""
        if error is None:
            return None
        redactor = Redactor()
        redactor.add_token(*(secret for link in links for secret in link.secrets))
        try:
            url = resolve_url(self.upstream, self.pool.env, links[0].index)
        except MissingVariableError:
            url = None
        if url is not None and url != links[0].label:
            redactor.add(url)
        return redactor(error)

    def _caller_links(self, caller: ToolContext | None) -> list[Link]:
        token = caller.token if caller is not None else None
        if token is None:
            return self.links  # the call is refused when the session connects
        identity = caller.identity.key if caller is not None and caller.identity else ""
        key = hashlib.sha256(f"{identity}\0{token}".encode()).hexdigest()
        now = time.monotonic()
        found = self._callers.get(key)
        if found is not None and now - found[1] < CALLER_SESSION_SECONDS:
            self._callers.move_to_end(key)
            return found[0]
        if found is not None:
            self._retire(found[0])
        links = [Link(self, self.pool, index, caller) for index in range(self.count)]
        self._callers[key] = (links, now)
        while len(self._callers) > MAX_CALLER_SESSIONS:
            self._retire(self._callers.popitem(last=False)[1][0])
        return links

    def _retire(self, links: list[Link]) -> None:
        for link in links:
            self.pool.spawn(link.stop())

    def all_links(self) -> list[Link]:
        return [*self.links, *(link for links, _ in self._callers.values() for link in links)]

    def recheck(
        self, link: Link, live: Mapping[str, Mapping[str, Any]], twice: Collection[str] = ()
    ) -> None:
        """Compare every bound tool with ``live``, ``link``'s listing: its verdict is what
        its calls are refused. A name in ``twice`` was listed more than once with
        different definitions: which one a call runs is the upstream's choice, so it counts
        as changed whichever matches the pin. The server offers a tool unless every live
        replica refuses it; subscribers are told when that changes."""
        upstream = self.upstream
        refused: dict[str, str] = {}
        for tool in self.tools:
            assert isinstance(tool.command, McpCommand)
            name = tool.command.tool
            problem = (
                f"tool {name!r} is listed more than once upstream, with different "
                f"definitions (server {upstream.name!r})"
                if name in twice
                else pin_problem(tool, tool.command, live.get(name))
            )
            removed = name not in live
            if problem is not None and (upstream.on_change == "refuse" or removed):
                refused[tool.name] = problem
            noted = (link.index, tool.name)  # once per replica, not per caller's session
            if problem is not None and self._noted.get(noted) != problem:
                if upstream.on_change != "accept" or removed:
                    action = "refused" if tool.name in refused else "still offered"
                    log.warning(
                        "MCP server %s: tool %s %s: %s", link.shown, tool.name, action, problem
                    )
                    self.pool.telemetry.tool_changed(tool.name, upstream.name, action)
            self._noted[noted] = problem
        link.refused = refused
        others = [other.refused for other in self.all_links() if other.alive and other.listed]
        offered = {
            tool: problem
            for tool, problem in refused.items()
            if all(tool in verdict for verdict in others if verdict is not refused)
        }
        first = not self.checked
        changed = offered != self.refused
        self.refused, self.checked = offered, True
        if first or changed:
            self.pool.changed(upstream.name)


class UpstreamPool:
    """The MCP upstreams of one catalog (see the module docstring).

    ``env`` is what ``${VAR}`` reads; ``credentials(upstream, env, url, caller)`` gives
    the headers (and the ``httpx2`` auth) of an HTTP upstream when it connects (the
    transport resolves the entry's ``auth``); ``closers`` run when the pool closes. A
    server whose auth forwards or exchanges the caller's token has sessions per caller (at
    most :data:`MAX_CALLER_SESSIONS` of them, each at most :data:`CALLER_SESSION_SECONDS`
    old), so no caller's token serves another.
    ``relist_after``: a call re-lists the upstream's tools (and re-checks its pins) first
    when the last listing is older than that many seconds; ``list_changed`` re-lists at
    once. ``connect_timeout`` bounds one connect and its first listing. ``max_bytes``
    bounds one message read from an upstream. ``mode`` is the SDK's: ``"auto"`` speaks
    whichever era the upstream answers, ``"legacy"`` forces the initialize handshake.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        env: Mapping[str, str],
        credentials: Callable[..., Coroutine[Any, Any, Any]] | None = None,
        closers: tuple[Callable[[], Coroutine[Any, Any, None]], ...] = (),
        relist_after: float = 5.0,
        connect_timeout: float = 10.0,
        max_bytes: int = 10_000_000,
        telemetry: Telemetry | None = None,
        mode: str = "auto",
    ) -> None:
        self.env = env
        self.mode = mode
        self.telemetry = telemetry if telemetry is not None else Telemetry(False)
        self.credentials = credentials
        self._closers = closers
        self.relist_after = relist_after
        self.connect_timeout = connect_timeout
        self.max_bytes = max_bytes
        bound: dict[str, list[ToolDefinition]] = {}
        for tool in catalog:
            if isinstance(tool.command, McpCommand):
                bound.setdefault(tool.command.server, []).append(tool)
        self.servers = {
            name: _Server(upstream, bound.get(name, []), self)
            for name, upstream in catalog.mcp_servers.items()
        }
        self._subscribers: list[Callable[[str], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._hosted = False  # the loop is a caller's (start(loop)), not a thread of ours
        self._tasks: set[asyncio.Task[Any]] = set()  # what the pool runs on its loop
        self._stopping: asyncio.Task[None] | None = None
        self._lock = threading.Lock()
        self._closed = False

    # -- the loop ----------------------------------------------------------------------

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The pool's event loop: the one :meth:`start` was given, else one started on
        first use, on a daemon thread."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the MCP upstream pool is closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="toolcat-mcp-upstreams", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def runs_on(self, loop: asyncio.AbstractEventLoop | None = None) -> bool:
        """Whether the sessions live on ``loop`` (default: the caller's running loop, if
        any): a call made there is awaited directly."""
        if loop is None:
            loop = _running_loop()
        return loop is not None and self._loop is loop

    def submit(self, coro: Coroutine[Any, Any, _T]) -> concurrent.futures.Future[_T]:
        """Run ``coro`` on the pool's loop (from any thread, that loop's included); a
        cancelled future cancels it there."""
        return asyncio.run_coroutine_threadsafe(self._tracked(coro), self.loop)

    def spawn(self, coro: Coroutine[Any, Any, _T], name: str | None = None) -> asyncio.Task[_T]:
        """A task of the pool's, on its loop (called there), closed with the pool. It runs
        in a context of its own: a session outlives the call that opened it, and carries
        none of that call's context variables."""
        loop = asyncio.get_running_loop()
        task = loop.create_task(coro, name=name, context=contextvars.Context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _tracked(self, coro: Coroutine[Any, Any, _T]) -> _T:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            return await coro
        finally:
            self._tasks.discard(task)

    # -- what callers read -------------------------------------------------------------

    def start(
        self, loop: asyncio.AbstractEventLoop | None = None
    ) -> list[concurrent.futures.Future[None]]:
        """Connect every upstream in the background, and start the health probes of
        replicas (``serve`` does; a call does it anyway). The futures end when each first
        connection (with its first listing and pin check) succeeded or failed.

        ``loop``, a running loop that outlives the pool (the MCP server's), runs the
        sessions instead of a thread of the pool's own, unless the pool's loop is already
        running. A sync ``execute`` on that loop's thread is then refused: it would wait
        for the loop it blocks. Close the pool there with :meth:`aclose`.
        """
        if loop is not None:
            with self._lock:
                if self._loop is None and not self._closed:
                    self._loop, self._hosted = loop, True
        warming: list[concurrent.futures.Future[None]] = []
        for server in self.servers.values():
            if not server.per_caller:  # no caller, no token to connect with: a call connects
                warming.extend(self.submit(link.warm()) for link in server.links)
            if server.prober is not None:
                self.loop.call_soon_threadsafe(server.prober.start)
        return warming

    def status(self) -> dict[str, UpstreamStatus]:
        """Every upstream's :class:`UpstreamStatus`, by server name."""
        out = {}
        for name, server in self.servers.items():
            links = server.all_links()  # with the sessions per caller, if any
            best = max(links, key=lambda link: _RANK[link.state])
            now = time.monotonic()
            out[name] = UpstreamStatus(
                state=best.state,
                error=next((link.error for link in links if link.error), None),
                restarts=sum(link.restarts for link in links),
                refused=dict(server.refused),
                protocol=best.protocol,
                down=tuple(dict.fromkeys(link.label for link in links if server.down(link, now))),
                replicas=server.replicas(now),
            )
        return out

    def offered(self, tool: ToolDefinition) -> bool:
        """Whether ``tool`` may be offered now: an HTTP tool always; a tool of an upstream
        once its pin was checked and not refused (``on_change: warn``/``accept`` offer it).
        A server whose sessions are per caller is checked at a caller's first call: its
        tools are offered until then."""
        command = tool.command
        if not isinstance(command, McpCommand):
            return True
        server = self.servers.get(command.server)
        if server is None:
            return False
        if not server.checked:  # a server reached with each caller's token is checked then
            return server.per_caller
        return tool.name not in server.refused

    def subscribe(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(server)`` (on the pool's loop) after a re-check changed what
        the server's tools offer, e.g. on its ``notifications/tools/list_changed``."""
        self._subscribers.append(callback)

    def changed(self, server: str) -> None:
        for callback in list(self._subscribers):
            try:
                callback(server)
            except Exception:  # a subscriber's bug must not stop the others
                log.exception("an MCP upstream subscriber failed")

    # -- closing -----------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every session (stdio servers are stopped), and the loop thread if the pool
        has its own. On the thread of a loop given to :meth:`start` the sessions stop
        once the caller yields to the loop; :meth:`aclose` waits for them."""
        loop, thread, hosted = self._closing()
        if loop is None:
            return
        if hosted and _running_loop() is loop:
            self._stopping = loop.create_task(self._stop_all(hosted))  # held until done
            return
        if loop.is_closed() or not loop.is_running():
            log.warning("the MCP upstreams' loop is not running: their sessions stop with it")
            return
        stopping = asyncio.run_coroutine_threadsafe(self._stop_all(hosted), loop)
        try:
            stopping.result(timeout=15)
        except (concurrent.futures.TimeoutError, Exception):  # noqa: BLE001 - closing anyway
            log.warning("some MCP upstreams did not stop in time")
        if hosted:
            return  # the loop is the caller's
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=5)
        if not loop.is_running():
            loop.close()

    async def aclose(self) -> None:
        if self._hosted and self._loop is asyncio.get_running_loop():
            loop, _, hosted = self._closing()
            if loop is not None:
                await self._stop_all(hosted)
            return
        await asyncio.to_thread(self.close)

    def _closing(self) -> tuple[asyncio.AbstractEventLoop | None, threading.Thread | None, bool]:
        with self._lock:
            found = self._loop, self._thread, self._hosted
            self._closed = True
            self._loop = self._thread = None
        return found

    async def _stop_all(self, hosted: bool) -> None:
        probers = [server.prober for server in self.servers.values() if server.prober]
        await asyncio.gather(*(prober.stop() for prober in probers))  # before they reconnect
        links = [link for server in self.servers.values() for link in server.all_links()]
        await asyncio.gather(*(link.stop() for link in links), return_exceptions=True)
        await asyncio.gather(*(close() for close in self._closers), return_exceptions=True)
        # what is still running (a call, a connect that never answers) ends now: on a loop
        # of the pool's own everything on it, on a caller's loop only the pool's tasks
        running = self._tasks if hosted else asyncio.all_tasks()
        rest = [t for t in running if t is not asyncio.current_task()]
        for task in rest:
            task.cancel()
        await asyncio.gather(*rest, return_exceptions=True)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


_RANK = {"ready": 4, "restarting": 3, "starting": 2, "failed": 1, "idle": 0}
