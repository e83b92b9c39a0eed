"""`toolcat schema PATH --provider P`: the tool definitions as that provider takes them."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    from toolcat.catalog.common import DEFER_ABOVE_TOOLS
    from toolcat.executor.providers import names  # no provider module is imported here

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
    p.add_argument("--provider", required=True, choices=names(), help="target API")
    p.add_argument(
        "--strict",
        action="store_true",
        help="OpenAI strict-mode schemas (openai, openai-responses)",
    )
    p.add_argument("--toolset", metavar="NAME", help="only the tools of this toolset")
    p.add_argument(
        "--budget",
        type=_budget,
        metavar="CHARS",
        help=(
            "keep each tool's input schema within CHARS characters of compact JSON by "
            "collapsing optional branches, deepest first (default 8000; 0: no budget)"
        ),
    )
    defer = p.add_mutually_exclusive_group()
    defer.add_argument(
        "--defer",
        action="store_const",
        const=True,
        dest="defer",
        help=(
            "defer every tool but the pinned ones (search.pinned) behind the provider's own "
            "tool search, and add its tool-search tool (anthropic, openai-responses; default: "
            f"the catalog's search.defer, else on above {DEFER_ABOVE_TOOLS} tools)"
        ),
    )
    defer.add_argument(
        "--no-defer",
        action="store_const",
        const=False,
        dest="defer",
        help="send every tool in full, whatever the catalog's size or search.defer",
    )
    p.add_argument(
        "--namespaces",
        choices=("toolset", "service", "none"),
        help=(
            "group the functions into namespaces by toolset or by service (openai-responses; "
            "default: the catalog's search.namespaces, else none)"
        ),
    )
    p.add_argument(
        "--input-examples",
        action="store_true",
        help="send each tool's catalog examples that its schema accepts as input_examples "
        "(anthropic)",
    )
    p.add_argument(
        "--quiet", "-q", action="store_true", help="do not print conversion notes on stderr"
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of characters >= 0, got {text!r}"
        )
    return value


def run(args: argparse.Namespace) -> int:

    from toolcat.catalog import UnknownToolsetError
    from toolcat.executor.providers import export_catalog, get, names

    from ._app import CliError
    from ._json import write_indented
    from ._loading import catalog_or_exit, read_catalog

    provider = get(args.provider)
    if args.strict and not provider.supports_strict:
        strict_ones = " and ".join(n for n in names() if get(n).supports_strict)
        raise CliError(f"--strict applies to {strict_ones}, not {args.provider}")
    for flag, given, member in (
        ("--defer", args.defer, "supports_defer"),
        ("--namespaces", args.namespaces not in (None, "none"), "supports_namespaces"),
        ("--input-examples", args.input_examples, "supports_input_examples"),
    ):
        if given and not getattr(provider, member, False):
            ones = " and ".join(n for n in names() if getattr(get(n), member, False))
            raise CliError(f"{flag} applies to {ones}, not {args.provider}")
    # a format without output schemas: the importer need not convert response schemas
    outputs = getattr(provider, "carries_output_schemas", True)
    result = read_catalog(args.paths, args.ref_root, output_schemas=outputs)
    catalog = catalog_or_exit(result)
    if not len(catalog):
        _none_imported(result)
    options: dict[str, Any] = {}  # the new options only when given: any provider takes none
    if args.defer is not None:
        options["defer"] = args.defer
    if args.namespaces is not None:
        options["namespaces"] = args.namespaces
    if args.input_examples:
        options["input_examples"] = True
    try:
        exported = export_catalog(
            catalog,
            args.provider,
            strict=args.strict,
            toolset=args.toolset,
            budget=args.budget,
            **options,
        )
    except UnknownToolsetError as exc:
        raise CliError(str(exc), 2) from exc
    except ValueError as exc:  # more tools than the provider's tool search takes
        raise CliError(str(exc), 1) from exc
    write_indented(exported.tools, sys.stdout)
    sys.stdout.flush()
    from toolcat.executor.providers import limit_warnings

    sent = [t.name for t in catalog.toolset(args.toolset)]
    deferred = getattr(exported, "deferred", False)  # the tool search finds the others
    for line in limit_warnings(
        args.provider, sent, count=not deferred
    ):  # before a request fails there
        print(f"toolcat: warning: {line}", file=sys.stderr)
    if not args.quiet:
        for note in exported.notes:
            if note.tool or _not_the_count(note.message):  # the count is a warning above
                print(f"toolcat: note: {args.provider}: {note}", file=sys.stderr)
    return 0


def _not_the_count(message: str) -> bool:
    """Whether a note on the whole request is other than "more tools than the API takes"
    (which ``limit_warnings`` has printed as a warning)."""
    return "tools, and the API takes at most" not in message


def _none_imported(result: Any) -> None:
    """A catalog whose specs' operations were all left out exports nothing: say why, as
    ``toolcat import`` does (each skipped operation, located), and exit 1."""
    from ._app import CliError
    from ._formats import format_text

    skipped = [d for d in result.diagnostics if d.code in ("TC203", "TC204")]
    if not skipped:
        return  # a catalog without tools, as written
    sys.stderr.write(format_text(skipped, list(result.files), "error"))
    raise CliError("no tool to export: every operation of the spec was left out (see above)", 1)
