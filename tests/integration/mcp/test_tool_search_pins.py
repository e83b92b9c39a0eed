"""`toolcat serve --tool-search` lists the catalog's search.pinned tools (and --pin ones)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]

PINNED = """\
toolcat: 1
services:
  warehouse: {base_url: "${WAREHOUSE_URL}", timeout: 5}
tools:
  - {name: get_item, description: One item by SKU., service: warehouse, method: GET,
     path: "/items/{sku}", parameters: {sku: {type: string, description: The SKU}}}
  - {name: get_other, description: Another read., service: warehouse, method: GET, path: /x}
  - {name: list_items, description: Every item., service: warehouse, method: GET, path: /items}
toolsets:
  reads: [get_item, list_items]
search:
  pinned:
    "*": [list_items]
    reads: ["get_*"]
"""


@pytest.fixture
def catalog_text() -> str:
    return PINNED


def listed(catalog_file: Path, env: dict[str, str], tmp_path: Path, args: list[str]) -> list[str]:
    params = StdioServerParameters(
        command=TOOLCAT[0], args=[*TOOLCAT[1:], "serve", str(catalog_file), *args], env=env
    )
    names: list[str] = []

    async def session() -> None:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with stdio_client(params, errlog) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                names.extend(t.name for t in (await s.list_tools()).tools)

    anyio.run(session)
    return names


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--tool-search"], ["list_items", "search_tools"]),
        (["--tool-search", "--pin", "get_other"], ["list_items", "get_other", "search_tools"]),
        # over a toolset: its glob matches its own tools only
        (["--tool-search", "--toolset", "reads"], ["list_items", "get_item", "search_tools"]),
        (["--tool-search", "--no-catalog-pins", "--pin", "get_item"], ["get_item", "search_tools"]),
    ],
)
def test_catalog_pins_are_listed(
    catalog_file: Path,
    serve_env: dict[str, str],
    tmp_path: Path,
    args: list[str],
    expected: list[str],
) -> None:
    assert listed(catalog_file, serve_env, tmp_path, args) == expected
