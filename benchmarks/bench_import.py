"""Benchmark: OpenAPI spec file -> OpenAI tool schemas, against json.load and FastMCP, same run.

Run: ``python benchmarks/bench_import.py [--repeat 3] [--fastmcp-python PATH] [--corpus DIR]``.

For GitHub's spec (1,223 operations) and Stripe's (417, circular refs), each in
a fresh subprocess so caches never help:

- ``json.load`` of the file (the baseline);
- toolcat: ``load_catalog([spec])`` (import + compile to the IR) and
  ``export_catalog(catalog, "openai").tools``;
- FastMCP: ``FastMCP.from_openapi(openapi_spec=..., client=httpx.AsyncClient(...))``
  and ``list_tools()``, run with the interpreter of a separate virtualenv that
  has fastmcp (``--fastmcp-python``, default ``$FASTMCP_PYTHON`` or
  benchmarks/.fastmcp-venv/bin/python); left out with a message when it is missing.

Time is the best of ``--repeat`` runs, as CPU time of the measured code (the
ratio's measure: on a shared machine wall time mostly measures the neighbours)
and as wall time; peak memory is tracemalloc's peak in its own run (Python
allocations; the same measure for every contender). Targets:
toolcat within 5x of json.load and peak memory under 4x that of the parsed spec.
Needs the spec corpus (``--corpus`` or ``$TOOLCAT_CORPUS`` or ../shared/corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

SPECS = ("github-api.github.com.json", "stripe-spec3.json")

_BASELINE = """
import json, sys, time, tracemalloc
path = sys.argv[1]
if sys.argv[2] == "mem":
    tracemalloc.start()
t, c = time.perf_counter(), time.process_time()
with open(path, "rb") as f:
    doc = json.load(f)
elapsed, cpu = time.perf_counter() - t, time.process_time() - c
peak = tracemalloc.get_traced_memory()[1] if sys.argv[2] == "mem" else 0
print(json.dumps({"seconds": elapsed, "cpu": cpu, "peak": peak,
                  "count": len(doc.get("paths", {}))}))
"""

_TOOLCAT = """
import json, sys, time, tracemalloc
from toolcat.executor.providers import export_catalog
from toolcat.loader import load_catalog
path = sys.argv[1]
# Warm-up on a tiny spec: lazy imports happen once per process, not per spec.
import os, tempfile
with tempfile.TemporaryDirectory() as tmp:
    tiny = os.path.join(tmp, "tiny.json")
    with open(tiny, "w") as f:
        json.dump({"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
                   "servers": [{"url": "http://x"}],
                   "paths": {"/a": {"post": {"operationId": "a", "responses": {}}}}}, f)
    export_catalog(load_catalog([tiny], progress=False).catalog, "openai").tools
if sys.argv[2] == "mem":
    tracemalloc.start()
t, c = time.perf_counter(), time.process_time()
result = load_catalog([path], progress=False)
tools = export_catalog(result.catalog, "openai").tools
elapsed, cpu = time.perf_counter() - t, time.process_time() - c
peak = tracemalloc.get_traced_memory()[1] if sys.argv[2] == "mem" else 0
print(json.dumps({"seconds": elapsed, "cpu": cpu, "peak": peak, "count": len(tools)}))
"""

_IMPORTER = """
import json, sys, time
from toolcat.loader.openapi import import_openapi
path = sys.argv[1]
t, c = time.perf_counter(), time.process_time()
result = import_openapi(path, progress=False)
elapsed, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"seconds": elapsed, "cpu": cpu, "peak": 0, "count": len(result.tools)}))
"""

_FASTMCP = """
import asyncio, json, sys, time, tracemalloc
try:
    import httpx2 as httpx  # fastmcp 4 is built on httpx2
except ImportError:
    import httpx
from fastmcp import FastMCP
path = sys.argv[1]
# Warm-up on a tiny spec, as for toolcat.
_tiny = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "http://x"}],
         "paths": {"/a": {"post": {"operationId": "a", "responses": {}}}}}

async def main():
    warm = FastMCP.from_openapi(openapi_spec=_tiny, client=httpx.AsyncClient(base_url="http://x"))
    await (getattr(warm, "list_tools", None) or getattr(warm, "get_tools"))()
    if sys.argv[2] == "mem":
        tracemalloc.start()
    t, c = time.perf_counter(), time.process_time()
    with open(path, "rb") as f:
        spec = json.load(f)
    mcp = FastMCP.from_openapi(openapi_spec=spec, client=httpx.AsyncClient(base_url="http://127.0.0.1:9"))
    lister = getattr(mcp, "list_tools", None) or getattr(mcp, "get_tools")
    tools = await lister()
    elapsed, cpu = time.perf_counter() - t, time.process_time() - c
    peak = tracemalloc.get_traced_memory()[1] if sys.argv[2] == "mem" else 0
    print(json.dumps({"seconds": elapsed, "cpu": cpu, "peak": peak, "count": len(tools)}))

asyncio.run(main())
"""


def _run(python: str, code: str, spec: Path, mode: str, timeout: float) -> dict[str, float] | str:
    try:
        done = subprocess.run(
            [python, "-c", code, str(spec), mode],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "CI": "1"},
        )
    except subprocess.TimeoutExpired:
        return f"no result within {timeout:.0f} s"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        return f"failed: {last[:200]}"
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _measure(
    python: str, code: str, spec: Path, repeat: int, timeout: float
) -> dict[str, float] | str:
    best: dict[str, float] | None = None
    for _ in range(repeat):
        got = _run(python, code, spec, "time", timeout)
        if isinstance(got, str):
            return got
        if best is None:
            best = got
        best = {
            **best,
            "seconds": min(best["seconds"], got["seconds"]),
            "cpu": min(best["cpu"], got["cpu"]),
        }
    mem = _run(python, code, spec, "mem", timeout)
    if isinstance(mem, str):
        return mem
    assert best is not None
    return {**best, "peak": mem["peak"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument(
        "--fastmcp-python",
        default=os.environ.get("FASTMCP_PYTHON", "benchmarks/.fastmcp-venv/bin/python"),
    )
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    repo = Path(__file__).resolve().parent.parent
    corpus = args.corpus or Path(
        os.environ.get("TOOLCAT_CORPUS", repo.parent / "shared" / "corpus")
    )
    if not corpus.is_dir():
        print(f"skipped: the spec corpus is not at {corpus} (set TOOLCAT_CORPUS or --corpus)")
        return 0
    have_fastmcp = Path(args.fastmcp_python).exists()
    if not have_fastmcp:
        print(f"note: no FastMCP interpreter at {args.fastmcp_python}; its column is left out")
    rows = []
    for name in SPECS:
        spec = corpus / name
        if not spec.is_file():
            print(f"skipped {name}: not in the corpus")
            continue
        base = _measure(sys.executable, _BASELINE, spec, args.repeat, args.timeout)
        ours = _measure(sys.executable, _TOOLCAT, spec, args.repeat, args.timeout)
        alone = _measure(sys.executable, _IMPORTER, spec, args.repeat, args.timeout)
        fast = (
            _measure(args.fastmcp_python, _FASTMCP, spec, 1, args.timeout)
            if have_fastmcp
            else "not installed"
        )
        rows.append((name, base, ours, fast))
        if not isinstance(alone, str) and not isinstance(base, str):
            print(
                f"{name}: import_openapi alone (parse included) {alone['cpu']:.3f} s CPU = "
                f"{alone['cpu'] / base['cpu']:.1f}x json.load "
                f"(wall {alone['seconds']:.3f} s = {alone['seconds'] / base['seconds']:.1f}x)"
            )
    print()
    print("Time: best of the runs, CPU time of the measured code (wall clock in brackets).")
    print()
    print(
        "| spec | json.load | toolcat | ratio | peak parsed | peak toolcat | ratio "
        "| FastMCP | FastMCP peak |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, base, ours, fast in rows:
        if isinstance(base, str) or isinstance(ours, str):
            print(f"| {name} | {base} | {ours} | | | | | | |")
            continue
        ratio = ours["cpu"] / base["cpu"]
        wall_ratio = ours["seconds"] / base["seconds"]
        mem_ratio = ours["peak"] / base["peak"]
        fast_cell = fast
        if not isinstance(fast, str):
            fast_ratio = fast["cpu"] / base["cpu"]
            fast_cell = (
                f"{fast['cpu']:.2f} s ({fast['seconds']:.2f} s) = {fast_ratio:.0f}x, "
                f"{int(fast['count'])} tools"
            )
        fast_mem = "" if isinstance(fast, str) else f"{fast['peak'] / 2**20:.0f} MiB"
        ours_cell = f"{ours['cpu']:.3f} s ({ours['seconds']:.3f} s), {int(ours['count'])} tools"
        print(
            f"| {name} | {base['cpu']:.3f} s ({base['seconds']:.3f} s) | {ours_cell} "
            f"| {ratio:.1f}x ({wall_ratio:.1f}x) | {base['peak'] / 2**20:.0f} MiB "
            f"| {ours['peak'] / 2**20:.0f} MiB | {mem_ratio:.1f}x | {fast_cell} | {fast_mem} |"
        )
    print("\ntargets: toolcat within 5x of json.load; peak memory under 4x that of the parsed spec")
    return 0


if __name__ == "__main__":
    sys.exit(main())
