"""`toolcat search CATALOG QUERY`: the tools that best match a request, ranked."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolcat.catalog import Catalog
    from toolcat.catalog.search import SearchHit
    from toolcat.executor import SemanticSearch

#: The most results one query may ask for (``--top``).
MAX_TOP = 1000


def register(sub: Any) -> None:
    p = sub.add_parser(
        "search",
        help="the tools that best match a request",
        description="Rank the tools of a catalog for a free-text request (BM25F over names, "
        "descriptions, parameters, tags and service; no network), fused with an embeddings "
        "endpoint's ranking when the catalog's search.embeddings names one. Give QUERY, or "
        "--queries FILE with one JSON object a line holding a 'query' field.",
    )
    p.add_argument("path", metavar="CATALOG", help="catalog file, directory, or OpenAPI spec")
    p.add_argument("query", nargs="?", metavar="QUERY", help="the request, in plain words")
    p.add_argument(
        "--queries",
        metavar="FILE",
        help="JSON lines with a 'query' field ('-' for stdin); one JSON line out per query",
    )
    p.add_argument("--top", type=int, default=10, metavar="K", help="how many tools (default 10)")
    p.add_argument("--toolset", metavar="NAME", help="only the tools of this toolset")
    p.add_argument(
        "--lexical",
        action="store_true",
        help="lexical ranking only, even when the catalog configures search.embeddings",
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolcat.catalog import UnknownToolsetError

    from ._app import CliError
    from ._loading import load_or_exit

    if (args.query is None) == (args.queries is None):
        raise CliError("give either QUERY or --queries FILE")
    if not 1 <= args.top <= MAX_TOP:
        raise CliError(f"--top must be between 1 and {MAX_TOP}")
    catalog = load_or_exit([args.path], args.ref_root)
    try:
        catalog.toolset(args.toolset)
    except UnknownToolsetError as exc:
        raise CliError(str(exc), 2) from exc
    searcher = _semantic(catalog, args)
    try:
        if args.queries is not None:
            return _batch(catalog, args, searcher)
        hits = _search(catalog, searcher, args.query, args)
        if args.format == "json":
            _json_line(_answer(args.query, hits, searcher), indent=2)
        else:
            sys.stdout.write(_table(catalog, hits))
            if not hits:
                print("toolcat search: no tool matches the query", file=sys.stderr)
    finally:
        if searcher is not None:
            searcher.close()
    return 0


def _semantic(catalog: Catalog, args: argparse.Namespace) -> SemanticSearch | None:
    """The fused search when the catalog configures ``search.embeddings`` (and not --lexical)."""
    settings = catalog.search_settings
    if args.lexical or settings is None or settings.embeddings is None:
        return None
    from toolcat.executor import SemanticSearch

    return SemanticSearch(catalog)


def _search(
    catalog: Catalog, searcher: SemanticSearch | None, query: str, args: argparse.Namespace
) -> list[SearchHit]:
    if searcher is None:
        return catalog.search(query, args.top, toolset=args.toolset)
    hits = searcher.search(query, args.top, toolset=args.toolset)
    noted: set[str] = args.__dict__.setdefault("noted", set())  # this run's notes
    if hits.note and hits.note not in noted:  # one line per distinct note, on stderr
        noted.add(hits.note)
        from toolcat.catalog.common import escape_controls

        print(f"toolcat search: note: {escape_controls(hits.note)}", file=sys.stderr)
    return hits


def _answer(query: str, hits: list[SearchHit], searcher: SemanticSearch | None) -> dict[str, Any]:
    out: dict[str, Any] = {"query": query, "results": _results(hits)}
    if searcher is not None:  # only with search.embeddings: the lexical answer is unchanged
        from toolcat.executor import SearchResults

        if isinstance(hits, SearchResults):
            out["ranking"] = hits.ranking
            if hits.note:
                out["note"] = hits.note
    return out


def _batch(catalog: Catalog, args: argparse.Namespace, searcher: SemanticSearch | None) -> int:
    """One JSON line per input line, in order; a bad line gets an ``error`` line, exit 1."""
    import json

    from ._app import CliError

    try:
        stream = sys.stdin if args.queries == "-" else open(args.queries, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise CliError(f"--queries {args.queries}: {exc.strerror or exc}") from exc
    failed = 0
    with stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError:
                item = None
            query = item.get("query") if isinstance(item, dict) else None
            if not isinstance(query, str):
                failed += 1
                _json_line({"line": number, "error": "not a JSON object with a string 'query'"})
                continue
            hits = _search(catalog, searcher, query, args)
            out = _answer(query, hits, searcher)
            if "id" in item:
                out = {"id": item["id"], **out}
            _json_line(out)
    return 1 if failed else 0


def _results(hits: list[SearchHit]) -> list[dict[str, Any]]:
    return [{"name": h.name, "score": h.score} for h in hits]


def _json_line(doc: Any, indent: int | None = None) -> None:
    import json

    from toolcat.catalog.common import escape_json_controls

    sys.stdout.write(escape_json_controls(json.dumps(doc, indent=indent, ensure_ascii=False)))
    sys.stdout.write("\n")


def _table(catalog: Catalog, hits: list[SearchHit]) -> str:
    """SCORE NAME DESCRIPTION (first line); control characters from the catalog escaped."""
    from toolcat.catalog.common import escape_controls as e

    from ._cmd_list import first_line

    if not hits:
        return ""
    rows = [("SCORE", "NAME", "DESCRIPTION")]
    rows += [
        (f"{h.score:.3f}", e(h.name), e(first_line(catalog[h.name].description))) for h in hits
    ]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    return "".join(f"{r[0].rjust(w0)}  {r[1].ljust(w1)}  {r[2]}".rstrip() + "\n" for r in rows)
