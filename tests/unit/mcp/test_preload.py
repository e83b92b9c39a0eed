"""PendingLoad: serve's first load, begun before the MCP SDK's import (in a forked child
where that helps). Whatever happens in the child, the caller gets what a load here gives:
the same result, or the loader's own exception; an edit made during the load is still
served by the first poll."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from toolcat.executor.mcp_server import McpServer, McpServerSettings, PendingLoad
from toolcat.executor.mcp_server import _preload as preload_module
from toolcat.loader import LoadResult, load_catalog

from .test_watch import ONE_TOOL, until

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo"

forking = pytest.mark.skipif(sys.platform != "linux", reason="PendingLoad forks on Linux only")


def load(paths: Sequence[str]) -> LoadResult:
    return load_catalog(paths, progress=False)


@forking
def test_the_childs_result_is_the_result_of_a_load_here() -> None:
    with PendingLoad([str(DEMO)], load, fork=True) as pending:
        assert pending.forked
        result = pending.result()
    here = load([str(DEMO)])
    assert result.catalog is not None and here.catalog is not None
    assert list(result.catalog) == list(here.catalog)
    assert result.catalog.services == here.catalog.services
    assert result.files == here.files and result.diagnostics == here.diagnostics


@forking
def test_a_catalog_with_errors_comes_back_with_its_diagnostics(tmp_path: Path) -> None:
    broken = tmp_path / "catalog.yaml"
    broken.write_text("toolcat: 1\ntools:\n  - name: x\n    method: GET\n")
    with PendingLoad([str(broken)], load, fork=True) as pending:
        result = pending.result()
    assert result.catalog is None
    assert result.diagnostics == load([str(broken)]).diagnostics
    assert any(d.severity == "error" for d in result.diagnostics)


class _Refused(Exception):
    pass


@forking
def test_a_loader_that_raises_in_the_child_raises_here_itself() -> None:
    """Only a result crosses the pipe: the parent runs the loader once more and its own
    exception, traceback and all, is what the caller sees."""
    calls: list[int] = []  # the child's append stays in the child

    def refusing(paths: Sequence[str]) -> LoadResult:
        calls.append(os.getpid())
        raise _Refused("no such catalog")

    with PendingLoad([str(DEMO)], refusing, fork=True) as pending:
        with pytest.raises(_Refused, match="no such catalog"):
            pending.result()
    assert calls == [os.getpid()]


@forking
def test_a_result_that_cannot_be_pickled_is_loaded_here() -> None:
    calls: list[int] = []

    def unpicklable(paths: Sequence[str]) -> Any:
        calls.append(os.getpid())
        return {"result": load(paths), "callback": lambda: None}  # a lambda cannot pickle

    with PendingLoad([str(DEMO)], unpicklable, fork=True) as pending:
        result: Any = pending.result()
    assert calls == [os.getpid()]  # loaded here once, after the child's pickle failed
    assert result["result"].catalog is not None


@forking
def test_close_stops_a_child_that_is_still_loading(tmp_path: Path) -> None:
    started = tmp_path / "child.pid"

    def slow(paths: Sequence[str]) -> LoadResult:
        started.write_text(str(os.getpid()))
        signal.pause()  # until killed
        raise AssertionError("not reached")

    pending = PendingLoad([str(DEMO)], slow, fork=True)
    while not started.exists() or not started.read_text():
        threading.Event().wait(0.01)
    pid = int(started.read_text())
    pending.close()
    pending.close()  # twice is fine
    with pytest.raises(ProcessLookupError):  # stopped and reaped: no such process left
        os.kill(pid, 0)


def test_without_a_second_core_or_with_threads_running_it_loads_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(preload_module, "_cores", lambda: 1)
    with PendingLoad([str(DEMO)], load) as pending:
        assert not pending.forked
        assert pending.result().catalog is not None
    monkeypatch.setattr(preload_module, "_cores", lambda: 2)
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    with PendingLoad([str(DEMO)], load) as pending:
        assert not pending.forked
    with PendingLoad([str(DEMO)], load, fork=False) as pending:
        assert not pending.forked
        assert pending.result().catalog is not None


def test_a_server_takes_only_a_pending_load_of_its_own_paths(tmp_path: Path) -> None:
    server = McpServer([str(DEMO)], McpServerSettings(loader=load))
    with PendingLoad([str(tmp_path)], load, fork=False) as other:
        with pytest.raises(ValueError, match="other PATHs"):
            server.load(other)


@pytest.mark.parametrize("fork", [False, pytest.param(True, marks=forking)])
def test_an_edit_made_during_the_first_load_is_served_by_the_first_poll(
    tmp_path: Path, fork: bool
) -> None:
    """The snapshot is taken before the (child's) load reads the file, so an edit that
    lands after the read, before the server starts, differs from it."""
    catalog = tmp_path / "catalog.yaml"
    for i in range(20):
        catalog.write_text(ONE_TOOL.format(version=f"t{i:02d}"))
        edit = ONE_TOOL.format(version=f"e{i:02d}")  # the same size: only content differs

        def editing(paths: Sequence[str], edit: str = edit) -> LoadResult:
            result = load(paths)
            catalog.write_text(edit)  # read, not yet served
            return result

        server = McpServer(
            [str(catalog)], McpServerSettings(watch=True, poll_interval=0.005, loader=load)
        )
        with PendingLoad([str(catalog)], editing, fork=fork) as pending:
            server.load(pending)
        assert server.tools[0]["description"] == f"Version t{i:02d}."

        async def scenario(server: McpServer = server, i: int = i) -> None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.watch_files)
                await until(
                    lambda: server.tools[0]["description"] == f"Version e{i:02d}.", f"edit {i}"
                )
                tg.cancel_scope.cancel()
            await server.aclose()

        anyio.run(scenario)
