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
from dataclasses import dataclass, field
from typing import Any

from toolcat.catalog import ForwardCallerToken, McpUpstream, TokenExchange
from toolcat.executor._calls import ToolError
from toolcat.executor._identity import ToolContext
from toolcat.executor._redact import Redactor, is_sensitive_header
from toolcat.executor.http import CallerTokenRefused, TokenCache, caller_credentials, resolve_auth

from ._link import NotSent

__all__ = ["Credentials", "UpstreamAuth", "per_caller"]

_TOKEN_TIMEOUT = {"connect": 10.0, "read": 30.0, "write": 30.0, "pool": 10.0}


def per_caller(upstream: McpUpstream) -> bool:
    """Whether ``upstream``'s sessions are per caller (its auth sends the caller's token)."""
    return not upstream.stdio and isinstance(upstream.auth, ForwardCallerToken | TokenExchange)


class UpstreamAuth:
    """The auth headers of HTTP upstreams; one token cache for all of them."""

    def __init__(self, tokens: TokenCache | None = None) -> None:
        self.tokens = tokens if tokens is not None else TokenCache()
        self._client: Any = None  # httpx.AsyncClient for the token endpoints

    async def credentials(
        self,
        upstream: McpUpstream,
        env: Mapping[str, str],
        url: str,
        caller: ToolContext | None = None,
    ) -> Credentials:
        """What ``upstream``'s auth sends to ``url`` for ``caller`` (whose token only a
        forwarding or exchanging auth reads); raises ``NotSent`` when it cannot."""
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
        # what the session sends is masked in what the upstream answers (an echo)
        secrets = [_credential(v) for k, v in headers if is_sensitive_header(k)]
        if grant is None:
            return Credentials(out, secrets=secrets)
        # fetched now, so a token endpoint that fails stops the connect with its own error;
        # then every request takes the cached token, a fresh one once it expires
        from ._http import TokenAuth

        token = await self.token(grant)
        secrets.append(token)
        out["Authorization"] = f"Bearer {token}"
        return Credentials(out, TokenAuth(self.token, grant, secrets.append), secrets)

    async def token(self, grant: Any, stale: str | None = None) -> str:
        """The token for ``grant`` from the cache (fetched when missing, expired or ``stale``)."""
        import httpx

        if self._client is None:  # on the pool's loop, which it stays bound to
            self._client = httpx.AsyncClient(follow_redirects=False)
        return await self.tokens.aget(self._client, grant, dict(_TOKEN_TIMEOUT), stale)

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


def _credential(value: str) -> str:
    """The secret part of a header value (``Bearer X``: ``X``)."""
    scheme, _, rest = value.partition(" ")
    return rest if scheme.lower() in ("bearer", "basic") and rest else value


@dataclass(frozen=True, slots=True)
class Credentials:
    """What an HTTP upstream's session sends: fixed headers, and an ``httpx2`` auth that
    puts a current token on each request (OAuth client credentials, token exchange)."""

    headers: dict[str, str]
    auth: Any = None
    secrets: list[str] = field(default_factory=list)  # the values sent; grows with new tokens
