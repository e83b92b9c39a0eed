"""`toolcat schema PATH --provider P`: the tool definitions as that provider takes them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

PROVIDER_CHOICES = ("openai", "openai-responses", "anthropic", "gemini", "mcp")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "schema",
        help="the tool definitions in a provider's format (JSON on stdout)",
        description=(
            "Print the tools as the provider's API takes them: the JSON value of the "
            "request's 'tools' field (MCP: the 'tools' of a tools/list result). Notes on "
            "what a conversion changed go to stderr."
        ),
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="catalog file, directory, or OpenAPI spec"
    )
    p.add_argument("--provider", required=True, choices=PROVIDER_CHOICES, help="target API")
    p.add_argument(
        "--strict",
        action="store_true",
        help="OpenAI strict-mode schemas (openai, openai-responses)",
    )
    p.add_argument("--toolset", metavar="NAME", help="only the tools of this toolset")
    p.add_argument(
        "--quiet", "-q", action="store_true", help="do not print conversion notes on stderr"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from toolcat.catalog import UnknownToolsetError, export_catalog
    from toolcat.catalog._export import STRICT_PROVIDERS

    from ._app import CliError
    from ._loading import load_or_exit

    if args.strict and args.provider not in STRICT_PROVIDERS:
        raise CliError(f"--strict applies to openai and openai-responses, not {args.provider}")
    catalog = load_or_exit(args.paths)
    try:
        result = export_catalog(catalog, args.provider, strict=args.strict, toolset=args.toolset)
    except UnknownToolsetError as exc:
        raise CliError(str(exc), 2) from exc
    sys.stdout.write(json.dumps(result.tools, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    if not args.quiet:
        for note in result.notes:
            print(f"toolcat: note: {args.provider}: {note}", file=sys.stderr)
    return 0
