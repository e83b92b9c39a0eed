"""Streamable HTTP for :class:`McpServer`: the SDK's app wrapped in the server's layers
(probes, Host/Origin guard, drain, authentication, session limits, /docs/), served by
uvicorn, and the URL a client uses."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from ._health import SHUTDOWN_GRACE, DrainGate, HealthRoutes, draining_server
from ._hosts import HostGuard, HostPolicy
from ._limits import ServeLimits, SessionLimits, header_timeout_protocol
from ._reload import start_upstreams, watch

if TYPE_CHECKING:
    from toolcat.catalog.serving import ServerSettings

    from ._server import McpServer

__all__ = ["http_url", "serve_http"]


async def serve_http(server: McpServer, on_ready: Callable[[str], None] | None) -> None:
    """Serve ``server`` over streamable HTTP until cancelled or SIGTERM (see
    :meth:`McpServer.run_http`, which says what each setting does)."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    server._current()
    s = server.settings
    host, port, path, stateless = s.host, s.port, s.path, s.stateless
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # an IPv6 literal as written in a URL
    bounds = s.limits or ServeLimits()
    app: Any = server.server.streamable_http_app(
        streamable_http_path=path,
        stateless_http=stateless,
        host=host,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_sessions=bounds.max_sessions,
        session_idle_timeout=bounds.session_idle_timeout,
    )
    if s.docs is not None:
        from starlette.routing import Mount

        from ._docs import CallerDocs

        # behind authentication too, when it is configured: the pages a caller gets
        # show the tools it may call, no other
        app.routes.append(Mount("/docs", CallerDocs(server._current, s.docs)))
    if not stateless:  # sessions per caller: inside authentication, which names him
        app = SessionLimits(
            app,
            path=path,
            per_caller=bounds.max_sessions_per_caller,
            idle_timeout=bounds.session_idle_timeout,
        )
    app = _with_auth(app, s.serving, http_url(host, port, path), server.env)
    gated = DrainGate(app, server.lifecycle, path)
    guarded = HostGuard(gated, s.host_policy or HostPolicy.for_bind(host), port)
    probed = HealthRoutes(guarded, server.lifecycle, server.readiness, server._metrics)
    server.lifecycle.drain_timeout = s.drain_timeout
    config = uvicorn.Config(
        probed,
        host=host,
        port=port,
        log_level="warning",
        ws="none",
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
        http=header_timeout_protocol(bounds.header_timeout),
        timeout_keep_alive=bounds.keep_alive_timeout,
        limit_concurrency=bounds.max_connections,
    )
    uv = draining_server(config, server.lifecycle)
    async with anyio.create_task_group() as tg:
        start_upstreams(server, server._current())
        tg.start_soon(server.lifecycle.drain_on_request, uv)
        if server.watch:
            tg.start_soon(watch, server)
        if on_ready is not None:
            tg.start_soon(_announce, uv, host, port, path, on_ready)
        await uv.serve()
        tg.cancel_scope.cancel()
    await server.aclose()
    if hasattr(app, "aclose"):  # the authenticator's HTTP client
        await app.aclose()


def _with_auth(
    app: Any, settings: ServerSettings | None, url: str, env: Mapping[str, str] | None
) -> Any:
    """``app`` behind :class:`AuthMiddleware` when ``settings`` enable authentication."""
    if settings is None or not settings.auth.enabled:
        return app
    from ._auth import AuthMiddleware
    from ._verify import Authenticator

    resource = settings.resource or url
    servers = settings.authorization_servers
    if not servers and settings.auth.jwt is not None:
        servers = (Authenticator.issuer_of(settings.auth.jwt, env),)
    return AuthMiddleware(
        app,
        Authenticator(settings.auth, resource=resource, env=env),
        resource=resource,
        authorization_servers=servers,
        required_scopes=settings.auth.required_scopes,
    )


async def _announce(
    uv: Any, host: str, port: int, path: str, on_ready: Callable[[str], None]
) -> None:
    while not uv.started:
        await anyio.sleep(0.02)
    bound = port
    for server in getattr(uv, "servers", []):
        for sock in server.sockets:
            bound = sock.getsockname()[1]
    on_ready(http_url(host, bound, path))


def http_url(host: str, port: int, path: str) -> str:
    """The URL a client uses: an IPv6 address in brackets (``http://[::1]:8000/mcp``)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}{path}"
