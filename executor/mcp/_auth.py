"""Credentials of an HTTP upstream: the service auth types, resolved as the HTTP transport
resolves them (``executor/http``'s ``resolve_auth`` and its token cache).

Static credentials (bearer, basic, an API key header) and OAuth2 client credentials become
headers of the session when it connects; a client-credentials token comes from the token
cache, so it is fetched once and shared. The caller's own token is never sent upstream: a
server whose auth forwards or exchanges it is refused (per-caller sessions are not there
yet), and so is an API key in the query or a cookie.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolcat.catalog import McpUpstream
from toolcat.executor._calls import ToolError
from toolcat.executor._redact import Redactor
from toolcat.executor.http import TokenCache, resolve_auth

from ._link import NotSent

__all__ = ["UpstreamAuth"]

_TOKEN_TIMEOUT = {"connect": 10.0, "read": 30.0, "write": 30.0, "pool": 10.0}


class UpstreamAuth:
    """The auth headers of HTTP upstreams; one token cache for all of them."""

    def __init__(self, tokens: TokenCache | None = None) -> None:
        self.tokens = tokens if tokens is not None else TokenCache()
        self._client: object = None

    async def headers(self, upstream: McpUpstream, env: Mapping[str, str]) -> dict[str, str]:
        """The headers ``upstream``'s auth sends (raises ``NotSent`` when it cannot)."""
        auth = resolve_auth(
            upstream.auth, env, Redactor(), where=f"mcp_servers.{upstream.name}.auth"
        )
        if auth.forward or auth.exchange is not None:
            raise NotSent(
                ToolError(
                    "refused_by_policy",
                    f"MCP server {upstream.name!r}: credentials per caller (forwarded or "
                    "exchanged tokens) are not supported for MCP upstreams yet",
                )
            )
        if auth.query or auth.cookies:
            raise NotSent(
                ToolError(
                    "refused_by_policy",
                    f"MCP server {upstream.name!r}: an API key in the query or a cookie is not "
                    "supported for MCP upstreams; send it in a header",
                )
            )
        out = dict(auth.headers)
        if auth.oauth is not None:
            import httpx

            async with httpx.AsyncClient(follow_redirects=False) as client:
                token = await self.tokens.aget(client, auth.oauth, dict(_TOKEN_TIMEOUT))
            out["Authorization"] = f"Bearer {token}"
        return out
