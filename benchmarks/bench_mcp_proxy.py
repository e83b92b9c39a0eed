"""A tool call through `toolcat serve` to an upstream MCP server, against the same client
calling the upstream directly, and FastMCP's proxy in front of the same upstreams.

    python benchmarks/bench_mcp_proxy.py [--calls 50] [--rounds 10] [--fastmcp-python PATH]
                                         [--before PYTHON] [--upstream stdio|http|both]

The upstream is the SDK test server (``toolcat.tests.support.mcp_upstream``), its
``echo`` tool, run as a stdio subprocess and over streamable HTTP (loopback). Every
front is reached by the official SDK client over stdio, opened once (one handshake),
then called ``--calls`` times a round:

- direct: the client talks to the upstream itself (stdio, or streamable HTTP);
- toolcat: ``toolcat serve CATALOG`` (stdio), the catalog written by ``toolcat import
  mcp`` from that upstream; toolcat keeps one upstream session for every call;
- executor: ``Executor.aexecute`` on the same catalog in this process (the executor and
  its upstream session, without serve's stdio hop in front);
- before (with ``--before PYTHON``): ``toolcat serve`` of another install (an interpreter
  whose ``toolcat`` is another tree, e.g. main's virtualenv), the before of a change;
- sdk proxy: the floor of a proxy built on the official SDK, with nothing of toolcat's:
  a low-level ``mcp.server.Server`` over stdio whose ``tools/call`` hands the request to
  one SDK client session of the upstream and returns its answer (no argument check,
  guards, pins, audit or masking), the same two SDK sessions toolcat's serve runs;
- fastmcp: FastMCP's proxy (``FastMCP.as_proxy``; ``create_proxy`` in FastMCP 3 and
  later) in front of the same upstream (its own virtualenv:
  ``benchmarks/.fastmcp-venv``; skipped when missing).

Rounds interleave the fronts, each round starting one front later than the last, so load
on the machine falls on all of them alike. The figure per front is the median over rounds
of the mean call time of a round; what a front *adds* is its figure minus the direct
call's to the same upstream. Where /proc tells (Linux), each round also counts the CPU
time of this process and every process below it over the front's calls: a call's CPU on
every side (client, front, upstream), which a shared machine disturbs less than elapsed
time (``cpu_us_per_call``, and what toolcat adds in CPU against the direct call's and
FastMCP's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
UPSTREAM = [sys.executable, "-m", "toolcat.tests.support.mcp_upstream"]
# FastMCP's proxy: FastMCP.as_proxy up to 2.x, fastmcp.server.create_proxy since
PROXY = """
import sys
from fastmcp import FastMCP
from fastmcp.client.transports import StdioTransport
target = sys.argv[1]
if target.startswith("http"):
    backend = target
else:
    backend = StdioTransport(command=sys.argv[1], args=sys.argv[2:])
if hasattr(FastMCP, "as_proxy"):
    proxy = FastMCP.as_proxy(backend, name="proxy")
else:
    from fastmcp.server import create_proxy
    proxy = create_proxy(backend, name="proxy")
proxy.run(transport="stdio", show_banner=False)
"""

# The floor of an SDK-based proxy: one upstream session, every call handed through as is
SDK_PROXY = """
import os, sys
import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def main():
    target = sys.argv[1:]
    if target[0].startswith("http"):
        upstream = streamable_http_client(target[0])
    else:
        env = {k: os.environ[k] for k in ("PATH", "HOME", "PYTHONPATH") if k in os.environ}
        params = StdioServerParameters(command=target[0], args=target[1:], env=env)
        upstream = stdio_client(params, errlog=open(os.devnull, "w"))
    async with Client(upstream) as client:
        listed = (await client.list_tools()).tools

        async def list_tools(ctx, params):
            return types.ListToolsResult(tools=listed)

        async def call_tool(ctx, params):
            return await client.call_tool(params.name, params.arguments or {})

        server = Server("sdk-proxy", on_list_tools=list_tools, on_call_tool=call_tool)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def start_http_upstream() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*UPSTREAM, "--http", "0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise SystemExit("the HTTP upstream did not start")


def import_catalog(folder: Path, name: str, target: list[str]) -> Path:
    """``toolcat import mcp`` of the upstream's echo tool (what a team would commit)."""
    out = folder / f"{name}.yaml"
    where = ["--url", target[0]] if target[0].startswith("http") else ["--", *target]
    subprocess.run(
        [sys.executable, "-m", "toolcat.cli", "import", "mcp", "--server", name, "-o", str(out)]
        + ["--include-tool", "echo", "-q", *where],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    return out


async def open_stdio(stack: AsyncExitStack, argv: list[str]) -> Any:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    # PYTHONPATH passes on: a toolcat it names (a worktree's) is the one serve runs
    env = {k: os.environ[k] for k in ("PATH", "HOME", "PYTHONPATH") if k in os.environ}
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    errlog = open(os.devnull, "w")  # noqa: SIM115 - open while the client runs
    stack.callback(errlog.close)
    return await stack.enter_async_context(Client(stdio_client(params, errlog=errlog)))


async def open_http(stack: AsyncExitStack, url: str) -> Any:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    return await stack.enter_async_context(Client(streamable_http_client(url)))


class InProcess:
    """``Executor.aexecute`` on the imported catalog, shaped like a client: the executor
    and its upstream pool without the serve hop in front."""

    def __init__(self, catalog: Path) -> None:
        import toolcat
        from toolcat.executor import Executor

        self.executor = Executor(toolcat.load([catalog]))

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> Any:
        from toolcat.executor import ToolCall

        result = await self.executor.aexecute(ToolCall(tool, arguments))

        class Answer:
            is_error = not result.ok
            content = result.content

        return Answer()

    async def aclose(self) -> None:
        await self.executor.aclose()


async def calls(client: Any, tool: str, n: int) -> float:
    """Mean seconds of one call over ``n`` calls."""
    start = time.perf_counter()
    for i in range(n):
        result = await client.call_tool(tool, {"text": f"hello {i}"})
        if result.is_error:
            raise SystemExit(f"{tool}: {result.content}")
    return (time.perf_counter() - start) / n


def cpu_seconds() -> float | None:
    """CPU seconds used so far by this process and every process below it (the fronts and
    their upstreams), read from /proc; ``None`` where there is no /proc. Only the front
    being called works meanwhile, so a difference over its calls is what one call costs
    in CPU on every side: a figure that a busy machine disturbs less than elapsed time."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return None
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(entry.name)] = int(fields[1])
        used[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    mine = {os.getpid()}
    grew = True
    while grew:
        below = {pid for pid, parent in parents.items() if parent in mine} - mine
        grew = bool(below)
        mine |= below
    children = sum(used[pid] for pid in mine if pid != os.getpid())
    return time.process_time() + children


async def timed(client: Any, tool: str, n: int) -> tuple[float, float | None]:
    """Mean seconds of one call over ``n`` calls, and its CPU seconds on every side."""
    before = cpu_seconds()
    seconds = await calls(client, tool, n)
    after = cpu_seconds()
    return seconds, None if before is None or after is None else (after - before) / n


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    http_proc, url = start_http_upstream()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            stdio_catalog = import_catalog(folder, "up", UPSTREAM)
            http_catalog = import_catalog(folder, "web", [url])
            serve = [sys.executable, "-m", "toolcat.cli", "serve"]
            fronts: dict[str, tuple[str, Any]] = {}
            async with AsyncExitStack() as stack:
                kinds = ("stdio", "http") if args.upstream == "both" else (args.upstream,)
                catalogs = {"stdio": (stdio_catalog, "up_echo"), "http": (http_catalog, "web_echo")}
                for kind in kinds:
                    catalog, tool = catalogs[kind]
                    if kind == "stdio":
                        fronts["direct stdio"] = ("echo", await open_stdio(stack, UPSTREAM))
                    else:
                        fronts["direct http"] = ("echo", await open_http(stack, url))
                    fronts[f"toolcat {kind}"] = (
                        tool,
                        await open_stdio(stack, [*serve, str(catalog)]),
                    )
                    if args.before:  # the same serve from another install (main's tree)
                        before = [args.before, "-m", "toolcat.cli", "serve", str(catalog)]
                        fronts[f"before {kind}"] = (tool, await open_stdio(stack, before))
                for name, catalog, tool in (
                    (f"executor {kind}", *catalogs[kind]) for kind in kinds
                ):
                    local = InProcess(catalog)
                    stack.push_async_callback(local.aclose)
                    fronts[name] = (tool, local)
                sdk_proxy = folder / "sdk_proxy.py"
                sdk_proxy.write_text(SDK_PROXY, encoding="utf-8")
                for kind in kinds:
                    target = UPSTREAM if kind == "stdio" else [url]
                    fronts[f"sdk proxy {kind}"] = (
                        "echo",
                        await open_stdio(stack, [sys.executable, str(sdk_proxy), *target]),
                    )
                fastmcp = Path(args.fastmcp_python)
                if fastmcp.is_file():
                    script = folder / "proxy.py"
                    script.write_text(PROXY, encoding="utf-8")
                    proxy = [str(fastmcp), str(script)]
                    if "stdio" in kinds:
                        fronts["fastmcp stdio"] = (
                            "echo",
                            await open_stdio(stack, [*proxy, *UPSTREAM]),
                        )
                    if "http" in kinds:
                        fronts["fastmcp http"] = ("echo", await open_stdio(stack, [*proxy, url]))
                for tool, client in fronts.values():
                    await calls(client, tool, 5)  # warm: sessions, caches, first pin checks
                rounds: dict[str, list[float]] = {name: [] for name in fronts}
                cpu: dict[str, list[float]] = {name: [] for name in fronts}
                order = list(fronts)
                for number in range(args.rounds):
                    # each round starts one front later: none always runs right after another
                    shift = number % len(order)
                    for name in order[shift:] + order[:shift]:
                        tool, client = fronts[name]
                        seconds, used = await timed(client, tool, args.calls)
                        rounds[name].append(seconds)
                        if used is not None:
                            cpu[name].append(used)
    finally:
        http_proc.kill()
        http_proc.wait()
    return summary(
        args,
        {name: statistics.median(values) * 1000 for name, values in rounds.items()},
        {name: statistics.median(values) * 1e6 for name, values in cpu.items() if values},
    )


def summary(
    args: argparse.Namespace, ms: dict[str, float], cpu_us: dict[str, float]
) -> dict[str, Any]:
    """The report: each front's median ms a call, and what each adds to the direct call;
    the same in CPU microseconds a call (every process together) where /proc tells."""
    report: dict[str, Any] = {
        "calls": args.calls,
        "rounds": args.rounds,
        "ms_per_call": {k: round(v, 3) for k, v in ms.items()},
    }
    if cpu_us:
        report["cpu_us_per_call"] = {k: round(v) for k, v in cpu_us.items()}
    for kind in ("stdio", "http"):
        if f"direct {kind}" not in ms:
            continue
        direct = ms[f"direct {kind}"]
        added = ms[f"toolcat {kind}"] - direct
        row: dict[str, Any] = {
            "toolcat_adds_ms": round(added, 3),
            "toolcat_adds_x_direct": round(added / direct, 2),
            "executor_adds_ms": round(ms[f"executor {kind}"] - direct, 3),
        }
        if f"before {kind}" in ms:
            row["before_adds_ms"] = round(ms[f"before {kind}"] - direct, 3)
            row["before_adds_x_direct"] = round((ms[f"before {kind}"] - direct) / direct, 2)
        if f"sdk proxy {kind}" in ms:  # the floor: the SDK's two sessions, nothing else
            floor = ms[f"sdk proxy {kind}"] - direct
            row["sdk_proxy_adds_ms"] = round(floor, 3)
            row["toolcat_over_sdk_proxy_added"] = round(added / floor, 2) if floor > 0 else None
        if f"fastmcp {kind}" in ms:
            fast = ms[f"fastmcp {kind}"] - direct
            row["fastmcp_adds_ms"] = round(fast, 3)
            row["toolcat_over_fastmcp_added"] = round(added / fast, 2) if fast > 0 else None
        if f"direct {kind}" in cpu_us and f"toolcat {kind}" in cpu_us:
            base = cpu_us[f"direct {kind}"]
            cpu_added = cpu_us[f"toolcat {kind}"] - base
            row["toolcat_adds_cpu_x_direct"] = round(cpu_added / base, 2)
            if f"fastmcp {kind}" in cpu_us:
                fast_cpu = cpu_us[f"fastmcp {kind}"] - base
                row["toolcat_over_fastmcp_added_cpu"] = round(cpu_added / fast_cpu, 2)
        report[kind] = row
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=50, help="calls per front per round")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--fastmcp-python",
        default=os.environ.get("FASTMCP_PYTHON", str(HERE / ".fastmcp-venv" / "bin" / "python")),
        help="the interpreter of FastMCP's virtualenv (default benchmarks/.fastmcp-venv)",
    )
    parser.add_argument(
        "--before",
        metavar="PYTHON",
        help="also serve with this interpreter's toolcat (another install, e.g. main's tree's "
        "virtualenv), in the same rounds: the before of a change",
    )
    parser.add_argument(
        "--upstream",
        choices=("stdio", "http", "both"),
        default="both",
        help="which upstreams to measure (default both)",
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args)), indent=2))


if __name__ == "__main__":
    main()
