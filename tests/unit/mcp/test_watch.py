"""--watch in process: spec edits reload too; a broken edit keeps the last good catalog."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import pytest
from toolcat.executor.mcp_server import CatalogLoadFailed, McpCatalogServer

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


def names(server: McpCatalogServer) -> list[str]:
    return [t["name"] for t in server._current().listed]


def test_spec_edits_reload_and_broken_edits_keep_the_last_good(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "catalog.yaml").write_text(CATALOG)
    server = McpCatalogServer([str(tmp_path / "catalog.yaml")], watch=True, poll_interval=0.05)
    server.load()
    assert names(server) == ["getA"]

    async def wait_reloads(n: int) -> None:
        with anyio.fail_after(5):
            while server.reloads < n:
                await anyio.sleep(0.02)

    async def scenario() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.watch_files)
            await anyio.sleep(0.1)
            (tmp_path / "spec.yaml").write_text(
                SPEC.replace("      responses", "      summary: A.\n      responses").replace(
                    "paths:",
                    "paths:\n  /b:\n    get:\n      operationId: getB\n"
                    '      responses: {"200": {description: ok}}',
                )
            )
            await wait_reloads(1)
            assert sorted(names(server)) == ["getA", "getB"]
            assert server._retired == []  # the replaced catalog's pools were closed
            (tmp_path / "catalog.yaml").write_text(CATALOG.replace("toolcat: 1", "toolcat: 77"))
            with anyio.fail_after(5):  # wait for the watcher, however loaded the machine is
                while server.failed_reloads < 1:
                    await anyio.sleep(0.02)
            assert server.reloads == 1 and sorted(names(server)) == ["getA", "getB"]
            tg.cancel_scope.cancel()
        await server.aclose()

    with caplog.at_level(logging.ERROR, logger="toolcat.serve"):
        anyio.run(scenario)
    assert "still serving the last good catalog" in caplog.text
    assert "catalog.yaml:1:" in caplog.text


def test_a_broken_catalog_at_start_raises_with_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("toolcat: 1\ntools: [{name: x}]\n")
    with pytest.raises(CatalogLoadFailed) as info:
        McpCatalogServer([str(tmp_path / "c.yaml")]).load()
    assert info.value.diagnostics and "c.yaml" in str(info.value.diagnostics[0])
