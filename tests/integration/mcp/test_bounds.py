"""`toolcat serve` holds ``max_response_chars`` for structured content too."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

CAPPED = """\
toolcat: 1
services:
  warehouse:
    base_url: ${WAREHOUSE_URL}
    timeout: 5
    max_response_chars: 20
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, description: The SKU}
    output_schema:
      type: object
      required: [sku, stock]
      properties: {sku: {type: string}, stock: {type: integer}}
  - name: get_item_free
    description: One item by SKU, no output schema.
    service: warehouse
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, description: The SKU}
"""


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_structured_content_over_the_cap_is_left_out(
    tmp_path: Path, serve_env: dict[str, str]
) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(CAPPED)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolcat.cli", "serve", str(catalog)],
        env=serve_env,
    )

    async def session() -> None:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                free = await s.call_tool("get_item_free", {"sku": "W-BLUE-01"})
                assert free.is_error is False and free.structured_content is None
                assert "truncated" in _text(free) and len(_text(free)) < 100
                # a tool with an output schema must send conforming structured content,
                # which does not fit under the cap: an error that says why
                typed = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
                assert typed.is_error is True and typed.structured_content is None
                assert "max_response_chars" in _text(typed) and len(_text(typed)) < 400
                # it says what happened and what to do, not that the answer broke the schema
                assert "does not match" not in _text(typed)
                assert "ask for less" in _text(typed)

    anyio.run(session)
