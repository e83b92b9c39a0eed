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


def median_wall(argv: list[str], runs: int, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--write", action="store_true", help="write benchmarks/results/startup.md")
    args = parser.parse_args()
    script = shutil.which("toolcat", path=str(Path(sys.executable).parent)) or shutil.which("toolcat")
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
        median_wall(cases["toolcat list (10 tools)"], 2, env)  # warm the file cache
        results = {name: median_wall(argv, args.runs, env) for name, argv in cases.items()}
        imports = slowest_imports([script, "list", str(catalog)], env)
    base = results["python -c pass"]
    rows = [
        f"| {name} | {seconds * 1000:.0f} ms | {seconds / base:.1f}x |"
        for name, seconds in results.items()
    ]
    listed = results["toolcat list (10 tools)"]
    verdict = "meets" if listed < TARGET_S else "misses"
    lines = [
        f"Median of {args.runs} runs; Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs.",
        "",
        "| command | median wall | ratio to `python -c pass` |",
        "|---|---|---|",
        *rows,
        "",
        f"`toolcat list` on a 10-tool catalog: {listed * 1000:.0f} ms, which {verdict} the "
        f"{TARGET_S * 1000:.0f} ms target.",
        "",
        "Slowest top-level imports of one `toolcat list` run (`python -X importtime`, cumulative):",
        "",
        *[f"- `{name}`: {micro / 1000:.0f} ms" for micro, name in imports],
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
