"""--watch in process, polling real files: spec edits reload too; a broken edit keeps the
last good catalog; an edit made while a reload runs is served by the next poll."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
import pytest
from toolcat.executor.mcp_server import CatalogLoadFailed, McpServer
from toolcat.loader import LoadResult, load_catalog

SPEC = """\
openapi: 3.1.0
info: {title: t, version: "1"}
servers: [{url: "http://127.0.0.1:9"}]
paths:
  /a:
    get:
      operationId: getA
      responses: {"200": {description: ok}}
"""

CATALOG = """\
toolcat: 1
services:
  svc: {base_url: "http://127.0.0.1:9"}
openapi:
  - spec: spec.yaml
    service: svc
"""

ONE_TOOL = """\
toolcat: 1
services:
  svc: {{base_url: "http://127.0.0.1:9"}}
tools:
  - name: get_a
    description: Version {version}.
    service: svc
    method: GET
    path: /a
"""


def names(server: McpServer) -> list[str]:
    return sorted(t["name"] for t in server.tools)


def backdate(*paths: Path) -> None:
    """Files written long before the server starts: their stat alone is trusted."""
    old = time.time() - 3600
    for path in paths:
        os.utime(path, (old, old))


async def until(condition: Callable[[], object], what: str, timeout: float = 20) -> None:
    """Wait for the watcher, however loaded the machine is."""
    try:
        with anyio.fail_after(timeout):
            while not condition():
                await anyio.sleep(0.01)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


def test_spec_edits_reload_and_broken_edits_keep_the_last_good(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "catalog.yaml").write_text(CATALOG)
    server = McpServer([str(tmp_path / "catalog.yaml")], watch=True, poll_interval=0.02)
    server.load()
    assert names(server) == ["getA"]

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.watch_files)
            (tmp_path / "spec.yaml").write_text(
                SPEC.replace("      responses", "      summary: A.\n      responses").replace(
                    "paths:",
                    "paths:\n  /b:\n    get:\n      operationId: getB\n"
                    '      responses: {"200": {description: ok}}',
                )
            )
            # the new catalog is served first, then the replaced one's pool is closed:
            # wait for both (checking the second at once raced with the reload's last await)
            await until(
                lambda: names(server) == ["getA", "getB"] and server._retired == [],
                "the spec edit, and the replaced catalog's pool closed",
            )
            good = server.reloads
            (tmp_path / "catalog.yaml").write_text(CATALOG.replace("toolcat: 1", "toolcat: 77"))
            await until(
                lambda: server.failed_reloads and "catalog.yaml:1:" in caplog.text,
                "the broken edit to be reported",
            )
            assert server.reloads == good and names(server) == ["getA", "getB"]
            tg.cancel_scope.cancel()
        await server.aclose()

    with caplog.at_level(logging.ERROR, logger="toolcat.serve"):
        anyio.run(scenario)
    assert "still serving the last good catalog" in caplog.text


def test_an_edit_made_during_a_reload_is_served_by_the_next_poll(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(ONE_TOOL.format(version="000"))
    pending: list[str] = []  # the edit the next load makes, after reading the files

    def loader(paths: Sequence[str]) -> LoadResult:
        result = load_catalog(paths, progress=False)
        if pending:  # mid-reload: read, not yet served
            catalog.write_text(ONE_TOOL.format(version=pending.pop()))
        return result

    server = McpServer([str(catalog)], watch=True, poll_interval=0.005, loader=loader)
    server.load()

    def served() -> str:
        return str(server.tools[0]["description"])

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.watch_files)
            for i in range(1, 51):
                # same size as the edit before it: only the content tells them apart
                pending.append(f"e{i:02d}")
                catalog.write_text(ONE_TOOL.format(version=f"t{i:02d}"))
                await until(lambda: served() == f"Version e{i:02d}.", f"edit {i}")  # noqa: B023
                assert pending == []  # the edit was made by a reload, after it read the file
            tg.cancel_scope.cancel()
        await server.aclose()

    anyio.run(scenario)
    assert server.reloads >= 100 and server.failed_reloads == 0


def test_a_spec_named_before_it_exists_loads_once_it_appears(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(CATALOG.replace("spec.yaml", "later.yaml"))
    with pytest.raises(CatalogLoadFailed):
        McpServer([str(catalog)]).load()
    assert load_catalog([catalog], progress=False).missing == (str(tmp_path / "later.yaml"),)
    (tmp_path / "spec.yaml").write_text(SPEC)
    catalog.write_text(CATALOG)
    backdate(catalog, tmp_path / "spec.yaml")
    server = McpServer([str(catalog)], watch=True, poll_interval=0.01)
    server.load()
    catalog.write_text(CATALOG.replace("spec.yaml", "later.yaml"))  # names a missing spec

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.watch_files)
            await until(lambda: server.failed_reloads == 1, "the missing spec to be reported")
            assert names(server) == ["getA"]  # still the last good catalog
            (tmp_path / "later.yaml").write_text(SPEC.replace("getA", "getLater"))
            await until(lambda: names(server) == ["getLater"], "the spec to appear")
            tg.cancel_scope.cancel()
        await server.aclose()

    anyio.run(scenario)
