"""`toolcat access PATH --claims JSON`: what an identity may call under ``server.access``."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "access",
        help="what an identity may call under the catalog's access policy",
        description="Apply the catalog's server.access rules to an identity given as token "
        "claims (or an API key's name) and print, for each tool, whether it may call it "
        "and the rule that decided.",
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="catalog file, directory, or OpenAPI spec"
    )
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument(
        "--claims",
        metavar="JSON",
        help='the verified token\'s claims, e.g. \'{"sub": "ana", "groups": ["readers"], '
        '"scope": "tools:call"}\'; @FILE reads them from a file',
    )
    who.add_argument("--api-key", metavar="NAME", help="a caller holding the API key NAME")
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from toolcat.catalog.common import escape_controls, escape_json_controls
    from toolcat.catalog.serving import AccessPolicy
    from toolcat.executor import AccessGuard, CallerIdentity

    from ._app import CliError
    from ._loading import load_or_exit, read_catalog

    result = read_catalog(args.paths, args.ref_root)
    # a broken catalog: its errors, as list and schema print them
    catalog = result.catalog if result.catalog is not None else load_or_exit(args.paths)
    settings = result.server
    policy = settings.access if settings is not None else AccessPolicy()
    if args.api_key is not None:
        api_key = args.api_key
        scopes: list[str] = []
        for entry in settings.auth.api_keys if settings is not None else ():
            if entry.name == api_key:
                scopes = list(entry.scopes)
        identity = CallerIdentity.make(subject=api_key, method="api_key", scopes=scopes)
    else:
        text = args.claims
        if text.startswith("@"):
            try:
                with open(text[1:], encoding="utf-8") as f:
                    text = f.read(1_000_001)
            except OSError as exc:
                raise CliError(f"--claims: cannot read {text[1:]}: {exc.strerror}") from exc
        try:
            claims = json.loads(text)
        except ValueError as exc:
            raise CliError(f"--claims is not JSON: {exc}") from exc
        if not isinstance(claims, dict):
            raise CliError("--claims must be a JSON object of claims")
        names = settings.auth.client_claims if settings is not None else ("client_id", "azp")
        identity = CallerIdentity.from_claims(claims, method="jwt", client_claims=names)
    guard = AccessGuard(policy, catalog)
    rows = [(tool.name, guard.decide(identity, tool.name)) for tool in catalog]
    if args.format == "json":
        doc = {
            "policy": "on" if guard.enabled else "off (no rules: every caller may call every tool)",
            "tools": [{"tool": n, "allowed": d.allowed, "rule": d.rule} for n, d in rows],
        }
        out = escape_json_controls(json.dumps(doc, indent=2, ensure_ascii=False))
        sys.stdout.write(out + "\n")
        return 0
    if not guard.enabled:
        sys.stdout.write("no access rules: every caller may call every tool\n")
    width = max((len(n) for n, _ in rows), default=0)
    for name, decision in rows:
        verdict = "allow" if decision.allowed else "deny "
        sys.stdout.write(f"{verdict}  {escape_controls(name).ljust(width)}  {decision.reason}\n")
    allowed = sum(1 for _, d in rows if d.allowed)
    sys.stdout.write(f"toolcat: {allowed} of {len(rows)} tools allowed\n")
    return 0
