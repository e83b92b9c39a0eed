"""`toolcat env PATH...`: the environment variables a catalog needs, and whether they are set."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._app import CliError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "env",
        help="list the ${VAR}s a catalog needs, where they are used, and whether they are set",
        description=(
            "List every environment variable the catalog refers to (service base URLs, "
            "headers and auth, per-tool overrides, the server section), where it is used, "
            "whether it has a default, and whether it is set here. Values are never printed. "
            "Exit 0; with --check, exit 1 when a variable without a default is unset."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="catalog file, directory, or spec")
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when a variable that has no default is unset or empty",
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import os

    from ._envuses import collect_variables
    from ._loading import read_catalog, report_failed_load

    result = read_catalog(args.paths, args.ref_root)
    if result.catalog is None:
        errors = report_failed_load(result.diagnostics, result.files)
        noun = "error" if errors == 1 else "errors"
        raise CliError(f"the catalog has {errors} {noun}; see 'toolcat validate' for details", 1)
    found = collect_variables(result.catalog, result.server, tuple(result.files))
    env = os.environ
    missing = [v.name for v in found if v.required_and_missing(env)]
    if args.format == "json":
        import json

        doc = {
            "variables": [
                {
                    "name": v.name,
                    "state": v.state(env),
                    "hasDefault": v.has_default,
                    "required": not v.has_default,
                    "uses": [{"where": w, "what": what} for w, what in v.uses],
                }
                for v in found
            ],
            "missing": missing,
        }
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(_table(found, env))
    sys.stdout.flush()
    if missing:
        noun = "variable" if len(missing) == 1 else "variables"
        print(
            f"toolcat: {len(missing)} {noun} without a default not set: {', '.join(missing)}",
            file=sys.stderr,
        )
    elif not found:
        print("toolcat: the catalog needs no environment variables", file=sys.stderr)
    return 1 if args.check and missing else 0


_SHOWN_USES = 3


def _table(found: list[Any], env: Any) -> str:
    from toolcat.catalog.common import escape_controls

    rows = [("VARIABLE", "STATE", "DEFAULT", "USED AT")]
    for v in found:
        uses = [f"{where} ({what})" for where, what in v.uses[:_SHOWN_USES]]
        if len(v.uses) > _SHOWN_USES:
            uses.append(f"and {len(v.uses) - _SHOWN_USES} more")
        default = "yes" if v.has_default else "no"
        rows.append((v.name, v.state(env), default, escape_controls("; ".join(uses))))
    if len(rows) == 1:
        return ""
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "".join(
        f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}\n" for r in rows
    )
