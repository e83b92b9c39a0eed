"""--watch never serves a file that a writer still holds open, however long it pauses: a
separate process writes half a catalog (a valid one), pauses for several settle intervals,
then finishes; the server, polling the real file in process, serves the old catalog or the
final one, never the half."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
from toolcat.executor.mcp_server import McpServer, McpServerSettings
from toolcat.executor.mcp_server._watch import open_for_writing
from toolcat.loader import LoadResult, load_catalog

from .test_settle_in_process import FINAL, OLD, PARSES

SETTLE = 0.2
PAUSE = 2.0  # ten settle intervals: polling alone would load the half

WRITER = """\
import sys, time
half, rest, pause = sys.argv[2], sys.argv[3], float(sys.argv[4])
with open(sys.argv[1], "w") as f:
    f.write(half)
    f.flush()
    print("half", flush=True)
    time.sleep(pause)
    f.write(rest)
"""

linux = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")


@linux
def test_a_writer_that_pauses_past_settle_is_waited_for(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(OLD)
    loaded: list[list[str]] = []  # the tools of every catalog a load produced

    def loader(paths: Sequence[str]) -> LoadResult:
        result = load_catalog(paths, progress=False)
        if result.catalog is not None:
            loaded.append([t.name for t in result.catalog])
        return result

    server = McpServer(
        [str(catalog)],
        McpServerSettings(watch=True, poll_interval=0.02, settle=SETTLE, loader=loader),
    )
    server.load()
    served: list[list[str]] = []
    half_written_at: list[float] = []

    def write() -> None:
        args = [str(catalog), PARSES, FINAL[len(PARSES) :], str(PAUSE)]
        with subprocess.Popen(
            [sys.executable, "-c", WRITER, *args], stdout=subprocess.PIPE, text=True
        ) as proc:
            assert proc.stdout is not None and proc.stdout.readline() == "half\n"
            half_written_at.append(time.monotonic())
            assert proc.wait(30) == 0

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.watch_files)

            async def observe() -> None:
                while True:
                    served.append([t["name"] for t in server.tools])
                    await anyio.sleep(0.005)

            tg.start_soon(observe)
            await anyio.to_thread.run_sync(write)
            with anyio.fail_after(30):
                while server.reloads < 1:
                    await anyio.sleep(0.01)
            await anyio.sleep(4 * SETTLE)  # a second reload, if any, would land by now
            tg.cancel_scope.cancel()
        await server.aclose()

    anyio.run(scenario)
    old, final = ["a", "b"], ["a", "b", "c", "d"]
    assert loaded[1:] == [final], loaded  # the start, then the finished file only
    assert all(names in (old, final) for names in served), {tuple(n) for n in served}
    assert served[-1] == final
    assert server.reloads == 1 and server.failed_reloads == 0


@linux
def test_open_for_writing_sees_writers_only(tmp_path: Path) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(OLD)
    other = tmp_path / "other.yaml"
    other.write_text(OLD)
    assert open_for_writing([str(path)]) == {}
    with open(path) as _reader:
        assert open_for_writing([str(path)]) == {}  # readers never hold a load back
    with open(path, "a") as _appender, open(other, "r+") as _updater:
        found = open_for_writing([str(path), str(other), str(tmp_path / "gone.yaml")])
        assert found == {str(path): os.getpid(), str(other): os.getpid()}
    assert open_for_writing([str(path), str(other)]) == {}
