"""Benchmark: tool search quality and speed, against a plain BM25 over the same text, same run.

Run: ``python benchmarks/bench_search.py [--dev DIR] [--corpus DIR] [--repeat 3] [--write]
[--before FILE]``.

Quality, on the BFCL development set (``--dev``, default ``../shared/toolsearch-dev``:
829 tools, 1,000 requests with the tools that answer them): all@1, all@5,
all@10 (every expected tool in the top k) and MRR (the mean of 1/rank over the
expected tools, 0 past rank 10), over the whole catalog, counted by tool name
and by BFCL name (several catalog tools share one BFCL name and text). The
baseline is a plain BM25 (Okapi, k1 1.5, b 0.75, lower-case ``\\w+`` tokens, no
stems, no stop words, one field) over the tool's name, description and
parameter names and descriptions.

Every figure is also given for two halves of the requests, split by a hash of
the request id (``half A``: the first byte of its SHA-256 is even), so that a change
chosen on one half can be confirmed on the other; ``--before FILE`` ranks with an
earlier ``catalog/search/_search.py`` as well (``git show REF:catalog/search/_search.py
> FILE``), same catalog, same run, quality and speed.

Speed: index build time and query latency (median and p99 over the 1,000
requests) for the dev catalog and for the catalog compiled from GitHub's spec
(1,223 tools; needs the spec corpus), each as a ratio to loading that catalog
(``load_catalog``) in the same process, all in CPU time (best of ``--repeat``).
Without the dev set the script prints "skipped" and exits 0; without the corpus
the GitHub row says so.

``--semantic`` adds the fused ranking (``toolcat.executor.SemanticSearch``:
BM25F and embeddings by reciprocal rank fusion) with a small local model:
WordLlama's 256-dimension static embeddings, whose weights ship inside the
``wordllama`` wheel from PyPI (``pip install wordllama``; nothing is downloaded
at run time), served behind an OpenAI-compatible endpoint on 127.0.0.1
(``toolcat.tests.support.EmbeddingsService``), through the real HTTP client and disk
cache. It also times the first embedding of the tools, a load from the cache,
and query latency (the query's embedding request included).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
Ranker = Callable[[str, int], list[str]]


class PlainBM25:
    """Okapi BM25 over one bag of words per tool: the baseline."""

    def __init__(self, docs: Sequence[str], names: Sequence[str], k1: float = 1.5, b: float = 0.75):
        self.names = list(names)
        toks = [re.findall(r"\w+", d.lower()) for d in docs]
        self.lens = [len(t) for t in toks]
        self.avg = sum(self.lens) / max(len(toks), 1)
        self.tf: list[dict[str, int]] = []
        df: dict[str, int] = {}
        for t in toks:
            counts: dict[str, int] = {}
            for w in t:
                counts[w] = counts.get(w, 0) + 1
            self.tf.append(counts)
            for w in counts:
                df[w] = df.get(w, 0) + 1
        n = len(toks)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.k1, self.b = k1, b

    def search(self, query: str, top: int) -> list[str]:
        terms = set(re.findall(r"\w+", query.lower()))
        scores = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            for w in terms:
                f = tf.get(w)
                if f:
                    norm = self.k1 * (1 - self.b + self.b * self.lens[i] / self.avg)
                    s += self.idf[w] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scores.append((-s, i))
        scores.sort()
        return [self.names[i] for _, i in scores[:top]]


def plain_text(tool: Any) -> str:
    parts = [tool.name, tool.description]
    for key, schema in (tool.input_schema.get("properties") or {}).items():
        parts.append(key)
        if isinstance(schema, dict) and isinstance(schema.get("description"), str):
            parts.append(schema["description"])
    return " ".join(parts)


def half(query_id: str) -> str:
    """The half a request is in: "half A" when the first byte of its id's SHA-256 is even."""
    return "half B" if hashlib.sha256(query_id.encode()).digest()[0] % 2 else "half A"


def quality(
    rank: Ranker, queries: list[dict[str, Any]], bfcl: dict[str, str]
) -> dict[tuple[str, str], dict[str, float]]:
    """(by, category or half) -> {all@1, all@5, all@10, MRR}; by is "name" or "bfcl"."""
    sums: dict[tuple[str, str], list[float]] = {}
    for q in queries:
        got = rank(q["query"], 10)
        for by, hits, expected in (
            ("name", got, q["expected"]),
            ("bfcl", [bfcl.get(h, h) for h in got], q["expected_bfcl"]),
        ):
            ranks = [hits.index(e) + 1 if e in hits else math.inf for e in expected]
            worst = max(ranks)
            mrr = sum(1 / r for r in ranks) / len(ranks)
            for cat in (q["category"], half(q["id"]), "all"):
                row = sums.setdefault((by, cat), [0, 0, 0, 0.0, 0])
                row[0] += worst <= 1
                row[1] += worst <= 5
                row[2] += worst <= 10
                row[3] += mrr
                row[4] += 1
    return {
        key: {
            "all@1": r[0] / r[4],
            "all@5": r[1] / r[4],
            "all@10": r[2] / r[4],
            "MRR": r[3] / r[4],
            "n": r[4],
        }
        for key, r in sums.items()
    }


def speed(
    paths: list[str], queries: list[str], repeat: int, index_class: Any = None
) -> dict[str, float]:
    """Best-of-``repeat`` load and index build times, and query latency percentiles."""
    from toolcat.catalog.search import SearchIndex
    from toolcat.loader import load_catalog

    index_class = index_class or SearchIndex
    load_s = build_s = math.inf
    catalog = None
    clock = time.process_time  # CPU time: on a shared machine wall time measures the neighbours
    for _ in range(repeat):
        t = clock()
        catalog = load_catalog(paths, progress=False).catalog
        load_s = min(load_s, clock() - t)
        assert catalog is not None
        t = clock()
        index = index_class.build(catalog)
        build_s = min(build_s, clock() - t)
    assert catalog is not None
    lat = []
    for q in queries:
        t = clock()
        index.search(q, 10)
        lat.append(clock() - t)
    lat.sort()
    return {
        "tools": len(catalog),
        "load_s": load_s,
        "build_s": build_s,
        "median_s": statistics.median(lat),
        "p99_s": lat[min(len(lat) - 1, int(len(lat) * 0.99))],
    }


def _find(arg: str | None, env: str, default: Path) -> Path:
    return Path(arg or os.environ.get(env) or default)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", help="the BFCL dev set (default ../shared/toolsearch-dev)")
    ap.add_argument(
        "--corpus", help="the spec corpus (default $TOOLCAT_CORPUS or ../shared/corpus)"
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="also write results/search.md")
    ap.add_argument(
        "--before",
        metavar="FILE",
        help="also rank with this earlier catalog/search/_search.py (same catalog, same run)",
    )
    ap.add_argument(
        "--semantic",
        action="store_true",
        help="also rank with embeddings fused (needs `pip install wordllama`)",
    )
    args = ap.parse_args()
    dev = _find(args.dev, "TOOLCAT_SEARCH_DEV", REPO.parent / "shared" / "toolsearch-dev")
    corpus = _find(args.corpus, "TOOLCAT_CORPUS", REPO.parent / "shared" / "corpus")
    if not (dev / "queries.jsonl").is_file():
        print(f"skipped: no tool-search dev set at {dev} (--dev DIR)")
        return 0
    from toolcat.loader import load_catalog

    catalog = load_catalog([str(dev / "catalog")], progress=False).catalog
    assert catalog is not None
    lines = (dev / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [json.loads(line) for line in lines if line.strip()]
    names = json.loads((dev / "name_map.json").read_text(encoding="utf-8"))
    bfcl = {k: v["bfcl_name"] for k, v in names.items()}
    tools = list(catalog)
    plain = PlainBM25([plain_text(t) for t in tools], [t.name for t in tools])

    def ours(q: str, k: int) -> list[str]:
        return [h.name for h in catalog.search(q, k)]

    results = {"toolcat": quality(ours, queries, bfcl)}
    before = earlier_index(args.before) if args.before else None
    if before is not None:
        old = before.build(tools)
        results["toolcat before"] = quality(
            lambda q, k: [h.name for h in old.search(q, k)], queries, bfcl
        )
    results["plain BM25"] = quality(plain.search, queries, bfcl)
    texts = [q["query"] for q in queries]
    semantic_rows: list[str] = []
    if args.semantic:
        semantic_rows = semantic(catalog, queries, bfcl, results)
    catalogs = [("BFCL dev catalog", [str(dev / "catalog")])]
    spec = corpus / "github-api.github.com.json"
    if spec.is_file():
        catalogs.append(("GitHub's spec", [str(spec)]))
        # the size for the latency target: over 2,000 tools in one catalog
        catalogs.append(("BFCL dev + GitHub", [str(dev / "catalog"), str(spec)]))
    rows = []
    for label, paths in catalogs:  # before and after interleaved, catalog by catalog
        rows.append((label, speed(paths, texts, args.repeat)))
        if before is not None:
            rows.append((f"{label}, before", speed(paths, texts, args.repeat, before)))
    report = render(results, rows, spec.is_file()) + "".join(semantic_rows)
    print(report)
    if args.write:
        (REPO / "benchmarks" / "results" / "search.md").write_text(report, encoding="utf-8")
    return 0


def earlier_index(path: str) -> Any:
    """The ``SearchIndex`` class of an earlier ``_search.py``, loaded from its file."""
    spec = importlib.util.spec_from_file_location("toolcat_search_before", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench_search: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module.SearchIndex


def semantic(
    catalog: Any,
    queries: list[dict[str, Any]],
    bfcl: dict[str, str],
    results: dict[str, dict[tuple[str, str], dict[str, float]]],
) -> list[str]:
    """Add fused rankers to ``results`` (WordLlama behind a loopback endpoint); timing lines."""
    import dataclasses
    import tempfile

    try:
        from wordllama import WordLlama
    except ImportError:
        return ["\n## Semantic ranking\n\nskipped: `pip install wordllama` (--semantic)\n"]
    import wordllama
    from toolcat.catalog.search import EmbeddingsSettings
    from toolcat.executor import SemanticSearch
    from toolcat.testing import BackgroundServer
    from toolcat.tests.support import EmbeddingsService

    # the 256-dimension model and its tokenizer ship inside the wheel; its own lookup of the
    # tokenizer there misses (a "tokenizer" folder, shipped as "tokenizers"), so the package
    # folder is named as the "cache", and downloads are off
    package = Path(wordllama.__file__).parent
    model = WordLlama.load(cache_dir=package, disable_download=True)
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)  # wordllama turns INFO logs on

    def embed(texts: Sequence[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in model.embed(list(texts), norm=True)]

    clock = time.perf_counter
    lines = ["", "## Semantic ranking (`--semantic`)", ""]
    with BackgroundServer(EmbeddingsService(embed)) as server, tempfile.TemporaryDirectory() as d:
        base = EmbeddingsSettings(url=f"{server.url}/v1", model="wordllama-l2-supercat-256")
        t = clock()
        with SemanticSearch(catalog, base, cache_dir=d) as first:
            note = first.prepare()
        cold = clock() - t
        assert note is None, note
        t = clock()
        with SemanticSearch(catalog, base, cache_dir=d) as warm:
            warm.prepare()
        cached = clock() - t
        for weight in (1.0, 0.5):
            settings = dataclasses.replace(base, weight=weight)
            with SemanticSearch(catalog, settings, cache_dir=d) as searcher:
                lat: list[float] = []

                def fused(
                    q: str, k: int, s: SemanticSearch = searcher, times: list[float] = lat
                ) -> list[str]:
                    t = clock()
                    hits = s.search(q, k)
                    times.append(clock() - t)
                    assert hits.ranking == "fused", hits.note
                    return [h.name for h in hits]

                results[f"fused, weight {weight:g}"] = quality(fused, queries, bfcl)
            if weight == 1.0:
                lat.sort()
                median = statistics.median(lat) * 1000
                p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        with SemanticSearch(catalog, base, cache_dir=d) as only:

            def alone(q: str, k: int) -> list[str]:
                return only.rank_by_embeddings(q, k)

            results["embeddings only"] = quality(alone, queries, bfcl)
    lines += [
        "WordLlama's 256-dimension static embeddings behind an OpenAI-compatible endpoint "
        "on 127.0.0.1 (wall time, one process: the server runs in a thread of the benchmark).",
        "",
        f"- first embedding of the {len(catalog)} tools: {cold * 1000:.0f} ms; "
        f"from the disk cache: {cached * 1000:.0f} ms",
        f"- fused query (its embedding request included): median {median:.1f} ms, p99 {p99:.1f} ms",
        "",
        "| counted by | category | ranker | all@1 | all@5 | all@10 | MRR | requests |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for by in ("name", "bfcl"):
        for ranker, res in results.items():
            r = res.get((by, "all"))
            if r is not None:
                lines.append(
                    f"| {by} | all | {ranker} | {r['all@1']:.3f} | {r['all@5']:.3f} | "
                    f"{r['all@10']:.3f} | {r['MRR']:.3f} | {r['n']:.0f} |"
                )
    for key in [k for k in results if k not in ("toolcat", "toolcat before", "plain BM25")]:
        del results[key]  # the main table keeps its two rankers
    return ["\n".join(lines) + "\n"]


def render(
    results: dict[str, dict[tuple[str, str], dict[str, float]]],
    rows: list[tuple[str, dict[str, float]]],
    github: bool,
) -> str:
    out = [
        "# Tool search (`python benchmarks/bench_search.py --write`)",
        "",
        f"Python {sys.version.split()[0]}; the BFCL dev set (829 tools, 1,000 requests), "
        "ranked over the whole catalog.",
        "",
        "## Quality",
        "",
        "| counted by | category | ranker | all@1 | all@5 | all@10 | MRR | requests |",
        "|---|---|---|---|---|---|---|---|",
    ]
    cats = ["all", "half A", "half B", "multiple", "parallel", "parallel_multiple", "simple_python"]
    for by in ("name", "bfcl"):
        for cat in cats:
            for ranker, res in results.items():
                r = res.get((by, cat))
                if r is None:
                    continue
                out.append(
                    f"| {by} | {cat} | {ranker} | {r['all@1']:.3f} | {r['all@5']:.3f} | "
                    f"{r['all@10']:.3f} | {r['MRR']:.3f} | {r['n']:.0f} |"
                )
    out += [
        "",
        "## Speed (CPU time, best of the runs; latency over the 1,000 dev requests, top 10)",
        "",
        "| catalog | tools | load | index build | build / load | median query | p99 query "
        "| median / load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, s in rows:
        out.append(
            f"| {label} | {s['tools']:.0f} | {s['load_s'] * 1000:.0f} ms | "
            f"{s['build_s'] * 1000:.0f} ms | {s['build_s'] / s['load_s']:.2f} | "
            f"{s['median_s'] * 1e6:.0f} us | {s['p99_s'] * 1e6:.0f} us | "
            f"{s['median_s'] / s['load_s']:.5f} |"
        )
    if not github:
        out.append("| GitHub's spec | skipped: no spec corpus (--corpus DIR) | | | | | | |")
        out.append("| BFCL dev + GitHub | skipped: no spec corpus (--corpus DIR) | | | | | | |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
