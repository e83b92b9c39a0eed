"""Benchmark: what `toolcat import openapi` writes, in size and time, for GitHub and Stripe.

Run: ``python benchmarks/bench_written.py [--repeat 3] [--corpus DIR]``.

For each spec and each ``--output-schemas`` mode (``shared``, the default;
``inline``, a copy of every definition in each tool; ``none``), the command runs
in a fresh subprocess; printed: bytes and lines written, the number of shared
definitions, and the best wall time of ``--repeat`` runs. The target:
the default output at least 4x smaller than the 10,313,485 bytes (GitHub) and
3,650,816 bytes (Stripe) written before shared definitions. Needs the spec
corpus (``--corpus`` or ``$TOOLCAT_CORPUS`` or ../shared/corpus).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPECS = ("github-api.github.com.json", "stripe-spec3.json")
BEFORE = {"github-api.github.com.json": 10_313_485, "stripe-spec3.json": 3_650_816}
MODES = ("shared", "inline", "none")


def _corpus(given: str | None) -> Path:
    if given:
        return Path(given)
    env = os.environ.get("TOOLCAT_CORPUS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "corpus"


def _run(spec: Path, mode: str, out: Path) -> float:
    cmd = [sys.executable, "-m", "toolcat.cli", "import", "openapi", str(spec)]
    cmd += ["-o", str(out), "-q", "--output-schemas", mode]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus", default=None)
    args = parser.parse_args()
    corpus = _corpus(args.corpus)
    if not all((corpus / s).is_file() for s in SPECS):
        print(f"skipped: the spec corpus is not at {corpus} (set TOOLCAT_CORPUS)")
        return 0
    print("| spec | --output-schemas | bytes | lines | definitions | vs before | best time |")
    print("|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in SPECS:
            for mode in MODES:
                out = Path(tmp) / f"{name}.{mode}.yaml"
                best = min(_run(corpus / name, mode, out) for _ in range(max(args.repeat, 1)))
                data = out.read_bytes()
                defs = _count_definitions(data)
                ratio = BEFORE[name] / len(data)
                lines = data.count(b"\n")
                print(
                    f"| {name} | {mode} | {len(data):,} | {lines:,} | {defs:,} "
                    f"| {ratio:.1f}x smaller | {best:.2f} s |"
                )
    return 0


def _count_definitions(data: bytes) -> int:
    """Top-level ``definitions:`` entries (two-space keys below it), without parsing."""
    count, inside = 0, False
    for line in data.splitlines():
        if not line:
            continue  # a blank line inside a | block
        if not line.startswith(b" "):
            inside = line == b"definitions:"
        elif inside and line.startswith(b"  ") and not line.startswith(b"   "):
            count += 1
    return count


if __name__ == "__main__":
    raise SystemExit(main())
