"""Auth at run time: static credentials, and OAuth2 client-credentials tokens with a cache."""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from toolcat._errors import ToolcatError
from toolcat.catalog import (
    ApiKeyAuth,
    AuthSpec,
    BasicAuth,
    BearerAuth,
    NoAuth,
    OAuth2ClientCredentials,
    record,
)

from ._calls import ToolError
from ._redact import Redactor, resolve

__all__ = ["OAuthConfig", "ResolvedAuth", "TokenCache", "TokenError", "resolve_auth"]

_EXPIRY_MARGIN = 30.0  # seconds before the stated expiry that a token counts as expired
_MAX_TOKEN_BODY = 65_536


@record
class OAuthConfig:
    """Resolved client-credentials settings of one call (the secret is never shown)."""

    token_url: str
    client_id: str
    client_secret: str = field(repr=False)
    scopes: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, str, tuple[str, ...]]:
        return (self.token_url, self.client_id, self.client_secret, self.scopes)


@dataclass(slots=True)
class ResolvedAuth:
    headers: list[tuple[str, str]] = field(default_factory=list)
    query: list[str] = field(default_factory=list)
    cookies: list[str] = field(default_factory=list)
    oauth: OAuthConfig | None = None


_NONE = ResolvedAuth()


def resolve_auth(
    spec: AuthSpec, env: Mapping[str, str], redactor: Redactor, *, where: str
) -> ResolvedAuth:
    """Interpolate the auth fields now; every resolved value is a secret of this call.

    Raises :class:`toolcat.loader.MissingVariableError` naming a missing variable.
    """
    if isinstance(spec, NoAuth):
        return _NONE
    if isinstance(spec, BearerAuth):
        token = resolve(spec.token, env, redactor, where=where, secret=True)
        return ResolvedAuth(headers=[("Authorization", f"Bearer {token}")])
    if isinstance(spec, BasicAuth):
        user = resolve(spec.username, env, redactor, where=where, secret=False)
        password = resolve(spec.password, env, redactor, where=where, secret=True)
        encoded = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        redactor.add(encoded)
        return ResolvedAuth(headers=[("Authorization", f"Basic {encoded}")])
    if isinstance(spec, ApiKeyAuth):
        value = resolve(spec.value, env, redactor, where=where, secret=True)
        if spec.location == "query":
            encoded_value = quote(value, safe="")
            redactor.add(encoded_value)
            return ResolvedAuth(query=[f"{quote(spec.name, safe='')}={encoded_value}"])
        if spec.location == "cookie":
            return ResolvedAuth(cookies=[f"{spec.name}={value}"])
        return ResolvedAuth(headers=[(spec.name, value)])
    if isinstance(spec, OAuth2ClientCredentials):
        config = OAuthConfig(
            token_url=resolve(spec.token_url, env, redactor, where=where, secret=False),
            client_id=resolve(spec.client_id, env, redactor, where=where, secret=False),
            client_secret=resolve(spec.client_secret, env, redactor, where=where, secret=True),
            scopes=tuple(spec.scopes),
        )
        return ResolvedAuth(oauth=config)
    raise TypeError(f"unknown auth spec {spec!r}")


class TokenError(ToolcatError):
    """The token endpoint did not give a token; ``error`` is the result for the model."""

    def __init__(self, error: ToolError, status: int | None = None) -> None:
        super().__init__(error.msg)
        self.error = error
        self.status = status


@dataclass(slots=True)
class _Token:
    value: str
    expires_at: float  # monotonic; inf when the server stated no lifetime


class TokenCache:
    """OAuth2 client-credentials tokens, cached until they expire.

    One token per (token URL, client, scopes). Concurrent callers that need a
    new token wait for a single request (a lock per key, for threads and for
    each event loop). :meth:`get` with ``stale=`` set to a token the API just
    rejected with 401 fetches a new one, unless another caller already did.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._tokens: dict[Any, _Token] = {}
        self._locks: dict[Any, threading.Lock] = {}
        self._alocks: dict[Any, asyncio.Lock] = {}
        self._guard = threading.Lock()
        self.requests = 0  # token requests sent (for tests and metrics)

    def _cached(self, key: Any, stale: str | None) -> str | None:
        token = self._tokens.get(key)
        if token is not None and token.value != stale and token.expires_at > self._clock():
            return token.value
        return None

    def get(
        self,
        client: httpx.Client,
        config: OAuthConfig,
        timeout: dict[str, float | None],
        stale: str | None = None,
    ) -> str:
        key = config.key
        hit = self._cached(key, stale)
        if hit is not None:
            return hit
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            hit = self._cached(key, stale)
            if hit is not None:
                return hit
            self.requests += 1
            request = _token_request(client, config, timeout)
            try:
                response = client.send(request, stream=True)
                try:
                    body = _CappedBody()
                    for chunk in response.iter_bytes():
                        if body.add(chunk):
                            break
                finally:
                    response.close()
            except httpx.TransportError as exc:
                raise _transport_error(exc) from exc
            return self._store(key, response.status_code, body.value())

    async def aget(
        self,
        client: httpx.AsyncClient,
        config: OAuthConfig,
        timeout: dict[str, float | None],
        stale: str | None = None,
    ) -> str:
        key = config.key
        hit = self._cached(key, stale)
        if hit is not None:
            return hit
        loop_key = (id(asyncio.get_running_loop()), key)
        with self._guard:
            lock = self._alocks.get(loop_key)
            if lock is None:
                lock = self._alocks[loop_key] = asyncio.Lock()
        async with lock:
            hit = self._cached(key, stale)
            if hit is not None:
                return hit
            self.requests += 1
            request = _token_request(client, config, timeout)
            try:
                response = await client.send(request, stream=True)
                try:
                    body = _CappedBody()
                    async for chunk in response.aiter_bytes():
                        if body.add(chunk):
                            break
                finally:
                    await response.aclose()
            except httpx.TransportError as exc:
                raise _transport_error(exc) from exc
            return self._store(key, response.status_code, body.value())

    def _store(self, key: Any, status: int, body: bytes) -> str:
        import json

        if status >= 400:
            raise TokenError(
                ToolError("http_error", f"the OAuth2 token endpoint answered HTTP {status}"), status
            )
        try:
            payload = json.loads(body)
            value = payload["access_token"]
            if not isinstance(value, str) or not value:
                raise TypeError("access_token is not a string")
        except (ValueError, KeyError, TypeError) as exc:
            raise TokenError(
                ToolError("http_error", "the OAuth2 token endpoint gave no access_token"), status
            ) from exc
        lifetime = payload.get("expires_in")
        if isinstance(lifetime, int | float) and not isinstance(lifetime, bool) and lifetime > 0:
            expires = self._clock() + max(lifetime - _EXPIRY_MARGIN, lifetime / 2)
        else:
            expires = float("inf")
        self._tokens[key] = _Token(value, expires)
        return value


def _token_request(
    client: httpx.Client | httpx.AsyncClient, config: OAuthConfig, timeout: dict[str, float | None]
) -> httpx.Request:
    data = {"grant_type": "client_credentials"}
    if config.scopes:
        data["scope"] = " ".join(config.scopes)
    basic = base64.b64encode(
        f"{quote(config.client_id, safe='')}:{quote(config.client_secret, safe='')}".encode()
    ).decode("ascii")
    request = client.build_request(
        "POST",
        config.token_url,
        data=data,
        headers={"Authorization": f"Basic {basic}", "Accept": "application/json"},
    )
    request.extensions["timeout"] = timeout
    return request


def _transport_error(exc: httpx.TransportError) -> TokenError:
    """The result for the model when the token request got no answer."""
    if isinstance(exc, httpx.TimeoutException):
        return TokenError(ToolError("timeout", "the OAuth2 token request timed out"))
    return TokenError(
        ToolError(
            "connection_error",
            f"the OAuth2 token endpoint is unreachable: {type(exc).__name__}",
        )
    )


class _CappedBody:
    """A token response body, read up to :data:`_MAX_TOKEN_BODY` bytes."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def add(self, chunk: bytes) -> bool:
        """Append ``chunk``; true once the cap is passed (stop reading)."""
        self._buf += chunk
        return len(self._buf) > _MAX_TOKEN_BODY

    def value(self) -> bytes:
        return bytes(self._buf[:_MAX_TOKEN_BODY])
