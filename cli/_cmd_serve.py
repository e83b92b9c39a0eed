"""`toolcat serve`: an MCP server exposing a catalog's tools (stdio or streamable HTTP)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._app import CliError


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
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default) or streamable HTTP",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP bind address (default 127.0.0.1); an IPv6 literal as ::1 or [::1]",
    )
    p.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000; 0 = any)")
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="a Host header the HTTP server answers to, besides the bind address and "
        "localhost, 127.0.0.1 and [::1] with the server's port (repeatable; HOST alone "
        "allows any port; '*' turns the check off). Any other Host gets 421, against DNS "
        "rebinding. On 0.0.0.0 or :: without it, only the loopback names are answered: "
        "name the host clients use (e.g. --allowed-host api.example.com)",
    )
    p.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser Origin allowed to call the HTTP server, e.g. https://app.example.com "
        "(repeatable; '*' allows any). Requests without Origin (non-browser clients) and "
        "from the origins of allowed hosts are allowed; any other Origin gets 403",
    )
    p.add_argument(
        "--path", default="/mcp", metavar="URL_PATH", help="HTTP endpoint path (default /mcp)"
    )
    p.add_argument("--toolset", metavar="NAME", help="serve only the tools of this toolset")
    p.add_argument(
        "--tool-search",
        action="store_true",
        help="list only search_tools and the --pin tools; calls to any served tool are "
        "accepted (for catalogs too large to list)",
    )
    p.add_argument(
        "--pin",
        action="append",
        default=[],
        metavar="NAME",
        help="with --tool-search, also list this tool (repeatable)",
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="reload when catalog files change; a broken edit keeps the last good "
        "catalog and logs its diagnostics",
    )
    p.add_argument(
        "--poll-interval",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="how often --watch checks the files (default 0.5)",
    )
    p.add_argument(
        "--settle",
        type=float,
        default=0.3,
        metavar="SECONDS",
        help="--watch loads a change once no watched file changed for this long (default "
        "0.3; at most 5 s of waiting), so a half-written file is not loaded; 0 loads at once",
    )
    p.add_argument(
        "--yes",
        action="store_true",
        help="run tools marked confirm: true without asking (otherwise the client's "
        "user is asked through MCP elicitation, and the call is refused when the "
        "client cannot ask)",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="stderr log level",
    )
    p.add_argument(
        "--docs",
        action="store_true",
        help="with --transport http: also serve the catalog browser ('toolcat docs') "
        "read-only under /docs/",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import logging  # here, not at the top: every toolcat command imports this module

    import anyio
    from toolcat.catalog import UnknownToolError, UnknownToolsetError
    from toolcat.executor.mcp_server import CatalogLoadFailed, McpServer
    from toolcat.loader import CatalogInputError

    if args.settle < 0 or args.poll_interval <= 0:
        raise CliError("--settle must be 0 or more and --poll-interval more than 0")
    # stdout is the protocol channel on stdio: every human-readable line goes to stderr.
    logging.basicConfig(
        level=args.log_level.upper(), stream=sys.stderr, format="toolcat serve: %(message)s"
    )
    server = McpServer(
        args.paths,
        toolset=args.toolset,
        watch=args.watch,
        poll_interval=args.poll_interval,
        settle=args.settle,
        yes=args.yes,
        tool_search=args.tool_search,
        pinned=args.pin,
    )
    if args.pin and not args.tool_search:
        raise CliError("--pin needs --tool-search")
    if args.docs and args.transport != "http":
        raise CliError("--docs needs --transport http")
    try:
        server.load()
    except CatalogInputError as exc:
        raise CliError(str(exc)) from exc
    except CatalogLoadFailed as exc:
        from ._formats import format_text

        sys.stderr.write(format_text(list(exc.diagnostics), [], "error"))
        raise CliError(f"cannot serve: {exc}", 1) from exc
    except (UnknownToolsetError, UnknownToolError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    tools = server.tools
    names = ", ".join(t["name"] for t in tools) or "none"
    logging.getLogger("toolcat.serve").info("serving %d tools: %s", len(tools), names)
    if args.transport == "stdio":
        anyio.run(server.run_stdio)
        return 0

    def ready(url: str) -> None:
        print(
            f"toolcat serve: MCP streamable HTTP on {url} ({len(tools)} tools"
            f"{', watching for changes' if args.watch else ''})",
            file=sys.stderr,
            flush=True,
        )
        if args.docs:
            base = url.removesuffix(args.path)
            print(f"toolcat serve: catalog browser on {base}/docs/", file=sys.stderr, flush=True)

    if args.host.startswith("[") and args.host.endswith("]"):
        args.host = args.host[1:-1]  # an IPv6 literal as written in a URL: bind to the address
    policy = _host_policy(args)
    _check_address(args.host, args.port)
    docs_dir = _docs_site(server.catalog) if args.docs else None
    try:
        anyio.run(
            lambda: server.run_http(
                args.host,
                args.port,
                args.path,
                on_ready=ready,
                host_policy=policy,
                docs_dir=docs_dir,
            )
        )
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


def _docs_site(catalog: Any) -> str:
    """Write the catalog browser into a temporary folder (removed at exit); its path."""
    import atexit
    import shutil
    import tempfile
    from pathlib import Path

    from ._docsite import build_site

    folder = tempfile.mkdtemp(prefix="toolcat-docs-")
    atexit.register(shutil.rmtree, folder, True)
    build_site(catalog, Path(folder), title="toolcat serve")
    return folder


def _host_policy(args: argparse.Namespace) -> Any:
    """The Host/Origin policy of --allowed-host and --allowed-origin (one line when invalid)."""
    from toolcat.executor.mcp_server import HostPolicy

    try:
        policy = HostPolicy.for_bind(
            args.host, allowed_hosts=args.allowed_host, allowed_origins=args.allowed_origin
        )
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    if policy.wildcard_bind and not args.allowed_host:
        print(
            f"toolcat serve: listening on every address ({args.host}), but answering only "
            f"Host {policy.describe()}; add --allowed-host NAME for the name clients use",
            file=sys.stderr,
            flush=True,
        )
    return policy


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
