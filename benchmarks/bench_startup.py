"""Startup time of `toolcat list` on a 10-tool catalog, against `python -c pass` in the same run.

Usage: python benchmarks/bench_startup.py [--runs N] [--write]

Prints the median wall time of each command, the ratio to the bare interpreter,
and the slowest imports of one `toolcat list` run (``python -X importtime``).
``--write`` also writes the figures to benchmarks/results/startup.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 0.3


def make_catalog(folder: Path, tools: int = 10) -> Path:
    lines = ["toolcat: 1", "services:", "  s: {base_url: 'https://api.example'}", "tools:"]
    for i in range(tools):
        lines += [
            f"  - name: tool_{i}",
            f"    description: Tool number {i}.",
            "    service: s",
            "    method: GET",
            f"    path: /things/{i}/{{id}}",
            "    parameters:",
            "      id: {type: string, description: The id}",
            "      q: {type: string, required: false, description: A query}",
        ]
    path = folder / "catalog.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def measure(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of ``runs`` runs, in seconds.

    CPU time is reported too because wall time on a busy machine mostly measures
    the other processes.
    """
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def slowest_imports(argv: list[str], env: dict[str, str], top: int = 8) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of the top-level imports that cost the most."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], env=env, capture_output=True, text=True
    )
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if cumulative.strip().isdigit() and name.startswith(" ") and not name.startswith("  "):
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def heavy_inside(argv: list[str], env: dict[str, str], top: int = 6) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of the costliest imports below toolcat.loader."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], env=env, capture_output=True, text=True
    )
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, name = line[len("import time:") :].split("|")
            module = name.strip()
            if cumulative.strip().isdigit() and module.startswith("toolcat.loader."):
                if module.count(".") == 2 or module.split(".")[2] != "openapi":
                    rows.append((int(cumulative), module))
            elif cumulative.strip().isdigit() and module in (
                "pydantic",
                "jsonschema",
                "yaml",
                "jinja2",
            ):
                rows.append((int(cumulative), module))
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--write", action="store_true", help="write benchmarks/results/startup.md")
    args = parser.parse_args()
    script = shutil.which("toolcat", path=str(Path(sys.executable).parent)) or shutil.which(
        "toolcat"
    )
    if not script:
        print("the toolcat console script is not installed", file=sys.stderr)
        return 2
    env = {**os.environ, "CI": "true"}
    with tempfile.TemporaryDirectory() as tmp:
        catalog = make_catalog(Path(tmp))
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "toolcat --version": [script, "--version"],
            "python -c 'import toolcat.loader'": [sys.executable, "-c", "import toolcat.loader"],
            "toolcat list (10 tools)": [script, "list", str(catalog)],
        }
        measure(cases["toolcat list (10 tools)"], 2, env)  # warm the file cache
        results = {name: measure(argv, args.runs, env) for name, argv in cases.items()}
        imports = slowest_imports([script, "list", str(catalog)], env)
        loader_parts = heavy_inside([script, "list", str(catalog)], env)
    base = results["python -c pass"][0]
    rows = [
        f"| {name} | {wall * 1000:.0f} ms | {wall / base:.1f}x | {cpu * 1000:.0f} ms |"
        for name, (wall, cpu) in results.items()
    ]
    listed, listed_cpu = results["toolcat list (10 tools)"]
    verdict = "meets" if listed < TARGET_S else "misses"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"Median of {args.runs} runs; Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {load:.1f} at the end of the run.",
        "",
        "| command | median wall | ratio to `python -c pass` | median CPU (user+sys) |",
        "|---|---|---|---|",
        *rows,
        "",
        f"`toolcat list` on a 10-tool catalog: {listed * 1000:.0f} ms wall "
        f"({listed_cpu * 1000:.0f} ms CPU), which {verdict} the {TARGET_S * 1000:.0f} ms target.",
        "",
        "Slowest top-level imports of one `toolcat list` run (`python -X importtime`, cumulative):",
        "",
        *[f"- `{name}`: {micro / 1000:.0f} ms" for micro, name in imports],
        "",
        "Inside `toolcat.loader` (cumulative):",
        "",
        *[f"- `{name}`: {micro / 1000:.0f} ms" for micro, name in loader_parts],
    ]
    report = "\n".join(lines)
    print(report)
    if args.write:
        out = Path(__file__).resolve().parent / "results" / "startup.md"
        out.parent.mkdir(exist_ok=True)
        out.write_text(f"# Startup of `toolcat list`\n\n{report}\n", encoding="utf-8")
        print(f"\nwritten to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
