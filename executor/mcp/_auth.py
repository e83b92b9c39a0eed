"""Credentials of an HTTP upstream: the service auth types, resolved as the HTTP transport
resolves them (``executor/http``'s ``resolve_auth`` and its token cache).

Static credentials (bearer, basic, an API key header) and OAuth2 client credentials become
headers of the session when it connects; a client-credentials token comes from the token
cache, so it is fetched once and shared. The caller's own token is never sent upstream,
except to a server whose auth is ``forward_caller_token``; with ``token_exchange`` it is
traded (RFC 8693) for a token meant for the server. Both open one session per caller
(see ``_pool``), under the HTTP transport's rules (https or loopback only, a bearer token
that can be a header). An API key in the query or a cookie is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcat.catalog import ForwardCallerToken, McpUpstream, TokenExchange
from toolcat.executor._calls import ToolError
from toolcat.executor._identity import ToolContext
from toolcat.executor._redact import Redactor
from toolcat.executor.http import CallerTokenRefused, TokenCache, caller_credentials, resolve_auth

from ._link import NotSent

__all__ = ["UpstreamAuth", "per_caller"]

_TOKEN_TIMEOUT = {"connect": 10.0, "read": 30.0, "write": 30.0, "pool": 10.0}


def per_caller(upstream: McpUpstream) -> bool:
    """Whether ``upstream``'s sessions are per caller (its auth sends the caller's token)."""
    return not upstream.stdio and isinstance(upstream.auth, ForwardCallerToken | TokenExchange)


class UpstreamAuth:
    """The auth headers of HTTP upstreams; one token cache for all of them."""

    def __init__(self, tokens: TokenCache | None = None) -> None:
        self.tokens = tokens if tokens is not None else TokenCache()

    async def headers(
        self,
        upstream: McpUpstream,
        env: Mapping[str, str],
        url: str,
        caller: ToolContext | None = None,
    ) -> dict[str, str]:
        """The headers ``upstream``'s auth sends to ``url`` for ``caller`` (whose token only
        a forwarding or exchanging auth reads); raises ``NotSent`` when it cannot."""
        where = f"mcp_servers.{upstream.name}.auth"
        auth = resolve_auth(upstream.auth, env, Redactor(), where=where)
        if auth.query or auth.cookies:
            raise NotSent(
                ToolError(
                    "refused_by_policy",
                    f"MCP server {upstream.name!r}: an API key in the query or a cookie is not "
                    "supported for MCP upstreams; send it in a header",
                )
            )
        headers = list(auth.headers)
        grant: Any = auth.oauth  # a client-credentials grant, or the caller's exchange
        if auth.forward or auth.exchange is not None:
            import httpx

            try:
                grant = caller_credentials(
                    auth,
                    httpx.URL(url),
                    upstream.name,
                    caller if caller is not None else ToolContext(),
                    Redactor(),
                    headers,
                    preview=False,
                )
            except CallerTokenRefused as exc:
                raise NotSent(exc.error) from None
        out = dict(headers)
        if grant is not None:
            import httpx

            async with httpx.AsyncClient(follow_redirects=False) as client:
                token = await self.tokens.aget(client, grant, dict(_TOKEN_TIMEOUT))
            out["Authorization"] = f"Bearer {token}"
        return out
