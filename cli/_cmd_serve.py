"""`toolcat serve`: an MCP server exposing a catalog's tools (stdio or streamable HTTP)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ._app import CliError
from ._serve_options import (
    add_options,
    describe_auth,
    host_policy,
    serve_limits,
    serving_settings,
)

if TYPE_CHECKING:
    from toolcat.loader import LoadResult


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="an MCP server exposing the catalog's tools",
        description="Serve the catalog's tools over MCP. tools/call runs through the executor; "
        "with --watch, edits to the catalog files are picked up without a restart.",
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="catalog file, directory, or OpenAPI spec"
    )
    add_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import logging  # here, not at the top: every toolcat command imports this module

    from toolcat.loader import load_catalog

    if args.settle < 0 or args.poll_interval <= 0:
        raise CliError("--settle must be 0 or more and --poll-interval more than 0")
    if not 0 <= args.drain_timeout <= 86400:
        raise CliError("--drain-timeout must be 0-86400 seconds")
    if args.metrics and args.transport != "http":
        raise CliError("--metrics needs --transport http")
    if not 0 < args.confirm_timeout <= 86400:
        raise CliError("--confirm-timeout must be more than 0 and at most 86400 seconds")
    if args.stateless and args.transport != "http":
        raise CliError("--stateless needs --transport http")
    # stdout is the protocol channel on stdio: every human-readable line goes to stderr.
    logging.basicConfig(
        level=args.log_level.upper(), stream=sys.stderr, format="toolcat serve: %(message)s"
    )
    from ._loading import check_ref_root

    check_ref_root(args.ref_root)
    ref_root = args.ref_root

    def load(paths: Sequence[str]) -> LoadResult:  # every load and --watch reload
        return load_catalog(paths, progress=False, ref_root=ref_root)

    return _serve(args, load)


def _serve(args: argparse.Namespace, load: Callable[[Sequence[str]], LoadResult]) -> int:
    import logging

    import anyio

    server = _load_server(args, load)
    tools = server.tools
    names = ", ".join(t["name"] for t in tools) or "none"
    logging.getLogger("toolcat.serve").info("serving %d tools: %s", len(tools), names)
    if args.transport == "stdio":
        if server.audit_to_stdout:
            raise CliError(
                "the audit log cannot go to standard output with --transport stdio "
                "(standard output carries MCP): give --audit-log a file"
            )
        _warn_unset(server)
        if sys.stdin.isatty():  # a person at a terminal, not a client: say what this is
            print(
                f"toolcat serve: serving {len(tools)} tools over MCP on stdio; waiting for an "
                "MCP client to speak on standard input (start it from the client; Ctrl-C stops)",
                file=sys.stderr,
                flush=True,
            )
        anyio.run(server.run_stdio)
        return 0
    return _serve_http(args, server)


def _load_server(args: argparse.Namespace, load: Callable[[Sequence[str]], LoadResult]) -> Any:
    """The McpServer of the command line, its catalog loaded; each failure one line."""
    import os

    from toolcat.catalog import UnknownToolError, UnknownToolsetError
    from toolcat.executor import SharedStateError
    from toolcat.executor.mcp_server import (  # the MCP SDK
        CatalogLoadFailed,
        McpServer,
        McpServerSettings,
    )
    from toolcat.loader import CatalogInputError

    try:  # one line, never the key
        McpServer.read_confirm_keys(os.environ)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    server = McpServer(
        args.paths,
        McpServerSettings(
            toolset=args.toolset,
            watch=args.watch,
            poll_interval=args.poll_interval,
            settle=args.settle,
            yes=args.yes,
            tool_search=args.tool_search,
            pinned=args.pin,
            catalog_pins=not args.no_catalog_pins,
            loader=load,
            audit_log=args.audit_log,
            redis_url=args.redis,
            confirm_timeout=args.confirm_timeout,
        ),
    )
    if args.pin and not args.tool_search:
        raise CliError("--pin needs --tool-search")
    if args.docs and args.transport != "http":
        raise CliError("--docs needs --transport http")
    try:
        server.load()
    except CatalogInputError as exc:
        raise CliError(str(exc)) from exc
    except SharedStateError as exc:  # a malformed URL, no redis library, Redis not answering
        raise CliError(f"cannot serve: {exc}") from exc
    except CatalogLoadFailed as exc:
        from ._loading import report_failed_load

        errors = report_failed_load(exc.diagnostics, exc.files)  # as `toolcat validate`
        noun = "error" if errors == 1 else "errors"
        raise CliError(f"cannot serve: the catalog has {errors} {noun}", 1) from exc
    except (UnknownToolsetError, UnknownToolError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    return server


def _serve_http(args: argparse.Namespace, server: Any) -> int:
    """Streamable HTTP: the address checked, the settings of the options, then serving."""
    import dataclasses

    import anyio

    tools = server.tools
    if args.host.startswith("[") and args.host.endswith("]"):
        args.host = args.host[1:-1]  # an IPv6 literal as written in a URL: bind to the address
    _check_address(args.host, args.port)  # an address that cannot work says so first
    settings = serving_settings(args, server.server_settings)
    auth = describe_auth(settings)

    def ready(url: str) -> None:
        print(
            f"toolcat serve: MCP streamable HTTP on {url} ({len(tools)} tools"
            f"{', watching for changes' if args.watch else ''}"
            f"{', stateless' if args.stateless else ''}; {auth})",
            file=sys.stderr,
            flush=True,
        )
        if args.docs:
            base = url.removesuffix(args.path)
            print(f"toolcat serve: catalog browser on {base}/docs/", file=sys.stderr, flush=True)
        _warn_unset(server)  # once listening: a start that fails stays one line

    policy = host_policy(args)
    limits = serve_limits(args)
    docs = _docs_builder() if args.docs else None
    if args.metrics:
        try:
            server.enable_metrics()
        except RuntimeError as exc:
            raise CliError(str(exc)) from exc
    from toolcat.executor.mcp_server import AuthConfigError  # HTTP only: JWT's library

    # what HTTP serving needs is known only now: the auth is the loaded catalog's
    server.settings = dataclasses.replace(
        server.settings,
        host=args.host,
        port=args.port,
        path=args.path,
        host_policy=policy,
        serving=settings,
        docs=docs,
        drain_timeout=args.drain_timeout,
        stateless=args.stateless,
        limits=limits,
    )
    try:
        anyio.run(server.run_http, ready)
    except AuthConfigError as exc:
        raise CliError(f"cannot serve: {exc}") from exc
    except OSError as exc:
        raise CliError(
            f"cannot listen on {_where(args.host, args.port)}: {exc.strerror or exc}"
        ) from exc
    except BaseExceptionGroup as group:  # uvicorn exits (SystemExit) when startup fails
        failed = group.subgroup(lambda e: isinstance(e, OSError | SystemExit | OverflowError))
        if failed is None:
            raise
        raise CliError(
            f"cannot listen on {_where(args.host, args.port)}; see the log above"
        ) from group
    return 0


def _docs_builder() -> Any:
    """``build(catalog, folder)``: the catalog browser of a catalog, written into folder
    (the server builds one per set of tools its callers may call)."""
    from pathlib import Path

    from ._docsite import build_site

    def build(catalog: Any, folder: str) -> None:
        build_site(catalog, Path(folder), title="toolcat serve")

    return build


def _check_address(host: str, port: int) -> None:
    """Fail with one line, before the server starts, when HOST:PORT cannot be listened on."""
    import socket

    if not 0 <= port <= 65535:
        raise CliError(f"--port must be 0-65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            probe.bind(address)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise CliError(f"cannot listen on {_where(host, port)}: {reason}") from exc


def _where(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _warn_unset(server: Any) -> None:
    """One line per ``${VAR}`` without a default that is not set (calls needing it would fail)."""
    from ._envuses import warn_unset

    warn_unset(server.catalog, server.server_settings, prefix="toolcat serve")
    sys.stderr.flush()
