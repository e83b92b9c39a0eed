"""`toolcat codegen --lang python|typescript PATH -o DIR`: a typed code API of a catalog."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

#: lists the files a run wrote, so that a rerun removes the ones no longer generated
MARKER = ".toolcat-codegen"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "codegen",
        help="a typed code API of the catalog (Python or TypeScript), calling toolcat serve",
        description=(
            "Write a package with one module per service (or toolset, or tag) and one typed "
            "function per tool, whose calls go to a toolcat MCP server (serve --transport "
            "http), so every guard applies. The token is read from $TOOLCAT_MCP_TOKEN."
        ),
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="catalog file, directory, or OpenAPI spec"
    )
    p.add_argument("--lang", required=True, choices=("python", "typescript"), help="language")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write")
    p.add_argument(
        "--package",
        metavar="NAME",
        help="package name (default: toolcat_api for Python, toolcat-api for TypeScript)",
    )
    p.add_argument(
        "--by",
        choices=("service", "toolset", "tag"),
        default="service",
        help="what a module holds: a service's (or MCP server's) tools (default), a "
        "toolset's, or a tag's; a tool goes to its first toolset or tag, else its service",
    )
    p.add_argument(
        "--toolset", metavar="NAME", help="only this toolset's tools (as serve --toolset serves)"
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolcat.catalog import UnknownToolsetError

    from ._app import CliError
    from ._codegen import generate
    from ._loading import load_or_exit

    package = args.package or ("toolcat_api" if args.lang == "python" else "toolcat-api")
    if args.lang == "python" and not package.isidentifier():
        raise CliError(f"--package {package!r}: a Python package name is an identifier")
    catalog = load_or_exit(args.paths, args.ref_root)
    try:
        files = generate(catalog, args.lang, package, args.by, args.toolset)
    except UnknownToolsetError as exc:
        raise CliError(str(exc)) from exc
    out = Path(args.output)
    _write(out, files)
    print(f"toolcat: wrote {len(files)} files to {out}", file=sys.stderr)
    return 0


def _write(out: Path, files: dict[str, str]) -> None:
    """Write ``files`` under ``out``; files an earlier run wrote and this one does not are
    removed. A folder holding anything else is refused, so nothing of the user's is lost."""
    from ._app import CliError

    marker = out / MARKER
    if out.exists() and not out.is_dir():
        raise CliError(f"{out}: not a directory")
    if out.is_dir() and any(out.iterdir()) and not marker.is_file():
        raise CliError(f"{out}: the folder holds files toolcat codegen did not write")
    earlier = marker.read_text("utf-8").splitlines() if marker.is_file() else []
    try:
        for name in earlier:
            if name not in files and (out / name).is_file():
                (out / name).unlink()
        for name, text in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            # a lone surrogate (a spec's "\\ud800") is written as its escape, not refused
            path.write_text(text, "utf-8", "backslashreplace", newline="\n")
        marker.write_text("".join(f"{name}\n" for name in sorted(files)), "utf-8")
    except OSError as exc:
        raise CliError(f"{out}: {exc.strerror or exc}") from exc
