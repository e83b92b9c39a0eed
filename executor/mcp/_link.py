"""One session with one endpoint of an upstream (its stdio command, or one of its URLs).

Runs on the pool's loop. A runner task owns the SDK client (an anyio context must be left
by the task that entered it): it connects, lists the tools, checks their pins, says it is
ready, and waits until the session is stopped. Calls use the client from their own tasks.
A failed connect waits a growing time before the next attempt (0.5 s doubling to 30 s);
a session that dies mid-call is reopened by the next call at once. A session an HTTP
server no longer knows (it answers 404: it restarted, or ended the session) is reopened at
once, and a call the 404 answered is sent again on the new session, once: the server did
not take it. The health probes of replicas (``_probe``) connect with
:meth:`Link.reconnect`, on their own schedule.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from toolcat.catalog import McpCommand, MissingVariableError, ToolDefinition
from toolcat.executor._calls import CallStopped, ToolError
from toolcat.executor._identity import ToolContext

from ._connect import (
    describe,
    list_all_tools,
    malformed,
    open_client,
    resolve_url,
    stdio_secrets,
)
from ._hooks import CallHooks, on_caller, progress_callback
from ._stdio import ASK_FOR_LESS, RESPONSE_TOO_LARGE, UNREADABLE_RESPONSE

if TYPE_CHECKING:
    from ._pool import UpstreamPool, UpstreamState, _Server

__all__ = ["Link", "NotSent"]

log = logging.getLogger("toolcat.mcp")

# what the SDK's SSE reader and the capped JSON body (_connect) say of an answer too large
_OVER_LIMIT = "byte limit"
_BACKOFF_START = 0.5
_BACKOFF_MAX = 30.0
_DOWN_MIN = 10.0  # seconds a replica that failed to connect is marked down at least
# the hooks of the call this task runs (2026-era input requests run in the call's task)
_CALL: ContextVar[CallHooks | None] = ContextVar("toolcat_mcp_link_call", default=None)


class NotSent(CallStopped):
    """A call stopped before its request left: the upstream cannot have received it."""


class _SessionExpired(NotSent):
    """The HTTP server answered the call (or the listing before it) with 404: it no
    longer knows the session, and did not take the request. :meth:`Link.call` sends it
    again on a new session."""


class Link:
    """The session with one endpoint; its state is read by ``UpstreamPool.status``."""

    def __init__(
        self, server: _Server, pool: UpstreamPool, index: int, caller: ToolContext | None = None
    ) -> None:
        self.server = server
        self.caller = caller  # the caller whose token this session carries (per-caller auth)
        self.secrets: list[str] = []  # the credentials this session sends
        self.pool = pool
        self.index = index
        upstream = server.upstream
        self.name = upstream.name
        self.label = upstream.urls[index] if not upstream.stdio else upstream.name
        self.shown = upstream.name if upstream.stdio else f"{upstream.name} ({self.label})"
        self.state: UpstreamState = "idle"
        self.error: str | None = None
        self.restarts = 0
        self.protocol: str | None = None
        self.down_until = 0.0  # monotonic: a failed endpoint is tried last until then
        self.client: Any = None
        self.live: dict[str, dict[str, Any]] = {}
        self.refused: dict[str, str] = {}  # the pin check of this session's listing
        self._runner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._expired: asyncio.Event | None = None  # the stop of a session the server forgot
        self._expired_said: str | None = None  # the error its 400 gave the request, if any
        self._lock: asyncio.Lock | None = None
        self._failures = 0
        self._retry_at = 0.0
        self._listed_at = 0.0
        self._inflight: dict[int, tuple[CallHooks, asyncio.AbstractEventLoop | None]] = {}
        self._relist: asyncio.Task[None] | None = None
        self._noise = 0  # lines from the upstream that were not JSON-RPC

    # -- the session ------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.client is not None and self._runner is not None and not self._runner.done()

    @property
    def listed(self) -> bool:
        """Whether this session has listed the server's tools (its pins were checked)."""
        return self._listed_at > 0

    @property
    def busy(self) -> bool:
        """Whether a call is running on this session (a health probe leaves it open then)."""
        return bool(self._inflight)

    async def warm(self) -> None:
        """Connect now if not connected (``UpstreamPool.start``). A failure stays in the
        status, and a server with one endpoint is tried again in the background, with
        the same growing wait, until it answers: its tools are listed once it does (a
        server with replicas has its probes for that)."""
        try:
            await self.session()
        except CallStopped:
            if self.server.prober is None:
                self.pool.spawn(self._until_up(), f"toolcat-mcp-retry-{self.name}")

    async def _until_up(self) -> None:
        attempts = 1
        while not self.alive:
            await asyncio.sleep(max(self._retry_at - time.monotonic(), _BACKOFF_START))
            attempts += 1
            try:  # quietly: the first failure was logged
                if await self.reconnect(self.pool.connect_timeout) and self.alive:
                    log.warning("MCP server %s: connected, after %d attempts", self.shown, attempts)
            except CallStopped:
                continue

    async def session(self) -> Any:
        """The connected client, connecting first if needed (one connect at a time)."""
        self._forgotten(self._stop)
        if self.alive:
            return self.client
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.alive:
                return self.client
            wait = self._retry_at - time.monotonic()
            if wait > 0:
                raise NotSent(
                    ToolError(
                        "unavailable",
                        f"MCP server {self.name!r} is unavailable ({self.error}); "
                        f"the next attempt to reach it is in {wait:.1f} s",
                    )
                )
            return await self._open()

    async def reconnect(self, timeout: float) -> bool:
        """Connect now for a health probe, within ``timeout`` and whatever the wait after a
        failed attempt (the probe paces itself), logging no failure (the probe logs the
        replica's changes). False when a connect is already running (a call's): it decides.
        Raises ``CallStopped`` when the connect fails (``error`` says why)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        if self._lock.locked():
            return False
        async with self._lock:
            if not self.alive:
                await self._open(timeout, quiet=True)
        return True

    async def _open(self, timeout: float | None = None, *, quiet: bool = False) -> Any:
        self.state = "restarting" if self.restarts or self._failures else "starting"
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        stop = asyncio.Event()
        self._stop = stop
        self._runner = self.pool.spawn(self._run(ready, stop), f"toolcat-mcp-{self.name}")
        if timeout is None:
            timeout = self.pool.connect_timeout
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except TimeoutError:
            self._runner.cancel()
            ready.add_done_callback(_consume)
            raise self._failed(f"it did not answer within {timeout:g} s", quiet) from None
        except MissingVariableError as exc:
            self.state, self.error = "failed", str(exc)
            raise NotSent(ToolError("missing_variable", str(exc))) from None
        except CallStopped as exc:  # the auth could not be resolved (a token, a policy)
            self.state, self.error = "failed", exc.error.msg
            raise NotSent(exc.error) from None
        except Exception as exc:
            raise self._failed(describe(exc), quiet) from None
        self._failures, self._retry_at, self.down_until, self.error = 0, 0.0, 0.0, None
        return self.client

    def _failed(self, why: str, quiet: bool = False) -> NotSent:
        """Note a failed connect (and when to try again); the error for the call."""
        self._failures += 1
        wait = min(_BACKOFF_MAX, _BACKOFF_START * 2 ** (self._failures - 1))
        now = time.monotonic()
        self._retry_at = now + wait
        # a replica that failed is tried after the others for a while (they answer meanwhile)
        self.down_until = now + max(wait, _DOWN_MIN if self.server.count > 1 else 0.0)
        self.state, self.error = "failed", why
        if not quiet:
            log.warning("MCP server %s: cannot connect: %s", self.shown, why)
        return NotSent(ToolError("unavailable", f"MCP server {self.name!r} is unavailable: {why}"))

    async def _run(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        pool, upstream = self.pool, self.server.upstream
        try:
            url = headers = auth = None
            if upstream.stdio:  # what the server's results may echo of its environment
                self.secrets = stdio_secrets(upstream, pool.env)
            else:
                url = resolve_url(upstream, pool.env, self.index)
                if pool.credentials is not None:
                    given = await pool.credentials(upstream, pool.env, url, self.caller)
                    headers, auth, self.secrets = given.headers, given.auth, given.secrets
            async with open_client(
                upstream,
                env=pool.env,
                url=url,
                headers=headers,
                auth=auth,
                connect_timeout=pool.connect_timeout,
                max_bytes=pool.max_bytes,
                mode=pool.mode,
                on_exit=lambda: self._exited(stop),
                on_expired=lambda said: self._expire(stop, said),
                message_handler=self._on_message,
                elicitation_callback=self._elicit,
            ) as client:
                self.protocol = client.protocol_version
                await self._list(client)
                self.client = client
                self.state = "ready"
                ready.set_result(client)
                listening = self.pool.spawn(self._listen(client))
                try:
                    await stop.wait()
                finally:
                    listening.cancel()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not stop.is_set():  # else a call found it broken, and said so
                log.warning("MCP server %s: the session ended: %s", self.shown, describe(exc))
        finally:
            if self._stop is stop:
                self.client = None

    def _exited(self, stop: asyncio.Event) -> None:
        """A stdio server exited while its session was open: the next call starts it again
        (instead of finding the session dead)."""
        if self._stop is stop and not stop.is_set():
            self.broken("the server exited")

    def _expire(self, stop: asyncio.Event, said: str | None) -> None:
        """An HTTP server answered a request of this session as one it no longer knows
        (404, or a 400 that says ``said`` about the session). The next call opens a new
        session (MCP: the client starts a new one)."""
        if self._stop is stop and not stop.is_set():
            self._expired, self._expired_said = stop, said

    def _forgotten(self, stop: asyncio.Event | None) -> bool:
        """Whether the server no longer knows the session ``stop`` ends; if so it is ended."""
        if stop is None or self._expired is not stop:
            return False
        if self._stop is stop:  # else another call already opened the next one
            self.broken("the server no longer knows the session (it restarted?)")
        return True

    def broken(self, why: str) -> None:
        """The session died under a call: the next call reopens it."""
        if self._stop is not None and self.client is not None:
            self.restarts += 1
            log.warning("MCP server %s: the session ended: %s", self.shown, why)
        self.client = None
        self.state, self.error = "restarting", why
        if self._stop is not None:
            self._stop.set()

    async def stop(self) -> None:
        """End the session (a stdio server is stopped, within the SDK's bounded shutdown)."""
        runner = self._runner
        if self._stop is not None:
            self._stop.set()
        if runner is not None and not runner.done():
            if self.client is None:  # still connecting: nothing to close gracefully
                runner.cancel()
            try:
                await asyncio.wait_for(runner, 10)
            except (TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001
                runner.cancel()
        self.client, self.state = None, "idle"

    # -- tools and pins ------------------------------------------------------------------

    async def _list(self, client: Any) -> None:
        tools = await list_all_tools(client)
        live: dict[str, dict[str, Any]] = {}
        twice: set[str] = set()  # names listed again with another definition
        for tool in tools:
            name = tool.get("name")
            if isinstance(name, str):
                if live.get(name, tool) != tool:
                    twice.add(name)
                live[name] = tool
        self.live = live
        self._listed_at = time.monotonic()
        self.server.recheck(self, live, twice)

    async def fresh(self, client: Any) -> None:
        """Re-list first when the last listing is older than the pool's ``relist_after``."""
        if time.monotonic() - self._listed_at < self.pool.relist_after:
            return
        await asyncio.wait_for(self._list(client), self.pool.connect_timeout)

    async def _on_message(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, types.ToolListChangedNotification):
            if self._relist is None or self._relist.done():
                self._relist = self.pool.spawn(self._relisted())
        elif isinstance(message, Exception):
            self._noise += 1  # the first few, then one in a thousand: a flood stays bounded
            if self._noise > 5 and self._noise % 1000:
                return
            log.warning(
                "MCP server %s: a message that is not JSON-RPC: %s",
                self.shown,
                describe(message),
            )

    async def _listen(self, client: Any) -> None:
        """2026-07-28 sessions hear of changes on ``subscriptions/listen``, not as
        notifications on the session: the same re-check follows each event."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _ in events:
                    await self._relisted()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a server without the method: pins are re-checked by calls
            log.info("MCP server %s: no change stream (%s)", self.name, describe(exc))

    async def _relisted(self) -> None:
        client = self.client
        if client is None:
            return
        try:
            await asyncio.wait_for(self._list(client), self.pool.connect_timeout)
        except Exception as exc:  # the next call re-lists anyway
            log.warning("MCP server %s: re-listing its tools failed: %s", self.name, describe(exc))

    # -- calls -----------------------------------------------------------------------------

    async def call(
        self,
        tool: ToolDefinition,
        arguments: dict[str, Any],
        timeout: float,
        hooks: CallHooks | None,
        caller: asyncio.AbstractEventLoop | None,
    ) -> Any:
        """``tools/call`` on this session: the SDK's ``CallToolResult``, or ``CallStopped``.

        A call the server answered 404 (it no longer knows the session) is sent once more,
        on a new session: the server did not take it."""
        try:
            return await self._call(tool, arguments, timeout, hooks, caller)
        except _SessionExpired:
            return await self._call(tool, arguments, timeout, hooks, caller)

    async def _call(
        self,
        tool: ToolDefinition,
        arguments: dict[str, Any],
        timeout: float,
        hooks: CallHooks | None,
        caller: asyncio.AbstractEventLoop | None,
    ) -> Any:
        assert isinstance(tool.command, McpCommand)
        command = tool.command
        client = await self.session()
        stop = self._stop
        try:
            await self.fresh(client)
        except Exception as exc:
            if self._forgotten(stop):
                raise _SessionExpired(_not_known(self.name)) from None
            self.broken(describe(exc))
            raise NotSent(
                ToolError(
                    "unavailable",
                    f"MCP server {self.name!r} did not list its tools: {describe(exc)}",
                )
            ) from None
        refused = self.refused.get(tool.name)  # this replica's own listing
        if refused is not None:
            raise NotSent(
                ToolError(
                    "tool_changed",
                    f"{tool.name} is not offered: {refused}; re-import the server's tools "
                    "and review the change",
                )
            )
        key = id(asyncio.current_task())
        self._inflight[key] = (hooks or CallHooks(), caller)
        token = _CALL.set(hooks)
        progress = progress_callback(hooks, caller)
        try:
            # a deadline on this task (wait_for would run the call in a task of its own)
            async with asyncio.timeout(timeout):
                return await client.call_tool(command.tool, arguments, progress_callback=progress)
        except TimeoutError:
            raise CallStopped(
                ToolError(
                    "timeout",
                    f"MCP server {self.name!r} did not answer {command.tool!r} within "
                    f"{timeout:g} s; the call was cancelled upstream",
                )
            ) from None
        except Exception as exc:
            raise self._stopped(exc, command.tool, stop) from None
        finally:
            _CALL.reset(token)
            self._inflight.pop(key, None)

    def _stopped(self, exc: Exception, tool: str, stop: asyncio.Event | None) -> Exception:
        """What a failed ``tools/call`` on the session ``stop`` ends becomes: a session
        the server no longer knows (the error is its 404), a session that ended (reopened
        by the next call), an error the upstream sent, a malformed result; else ``exc``."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, PARSE_ERROR
        from pydantic import ValidationError

        name = self.name
        # the answer to a request of a session the server forgot is its 404 or 400 (it did
        # not take the call); a lost connection is not: the call may have reached it before.
        # (A 400's error may carry -32000, the SDK's code for a lost connection, as the
        # TypeScript SDK's example server sends it: its message tells them apart.)
        if isinstance(exc, MCPError) and (
            exc.code != CONNECTION_CLOSED
            or (self._expired is stop and exc.message == self._expired_said)
        ):
            if self._forgotten(stop):
                return _SessionExpired(_not_known(name))
        too_large = (
            f"MCP server {name!r} answered {tool!r} with more than {self.pool.max_bytes} bytes"
            + ASK_FOR_LESS
        )
        if isinstance(exc, MCPError) and exc.code == UNREADABLE_RESPONSE:  # over stdio
            text = f"MCP server {name!r} answered {tool!r} with {describe(exc)}"
            return CallStopped(ToolError("invalid_response", text))
        if isinstance(exc, MCPError) and exc.code == RESPONSE_TOO_LARGE:
            text = f"MCP server {name!r} answered {tool!r}: {describe(exc)}{ASK_FOR_LESS}"
            return CallStopped(ToolError("response_too_large", text))
        if isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED and _OVER_LIMIT in str(exc):
            return CallStopped(ToolError("response_too_large", too_large))
        if isinstance(exc, MCPError) and exc.code == PARSE_ERROR:  # the SDK's own, over HTTP
            text = (
                f"MCP server {name!r} answered {tool!r} with an answer that is not valid "
                f"JSON-RPC ({describe(exc)})"
            )
            return CallStopped(ToolError("invalid_response", text))
        if isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED:
            text = f"MCP server {name!r} answered with an error: {describe(exc)}"
            return CallStopped(ToolError("upstream_error", text))
        if isinstance(exc, ValidationError):
            text = (
                f"MCP server {name!r} answered {tool!r} with a malformed result: {malformed(exc)}"
            )
            return CallStopped(ToolError("invalid_response", text))
        if isinstance(exc, MCPError | ConnectionError | OSError | EOFError) or _closed(exc):
            self.broken(describe(exc))
            if _OVER_LIMIT in str(exc):  # an HTTP answer over the bound (an SSE event, a body)
                return CallStopped(ToolError("response_too_large", too_large))
            return CallStopped(_ended(name, self.server.upstream.stdio))
        return exc

    async def _elicit(self, context: Any, params: Any) -> Any:
        """An upstream's elicitation: to the hooks of the call it belongs to, else declined."""
        import mcp_types as types

        hooks = _CALL.get()
        caller = None
        if hooks is None or hooks.elicit is None:
            waiting = [(h, c) for h, c in self._inflight.values() if h.elicit is not None]
            hooks, caller = waiting[0] if len(waiting) == 1 else (None, None)
        else:
            caller = next((c for h, c in self._inflight.values() if h is hooks), None)
        if hooks is None or hooks.elicit is None:
            return types.ElicitResult(action="decline")
        return await on_caller(hooks.elicit(params), caller)


def _not_known(name: str) -> ToolError:
    return ToolError(
        "unavailable",
        f"MCP server {name!r} no longer knows the session (it restarted, or ended the "
        "session); it did not take the call, and a new session could not take it either",
    )


def _ended(name: str, stdio: bool) -> ToolError:
    again = "restarted" if stdio else "reconnected"
    return ToolError(
        "unavailable",
        f"the session with MCP server {name!r} ended during the call; the service may have "
        f"received it. It is {again} on the next call",
    )


def _closed(exc: BaseException) -> bool:
    import anyio

    return isinstance(
        exc, anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream
    )


def _consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
