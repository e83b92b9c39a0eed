"""`toolcat serve --transport http --watch` never serves a half-written file (issue 10,
class 6): an MCP SDK client lists the tools over a real socket while a writer writes
half a catalog, pauses, then finishes; every listing is the old or the final one."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
HEAD = 'toolcat: 1\nservices:\n  svc: {base_url: "http://127.0.0.1:9"}\ntools:\n'


def tool(name: str) -> str:
    return (
        f"  - name: {name}\n    description: Tool {name}.\n    service: svc\n"
        f"    method: GET\n    path: /{name}\n"
    )


OLD = HEAD + tool("a") + tool("b")
FINAL = HEAD + tool("a") + tool("b") + tool("c") + tool("d")
HALVES = {
    "parses": HEAD + tool("a") + tool("b") + tool("c"),  # a valid catalog: half the edit
    "broken": FINAL[: FINAL.index("    method: GET\n    path: /c")],  # cut inside tool c
}


@pytest.mark.parametrize("half", sorted(HALVES))
def test_a_half_written_catalog_is_never_served(tmp_path: Path, half: str) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(OLD)
    flags = ["--watch", "--poll-interval", "0.05", "--settle", "1.0", "--log-level", "info"]
    proc = subprocess.Popen(
        [*TOOLCAT, "serve", str(catalog), "--transport", "http", "--port", "0", *flags],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    found = None
    for _ in range(20):
        lines.append(proc.stderr.readline())
        found = re.search(r"http://127\.0\.0\.1:\d+/mcp", lines[-1])
        if found or not lines[-1]:
            break
    seen: list[list[str]] = []

    def write() -> None:
        with open(catalog, "w") as f:
            f.write(HALVES[half])
            f.flush()
            time.sleep(0.15)  # an editor's second step, well under --settle
            f.write(FINAL[len(HALVES[half]) :])

    async def session() -> None:
        assert found, lines
        with anyio.fail_after(60):
            async with (
                streamable_http_client(found.group(0)) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                writer = threading.Thread(target=write)
                writer.start()
                while not seen or seen[-1] != ["a", "b", "c", "d"]:
                    seen.append([t.name for t in (await s.list_tools()).tools])
                    await anyio.sleep(0.01)
                writer.join()
                await anyio.sleep(1.5)  # a later reload, if any, would land by now
                seen.append([t.name for t in (await s.list_tools()).tools])

    try:
        anyio.run(session)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert {tuple(names) for names in seen} <= {("a", "b"), ("a", "b", "c", "d")}, seen
    assert seen[-1] == ["a", "b", "c", "d"]
    assert "reload failed" not in err, err
    assert err.count("catalog reloaded") == 1, err
