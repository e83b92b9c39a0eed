"""Authentication in front of the MCP HTTP app: an ASGI wrapper, as MCP's authorization spec asks.

Every HTTP request needs ``Authorization: Bearer <token>`` that the
:class:`~._verify.Authenticator` accepts, except the protected-resource metadata
(RFC 9728) served at ``/.well-known/oauth-protected-resource`` and at that path
followed by the resource's path. Answers, with ``WWW-Authenticate`` naming the
metadata (RFC 6750 §3):

- no bearer token: 401, no error code;
- a malformed header (several ``Authorization`` headers, a token with characters
  a bearer token cannot have): 400 ``invalid_request``;
- a token that is refused (bad signature, issuer, audience, expired, unknown,
  too long, names no caller, ...): 401 ``invalid_token``;
- a token that cannot be checked now (the introspection endpoint or the JWKS did
  not answer usably, and no key is known): 503 ``temporarily_unavailable`` with
  ``Retry-After``;
- a valid token without a required scope: 403 ``insufficient_scope``.

An accepted request carries the SDK's ``AuthenticatedUser`` in ``scope["user"]``
(the SDK binds each session to the credential that opened it) and the
:class:`~toolcat.executor.CallerIdentity` for the call path (:func:`identity_of`).
A token verified as a JWT or by introspection is kept, for this request only, under
``scope["toolcat.caller_token"]`` (:func:`caller_token_of`): services configured to
forward or exchange it read it from there. An API key is never kept: it is this
server's own secret, not a token an upstream could accept.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Receive, Scope, Send
from toolcat.executor import CallerIdentity

from ._verify import Authenticator, Refusal, VerifiedToken, access_token

__all__ = [
    "METADATA_PATH",
    "AuthMiddleware",
    "caller_token_of",
    "identity_in",
    "identity_of",
    "metadata_url",
]

METADATA_PATH = "/.well-known/oauth-protected-resource"
_CALLER_TOKEN = "toolcat.caller_token"
# RFC 6750 §2.1 b64token
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def metadata_url(resource: str) -> str:
    """Where RFC 9728 §3.1 puts the metadata of ``resource``: the well-known path inserted
    between the host and the resource's path."""
    parts = urlsplit(resource)
    path = parts.path if parts.path != "/" else ""
    return f"{parts.scheme}://{parts.netloc}{METADATA_PATH}{path}"


def identity_of(request: Any) -> CallerIdentity | None:
    """The verified identity of the HTTP request (a Starlette ``Request``) an MCP message
    came in, or ``None`` (stdio, or a server without authentication)."""
    return identity_in(getattr(request, "scope", None))


def identity_in(scope: Any) -> CallerIdentity | None:
    """The verified identity :class:`AuthMiddleware` put in an ASGI ``scope``, or ``None``."""
    user = scope.get("user") if isinstance(scope, dict) else None
    token = getattr(user, "access_token", None)
    return token.identity if isinstance(token, VerifiedToken) else None


def caller_token_of(request: Any) -> str | None:
    """The bearer token the HTTP request (a Starlette ``Request``) was verified with, when
    it is an OAuth access token (JWT or introspected); ``None`` for an API key or none."""
    scope = getattr(request, "scope", None)
    token = scope.get(_CALLER_TOKEN) if isinstance(scope, dict) else None
    return token if isinstance(token, str) else None


class AuthMiddleware:
    """Wraps the MCP ASGI ``app``: only callers that ``authenticator`` accepts get through.

    ``resource`` is the server's resource URI (the JWT audience, the metadata's
    ``resource``); ``authorization_servers`` are announced in the metadata.
    """

    def __init__(
        self,
        app: ASGIApp,
        authenticator: Authenticator,
        *,
        resource: str,
        authorization_servers: tuple[str, ...] = (),
        required_scopes: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.authenticator = authenticator
        self.resource = resource
        self.required_scopes = tuple(required_scopes)
        self._metadata_url = metadata_url(resource)
        path = urlsplit(resource).path.rstrip("/")
        self._metadata_paths = {METADATA_PATH, METADATA_PATH + path}
        document: dict[str, Any] = {"resource": resource}
        if authorization_servers:
            document["authorization_servers"] = list(authorization_servers)
        if required_scopes:
            document["scopes_supported"] = list(required_scopes)
        document["bearer_methods_supported"] = ["header"]
        document["resource_name"] = "toolcat"
        self._metadata = json.dumps(document).encode()

    async def aclose(self) -> None:
        await self.authenticator.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # no request to check; close the client at shutdown
            await self.app(scope, receive, self._closing(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self._metadata_paths:
            await self._send_metadata(scope, send)
            return
        values = [v for k, v in scope.get("headers", []) if k.lower() == b"authorization"]
        if not values:
            await self._challenge(send, 401, None, "Authentication required")
            return
        if len(values) > 1:
            await self._challenge(send, 400, "invalid_request", "One Authorization header only")
            return
        raw = values[0]
        scheme, _, token_bytes = raw.partition(b" ")
        if scheme.lower() != b"bearer":
            await self._challenge(send, 401, None, "Bearer token required")
            return
        token = token_bytes.strip(b" ").decode("latin-1")
        if not token or not _B64TOKEN.fullmatch(token):
            await self._challenge(send, 400, "invalid_request", "Malformed bearer token")
            return
        identity = await self.authenticator.check(token)
        if isinstance(identity, Refusal) and identity.unavailable:
            await self._unavailable(send)
            return
        if isinstance(identity, Refusal):
            await self._challenge(
                send, 401, "invalid_token", "The access token is invalid, expired or unknown"
            )
            return
        missing = [s for s in self.required_scopes if not identity.has_scope(s)]
        if missing:
            await self._challenge(
                send, 403, "insufficient_scope", "The access token lacks a required scope"
            )
            return
        verified = access_token(identity, token)
        inner = dict(scope)
        inner["user"] = AuthenticatedUser(verified)
        inner["auth"] = AuthCredentials(sorted(identity.scopes))
        if identity.method != "api_key":
            inner[_CALLER_TOKEN] = token
        await self.app(inner, receive, send)

    def _closing(self, send: Send) -> Send:
        async def forward(message: Any) -> None:
            if message.get("type") == "lifespan.shutdown.complete":
                await self.authenticator.aclose()  # in the server's own event loop
            await send(message)

        return forward

    async def _send_metadata(self, scope: Scope, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _send(send, 405, b"", [(b"allow", b"GET, HEAD")])
            return
        body = self._metadata if scope["method"] == "GET" else b""
        await _send(
            send,
            200,
            body,
            [
                (b"content-type", b"application/json"),
                (b"cache-control", b"public, max-age=3600"),
                (b"access-control-allow-origin", b"*"),
            ],
            length=len(self._metadata),
        )

    async def _unavailable(self, send: Send) -> None:
        """503: the identity provider could not be asked, so the token is neither accepted
        nor known to be bad; a client retries rather than fetch a new token."""
        body = json.dumps(
            {
                "error": "temporarily_unavailable",
                "error_description": "The token could not be checked now: the identity "
                "provider did not answer usably. Try again shortly",
            }
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"5")]
        await _send(send, 503, body, headers)

    async def _challenge(self, send: Send, status: int, error: str | None, text: str) -> None:
        parts = []
        if error is not None:
            parts += [f'error="{error}"', f'error_description="{text}"']
        if self.required_scopes and status in (401, 403):
            parts.append(f'scope="{" ".join(self.required_scopes)}"')
        parts.append(f'resource_metadata="{self._metadata_url}"')
        body = json.dumps({"error": error or "unauthorized", "error_description": text}).encode()
        await _send(
            send,
            status,
            body,
            [
                (b"content-type", b"application/json"),
                (b"www-authenticate", ("Bearer " + ", ".join(parts)).encode()),
            ],
        )


async def _send(
    send: Send,
    status: int,
    body: bytes,
    headers: list[tuple[bytes, bytes]],
    length: int | None = None,
) -> None:
    size = len(body) if length is None else length
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(size).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
