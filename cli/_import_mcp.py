"""`toolcat import mcp`: a reviewable catalog of an MCP server's tools, each pinned.

The command connects to the server (a stdio command after ``--``, or ``--url``), lists
every page of its tools, applies the import policy (toolcat.loader's
``import_mcp_tools``) and writes the ``mcp_servers:`` entry and one tool per upstream
tool, with the import record beside the file (as ``import openapi`` does). ``--update``
merges a new listing into the file, keeping hand edits, re-pinning the tools, and says
what changed upstream in ``toolcat diff``'s terms.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._app import CliError

__all__ = ["register_mcp", "run_mcp"]

_MCP: list[argparse.ArgumentParser] = []  # the `import mcp` parser, for re-parsing a record
_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
# not options of the import: where it goes, how it reports, what this run is
_NOT_RECORDED = frozenset({"output", "update", "force", "quiet", "verbose", "command", "server"})
_PATHS = frozenset({"policy", "cwd"})  # recorded relative to the written file


def register_mcp(kinds: Any) -> None:
    """Add ``import mcp`` to the ``import`` command's kinds."""
    m = kinds.add_parser(
        "mcp",
        help="an MCP server's tools (stdio command or streamable-HTTP URL)",
        usage="toolcat import mcp --server NAME (--url URL | -- COMMAND [ARG...]) "
        "[-o FILE] [--update] [options]",
        description=(
            "Connect to an MCP server, list every page of its tools, and write a catalog: "
            "the mcp_servers: entry and one tool per upstream tool, each pinned to its "
            "definition as listed. The per-tool report goes to stderr."
        ),
    )
    m.add_argument(
        "--server", required=True, metavar="NAME", help="the server's name in the catalog"
    )
    m.add_argument("--url", metavar="URL", help="a streamable-HTTP server (else: -- COMMAND)")
    m.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG...]: a stdio server")
    m.add_argument(
        "-o", "--output", metavar="FILE", help="write the catalog here (default: stdout)"
    )
    m.add_argument(
        "--update",
        action="store_true",
        help="-o FILE: import again into FILE (written by toolcat import mcp), keeping hand "
        "edits, re-pinning the tools, and saying what changed upstream",
    )
    m.add_argument(
        "--force",
        action="store_true",
        help="-o FILE: overwrite FILE even when it was changed by hand since it was imported",
    )
    _server_options(m)
    _policy_options(m)
    m.add_argument("-q", "--quiet", action="store_true", help="report only the tools left out")
    m.add_argument("-v", "--verbose", action="store_true", help="with --update: every tool too")
    m.set_defaults(func=run_mcp)
    _MCP[:] = [m]


def _server_options(m: Any) -> None:
    """How the server entry is written (and the server reached now)."""
    c = m.add_argument_group("the server entry")
    c.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME",
        help="pass this environment variable to a stdio server (written as ${NAME}; repeatable)",
    )
    c.add_argument("--cwd", metavar="DIR", help="a stdio server's working folder")
    c.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for a URL server; write secrets as ${VAR} (repeatable)",
    )
    c.add_argument(
        "--timeout", type=float, default=30.0, metavar="S", help="seconds for one call (default 30)"
    )
    c.add_argument(
        "--on-change",
        choices=("refuse", "warn", "accept"),
        default="refuse",
        help="what the runtime does with a tool whose definition no longer matches its pin "
        "(default refuse)",
    )


def _policy_options(m: Any) -> None:
    """The import policy's options (a policy file gives the same)."""
    from toolcat.catalog.common import MAX_DESCRIPTION_CHARS
    from toolcat.loader.mcp import MCP_CONFIRM_POLICIES

    p = m.add_argument_group("import policy")
    p.add_argument(
        "--policy",
        metavar="FILE",
        help="a YAML policy file: prefix, include, exclude, confirm, rules, tools (overrides)",
    )
    p.add_argument(
        "--prefix",
        default=None,
        metavar="P",
        help="prefix every tool name with P (default: NAME_; '' for none)",
    )
    for side, verb in (("include", "import only"), ("exclude", "leave out")):
        p.add_argument(
            f"--{side}-tool",
            dest=f"{side}_tools",
            action="append",
            default=[],
            metavar="GLOB",
            help=f"{verb} the tools whose name matches this glob (repeatable)",
        )
        p.add_argument(
            f"--{side}-annotation",
            dest=f"{side}_annotations",
            action="append",
            default=[],
            metavar="HINT[=BOOL]",
            help=f"{verb} the tools with this annotation (readOnlyHint, destructiveHint, "
            "idempotentHint, openWorldHint; MCP's defaults where a tool says nothing)",
        )
    p.add_argument(
        "--confirm",
        choices=MCP_CONFIRM_POLICIES,
        default=None,
        help="which tools get confirm: true (default not-read-only: every tool that is "
        "not readOnlyHint: true)",
    )
    p.add_argument(
        "--description-max",
        type=int,
        default=MAX_DESCRIPTION_CHARS,
        metavar="N",
        help="cut tool and argument descriptions to N characters "
        f"(default {MAX_DESCRIPTION_CHARS})",
    )


def run_mcp(args: argparse.Namespace) -> int:
    from toolcat.loader.mcp import McpPolicyError, import_mcp_tools

    command = list(args.command or [])
    if command[:1] == ["--"]:
        command = command[1:]
    if not _SERVER_NAME.fullmatch(args.server):
        raise CliError(f"--server {args.server!r}: use up to 64 letters, digits, '_' or '-'")
    if bool(args.url) == bool(command):
        raise CliError("give the server as --url URL or as -- COMMAND [ARG...] (one of them)")
    if args.update and not args.output:
        raise CliError("--update needs -o FILE: the catalog to import into")
    if not 40 <= args.description_max <= 100_000:
        raise CliError("--description-max must be between 40 and 100000")
    if args.timeout <= 0:
        raise CliError("--timeout must be positive")
    from ._import_update import import_summary, refuse_discarding_edits

    record = _update_record(args) if args.update else None
    if not args.update:  # --update is a flag here, beside -o FILE
        again = f"--update beside -o {args.output} (or: toolcat import --update {args.output})"
        refuse_discarding_edits(args, again)
    entry = _server_entry(args, command)
    try:
        policy = _policy(args)
    except McpPolicyError as exc:
        raise CliError(str(exc)) from None
    # the entry's cwd is written relative to the catalog; here it is the command line's
    connect = {**entry, "cwd": os.path.abspath(args.cwd)} if args.cwd else entry
    if getattr(args, "as_the_file_runs", False):  # `toolcat import --update FILE`
        connect = _as_the_file_runs(args.output, args.server, entry) or connect
    listing, info = _list_tools(args.server, connect)
    try:
        result = import_mcp_tools(
            args.server, listing, policy, description_max=args.description_max
        )
    except McpPolicyError as exc:
        raise CliError(f"{args.policy}: {exc}" if args.policy else str(exc)) from None
    _print_report(args, result)
    if args.update:
        return _finish_update(args, result, entry, info, record, policy.confirm)
    from toolcat.loader.mcp import render_mcp_catalog

    text = render_mcp_catalog(result, entry, server_info=info, confirm=policy.confirm)
    record_lines = _record_text(args, result, entry, command)
    if args.output:
        from ._import_update import write_catalog

        write_catalog(args.output, text, record_lines)
    else:
        sys.stdout.write(text + record_lines)
    return import_summary(result, "tool", args.server, args.output)


def _server_entry(args: argparse.Namespace, command: list[str]) -> dict[str, Any]:
    """The ``mcp_servers:`` entry as it will be written (and used to connect now)."""
    entry: dict[str, Any] = {}
    if command:
        entry["command"] = command
        if args.env:
            bad = [n for n in args.env if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
            if bad:
                raise CliError(f"--env {bad[0]!r}: a variable name (letters, digits, '_')")
            entry["env"] = {name: "${" + name + "}" for name in args.env}
        if args.cwd:
            if not Path(args.cwd).is_dir():
                raise CliError(f"--cwd {args.cwd}: no such folder")
            entry["cwd"] = _relative(args.cwd, args.output)
    else:
        if args.env or args.cwd:
            raise CliError("--env and --cwd are for a stdio server (-- COMMAND)")
        entry["url"] = args.url
    if args.header:
        if command:
            raise CliError("--header is for a URL server (--url)")
        from toolcat.executor import is_sensitive_header

        headers: dict[str, str] = {}
        for item in args.header:
            name, sep, value = item.partition(":")
            if not sep or not name.strip():
                raise CliError(f"--header {item!r}: write 'NAME: VALUE'")
            name = name.strip()
            if is_sensitive_header(name) and "${" not in value:
                raise CliError(
                    f"--header {name}: its value would be written into the catalog and its "
                    f"import record; give the secret as ${{VAR}} ('{name}: Bearer ${{VAR}}' "
                    "for a token) and set VAR in the environment"
                )
            headers[name] = value.strip()
        entry["headers"] = headers
    if args.timeout != 30.0:
        entry["timeout"] = args.timeout
    if args.on_change != "refuse":
        entry["on_change"] = args.on_change
    return entry


def _relative(path: str, output: str | None) -> str:
    base = Path(output).parent if output else Path()
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(base))).as_posix()


def _policy(args: argparse.Namespace) -> Any:
    """The policy file's policy, with the command line's options over it."""
    from dataclasses import replace

    from toolcat.loader.mcp import McpPolicy, McpPolicyError, McpSelection, mcp_policy_file

    policy = mcp_policy_file(args.policy) if args.policy else McpPolicy()
    if args.prefix is not None:
        if args.prefix and not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", args.prefix):
            raise McpPolicyError(
                f"--prefix {args.prefix!r}: use up to 40 letters, digits, '_' or '-'"
            )
        policy = replace(policy, prefix=args.prefix)
    sides = {}
    for side in ("include", "exclude"):
        flags = McpSelection(
            tuple(getattr(args, f"{side}_tools")),
            tuple(_hint(h) for h in getattr(args, f"{side}_annotations")),
        )
        sides[side] = getattr(policy, side).merged(flags)
    policy = replace(policy, **sides)
    if args.confirm is not None:
        policy = replace(policy, confirm=args.confirm)
    return policy


def _hint(text: str) -> tuple[str, bool]:
    from toolcat.loader.mcp import McpPolicyError, parse_mcp_hint

    try:
        hint: tuple[str, bool] = parse_mcp_hint(text)
    except McpPolicyError as exc:
        raise CliError(f"--include/exclude-annotation {exc}") from None
    return hint


def _list_tools(server: str, entry: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """Every tool the server lists, and its name and version; one line when it fails."""
    import anyio
    from toolcat.catalog import FrozenDict, McpUpstream
    from toolcat.executor.mcp import list_all_tools, open_client

    url = entry.get("url")  # the first of replicas (a hand edit may list several)
    upstream = McpUpstream(
        name=server,
        command=tuple(entry.get("command") or ()),
        urls=tuple(url if isinstance(url, list) else [url])[:1] if url else (),
        env=FrozenDict(entry.get("env") or {}),
        cwd=os.path.abspath(entry["cwd"]) if entry.get("cwd") else None,
        headers=FrozenDict(entry.get("headers") or {}),
        timeout=float(entry.get("timeout", 30.0)),
    )
    shown = " ".join(upstream.command) if upstream.stdio else upstream.urls[0]
    tty = sys.stderr.isatty() and not os.environ.get("CI")

    async def listing() -> tuple[list[dict[str, Any]], str | None]:
        with anyio.fail_after(upstream.timeout):
            async with open_client(upstream, env=os.environ) as client:
                if tty:
                    sys.stderr.write(f"\rtoolcat: listing the tools of {server}")
                    sys.stderr.flush()
                tools = await list_all_tools(client)
                return tools, _server_info(client)

    if tty:
        sys.stderr.write(f"toolcat: connecting to {server} ({shown})")
        sys.stderr.flush()
    try:
        return anyio.run(listing)
    except TimeoutError:
        raise CliError(
            f"the MCP server {server} ({shown}) did not list its tools within "
            f"{upstream.timeout:g} s (--timeout)"
        ) from None
    except Exception as exc:  # noqa: BLE001 - whatever the connection raised, one line
        raise CliError(f"cannot reach the MCP server {server} ({shown}): {_reason(exc)}") from None
    finally:
        if tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _reason(exc: BaseException) -> str:
    """Why the listing failed, in one line (a command that does not exist said plainly)."""
    from toolcat.executor.mcp import describe, first_leaf

    exc = first_leaf(exc)
    if isinstance(exc, FileNotFoundError):
        return f"no such command: {exc.filename or exc}"
    return describe(exc)


def _server_info(client: Any) -> str | None:
    info = getattr(client, "server_info", None) or getattr(
        getattr(client, "initialize_result", None), "server_info", None
    )
    name = getattr(info, "name", None)
    version = getattr(info, "version", None)
    return f"{name} {version}".strip() if name else None


def _print_report(args: argparse.Namespace, result: Any) -> None:
    every = not args.quiet and (not args.update or args.verbose)
    for report in result.report:
        if report.skipped or every:
            print(str(report), file=sys.stderr)
            for note in report.notes:
                print(f"    note: {note}", file=sys.stderr)
    for warning in result.warnings:
        print(f"toolcat import: warning: {warning}", file=sys.stderr)


def _record_argv(args: argparse.Namespace, command: Sequence[str]) -> list[str]:
    """The import's options as command-line arguments (paths relative to the written file)."""
    from ._import_update import options_argv

    base = Path(args.output).parent if args.output else None
    argv = options_argv(args, base, _MCP[0], _PATHS)  # --server, --url and the options
    return argv + (["--", *command] if command else [])


def rerun_mcp(args: argparse.Namespace, record: Any, file: str) -> int:
    """``toolcat import --update FILE`` for a file `import mcp` wrote: the recorded server
    and options again, into FILE."""
    recorded = list(record.argv)
    at = recorded.index("--") if "--" in recorded else len(recorded)
    options, command = recorded[:at], recorded[at:]
    folder = Path(file).parent
    flags = {"--policy", "--cwd"}
    options = [
        str(folder / token) if i > 0 and options[i - 1] in flags else token
        for i, token in enumerate(options)
    ]
    quiet = ["-q"] if getattr(args, "update_quiet", False) else []
    quiet += ["-v"] if getattr(args, "update_verbose", False) else []
    ns = _MCP[0].parse_args([*options, "-o", file, "--update", *quiet, *command])
    ns.as_the_file_runs = True  # no server given: list it as the catalog runs it
    result: int = ns.func(ns)
    return result


_HOW_IT_RUNS = ("command", "url", "env", "cwd", "headers", "auth")


def _as_the_file_runs(file: str, server: str, recorded: Mapping[str, Any]) -> dict[str, Any] | None:
    """The file's ``mcp_servers`` entry for ``server`` where its way of reaching the server
    (command, URL, env, cwd, headers, auth) was edited by hand since the import, to list
    the tools from (its cwd made absolute); ``None`` when it is as recorded. Listing the
    recorded command instead would re-pin the tools to a server the catalog no longer
    runs, and leave them refused."""
    from ._import_update import read_catalog_text

    servers = read_catalog_text(Path(file)).get("mcp_servers")
    entry = servers.get(server) if isinstance(servers, dict) else None
    if not isinstance(entry, dict):
        return None
    edited = [k for k in _HOW_IT_RUNS if entry.get(k) != recorded.get(k)]
    if not edited:
        return None
    print(
        f"toolcat import: note: {file}: mcp_servers.{server} was edited by hand "
        f"({', '.join(edited)}); listing the server as the file runs it",
        file=sys.stderr,
    )
    if isinstance(entry.get("cwd"), str):
        entry = {**entry, "cwd": str((Path(file).parent / entry["cwd"]).resolve())}
    return entry


def _record_text(
    args: argparse.Namespace, result: Any, entry: Mapping[str, Any], command: Sequence[str]
) -> str:
    from toolcat.loader.mcp import mcp_catalog_document
    from toolcat.loader.openapi import render_record

    doc = mcp_catalog_document(result, entry)
    ops = {t["name"]: t["mcp"]["tool"] for t in result.tools}
    argv = _record_argv(args, command)
    extra = {"kind": "mcp", "server": args.server, "upstream": result.listing}
    text: str = render_record("", argv, doc, ops, extra)
    return text


def _update_record(args: argparse.Namespace) -> Any:
    """The record of ``-o FILE`` for ``--update``: refused (one line) unless `import mcp`
    wrote the file."""
    from ._import_update import record_of

    record = record_of(args.output, "mcp")
    if record.extra.get("kind") != "mcp":
        raise CliError(
            f"{args.output}: written by 'toolcat import openapi', not 'toolcat import mcp'; "
            "refusing to update it, nothing changed"
        )
    return record


def _finish_update(
    args: argparse.Namespace,
    result: Any,
    entry: Mapping[str, Any],
    info: str | None,
    record: Any,
    confirm: str,
) -> int:
    from toolcat.loader.mcp import mcp_catalog_document, render_mcp_header
    from toolcat.loader.openapi import merge_update, render_document

    from ._import_update import read_catalog_text, record_path, report_update, write_atomically

    file = args.output
    path = Path(file)
    current = read_catalog_text(path)
    if result.report and not result.tools:
        raise CliError(f"no tool imported from {args.server}; {file} left as it is")
    new = mcp_catalog_document(result, entry)
    ops = {t["name"]: t["mcp"]["tool"] for t in result.tools}
    listed = {str(t.get("name")) for t in result.listing}

    def gone(tool: str) -> str:
        if tool in listed:
            return f"{tool} is left out by this import's options"
        return f"the server no longer lists {tool}"

    outcome = merge_update(current, record, new, ops, gone)
    tools = outcome.doc.get("tools") or []
    header = render_mcp_header(result, server_info=info, confirm=confirm, written=len(tools))
    for line in _upstream_changes(args.server, record.extra.get("upstream") or [], result.listing):
        print(line, file=sys.stderr)
    write_atomically(path, header + render_document(outcome.doc))
    command = list(entry.get("command") or ())
    write_atomically(record_path(file), _record_text(args, result, entry, command).lstrip("\n"))
    report_update(file, len(tools), outcome)
    return 0


def _upstream_changes(
    server: str, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]
) -> list[str]:
    """What the server changed since the last import, one ``toolcat diff`` line per change,
    over the tools as the server lists them (its names, before any policy)."""
    from toolcat.catalog.diff import diff_catalogs
    from toolcat.loader.mcp import mcp_listing_catalog

    changes = diff_catalogs(mcp_listing_catalog(server, old), mcp_listing_catalog(server, new))
    lines = []
    for ch in changes:
        if ch.rule == "TD308":  # the pin: what the other lines say changed
            continue
        at = f" {ch.location}" if ch.location else ""
        lines.append(f"upstream {ch.kind} {ch.rule} {ch.tool}{at}: {ch.message}")
    return lines
