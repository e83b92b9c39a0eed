"""`toolcat docs CATALOG -o DIR`: write a static catalog browser (works offline)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "docs",
        help="write a static catalog browser (search, filters, a page per tool)",
        description="Write a static site for a catalog: a search box that ranks as 'toolcat "
        "search' does, filters by toolset, tag, method and service, and a page per tool. "
        "It works from file:// and any static host (no CDN).",
    )
    p.add_argument("path", metavar="CATALOG", help="catalog file, directory, or OpenAPI spec")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the folder to write")
    p.add_argument("--force", action="store_true", help="write into a folder that is not empty")
    p.add_argument(
        "--title",
        help="the site's title (default: the catalog's one service, else its folder or file "
        "name, passing over generic names such as 'catalog')",
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ._app import CliError
    from ._docsite import NotEmptyError, build_site, check_output, default_title
    from ._loading import load_or_exit

    out = Path(args.output)
    try:
        check_output(out, args.force)
    except NotEmptyError as exc:
        raise CliError(str(exc)) from exc
    start = time.perf_counter()
    catalog = load_or_exit([args.path], args.ref_root)
    src = Path(args.path)
    root = src if src.is_dir() else src.parent
    title = args.title or default_title(catalog, src)
    report = build_site(catalog, out, title=title, force=args.force, root=root)
    took = time.perf_counter() - start
    print(
        f"wrote {report.tools} tools to {out} ({report.files} files, "
        f"{report.bytes / 1e6:.1f} MB) in {took:.1f} s; open {out / 'index.html'}",
        file=sys.stderr,
    )
    return 0
