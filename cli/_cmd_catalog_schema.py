"""`toolcat catalog-schema`: the JSON Schema of the catalog file format, for editors and CI."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "catalog-schema",
        help="the JSON Schema of the catalog format",
        description=(
            "Print the JSON Schema (draft 2020-12) of catalog format version 1. Point your "
            "editor at it with '# yaml-language-server: $schema=PATH' at the top of a catalog."
        ),
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolcat.loader import render_catalog_json_schema

    from ._app import CliError

    text = render_catalog_json_schema()
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            raise CliError(f"{args.output}: {exc.strerror or exc}", 2) from exc
        return 0
    sys.stdout.write(text)
    return 0
