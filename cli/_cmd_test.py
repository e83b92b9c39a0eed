"""`toolcat test PATH`: run a catalog's examples offline; `--conformance` checks requests
against the source OpenAPI spec."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import Any

from ._app import CliError

FORMAT_CHOICES = ("text", "json", "github", "sarif", "junit")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEFAULT_CASES = 25  # generated argument sets per tool for --conformance


def register(sub: Any) -> None:
    p = sub.add_parser(
        "test",
        help="run a catalog's examples offline; exit 0 all pass, 1 a difference, 2 bad usage",
        description=(
            "Run the examples a catalog carries (arguments -> request, recorded response -> "
            "result) through the executor, offline: no network, secrets from a test "
            "environment (unset ${VAR}s get fake values). A request or result that differs "
            "fails with a diff. --conformance also renders generated arguments for every "
            "tool imported from an OpenAPI spec and checks each request against the spec. "
            "Exit 0 when everything passes, 1 on a difference or catalog errors, 2 on bad "
            "usage or unreadable input."
        ),
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="catalog file, directory, or OpenAPI spec"
    )
    p.add_argument(
        "--format", choices=FORMAT_CHOICES, default="text", help="output format (default: text)"
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE|FILE",
        help="a variable for the test environment, or a file of NAME=VALUE lines (repeatable)",
    )
    p.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="NAME",
        help="only this tool's examples and conformance (repeatable)",
    )
    p.add_argument(
        "--conformance",
        action="store_true",
        help="check requests rendered from generated arguments against the source spec",
    )
    p.add_argument(
        "--spec",
        action="append",
        default=[],
        metavar="FILE",
        help="the OpenAPI spec that --conformance checks against (repeatable; default: "
        "the specs the catalog imports)",
    )
    p.add_argument(
        "--cases",
        type=int,
        default=DEFAULT_CASES,
        metavar="N",
        help=f"generated argument sets per tool for --conformance (default: {DEFAULT_CASES})",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the generated arguments (default: 0)"
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def parse_env(items: Sequence[str]) -> dict[str, str]:
    """``--env NAME=VALUE`` and ``--env FILE`` (``NAME=VALUE`` lines, ``#`` comments)."""
    from ._inputs import read_user_file

    env: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if sep and _ENV_NAME.fullmatch(name):
            env[name] = value
            continue
        text = read_user_file(item, "the test environment")
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("export "):
                line = line[len("export ") :].strip()
            name, sep, value = line.partition("=")
            name = name.strip()
            if not sep or not _ENV_NAME.fullmatch(name):
                raise CliError(f"--env {item}:{number}: expected NAME=VALUE")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            env[name] = value
    return env


def run(args: argparse.Namespace) -> int:
    from ._examples import fake_env, run_examples
    from ._formats import FORMATS
    from ._loading import read_catalog

    if args.cases < 1:
        raise CliError("--cases must be at least 1")
    given = parse_env(args.env)
    result = read_catalog(args.paths, args.ref_root)
    files = list(result.files)
    if result.catalog is None:  # the catalog's own findings, as validate reports them
        diagnostics = list(result.diagnostics)
        sys.stdout.write(FORMATS[args.format](diagnostics, files, "error"))
        if args.format == "text":
            from ._formats import summary_line

            print(f"toolcat: {summary_line(diagnostics, files)}", file=sys.stderr)
        return 1
    catalog = result.catalog
    unknown = [t for t in args.tool if t not in catalog]
    if unknown:
        raise CliError(f"--tool {unknown[0]!r}: no such tool in the catalog")
    env = fake_env(catalog, given)
    outcomes = run_examples(catalog, env, args.tool)
    checks: list[Any] = []
    if args.conformance:
        from ._conformance import check_conformance

        checks = check_conformance(
            catalog,
            args.spec,
            env,
            tools=args.tool,
            cases=args.cases,
            seed=args.seed,
            read=files,
        )
    write_report(args.format, outcomes, checks, files)
    failed = any(not o.passed for o in outcomes) or any(not c.passed for c in checks)
    return 1 if failed else 0


def write_report(
    fmt: str, outcomes: Sequence[Any], checks: Sequence[Any], files: list[str]
) -> None:
    from ._formats import FORMATS

    diagnostics = [d for o in [*outcomes, *checks] for d in o.diagnostics]
    if fmt == "text":
        sys.stdout.write(_text(outcomes, checks))
        print(f"toolcat: {_summary(outcomes, checks)}", file=sys.stderr)
    elif fmt == "json":
        sys.stdout.write(_json(outcomes, checks, files))
    elif fmt == "junit":
        sys.stdout.write(_junit(outcomes, checks))
    else:
        sys.stdout.write(FORMATS[fmt](diagnostics, files, "error"))


def _summary(outcomes: Sequence[Any], checks: Sequence[Any]) -> str:
    failed = sum(1 for o in outcomes if not o.passed)
    parts = [
        f"{len(outcomes)} example{'s' if len(outcomes) != 1 else ''}: "
        f"{len(outcomes) - failed} passed, {failed} failed"
        if outcomes
        else "no examples in the catalog"
    ]
    if checks:
        bad = sum(1 for c in checks if not c.passed)
        parts.append(f"conformance: {len(checks)} tools, {len(checks) - bad} passed, {bad} failed")
    return "; ".join(parts)


def _text(outcomes: Sequence[Any], checks: Sequence[Any]) -> str:
    from toolcat.catalog.common import escape_controls

    lines: list[str] = []
    for o in [*outcomes, *checks]:
        head = f"{o.tool}: {o.label}"
        if o.passed:
            lines.append(escape_controls(f"ok    {head}"))
            continue
        lines.append(escape_controls(f"FAIL  {head}"))
        for d in o.diagnostics:
            first, _, rest = d.message.partition("\n")
            lines.append(
                escape_controls(f"  {d.file}:{d.line}:{d.column}: {d.severity} {d.code} {first}")
            )
            lines.extend(escape_controls(f"    {x}") for x in rest.splitlines())
    return "".join(f"{line}\n" for line in lines)


def _json(outcomes: Sequence[Any], checks: Sequence[Any], files: list[str]) -> str:
    def entry(o: Any, kind: str) -> dict[str, Any]:
        return {
            "kind": kind,
            "tool": o.tool,
            "name": o.label,
            "file": o.file,
            "line": o.line,
            "column": o.column,
            "passed": o.passed,
            "diagnostics": [
                {
                    "code": d.code,
                    "name": d.name,
                    "severity": str(d.severity),
                    "message": d.message,
                    "file": d.file,
                    "line": d.line,
                    "column": d.column,
                }
                for d in o.diagnostics
            ],
        }

    doc = {
        "version": 1,
        "files": files,
        "examples": [entry(o, "example") for o in outcomes],
        "conformance": [entry(c, "conformance") for c in checks],
        "counts": {
            "examples": len(outcomes),
            "passed": sum(1 for o in outcomes if o.passed),
            "failed": sum(1 for o in outcomes if not o.passed),
            "conformance_failed": sum(1 for c in checks if not c.passed),
        },
        "failed": any(not o.passed for o in [*outcomes, *checks]),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _junit(outcomes: Sequence[Any], checks: Sequence[Any]) -> str:
    """One ``<testsuite>`` per kind (examples, conformance), a ``<testcase>`` per run."""
    import xml.etree.ElementTree as ET

    from ._formats import _xml_safe

    root = ET.Element("testsuites", name="toolcat test")
    total = failures = 0
    for kind, runs in (("examples", outcomes), ("conformance", checks)):
        if kind == "conformance" and not runs:
            continue
        bad = [o for o in runs if not o.passed]
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"toolcat.{kind}",
            tests=str(len(runs)),
            failures=str(len(bad)),
            errors="0",
            skipped="0",
        )
        for o in runs:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_xml_safe(o.tool),
                name=_xml_safe(o.label),
                file=_xml_safe(o.file),
                line=str(o.line),
            )
            if not o.passed:
                first = o.diagnostics[0]
                failure = ET.SubElement(
                    case,
                    "failure",
                    type=first.code,
                    message=_xml_safe(first.message.partition("\n")[0]),
                )
                failure.text = _xml_safe("\n\n".join(d.message for d in o.diagnostics))
        total += len(runs)
        failures += len(bad)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
