"""`toolcat import openapi SPEC`: write a YAML catalog from an OpenAPI 3.x or Swagger 2.0 spec."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from ._app import CliError

# a spec or an overlay that cannot be used: nothing is written
_FATAL = ("TC002", "TC201", "TC202", "TC207", "TC060", "TC061", "TC062", "TC063")
_KINDS = {"tag": "tags", "operation": "operations", "path": "paths", "method": "methods"}


def register(sub: Any) -> None:
    from toolcat.catalog.common import MAX_DESCRIPTION_CHARS

    p = sub.add_parser(
        "import",
        help="write a YAML catalog from an OpenAPI spec or an MCP server",
        description="Import tools from an API description into a catalog file.",
    )
    kinds = p.add_subparsers(dest="kind", metavar="KIND")
    o = kinds.add_parser(
        "openapi",
        help="an OpenAPI 3.0/3.1/3.2 or Swagger 2.0 spec (JSON or YAML)",
        description=(
            "Write a YAML catalog with one tool per operation. Selections: within one flag the "
            "values are alternatives; different include flags must all match; any exclude "
            "flag that matches leaves the operation out. The per-operation report goes to stderr."
        ),
    )
    o.add_argument("spec", metavar="SPEC", help="the spec file")
    o.add_argument(
        "-o", "--output", metavar="FILE", help="write the catalog here (default: stdout)"
    )
    o.add_argument(
        "--service", metavar="NAME", help="the service name (default: from the API's host or title)"
    )
    o.add_argument("--prefix", default="", metavar="P", help="prefix every tool name with P")
    sel = o.add_argument_group("selection")
    for flag, dest, meta, what in (
        ("tag", "tags", "TAG", "operations with this tag"),
        ("operation", "operations", "ID", "the operation with this operationId"),
        ("path", "paths", "GLOB", "operations whose path matches this glob (fnmatch)"),
    ):
        sel.add_argument(
            f"--include-{flag}",
            dest=f"include_{dest}",
            action="append",
            default=[],
            metavar=meta,
            help=f"import only {what} (repeatable)",
        )
        sel.add_argument(
            f"--exclude-{flag}",
            dest=f"exclude_{dest}",
            action="append",
            default=[],
            metavar=meta,
            help=f"leave out {what} (repeatable)",
        )
    sel.add_argument(
        "--method",
        dest="include_methods",
        action="append",
        default=[],
        metavar="M",
        help="import only operations with this HTTP method (repeatable)",
    )
    sel.add_argument(
        "--exclude-method",
        dest="exclude_methods",
        action="append",
        default=[],
        metavar="M",
        help="leave out operations with this HTTP method (repeatable)",
    )
    sel.add_argument(
        "--include",
        dest="include_any",
        action="append",
        default=[],
        metavar="KIND:VALUE",
        help="tag:T, operation:ID, path:GLOB or method:M (repeatable)",
    )
    sel.add_argument(
        "--exclude",
        dest="exclude_any",
        action="append",
        default=[],
        metavar="KIND:VALUE",
        help="tag:T, operation:ID, path:GLOB or method:M (repeatable)",
    )
    o.add_argument(
        "--spec-url",
        metavar="URL",
        help="where the spec was downloaded from: relative server URLs resolve against it",
    )
    o.add_argument(
        "--max-spec-mb",
        type=float,
        default=64.0,
        metavar="MB",
        help="refuse spec files larger than this (default 64)",
    )
    w = o.add_argument_group("how tools are written")
    w.add_argument(
        "--output-schemas",
        choices=("shared", "inline", "none"),
        default="shared",
        help="shared (default): each definition once, in the file's definitions:; inline: a "
        "copy in each tool; none: no output schemas",
    )
    w.add_argument(
        "--descriptions",
        choices=("markdown", "keep"),
        default="markdown",
        help="markdown (default): HTML descriptions become Markdown; keep: as the spec writes them",
    )
    w.add_argument(
        "--description-max",
        type=int,
        default=MAX_DESCRIPTION_CHARS,
        metavar="N",
        help=f"cut tool and argument descriptions to N characters (default "
        f"{MAX_DESCRIPTION_CHARS}, OpenAI's limit)",
    )
    w.add_argument(
        "--base-url-style",
        choices=("env", "fixed"),
        default="env",
        help="env (default): base_url is ${SERVICE_BASE_URL:-<spec server>}; fixed: the server",
    )
    w.add_argument(
        "--naming",
        choices=("operation_id", "snake_case"),
        default="operation_id",
        help="tool names: the operationId as written (default) or in snake_case",
    )
    w.add_argument(
        "--confirm-methods",
        metavar="M,M",
        default=None,
        help="the HTTP methods whose tools get confirm: true, comma-separated, or 'none' "
        "(default: every method that is not safe: POST, PUT, PATCH, DELETE, ...); the other "
        "writes get confirm: false",
    )
    o.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="report only the operations left out and the summary",
    )
    o.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="with --update: list every operation too (by default an update reports what "
        "it kept, changed, added or removed, the operations left out, and a summary)",
    )
    o.add_argument(
        "--ref-root",
        metavar="DIR",
        default=None,
        help="folder that the spec's $refs may read files under (default: the spec's git "
        "repository, else its folder)",
    )
    from ._import_update import register_update  # --overlay, --update, --force

    register_update(p, o)
    o.set_defaults(func=run)
    from ._import_mcp import register_mcp

    register_mcp(kinds)
    p.set_defaults(func=_no_kind)


def _no_kind(args: argparse.Namespace) -> int:
    if getattr(args, "update_file", None):
        from ._import_update import run_update_only

        return run_update_only(args)
    raise CliError(
        "say what to import: 'toolcat import openapi SPEC' or 'toolcat import mcp --server "
        "NAME ...' (see 'toolcat import --help')"
    )


def _selection(args: argparse.Namespace, side: str) -> Any:
    from toolcat.loader.openapi import Selection

    values: dict[str, list[str]] = {k: list(getattr(args, f"{side}_{k}")) for k in _KINDS.values()}
    for item in getattr(args, f"{side}_any"):
        kind, sep, value = item.partition(":")
        if not sep or kind not in _KINDS or not value:
            raise CliError(
                f"--{side} {item!r}: write KIND:VALUE with KIND one of {', '.join(_KINDS)}"
            )
        values[_KINDS[kind]].append(value)
    return Selection(**{k: tuple(v) for k, v in values.items()})


def _options(args: argparse.Namespace) -> Any:
    """The ImportOptions of the command line; a value out of range is one line."""
    from pathlib import Path

    from toolcat.loader.openapi import ImportOptions

    if args.max_spec_mb <= 0:
        raise CliError("--max-spec-mb must be positive")
    if args.prefix and not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", args.prefix):
        raise CliError(f"--prefix {args.prefix!r}: use up to 40 letters, digits, '_' or '-'")
    if not 40 <= args.description_max <= 100_000:
        raise CliError("--description-max must be between 40 and 100000")
    return ImportOptions(
        output_schemas=args.output_schemas,
        markdown=args.descriptions == "markdown",
        description_max=args.description_max,
        base_url_env=args.base_url_style == "env",
        naming=args.naming,
        confirm_methods=_confirm_methods(args.confirm_methods),
        service=args.service,
        include=_selection(args, "include"),
        exclude=_selection(args, "exclude"),
        prefix=args.prefix,
        max_spec_bytes=int(args.max_spec_mb * 1024 * 1024),
        spec_url=args.spec_url,
        ref_root=Path(args.ref_root) if args.ref_root else None,
        overlays=tuple(Path(o) for o in args.overlay),
    )


def _report(args: argparse.Namespace, result: Any) -> None:
    """What the import did, on stderr: each operation left out (located), or every one
    with -v, and the other findings."""
    where = {  # the located finding of each skipped operation
        (d.path[1], str(d.path[2]).upper()): d
        for d in result.diagnostics
        if d.code in ("TC203", "TC204") and len(d.path) == 3 and d.path[0] == "paths"
    }
    # an update reports what it kept, changed, added or removed; -v every operation too
    every = not args.quiet and (not args.update or args.verbose)
    for report in result.report:
        if report.skipped or every:
            print(str(report), file=sys.stderr)
            found = where.get((report.path, report.method)) if report.skipped else None
            if found is not None:
                print(
                    f"    at {found.file}:{found.line}:{found.column}: "
                    f"{found.severity} {found.code}",
                    file=sys.stderr,
                )
            for note in report.notes:
                print(f"    note: {note}", file=sys.stderr)
    for diag in result.diagnostics:
        if diag.code not in ("TC203", "TC204"):  # those are in the report above
            print(str(diag), file=sys.stderr)


def _confirm_methods(value: str | None) -> frozenset[str] | None:
    from toolcat.catalog.common import METHODS

    if value is None:
        return None
    if value.strip().lower() == "none":
        return frozenset()
    methods = [m.strip().upper() for m in value.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise CliError(
            f"--confirm-methods {value!r}: write HTTP methods such as POST,DELETE, or 'none' "
            f"(known: {', '.join(METHODS)})"
        )
    return frozenset(methods)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from toolcat.loader.openapi import (
        catalog_document,
        import_openapi,
        render_catalog,
    )

    spec = Path(args.spec)
    if not spec.is_file():
        raise CliError(
            f"{args.spec}: no such file" if not spec.exists() else f"{args.spec}: not a file"
        )
    from ._import_update import (
        before_import,
        finish_update,
        import_summary,
        record_text,
        refuse_discarding_edits,
        write_catalog,
    )
    from ._loading import check_ref_root

    before_import(args)  # --update FILE: refuse a file import did not write, before anything
    refuse_discarding_edits(args)  # -o FILE changed by hand since: --update or --force
    check_ref_root(args.ref_root)
    options = _options(args)
    result = import_openapi(spec, options)
    fatal = [d for d in result.diagnostics if d.code in _FATAL]
    if fatal:  # one located line, as `toolcat validate` prints it
        raise CliError(str(fatal[0]))
    typo = [d for d in result.diagnostics if d.code == "TC215"]
    if typo:  # a selection value that matches nothing: a typo, never an empty import
        raise CliError(f"--{typo[0].message} (TC215)")
    _report(args, result)
    if args.update:  # FILE's hand edits merged into this import
        return finish_update(args, result, spec, options)
    document = catalog_document(result)  # written as YAML and fingerprinted in the record
    text = render_catalog(result, spec, options, document=document)
    record = record_text(args, result, spec, document)
    if args.output:
        write_catalog(args.output, text, record)
    else:
        sys.stdout.write(text + record)
    return import_summary(result, "operation", args.spec, args.output)
