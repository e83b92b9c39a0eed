"""Per-call time through the executor against raw httpx, to the same local server, same run.

    python benchmarks/bench_executor.py [--calls 200] [--rounds 20] [--batches 5]
        [--fastmcp-python PATH]

A realistic tool (a path parameter, query parameters, a JSON response) is called
sync, async, and 64 at a time. Each round times a chunk of raw calls and a chunk
of executor calls back to back (alternating which goes first); the ratio reported
is the median of the per-round ratios, so drift and load from other processes
hit both alike. Times are medians of the per-call means.
Raw httpx builds the same URL by hand and parses the JSON body, as an
application calling the API directly would. The server runs in a subprocess.

FastMCP's OpenAPI tool makes the same call against the same server right after
(``fastmcp_call.py`` in FastMCP's own virtualenv: ``--fastmcp-python``, else
``$FASTMCP_PYTHON``, else ``benchmarks/.fastmcp-venv/bin/python``; see the README),
against raw HTTP in that process, so its ratio stands beside the executor's async one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BODY = json.dumps(
    {
        "id": "i-1",
        "name": "widget",
        "price": 12.5,
        "tags": ["a", "b"],
        "stock": {"warehouse": 3, "store": 9},
    }
).encode()


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A bare ASGI app: any GET answers the same small JSON document."""
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(BODY)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": BODY})


CATALOG = """
toolcat: 1
services:
  shop:
    base_url: {url}/api
    timeout: 10
tools:
  - name: get_item
    description: One item.
    service: shop
    method: GET
    path: /items/{{item_id}}
    parameters:
      item_id: {{type: string, description: The item id.}}
      limit: {{type: integer, minimum: 1, maximum: 100, default: 10, description: Max rows.}}
      fields: {{type: array, items: {{type: string}}, required: false, description: Fields.}}
"""
ARGS = '{"item_id": "i-1", "limit": 10, "fields": ["name", "price"]}'


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(port: int) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "bench_executor:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "error",
        "--no-access-log",
        "--lifespan",
        "off",
        "--ws",
        "none",
    ]
    proc = subprocess.Popen(cmd, cwd=Path(__file__).parent)
    import httpx

    for _ in range(200):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return proc
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the benchmark server did not start")


def _fastmcp(opts: argparse.Namespace, base: str) -> dict[str, float] | None:
    """FastMCP's figures for the same call (its virtualenv), or None when it is not there."""
    python = opts.fastmcp_python or str(Path(__file__).parent / ".fastmcp-venv" / "bin" / "python")
    if not Path(python).exists():
        print(f"FastMCP: no interpreter at {python} (see benchmarks/README.md)", file=sys.stderr)
        return None
    script = str(Path(__file__).parent / "fastmcp_call.py")
    argv = [python, script, base, "--calls", str(opts.calls), "--rounds", str(opts.rounds)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:  # noqa: C901, PLR0915  the benchmark's one run: options, warm-up, paired rounds, report, in print order
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per timed chunk")
    parser.add_argument("--rounds", type=int, default=20, help="paired chunks per mode")
    parser.add_argument(
        "--batches", type=int, default=5, help="batches of 64 concurrent calls per chunk"
    )
    parser.add_argument("--fastmcp-python", default=os.environ.get("FASTMCP_PYTHON"))
    opts = parser.parse_args()

    import tempfile

    import httpx
    from toolcat.executor import Executor, ExecutorSettings, ToolCall
    from toolcat.loader import load

    port = _free_port()
    proc = _serve(port)
    base = f"http://127.0.0.1:{port}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "catalog.yaml"
            path.write_text(CATALOG.format(url=base))
            catalog = load([path])
        call = ToolCall("get_item", ARGS, "c1")

        def raw_once(client: httpx.Client) -> Any:
            args = json.loads(ARGS)
            r = client.get(
                f"{base}/api/items/{args['item_id']}",
                params={"limit": args["limit"], "fields": args["fields"]},
            )
            return r.status_code, r.json()

        async def araw_once(client: httpx.AsyncClient) -> Any:
            args = json.loads(ARGS)
            r = await client.get(
                f"{base}/api/items/{args['item_id']}",
                params={"limit": args["limit"], "fields": args["fields"]},
            )
            return r.status_code, r.json()

        results: dict[str, dict[str, float]] = {}

        def summarize(
            raw: list[tuple[float, float]], ex: list[tuple[float, float]]
        ) -> dict[str, float]:
            # Paired rounds: each ratio compares chunks run back to back, so load from other
            # processes and drift hit both alike; the median ratio is the figure reported.
            # CPU time is this (client) process only: the work each side does per call.
            wall = statistics.median(e[0] / r[0] for r, e in zip(raw, ex, strict=True))
            cpu = statistics.median(e[1] / r[1] for r, e in zip(raw, ex, strict=True))
            return {
                "raw": statistics.median(r[0] for r in raw),
                "executor": statistics.median(e[0] for e in ex),
                "ratio": wall,
                "raw_cpu": statistics.median(r[1] for r in raw),
                "executor_cpu": statistics.median(e[1] for e in ex),
                "cpu_ratio": cpu,
            }

        # -- sync ---------------------------------------------------------------------
        with httpx.Client() as raw_client, Executor(catalog, ExecutorSettings(env={})) as ex:
            assert ex.execute(call).ok
            for _ in range(200):  # warm up both
                raw_once(raw_client)
                ex.execute(call)
            raw_t: list[tuple[float, float]] = []
            ex_t: list[tuple[float, float]] = []
            for i in range(opts.rounds):
                order = [raw_t, ex_t] if i % 2 == 0 else [ex_t, raw_t]
                for sink in order:
                    t0, c0 = time.perf_counter(), time.process_time()
                    if sink is raw_t:
                        for _ in range(opts.calls):
                            raw_once(raw_client)
                    else:
                        for _ in range(opts.calls):
                            ex.execute(call)
                    sink.append(
                        (
                            (time.perf_counter() - t0) / opts.calls,
                            (time.process_time() - c0) / opts.calls,
                        )
                    )
            results["sync"] = summarize(raw_t, ex_t)

        # -- async, sequential and 64 concurrent ------------------------------------------------
        async def run_async() -> None:
            async with (
                httpx.AsyncClient(
                    limits=httpx.Limits(max_connections=100, max_keepalive_connections=64)
                ) as raw_client,
                Executor(catalog, ExecutorSettings(env={}, max_concurrency=64)) as ex,
            ):
                assert (await ex.aexecute(call)).ok
                for _ in range(200):
                    await araw_once(raw_client)
                    await ex.aexecute(call)
                raw_t: list[tuple[float, float]] = []
                ex_t: list[tuple[float, float]] = []
                for i in range(opts.rounds):
                    order = [raw_t, ex_t] if i % 2 == 0 else [ex_t, raw_t]
                    for sink in order:
                        t0, c0 = time.perf_counter(), time.process_time()
                        if sink is raw_t:
                            for _ in range(opts.calls):
                                await araw_once(raw_client)
                        else:
                            for _ in range(opts.calls):
                                await ex.aexecute(call)
                        sink.append(
                            (
                                (time.perf_counter() - t0) / opts.calls,
                                (time.process_time() - c0) / opts.calls,
                            )
                        )
                results["async"] = summarize(raw_t, ex_t)

                calls = [ToolCall("get_item", ARGS, str(i)) for i in range(64)]
                for _ in range(3):
                    await asyncio.gather(*(araw_once(raw_client) for _ in range(64)))
                    await ex.aexecute_many(calls)
                raw_t, ex_t = [], []
                for i in range(opts.rounds):
                    order = [raw_t, ex_t] if i % 2 == 0 else [ex_t, raw_t]
                    for sink in order:
                        t0, c0 = time.perf_counter(), time.process_time()
                        for _ in range(opts.batches):
                            if sink is raw_t:
                                await asyncio.gather(*(araw_once(raw_client) for _ in range(64)))
                            else:
                                out = await ex.aexecute_many(calls)
                                assert all(r.ok for r in out)
                        n = opts.batches * 64
                        sink.append(
                            ((time.perf_counter() - t0) / n, (time.process_time() - c0) / n)
                        )
                results["async, 64 concurrent"] = summarize(raw_t, ex_t)

        asyncio.run(run_async())
        fastmcp = _fastmcp(opts, base)
        if fastmcp is not None:
            results["FastMCP OpenAPI tool"] = {
                "raw": fastmcp["raw"],
                "executor": fastmcp["fastmcp"],
                "ratio": fastmcp["ratio"],
                "raw_cpu": fastmcp["raw_cpu"],
                "executor_cpu": fastmcp["fastmcp_cpu"],
                "cpu_ratio": fastmcp["cpu_ratio"],
            }
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    print("(FastMCP's row: its tool against raw httpx2 in its own process; 'executor' is FastMCP)")
    print(
        f"{'mode':<22}{'raw wall':>11}{'executor':>11}{'ratio':>8}"
        f"{'raw cpu':>11}{'executor':>11}{'ratio':>8}"
    )
    for mode, r in results.items():
        print(
            f"{mode:<22}{r['raw'] * 1e6:>8.0f} us{r['executor'] * 1e6:>8.0f} us{r['ratio']:>7.3f}x"
            f"{r['raw_cpu'] * 1e6:>8.0f} us{r['executor_cpu'] * 1e6:>8.0f} us"
            f"{r['cpu_ratio']:>7.3f}x"
        )
    if os.environ.get("BENCH_JSON"):
        print(json.dumps(results))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
