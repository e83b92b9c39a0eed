"""Reloads of the catalog served: ``--watch`` polls its files and loads an edit once the
files settle; a good edit is served, a broken one logged; clients hear that the tools
changed, also when an upstream MCP server's tools do."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.subscriptions import ToolsListChanged

from ._health import count_reload
from ._served import CatalogLoadFailed, Served
from ._upstreams import pool_of
from ._watch import open_for_writing, stamps, unchanged

if TYPE_CHECKING:
    from ._server import McpServer

__all__ = [
    "FIRST_LIST_SECONDS",
    "MAX_SETTLE",
    "first_connections",
    "notify_changed",
    "reload_catalog",
    "start_upstreams",
    "watch",
]

#: How long the first tools/list of a catalog waits for its upstreams' first connections.
FIRST_LIST_SECONDS = 5.0

log = logging.getLogger("toolcat.serve")

# The longest --watch waits for files to stop changing before it loads what is there.
MAX_SETTLE = 5.0


async def watch(server: McpServer) -> None:
    """Poll the catalog's files; reload on a change and notify clients on success.

    Each poll compares the files with the snapshot taken before the last
    load (see ``McpServer.load``), not after it: an edit that lands during a reload
    differs from that snapshot, so the next poll loads it.
    """
    server._current()
    while True:
        await anyio.sleep(server.poll_interval)
        if await anyio.to_thread.run_sync(server._changed):
            settled = await _settle(server)
            await reload_catalog(server, settled)


async def _settle(server: McpServer) -> dict[str, Any]:
    """Wait until the watched files stay unchanged (inode, size, mtime, ctime, and the
    content of a recently written one) for ``settle`` seconds, so an editor that
    writes in two steps or a slow copy is loaded once it is done, never half-way;
    give up waiting after ``MAX_SETTLE`` (a file rewritten without pause). Then wait
    while a process still holds a watched file open for writing (a writer that
    paused mid-file for longer than ``settle``), and load what is there."""
    seen = await anyio.to_thread.run_sync(lambda: stamps(server._watched()))
    if server.settle <= 0:
        return seen
    with anyio.move_on_after(max(MAX_SETTLE, 2 * server.settle)):
        while True:
            await anyio.sleep(server.settle)
            now = await anyio.to_thread.run_sync(lambda: stamps(server._watched()))
            if unchanged(seen, now):
                break
            seen = now
    return await _until_closed(server, seen)


async def _until_closed(server: McpServer, seen: dict[str, Any]) -> dict[str, Any]:
    """Wait while a process holds a watched file open for writing; the files as they
    are once none does (``seen`` when none did)."""
    told = False
    while writers := await anyio.to_thread.run_sync(lambda: open_for_writing(server._watched())):
        if not told:
            name, pid = next(iter(sorted(writers.items())))
            log.warning(
                "--watch: %s is open for writing (pid %d); loading it once closed", name, pid
            )
            told = True
        await anyio.sleep(server.settle)
    if not told:
        return seen
    return await anyio.to_thread.run_sync(lambda: stamps(server._watched()))


async def reload_catalog(server: McpServer, settled: dict[str, Any] | None) -> bool:
    """Reload; with ``settled`` (the files' stamps the watcher waited for), a load that
    fails while the files changed again is not a broken edit but a write still under
    way: nothing is reported and the next poll loads the files once they settle."""
    try:
        served = await anyio.to_thread.run_sync(server.load)
    except CatalogLoadFailed as exc:
        if settled is not None and await _moved(server, settled):
            log.info("the catalog changed while it was loaded; loading it again")
            return False
        log.error("reload failed, still serving the last good catalog: %s", exc)
        for diagnostic in exc.diagnostics:  # one record each: escaped, never a forged line
            log.error("  %s", str(diagnostic))
        server.failed_reloads += 1
        server.last_reload_error = str(exc)  # "the catalog has N error(s)": no file names
        count_reload(False)
        return False
    except Exception as exc:  # e.g. the toolset vanished: keep serving what works
        if settled is not None and await _moved(server, settled):
            log.info("the catalog changed while it was loaded; loading it again")
            return False
        log.error("reload failed, still serving the last good catalog: %s", exc)
        server.failed_reloads += 1
        server.last_reload_error = type(exc).__name__  # its text may name a toolset or tool
        count_reload(False)
        return False
    server.reloads += 1
    count_reload(True)
    server.last_reload_error = None
    log.warning("catalog reloaded: %d tools", len(served.listed))
    await server._close_idle_retired()
    start_upstreams(server, served)
    await notify_changed(server)
    return True


async def _moved(server: McpServer, settled: dict[str, Any]) -> bool:
    return not unchanged(settled, await anyio.to_thread.run_sync(lambda: stamps(server._watched())))


def start_upstreams(server: McpServer, served: Served) -> None:
    """Connect the catalog's upstream MCP servers in the background (nothing waits for
    them); clients hear of each change in what they offer."""
    pool = pool_of(served.executor)
    if pool is None or served.started:
        return
    served.started = True
    loop = asyncio.get_running_loop()

    def changed(upstream: str) -> None:  # on the pool's loop: this one, or its own thread
        if not loop.is_closed():
            loop.call_soon_threadsafe(_upstream_changed, server, upstream)

    pool.subscribe(changed)
    served.warming = pool.start(loop)  # the sessions live here: a call makes no thread hop


async def first_connections(served: Served, timeout: float = FIRST_LIST_SECONDS) -> None:
    """Wait for the upstreams' first connections, until ``timeout`` seconds after the first
    request that waited (requests that come meanwhile wait with it; later ones not at all):
    a client that lists the tools right after the handshake, and never again, sees the
    tools of upstreams that start in time. One that does not start in time is listed when
    it comes up (``notifications/tools/list_changed``)."""
    if not served.warming:
        return
    loop = asyncio.get_running_loop()
    if served.warm_until is None:
        served.warm_until = loop.time() + timeout
    left = served.warm_until - loop.time()
    pending = [f for f in served.warming if not f.done()]
    if left <= 0 or not pending:
        served.warming = []  # nothing is waited for again
        return
    await asyncio.wait([asyncio.wrap_future(f) for f in pending], timeout=left)


def _upstream_changed(server: McpServer, upstream: str) -> None:
    """An upstream came up, went or changed what it offers: tell the clients."""
    log.info("the tools offered from upstream %s changed; telling the clients", upstream)
    task = asyncio.get_running_loop().create_task(notify_changed(server))
    server._notifying.add(task)  # held until done: the loop keeps only a weak reference
    task.add_done_callback(server._notifying.discard)


async def notify_changed(server: McpServer) -> None:
    """Tell the clients the tools changed: 2026-07-28 listeners, handshake-era sessions."""
    await server._bus.publish(ToolsListChanged())
    for session in list(server._sessions):
        try:
            await session.send_tool_list_changed()
        except Exception as exc:  # a closed session: forget it
            log.debug("could not notify a session: %s", exc)
            server._sessions.discard(session)
