"""`toolcat validate PATH...`: check catalogs and report every diagnostic."""

from __future__ import annotations

import argparse
import sys
from typing import Any

FORMAT_CHOICES = ("text", "json", "github", "sarif", "junit")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "validate",
        help="check catalogs; exit 0 clean, 1 findings, 2 bad usage or unreadable input",
        description=(
            "Load and check catalogs (YAML files, directories, or OpenAPI specs) without "
            "network or secrets. Exit 0 when clean, 1 when a finding is at or above "
            "--fail-on, 2 on bad usage or unreadable input."
        ),
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="catalog file, directory, or OpenAPI spec"
    )
    p.add_argument(
        "--format", choices=FORMAT_CHOICES, default="text", help="output format (default: text)"
    )
    p.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        default="error",
        help="lowest severity that fails the run (default: error)",
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ._formats import FORMATS, is_failure, summary_line
    from ._loading import read_catalog

    result = read_catalog(args.paths, args.ref_root)
    diagnostics = list(result.diagnostics)
    files = list(result.files)
    sys.stdout.write(FORMATS[args.format](diagnostics, files, args.fail_on))
    sys.stdout.flush()
    if args.format == "text":
        print(f"toolcat: {summary_line(diagnostics, files)}", file=sys.stderr)
    return 1 if any(is_failure(d, args.fail_on) for d in diagnostics) else 0
