"""`toolcat serve`'s options, in groups, and how the HTTP ones become the server's settings."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from ._app import CliError

__all__ = ["add_options", "describe_auth", "host_policy", "serve_limits", "serving_settings"]


def add_options(p: Any) -> None:
    """Every option of ``toolcat serve`` but the catalog paths, in the order ``--help`` lists."""
    _add_http(p)
    _add_tools(p)
    _add_watch(p)
    _add_running(p)
    _add_confirm(p)
    _add_auth(p)
    _add_state(p)
    from ._loading import add_ref_root

    add_ref_root(p)
    p.add_argument(
        "--docs",
        action="store_true",
        help="with --transport http: also serve the catalog browser ('toolcat docs') "
        "read-only under /docs/",
    )
    _add_limits(p)


def _add_http(p: Any) -> None:
    """Where the HTTP server listens, and the Host and Origin it answers."""
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


def _add_tools(p: Any) -> None:
    """Which tools are served, and listed."""
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
        help="with --tool-search, also list this tool (repeatable; added to the "
        "catalog's search.pinned tools)",
    )
    p.add_argument(
        "--no-catalog-pins",
        action="store_true",
        help="with --tool-search, leave out the catalog's search.pinned tools (only --pin)",
    )


def _add_watch(p: Any) -> None:
    """--watch: reloads when the catalog files change."""
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
        "0.3; at most 5 s of waiting) and, on Linux, no process holds one open for writing, "
        "so a half-written file is not loaded; 0 loads at once. For a writer the server "
        "cannot see (another container or host), write a temporary file and rename it over "
        "the catalog",
    )


def _add_running(p: Any) -> None:
    """How HTTP serving runs: drain, sessions, metrics."""
    p.add_argument(
        "--drain-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="HTTP: on SIGTERM, /readyz turns 503 and new requests get 503 with "
        "Retry-After; calls in flight get this long to finish (default 30) before they "
        "are cancelled with an error; then the server exits 0",
    )
    p.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP: no sessions for 2025-era clients (no Mcp-Session-Id), so replicas behind "
        "a load balancer need no sticky sessions; those clients then get no mid-call "
        "confirmation question and no list_changed notification (2026-07-28 clients are "
        "served per request either way)",
    )
    p.add_argument(
        "--metrics",
        action="store_true",
        help="HTTP: serve GET /metrics, the OpenTelemetry metrics in Prometheus text format "
        "(needs the otel extra). Like /healthz and /readyz it answers any Host without "
        "authentication, and it names the catalog's tools: restrict who reaches the port",
    )


def _add_confirm(p: Any) -> None:
    """Tools marked confirm: true."""
    p.add_argument(
        "--yes",
        action="store_true",
        help="run tools marked confirm: true without asking (otherwise the client's "
        "user is asked through MCP elicitation, and the call is refused when the "
        "client cannot ask)",
    )
    p.add_argument(
        "--confirm-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how long the user has to answer a confirmation before the call is refused "
        "(default 120). Replicas behind a load balancer share the key that seals "
        "2026-07-28 confirmations: set TOOLCAT_CONFIRM_KEYS (docs/mcp.md)",
    )


def _add_auth(p: Any) -> None:
    """The authentication group (HTTP)."""
    a = p.add_argument_group(
        "authentication (HTTP)",
        "Options override the catalog's server: section (docs/serve-auth.md). Without "
        "authentication, serve listens only on a loopback address.",
    )
    a.add_argument(
        "--resource",
        metavar="URI",
        help="the server's resource URI, as clients reach it (the JWT audience); "
        "default: the URL it listens on",
    )
    a.add_argument("--auth-issuer", metavar="URL", help="accept JWTs from this issuer ('iss')")
    a.add_argument("--auth-jwks-url", metavar="URL", help="the issuer's JWKS (with --auth-issuer)")
    a.add_argument(
        "--auth-audience", metavar="AUD", help="the JWT 'aud' accepted (default: --resource)"
    )
    a.add_argument(
        "--auth-introspection-url",
        metavar="URL",
        help="check opaque tokens at this RFC 7662 endpoint",
    )
    a.add_argument(
        "--auth-scope",
        action="append",
        default=[],
        metavar="SCOPE",
        help="a scope every caller needs (repeat for several; 403 insufficient_scope)",
    )
    a.add_argument(
        "--api-key-hash",
        action="append",
        default=[],
        metavar="NAME=HASH",
        help="accept the API key with this hash (from 'toolcat hash-key') as NAME; repeatable",
    )
    a.add_argument(
        "--insecure-no-auth",
        action="store_true",
        help="serve without authentication on a non-loopback address (anyone who can "
        "reach it calls every tool with the catalog's credentials)",
    )


def _add_state(p: Any) -> None:
    """What serving writes and shares: the audit log, Redis, the log level."""
    p.add_argument(
        "--audit-log",
        metavar="PATH",
        help="write one JSON line per tool call to PATH (rotated by size), or '-' for "
        "standard output (HTTP only); over the catalog's server.audit path "
        "(docs/audit.md)",
    )
    p.add_argument(
        "--redis",
        metavar="URL",
        help="keep quotas, OAuth tokens and idempotency records in this Redis, shared by "
        "every replica that uses it (redis://HOST:PORT/DB, rediss:// for TLS); over the "
        "catalog's server.redis url (docs/deploy.md). Needs toolcat[redis]",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="stderr log level",
    )


def _add_limits(p: Any) -> None:
    """The bounds of the HTTP server against slow and greedy clients (docs/security.md)."""
    g = p.add_argument_group("limits (HTTP)")
    g.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a connection that has not sent a request's headers this long after it "
        "opened (or after its last answer) is closed (default 10)",
    )
    g.add_argument(
        "--keep-alive-timeout",
        type=int,
        default=5,
        metavar="SECONDS",
        help="an idle kept-alive connection is closed after this long (default 5)",
    )
    g.add_argument(
        "--max-connections",
        type=int,
        default=1000,
        metavar="N",
        help="past this many connections or requests at once, new requests get 503 "
        "(default 1000; keep it below the open-file limit)",
    )
    g.add_argument(
        "--max-sessions",
        type=int,
        default=1000,
        metavar="N",
        help="MCP sessions open at once; past it a new one gets 503 (default 1000)",
    )
    g.add_argument(
        "--max-sessions-per-caller",
        type=int,
        default=32,
        metavar="N",
        help="MCP sessions one authenticated caller may hold; past it a new one gets "
        "429 (default 32)",
    )
    g.add_argument(
        "--session-idle-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="an MCP session with no request for this long is closed (default 600)",
    )


def serve_limits(args: argparse.Namespace) -> Any:
    from toolcat.executor.mcp_server import ServeLimits

    try:
        return ServeLimits(
            header_timeout=args.header_timeout,
            keep_alive_timeout=args.keep_alive_timeout,
            max_connections=args.max_connections,
            max_sessions=args.max_sessions,
            max_sessions_per_caller=args.max_sessions_per_caller,
            session_idle_timeout=args.session_idle_timeout,
        )
    except ValueError as exc:
        raise CliError(f"--{exc}") from exc


def host_policy(args: argparse.Namespace) -> Any:
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


def serving_settings(args: argparse.Namespace, found: Any) -> Any:
    """The catalog's ``server:`` section with the command line's options over it; refuses
    (one line) a non-loopback address without authentication."""
    import dataclasses

    from toolcat.catalog.common import is_loopback_host
    from toolcat.catalog.serving import ApiKeyEntry, JwtSettings, ServeAuth, ServerSettings
    from toolcat.catalog.serving import IntrospectionSettings as Introspection

    settings = found if found is not None else ServerSettings()
    auth = settings.auth
    if args.auth_issuer or args.auth_jwks_url or args.auth_audience:
        base = auth.jwt
        issuer = args.auth_issuer or (base.issuer if base else None)
        jwks = args.auth_jwks_url or (base.jwks_url if base else None)
        if not issuer or not jwks:
            raise CliError("JWT authentication needs both --auth-issuer and --auth-jwks-url")
        jwt = base or JwtSettings(issuer, jwks)
        audience = args.auth_audience or jwt.audience
        auth = dataclasses.replace(
            auth, jwt=dataclasses.replace(jwt, issuer=issuer, jwks_url=jwks, audience=audience)
        )
    if args.auth_introspection_url:
        base_i = auth.introspection or Introspection(args.auth_introspection_url)
        auth = dataclasses.replace(
            auth, introspection=dataclasses.replace(base_i, url=args.auth_introspection_url)
        )
    keys = list(auth.api_keys)
    for item in args.api_key_hash:
        name, sep, digest = item.partition("=")
        if (
            not sep
            or not re.fullmatch(r"[A-Za-z0-9_.@-]{1,64}", name)
            or not re.fullmatch(r"sha256:[0-9a-f]{64}", digest)
        ):
            raise CliError("--api-key-hash takes NAME=sha256:<64 hex> (see 'toolcat hash-key')")
        keys.append(ApiKeyEntry(name, digest))
    scopes = tuple(dict.fromkeys([*auth.required_scopes, *args.auth_scope]))
    for scope in scopes:
        if not re.fullmatch(r"[\x21\x23-\x5B\x5D-\x7E]+", scope):
            raise CliError(f"--auth-scope {scope!r} is not an OAuth scope token")
    auth = ServeAuth(auth.jwt, auth.introspection, tuple(keys), scopes)
    settings = dataclasses.replace(settings, auth=auth, resource=args.resource or settings.resource)
    if auth.enabled and settings.resource is None and args.port == 0:
        raise CliError("with authentication and --port 0, give --resource (the URI clients use)")
    if (auth.jwt or auth.introspection) and settings.resource is None and _wildcard(args.host):
        raise CliError(
            f"serving {args.host} with token authentication needs server.resource or "
            "--resource: the URI clients use, which tokens name as their audience"
        )
    if not auth.enabled and not args.insecure_no_auth and not is_loopback_host(args.host):
        raise CliError(
            f"refusing to serve {args.host} without authentication: configure server.auth in "
            "the catalog or --auth-*/--api-key-hash, listen on 127.0.0.1, or pass "
            "--insecure-no-auth"
        )
    return settings


def describe_auth(settings: Any) -> str:
    auth = settings.auth
    ways = [
        name
        for name, on in (
            ("JWT", auth.jwt),
            ("introspection", auth.introspection),
            (f"{len(auth.api_keys)} API key(s)", auth.api_keys),
        )
        if on
    ]
    return "authentication: " + ", ".join(ways) if ways else "no authentication"


def _wildcard(host: str) -> bool:
    return host.strip("[]") in ("0.0.0.0", "::", "")
