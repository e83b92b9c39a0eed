"""FastMCP's OpenAPI tool against raw HTTP, per call: run by bench_executor.py in FastMCP's venv.

    benchmarks/.fastmcp-venv/bin/python benchmarks/fastmcp_call.py URL [--calls 200] [--rounds 20]

The same call as bench_executor.py (``GET /api/items/{item_id}?limit=10&fields=...``,
against the server that script started at URL), made through the tool that
``FastMCP.from_openapi`` builds (``await tool.run(arguments)``: its argument handling,
request building and response parsing, no MCP protocol), and, interleaved in paired
rounds, with FastMCP's own HTTP client raw (httpx2, which FastMCP requires). Prints one
JSON object: medians of the per-call times and of the per-round ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

ARGS = {"item_id": "i-1", "limit": 10, "fields": ["name", "price"]}
ARGS_TEXT = json.dumps(ARGS)


def spec(url: str) -> dict[str, Any]:
    """The OpenAPI document of bench_executor.py's one tool."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "shop", "version": "1"},
        "servers": [{"url": f"{url}/api"}],
        "paths": {
            "/items/{item_id}": {
                "get": {
                    "operationId": "get_item",
                    "description": "One item.",
                    "parameters": [
                        {
                            "name": "item_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                        {
                            "name": "limit",
                            "in": "query",
                            "schema": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": 100,
                                "default": 10,
                            },
                        },
                        {
                            "name": "fields",
                            "in": "query",
                            "style": "form",
                            "explode": True,
                            "schema": {"type": "array", "items": {"type": "string"}},
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "The item.",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        }
                    },
                }
            }
        },
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    opts = parser.parse_args()

    import httpx2
    from fastmcp import FastMCP

    async with (
        httpx2.AsyncClient(base_url=f"{opts.url}/api") as tool_client,
        httpx2.AsyncClient() as raw_client,
    ):
        mcp = FastMCP.from_openapi(openapi_spec=spec(opts.url), client=tool_client)
        tool = await mcp.get_tool("get_item")
        assert tool is not None
        first = await tool.run(dict(ARGS))
        assert not first.is_error and first.structured_content, first  # a real answer

        async def via_tool() -> Any:
            return await tool.run(json.loads(ARGS_TEXT))  # a model's arguments arrive as JSON

        async def raw() -> Any:
            args = json.loads(ARGS_TEXT)
            r = await raw_client.get(
                f"{opts.url}/api/items/{args['item_id']}",
                params={"limit": args["limit"], "fields": args["fields"]},
            )
            return r.status_code, r.json()

        for _ in range(200):  # warm up both
            await raw()
            await via_tool()
        raw_t: list[tuple[float, float]] = []
        tool_t: list[tuple[float, float]] = []
        for i in range(opts.rounds):
            order = [(raw_t, raw), (tool_t, via_tool)]
            for sink, fn in order if i % 2 == 0 else order[::-1]:
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(opts.calls):
                    await fn()
                sink.append(
                    (
                        (time.perf_counter() - t0) / opts.calls,
                        (time.process_time() - c0) / opts.calls,
                    )
                )
    print(
        json.dumps(
            {
                "raw": statistics.median(r[0] for r in raw_t),
                "fastmcp": statistics.median(t[0] for t in tool_t),
                "ratio": statistics.median(t[0] / r[0] for r, t in zip(raw_t, tool_t, strict=True)),
                "raw_cpu": statistics.median(r[1] for r in raw_t),
                "fastmcp_cpu": statistics.median(t[1] for t in tool_t),
                "cpu_ratio": statistics.median(
                    t[1] / r[1] for r, t in zip(raw_t, tool_t, strict=True)
                ),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
