"""Connecting to one upstream MCP server: an entered SDK client, and its whole tool list.

:func:`open_client` resolves the entry's raw ``${VAR}`` strings against ``env`` and enters
an ``mcp.client.Client``: a stdio subprocess that gets only the entry's ``env`` plus
``PATH``, read by a bounded reader (``_stdio``), or streamable HTTP to one of its URLs.
``mode="auto"`` lets the SDK speak whichever protocol era the server answers. The
subprocess's stderr goes to toolcat's log, bounded (see :class:`StderrLog`).

:func:`list_all_tools` walks every page of ``tools/list``. The importer and the pool both use
these two, so what ``toolcat import mcp`` pins is what the runtime compares.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import select
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from toolcat.catalog import McpUpstream
from toolcat.catalog.common import escape_controls, interpolate
from toolcat.executor._redact import Redactor, is_sensitive_variable, secret_references

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_PAGES",
    "StderrLog",
    "describe",
    "first_leaf",
    "list_all_tools",
    "malformed",
    "open_client",
    "resolve_url",
    "stdio_environment",
    "stdio_secrets",
]

log = logging.getLogger("toolcat.mcp")

#: The most bytes of one message read from an upstream (a longer answer is refused).
MAX_MESSAGE_BYTES = 10_000_000

#: The most ``tools/list`` pages read from one server (a paginator that never ends stops).
MAX_PAGES = 1000

#: The most characters of one error's text that :func:`describe` keeps.
MAX_ERROR_CHARS = 300

# the parts of a listed tool the importer and the pins read; _meta, icons and execution
# hints are the server's business
_KEPT = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


async def list_all_tools(client: Any) -> list[dict[str, Any]]:
    """Every tool ``client`` lists, page by page, as MCP JSON (``inputSchema``, ...).

    Each tool keeps its name, title, description, input and output schema and
    annotations (``null`` fields left out); ``_meta`` and icons are dropped. A server
    whose cursors repeat or never end is read up to :data:`MAX_PAGES` pages.
    """
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        for tool in page.tools:
            listed = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
            tools.append({k: listed[k] for k in _KEPT if k in listed})
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return tools


def first_leaf(exc: BaseException) -> BaseException:
    """``exc``, or the first exception inside it where it is a group (the SDK's task groups
    wrap what failed)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """One line about ``exc``: the first leaf of an exception group, without a traceback.

    An answer the SDK found malformed (a pydantic ``ValidationError``, whose own text is
    several lines) is named with its first problem's place, so the server's author can
    find it.
    """
    from pydantic import ValidationError

    exc = first_leaf(exc)
    if isinstance(exc, FileNotFoundError | PermissionError) and exc.filename:
        return f"{exc.strerror}: {exc.filename}"
    if isinstance(exc, ValidationError):
        text = f"a malformed {exc.title} (not what the MCP schema allows): {malformed(exc)}"
    else:
        lines = str(exc).strip().splitlines()
        text = lines[0] if lines else type(exc).__name__
    if len(text) > MAX_ERROR_CHARS:
        text = text[:MAX_ERROR_CHARS] + "…"
    return text


def malformed(exc: Any) -> str:
    """A pydantic ``ValidationError`` in one line: its first problem, where it is, and how
    many there are.

    >>> from pydantic import TypeAdapter, ValidationError
    >>> try:
    ...     TypeAdapter(dict[str, list[int]]).validate_python({"a": [1, "x", "y"]})
    ... except ValidationError as exc:
    ...     print(malformed(exc))
    a.1: Input should be a valid integer, unable to parse string as an integer (and 1 more problem)
    """
    first = exc.errors(include_url=False, include_context=False, include_input=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "the answer"
    count = exc.error_count()
    more = f" (and {count - 1} more {'problem' if count == 2 else 'problems'})" if count > 1 else ""
    return f"{where}: {first['msg']}{more}"


def stdio_environment(upstream: McpUpstream, env: Mapping[str, str]) -> dict[str, str]:
    """The environment a stdio upstream runs with: its entry's ``env``, resolved against
    ``env``, plus ``PATH``."""
    where = f"mcp_servers.{upstream.name}.env"
    child_env = {k: interpolate(str(v), env, where=f"{where}.{k}") for k, v in upstream.env.items()}
    path = os.environ.get("PATH")
    if path is not None and "PATH" not in child_env:
        child_env["PATH"] = path
    return child_env


def stdio_secrets(upstream: McpUpstream, env: Mapping[str, str]) -> list[str]:
    """The values of a stdio upstream's environment that its results must not show: an
    entry whose name looks like a credential (``GITHUB_TOKEN``, ``DB_PASSWORD``), and each
    variable of toolcat's environment with such a name that an entry reads, the rule of
    ``${VAR}`` in the other fields (``resolve``'s)."""
    where = f"mcp_servers.{upstream.name}.env"
    found: list[str] = []
    for key, raw in upstream.env.items():
        secret = is_sensitive_variable(key)
        if secret:
            found.append(interpolate(str(raw), env, where=f"{where}.{key}"))
        found += [env[name] for name in secret_references(str(raw), secret=secret) if env.get(name)]
    return found


def resolve_url(upstream: McpUpstream, env: Mapping[str, str], index: int = 0) -> str:
    """The ``index``-th URL of an HTTP upstream, its ``${VAR}`` resolved."""
    return interpolate(upstream.urls[index], env, where=f"mcp_servers.{upstream.name}.url")


@asynccontextmanager
async def open_client(
    upstream: McpUpstream,
    *,
    env: Mapping[str, str],
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    mode: str = "auto",
    connect_timeout: float = 30.0,
    max_bytes: int = MAX_MESSAGE_BYTES,
    on_exit: Callable[[], None] | None = None,
    on_expired: Callable[[str | None], None] | None = None,
    **client_options: Any,
) -> AsyncIterator[Any]:
    """An entered ``mcp.client.Client`` of ``upstream`` (closed, and a stdio server
    stopped, on exit).

    >>> # async with open_client(upstream, env=os.environ) as client:
    >>> #     tools = await list_all_tools(client)

    ``env`` is what ``${VAR}`` reads (the command, its env and cwd, URLs, headers).
    ``url`` picks one replica of an HTTP upstream (default: its first URL, resolved);
    ``headers`` are sent on every HTTP request besides the entry's own (the pool puts
    the resolved auth there), ``auth`` is an ``httpx2.Auth`` (a token refreshed per
    request). ``client_options`` go to ``Client`` (``message_handler``,
    ``elicitation_callback``, ``read_timeout_seconds``, ...). No message over ``max_bytes``
    is read whole (stdio lines, SSE events). ``on_exit()`` is called when a stdio server
    exits on its own, ``on_expired(said)`` when an HTTP server answers a request of
    the session as one it no longer knows (404, or a 400 about the session: ``said`` is
    its error's message). ``mode`` is the SDK's:
    ``"auto"`` (either era) or ``"legacy"`` (the initialize handshake).

    Raises ``MissingVariableError`` for an unset variable, ``OSError`` for a command
    that cannot start, and what the SDK raises for a server that fails the handshake.
    """
    from mcp import Client

    where = f"mcp_servers.{upstream.name}"
    if upstream.stdio:
        from ._stdio import bounded_stdio

        argv = [interpolate(a, env, where=f"{where}.command") for a in upstream.command]
        child_env = stdio_environment(upstream, env)
        cwd = interpolate(upstream.cwd, env, where=f"{where}.cwd") if upstream.cwd else None
        # values the entry takes from toolcat's environment may be keys: masked in the log
        secrets = [child_env[k] for k, v in upstream.env.items() if "$" in str(v)]
        with StderrLog(upstream.name, Redactor(secrets)) as errlog:
            transport = bounded_stdio(
                argv,
                env=child_env,
                cwd=cwd,
                errlog=errlog.writer,
                max_bytes=max_bytes,
                on_exit=on_exit,
            )
            try:
                async with Client(transport, mode=mode, cache=None, **client_options) as client:
                    errlog.started()
                    yield client
            except Exception as exc:
                if errlog.connected:
                    raise
                # it failed to start: say what it said, at WARNING
                await asyncio.to_thread(errlog.report_failed_start)
                if _connection_closed(exc):  # the SDK says "Connection closed"
                    raise ConnectionError(
                        "the server exited before it answered; its stderr, in the log, says why"
                    ) from exc
                raise
        return

    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    target = url if url is not None else resolve_url(upstream, env)
    sent = {
        k: interpolate(str(v), env, where=f"{where}.headers.{k}")
        for k, v in upstream.headers.items()
    }
    sent.update(headers or {})
    timeout = httpx2.Timeout(connect_timeout, read=max(upstream.timeout, 300.0))
    from ._http import CappedTransport, refusal

    capped = CappedTransport(httpx2.AsyncHTTPTransport(), max_bytes, on_expired)
    entered = False
    async with httpx2.AsyncClient(
        headers=sent, timeout=timeout, transport=capped, auth=auth
    ) as http:
        transport = streamable_http_client(target, http_client=http, max_sse_event_size=max_bytes)
        try:
            async with Client(transport, mode=mode, cache=None, **client_options) as client:
                entered = True
                yield client
        except Exception as exc:
            if entered or capped.refused is None:
                raise
            # the SDK's stand-in for an HTTP error says neither the status nor what to do
            said = str(first_leaf(exc)).strip()
            raise ConnectionError(refusal(*capped.refused, said)) from exc


def _connection_closed(exc: BaseException) -> bool:
    """Whether ``exc`` (or the first leaf of its group) is the SDK's lost connection."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    exc = first_leaf(exc)
    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


class StderrLog:
    """A stdio upstream's stderr, read by a thread into toolcat's log (INFO), bounded.

    Each line is cut at :attr:`MAX_LINE` characters, with the entry's secret ``env``
    values masked; at most :attr:`MAX_RATE` lines a second are logged, and the number
    left out beyond that is logged at the next second with output, or after a quiet
    second. A server that fails to start has its last :attr:`TAIL` lines logged again
    at WARNING (:meth:`report_failed_start`): the reason is nearly always there. The
    thread ends when the server's end of the pipe closes.
    """

    MAX_LINE = 2000
    MAX_RATE = 20
    TAIL = 10

    def __init__(self, server: str, redactor: Redactor | None = None) -> None:
        self.server = server
        self.connected = False
        self._redactor = redactor or Redactor()
        self._tail: collections.deque[str] = collections.deque(maxlen=self.TAIL)
        read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "w")
        self._reader = os.fdopen(read_fd, "rb")
        self._second, self._logged, self._dropped = 0, 0, 0
        self._thread = threading.Thread(
            target=self._pump, name=f"toolcat-mcp-stderr-{server}", daemon=True
        )
        self._thread.start()

    def started(self) -> None:
        """The child holds its own copy of the pipe: close ours, so EOF comes when it exits."""
        self.connected = True
        self._close_writer()

    def report_failed_start(self, wait: float = 1.0) -> None:
        """Log the last lines the server wrote (waiting up to ``wait`` s for it to end)."""
        self._close_writer()
        self._thread.join(wait)
        lines = list(self._tail)
        if not lines:
            log.warning("MCP server %s wrote nothing to stderr before it failed", self.server)
        for line in lines:
            log.warning("MCP server %s, stderr: %s", self.server, line)

    def _close_writer(self) -> None:
        if not self.writer.closed:
            self.writer.close()

    def __enter__(self) -> StderrLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close_writer()

    def _pump(self) -> None:
        fd = self._reader.fileno()
        pending, skipping = b"", False
        with self._reader:
            while True:
                # a second without output ends a flood: say how much of it was dropped
                if not select.select([fd], [], [], 1.0)[0]:
                    self._report_dropped()
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    if skipping:  # the rest of a line already logged, cut
                        skipping = False
                        continue
                    self._line(line)
                if len(pending) > self.MAX_LINE * 4:
                    self._line(pending)
                    pending, skipping = b"", True
        if pending and not skipping:
            self._line(pending)
        self._report_dropped()

    def _line(self, line: bytes) -> None:
        now = int(time.monotonic())
        if now != self._second:
            self._report_dropped()
            self._second, self._logged = now, 0
        text = self._redactor(escape_controls(line.decode("utf-8", "replace").rstrip("\r")))
        if len(text) > self.MAX_LINE:
            text = text[: self.MAX_LINE] + "…"
        if not self.connected:
            self._tail.append(text)
        if self._logged >= self.MAX_RATE:
            self._dropped += 1
            return
        self._logged += 1
        log.info("MCP server %s, stderr: %s", self.server, text)

    def _report_dropped(self) -> None:
        if self._dropped:
            log.info(
                "MCP server %s: %d more stderr lines in that second not logged (at most %d a "
                "second are)",
                self.server,
                self._dropped,
                self.MAX_RATE,
            )
            self._dropped = 0
