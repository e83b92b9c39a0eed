"""Benchmark: `toolcat diff` on two GitHub catalogs, as a ratio to loading both.

Run: ``python benchmarks/bench_diff.py [--corpus DIR] [--spec PATH] [--repeat 5]``.

Two pairs, each the corpus's GitHub spec (1,223 operations) against:

1. itself (a second copy of the file): no change, the common case of a CI run;
2. an edited copy: every tenth operation's description reworded, the shared
   ``per-page`` parameter given ``maximum: 50`` (met by hundreds of tools), one
   operation renamed, one removed, one request body property removed.

For each pair, best of N, in one process: loading both catalogs
(``load_catalog`` twice, the baseline), ``diff_catalogs`` alone, and the whole
command (``toolcat diff OLD NEW --format json``, loading included), each with its
ratio to the baseline. Needs the spec corpus (``--corpus``, ``$TOOLCAT_CORPUS`` or
../shared/corpus) or ``--spec``; prints "skipped" and exits 0 without it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolcat.catalog.diff import diff_catalogs
from toolcat.cli import main
from toolcat.loader import load_catalog

REPO = Path(__file__).resolve().parent.parent


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best = float("inf")
    result: object = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def _edit(spec: dict[str, Any]) -> int:
    """Edit ``spec`` in place as the module says; returns the operations touched."""
    touched = 0
    operations = [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op
    ]
    for index, (_, _, op) in enumerate(operations):
        if index % 10 == 0:
            op["description"] = op.get("description", "") + " Edited."
            touched += 1
    spec["components"]["parameters"]["per-page"]["schema"]["maximum"] = 50
    spec["paths"]["/"]["get"]["operationId"] = "meta/api-root"
    del spec["paths"]["/repos/{owner}/{repo}/issues"]["post"]
    body = spec["paths"]["/user/repos"]["post"]["requestBody"]["content"]["application/json"]
    del body["schema"]["properties"]["description"]
    return touched + 3


def _pair(name: str, old: Path, new: Path, repeat: int) -> dict[str, Any]:
    load_s, _ = _best(lambda: (load_catalog([old]), load_catalog([new])), repeat)
    old_cat, new_cat = load_catalog([old]).catalog, load_catalog([new]).catalog
    assert old_cat is not None and new_cat is not None
    diff_s, changes = _best(lambda: diff_catalogs(old_cat, new_cat), repeat)

    def command() -> int:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return main(["diff", str(old), str(new), "--format", "json", "--fail-on", "any"])

    cmd_s, _ = _best(command, repeat)
    found = changes if isinstance(changes, tuple) else ()
    return {
        "pair": name,
        "tools": len(new_cat),
        "changes": len(found),
        "load_both_s": load_s,
        "diff_s": diff_s,
        "command_s": cmd_s,
    }


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--spec", default=None, help="a GitHub-like OpenAPI 3 spec (JSON)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    corpus = Path(args.corpus or os.environ.get("TOOLCAT_CORPUS") or REPO.parent / "shared/corpus")
    spec_path = Path(args.spec) if args.spec else corpus / "github-api.github.com.json"
    if not spec_path.is_file():
        print(f"skipped: {spec_path} not found (give --corpus DIR or --spec PATH)")
        return 0
    os.environ.setdefault("CI", "true")  # no progress output
    with tempfile.TemporaryDirectory() as tmp:
        twin = Path(tmp) / "github-copy.json"
        twin.write_bytes(spec_path.read_bytes())
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        touched = _edit(spec)
        edited = Path(tmp) / "github-edited.json"
        edited.write_text(json.dumps(spec), encoding="utf-8")
        rows = [
            _pair("GitHub vs an identical copy", spec_path, twin, args.repeat),
            _pair(f"GitHub vs an edited copy ({touched} ops)", spec_path, edited, args.repeat),
        ]
    print(f"best of {args.repeat}, Python {sys.version.split()[0]}")
    print("| pair | tools | changes | load both | diff_catalogs | ratio | toolcat diff | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        base = r["load_both_s"]
        print(
            f"| {r['pair']} | {r['tools']:,} | {r['changes']:,} | {base * 1000:.0f} ms "
            f"| {r['diff_s'] * 1000:.0f} ms | {r['diff_s'] / base:.2f}x "
            f"| {r['command_s'] * 1000:.0f} ms | {r['command_s'] / base:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main_())
