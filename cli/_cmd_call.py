"""`toolcat call PATH TOOL --args JSON`: run one tool call, or show its request (--dry-run)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from ._app import CliError

if TYPE_CHECKING:
    from toolcat.catalog import ToolDefinition
    from toolcat.executor import ToolCall


def register(sub: Any) -> None:
    p = sub.add_parser(
        "call",
        help="run one tool call",
        description=(
            "Run one tool call against its service and print the result. "
            "Exit 0 when the call succeeded, 1 when the tool returned an error, 2 on bad usage."
        ),
    )
    p.add_argument("path", metavar="PATH", help="catalog file, directory, or OpenAPI spec")
    p.add_argument("tool", metavar="TOOL", help="the tool's name")
    p.add_argument(
        "--args",
        dest="arguments",
        default="{}",
        metavar="JSON",
        help="the arguments as a JSON object; @FILE reads a file, - reads stdin (default: {})",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print the request it would send and send nothing"
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    p.add_argument(
        "--yes", "-y", action="store_true", help="confirm tools marked confirm: true without asking"
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def _read_arguments(raw: str) -> str:
    """The --args text: inline, ``@FILE`` or ``-`` (stdin), both read under the file cap."""
    from ._inputs import read_stdin, read_user_file

    if raw == "-":
        return read_stdin("the arguments")
    if raw.startswith("@"):
        return read_user_file(raw[1:], "arguments")
    return raw


def run(args: argparse.Namespace) -> int:
    from toolcat.catalog.common import escape_controls, escape_json_controls
    from toolcat.executor import (
        Executor,
        ExecutorSettings,
        PreparedRequest,
        ToolCall,
        format_loc,
        parse_arguments,
    )

    from ._loading import load_or_exit

    raw = _read_arguments(args.arguments)
    parsed = parse_arguments(raw)
    if not isinstance(parsed, dict):
        where = f"{format_loc(parsed.loc)}: " if parsed.loc else ""
        raise CliError(f"--args: {where}{parsed.msg}")
    catalog = load_or_exit([args.path], args.ref_root, like_validate=True)
    if args.tool not in catalog:
        closest = catalog.closest(args.tool)
        hint = f"; did you mean: {', '.join(closest)}?" if closest else ""
        raise CliError(f"no tool named {args.tool!r} in {args.path}{hint}")
    call = ToolCall(args.tool, parsed, id="cli")
    with Executor(catalog, ExecutorSettings(confirm=_confirmer(args.yes))) as executor:
        if args.dry_run:
            prepared = executor.prepare(call)
            if isinstance(prepared, PreparedRequest):
                _print_request(prepared.to_dict(), args.format)
                for name in prepared.unset:
                    print(
                        f"toolcat: note: {name} is not set: the request shows it masked, "
                        "and a real call would stop",
                        file=sys.stderr,
                    )
                return 0
            result = prepared
        else:
            result = executor.execute(call)
    if args.format == "json":
        doc = json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str)
        sys.stdout.write(escape_json_controls(doc) + "\n")
    elif result.ok:
        sys.stdout.write(escape_controls(result.content.rstrip("\n"), lines=True) + "\n")
    else:
        error = result.error
        assert error is not None
        sys.stdout.write(escape_controls(result.content, lines=True) + "\n")
        status = f" (HTTP {result.status})" if result.status else ""
        line = f"{args.tool}: {error.type}{status}: {' '.join(error.msg.split())}"
        print(f"toolcat: {escape_controls(line)}", file=sys.stderr)
    return 0 if result.ok else 1


def _confirmer(yes: bool) -> Any:
    def confirm(call: ToolCall, tool: ToolDefinition) -> bool:
        from toolcat.catalog.common import escape_controls, escape_json_controls

        if yes:
            return True
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            print(
                f"toolcat: {tool.name} needs confirmation and stdin is not a terminal; "
                "pass --yes to run it",
                file=sys.stderr,
            )
            return False
        first = tool.description.splitlines()[0] if tool.description else ""
        sys.stderr.write(escape_controls(f"{tool.name}: {first}") + "\n")
        arguments = escape_json_controls(json.dumps(call.arguments, ensure_ascii=False))
        sys.stderr.write(f"arguments: {arguments}\n")
        sys.stderr.write("Run this call? [y/N] ")
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().lower()
        return answer in ("y", "yes")

    return confirm


def _print_request(request: dict[str, Any], fmt: str) -> None:
    from toolcat.catalog.common import escape_controls, escape_json_controls

    if fmt == "json":
        doc = json.dumps(request, indent=2, ensure_ascii=False, default=str)
        sys.stdout.write(escape_json_controls(doc) + "\n")
        return
    lines = [f"{request['method']} {request['url']}"]
    lines += [f"{k}: {v}" for k, v in request["headers"].items()]
    body = request["body"]
    if body is not None:
        lines.append("")
        lines.append(
            body if isinstance(body, str) else json.dumps(body, indent=2, ensure_ascii=False)
        )
    sys.stdout.write(escape_controls("\n".join(lines), lines=True) + "\n")
