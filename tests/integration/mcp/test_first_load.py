"""The first load takes the --watch snapshot before it reads the catalog: an edit that
lands after the read, before the server starts, is served by the first poll."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
from toolcat.executor.mcp_server import McpServer
from toolcat.loader import LoadResult, load_catalog

from .test_watch_reload import ONE_TOOL, until


def test_an_edit_made_during_the_first_load_is_served_by_the_first_poll(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.yaml"
    for i in range(20):
        catalog.write_text(ONE_TOOL.format(version=f"t{i:02d}"))
        edit = ONE_TOOL.format(version=f"e{i:02d}")  # the same size: only content differs

        edits = [edit]  # made by the first load only, after it read the file

        def editing(paths: Sequence[str], edits: list[str] = edits) -> LoadResult:
            result = load_catalog(paths, progress=False)
            if edits:
                catalog.write_text(edits.pop())  # read, not yet served
            return result

        server = McpServer([str(catalog)], watch=True, poll_interval=0.005, loader=editing)
        server.load()
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
