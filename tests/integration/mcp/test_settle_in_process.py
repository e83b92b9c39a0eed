"""--watch waits for a write to settle: a file written in steps is never served half-way.
The server runs in process, polling real files; writers pause for less than the settle
interval, as an editor that writes in two steps or a slow copy does."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
import pytest
from toolcat.executor.mcp_server import McpServer
from toolcat.loader import LoadResult, load_catalog

HEAD = """\
toolcat: 1
services:
  svc: {base_url: "http://127.0.0.1:9"}
tools:
"""


def tool(name: str) -> str:
    return (
        f"  - name: {name}\n    description: Tool {name}.\n    service: svc\n"
        f"    method: GET\n    path: /{name}\n"
    )


OLD = HEAD + tool("a") + tool("b")
FINAL = HEAD + tool("a") + tool("b") + tool("c") + tool("d")
PARSES = HEAD + tool("a") + tool("b") + tool("c")  # a valid catalog, but only half the edit
BROKEN = FINAL[: FINAL.index("    method: GET\n    path: /c")]  # cut inside tool c

SETTLE = 1.0  # the writers below pause for 0.15 s at most: a wide margin on a busy machine
PAUSE = 0.15


def two_steps(path: Path) -> None:
    """An editor that truncates, then writes."""
    path.write_text("")
    time.sleep(PAUSE)
    path.write_text(FINAL)


def half_then_rest(first: str) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        with open(path, "w") as f:
            f.write(first)
            f.flush()
            time.sleep(PAUSE)
            f.write(FINAL[len(first) :])

    return write


def slow_copy(path: Path) -> None:
    """A copy that writes 16 chunks, 30 ms apart: longer in all than the poll interval."""
    with open(path, "w") as f:
        step = len(FINAL) // 16 + 1
        for start in range(0, len(FINAL), step):
            f.write(FINAL[start : start + step])
            f.flush()
            time.sleep(0.03)


@pytest.mark.parametrize(
    "writer",
    [two_steps, half_then_rest(BROKEN), half_then_rest(PARSES), slow_copy],
    ids=["two-steps", "half-broken", "half-that-parses", "slow-copy"],
)
def test_a_write_in_steps_is_served_only_once_it_is_whole(
    tmp_path: Path, writer: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(OLD)
    loaded: list[list[str]] = []  # the tools of every catalog a load produced

    def loader(paths: Sequence[str]) -> LoadResult:
        result = load_catalog(paths, progress=False)
        if result.catalog is not None:
            loaded.append([t.name for t in result.catalog])
        return result

    server = McpServer([str(catalog)], watch=True, poll_interval=0.02, settle=SETTLE, loader=loader)
    server.load()
    served: list[list[str]] = []

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.watch_files)

            async def observe() -> None:
                while True:
                    served.append([t["name"] for t in server.tools])
                    await anyio.sleep(0.005)

            tg.start_soon(observe)
            await anyio.to_thread.run_sync(writer, catalog)
            with anyio.fail_after(30):
                while server.reloads < 1:
                    await anyio.sleep(0.01)
            await anyio.sleep(SETTLE + 0.2)  # a second reload, if any, would land by now
            tg.cancel_scope.cancel()
        await server.aclose()

    with caplog.at_level(logging.INFO, logger="toolcat.serve"):
        anyio.run(scenario)
    old, final = ["a", "b"], ["a", "b", "c", "d"]
    assert all(names in (old, final) for names in loaded), loaded
    assert all(names in (old, final) for names in served), {tuple(n) for n in served}
    assert served[-1] == final
    assert server.reloads == 1 and server.failed_reloads == 0
    assert "reload failed" not in caplog.text


def test_a_broken_edit_that_settles_is_still_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(OLD)
    server = McpServer([str(catalog)], watch=True, poll_interval=0.02, settle=0.1)
    server.load()

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.watch_files)
            catalog.write_text(BROKEN)
            with anyio.fail_after(30):
                while not server.failed_reloads:
                    await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
        await server.aclose()

    with caplog.at_level(logging.ERROR, logger="toolcat.serve"):
        anyio.run(scenario)
    assert "reload failed, still serving the last good catalog" in caplog.text
    assert [t["name"] for t in server.tools] == ["a", "b"]


def test_a_fifo_in_a_watched_folder_never_blocks_the_watcher(tmp_path: Path) -> None:
    """A FIFO named like a catalog file: the watcher reads files only through the loader's
    regular-file reader, so it is refused unopened instead of blocking forever."""
    import os
    import threading

    if not hasattr(os, "mkfifo"):
        pytest.skip("needs os.mkfifo")
    (tmp_path / "catalog.yaml").write_text(OLD)
    os.mkfifo(tmp_path / "extra.yaml")  # no writer: an open() for reading would block
    server = McpServer([str(tmp_path)], watch=True, poll_interval=0.02, settle=0.05)
    done: list[bool] = []

    def run() -> None:
        server.load()  # snapshots the watched files, the FIFO among them, before loading

        async def scenario() -> None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.watch_files)
                (tmp_path / "catalog.yaml").write_text(FINAL)
                with anyio.fail_after(20):
                    while server.reloads < 1:
                        await anyio.sleep(0.01)
                tg.cancel_scope.cancel()
            await server.aclose()

        anyio.run(scenario)
        done.append(True)

    worker = threading.Thread(target=run, daemon=True)  # a blocked open() cannot be cancelled
    worker.start()
    worker.join(30)
    assert done == [True], "the watcher blocked on the FIFO"
    assert [t["name"] for t in server.tools] == ["a", "b", "c", "d"]
