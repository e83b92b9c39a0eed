"""Auth at run time: static credentials, and OAuth2 tokens (client credentials, or a token
exchange for the caller, see :mod:`._exchange`) with a bounded cache."""

from __future__ import annotations

import asyncio
import base64
import functools
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import quote

import httpx
from toolcat.catalog import (
    ApiKeyAuth,
    AuthSpec,
    BasicAuth,
    BearerAuth,
    ForwardCallerToken,
    NoAuth,
    OAuth2ClientCredentials,
    TokenExchange,
)
from toolcat.executor._calls import CallStopped, ToolError
from toolcat.executor._flow import Blocking, Flow, Io, drive
from toolcat.executor._redact import Redactor, resolve
from toolcat.executor._shared import RedisTokens, SharedStateError

from ._exchange import ExchangeConfig, ExchangeGrant
from ._policy import is_bearer_text
from ._wire import Chunks, close, send

__all__ = [
    "MAX_CACHED_TOKENS",
    "OAuthConfig",
    "ResolvedAuth",
    "TokenCache",
    "TokenError",
    "TokenGrant",
    "resolve_auth",
    "resolver",
]

_EXPIRY_MARGIN = 30.0  # seconds before the stated expiry that a token counts as expired
_MAX_TOKEN_BODY = 65_536
#: Tokens a cache holds at most (exchanged tokens are one per caller): past it, expired
#: ones go first, then the oldest.
MAX_CACHED_TOKENS = 10_000
# Seconds a failed token request answers the callers that queued behind it: they fail
# with it at once instead of each waiting out its own timeout in turn.
_FAILURE_HOLD = 1.0
_SHARED_POLL = 0.05  # seconds between two looks at Redis while another replica fetches


@dataclass(frozen=True, slots=True)
class OAuthConfig:
    """Resolved client-credentials settings of one call (the secret is never shown)."""

    token_url: str
    client_id: str
    client_secret: str = field(repr=False)
    scopes: tuple[str, ...] = ()

    label = "OAuth2 token endpoint"

    @property
    def key(self) -> tuple[str, str, str, tuple[str, ...]]:
        return (self.token_url, self.client_id, self.client_secret, self.scopes)

    def form(self) -> dict[str, str]:
        data = {"grant_type": "client_credentials"}
        if self.scopes:
            data["scope"] = " ".join(self.scopes)
        return data

    def time_cap(self) -> float | None:
        return None  # the call's own timeouts bound it

    def lifetime_cap(self, now: float) -> float:
        return float("inf")


#: A token to fetch before sending: the service's own (client credentials), or one
#: exchanged for the caller's.
TokenGrant = OAuthConfig | ExchangeGrant


@dataclass(slots=True)
class ResolvedAuth:
    headers: list[tuple[str, str]] = field(default_factory=list)
    query: list[str] = field(default_factory=list)
    cookies: list[str] = field(default_factory=list)
    oauth: OAuthConfig | None = None
    forward: bool = False  # send the caller's token
    exchange: ExchangeConfig | None = None  # exchange the caller's token (RFC 8693)


_NONE = ResolvedAuth()


#: Interpolates one raw auth field of this call: ``(text, secret) -> value``.
Fill = Callable[[str, bool], str]


def resolve_auth(
    spec: AuthSpec,
    env: Mapping[str, str],
    redactor: Redactor,
    *,
    where: str,
    unset: list[str] | None = None,
) -> ResolvedAuth:
    """Interpolate the auth fields now; every resolved value is a secret of this call.

    Raises :class:`toolcat.loader.MissingVariableError` naming a missing variable, unless
    ``unset`` is given (a dry run): see :func:`~toolcat.executor._redact.resolve`.
    """

    def fill(text: str, secret: bool) -> str:
        return resolve(text, env, redactor, where=where, secret=secret, unset=unset)

    return resolver(spec, fill, redactor)


@functools.singledispatch
def resolver(spec: AuthSpec, fill: Fill, redactor: Redactor) -> ResolvedAuth:
    """What the transport sends for ``spec``: one registered function per auth type."""
    raise TypeError(f"unknown auth spec {spec!r}")


@resolver.register
def _none(spec: NoAuth, fill: Fill, redactor: Redactor) -> ResolvedAuth:
    return _NONE


@resolver.register
def _bearer(spec: BearerAuth, fill: Fill, redactor: Redactor) -> ResolvedAuth:
    return ResolvedAuth(headers=[("Authorization", f"Bearer {fill(spec.token, True)}")])


@resolver.register
def _basic(spec: BasicAuth, fill: Fill, redactor: Redactor) -> ResolvedAuth:
    user, password = fill(spec.username, False), fill(spec.password, True)
    encoded = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    redactor.add(encoded)
    return ResolvedAuth(headers=[("Authorization", f"Basic {encoded}")])


@resolver.register
def _api_key(spec: ApiKeyAuth, fill: Fill, redactor: Redactor) -> ResolvedAuth:
    value = fill(spec.value, True)
    if spec.location == "query":
        encoded_value = quote(value, safe="")
        redactor.add(encoded_value)
        return ResolvedAuth(query=[f"{quote(spec.name, safe='')}={encoded_value}"])
    if spec.location == "cookie":
        return ResolvedAuth(cookies=[f"{spec.name}={value}"])
    return ResolvedAuth(headers=[(spec.name, value)])


@resolver.register
def _client_credentials(
    spec: OAuth2ClientCredentials, fill: Fill, redactor: Redactor
) -> ResolvedAuth:
    config = OAuthConfig(
        token_url=fill(spec.token_url, False),
        client_id=fill(spec.client_id, False),
        client_secret=fill(spec.client_secret, True),
        scopes=tuple(spec.scopes),
    )
    return ResolvedAuth(oauth=config)


@resolver.register
def _forward(spec: ForwardCallerToken, fill: Fill, redactor: Redactor) -> ResolvedAuth:
    return ResolvedAuth(forward=True)


@resolver.register
def _exchange(spec: TokenExchange, fill: Fill, redactor: Redactor) -> ResolvedAuth:
    exchange = ExchangeConfig(
        token_url=fill(spec.token_url, False),
        client_id=fill(spec.client_id, False),
        client_secret=fill(spec.client_secret, True),
        audience=None if spec.audience is None else fill(spec.audience, False),
        resource=None if spec.resource is None else fill(spec.resource, False),
        scopes=tuple(spec.scopes),
        timeout=spec.timeout,
        max_lifetime=spec.max_lifetime,
    )
    return ResolvedAuth(exchange=exchange)


class TokenError(CallStopped):
    """The token endpoint did not give a token; ``error`` is the result for the model."""


@dataclass(slots=True)
class _Token:
    value: str
    expires_at: float  # monotonic; inf when the server stated no lifetime


class TokenCache:
    """OAuth2 tokens, cached until they expire.

    One client-credentials token per (token URL, client, scopes); one exchanged
    token per (service, exchange settings, subject, hash of the caller's token).
    Concurrent callers that need a new token wait for a single request (a lock per
    key, for threads and for each event loop). :meth:`flow` is written once, for the
    sync and the async driver; with ``stale=`` set to a token the API just rejected with
    401 it fetches a new one, unless another caller already did. At most ``max_tokens``
    are kept.

    With ``shared`` (Redis), client-credentials tokens are also shared by replicas, and
    one replica at a time fetches a new one (the others wait for it); Redis down: each
    fetches its own (the cache fails open), with a warning.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_tokens: int = MAX_CACHED_TOKENS,
        shared: RedisTokens | None = None,
    ) -> None:
        self._clock = clock
        self._shared = shared
        self.max_tokens = max_tokens
        self._tokens: dict[Any, _Token] = {}
        self._locks: dict[Any, threading.Lock] = {}
        self._alocks: dict[Any, asyncio.Lock] = {}
        self._guard = threading.Lock()
        self._failures: dict[Any, tuple[TokenError, float]] = {}
        self.requests = 0  # token requests sent (for tests and metrics)

    def _cached(self, key: Any, stale: str | None) -> str | None:
        token = self._tokens.get(key)
        if token is not None and token.value != stale and token.expires_at > self._clock():
            return token.value
        return None

    def get(
        self,
        client: httpx.Client,
        config: TokenGrant,
        timeout: dict[str, float | None],
        stale: str | None = None,
    ) -> str:
        """:meth:`flow` driven in this thread."""
        return drive(self.flow(client, config, timeout, stale))

    def flow(
        self,
        client: httpx.Client | httpx.AsyncClient,
        config: TokenGrant,
        timeout: dict[str, float | None],
        stale: str | None = None,
    ) -> Flow[str]:
        """The token for ``config``, fetched with ``client`` unless a cached one is good
        (and not ``stale``); raises :class:`TokenError`. One fetch per key at a time."""
        key = config.key
        hit = self._cached(key, stale)
        if hit is not None:
            return hit
        lock = yield Io(partial(self._thread_lock, key), partial(self._loop_lock, key))
        try:
            hit = self._cached(key, stale)
            if hit is not None:
                return hit
            self._raise_held(key)
            try:
                if self._shared is not None and isinstance(config, OAuthConfig):
                    return (yield from self._via_shared(client, config, timeout, stale))
                return (yield from self._fetch(client, config, timeout))
            except TokenError as exc:
                self._hold(key, exc)
                raise
        finally:
            lock.release()

    def _lock(self, table: dict[Any, Any], key: Any, make: Callable[[], Any]) -> Any:
        with self._guard:
            lock = table.get(key)
            if lock is None:
                self._prune(table)
                lock = table[key] = make()
        return lock

    def _thread_lock(self, key: Any) -> threading.Lock:
        """The key's lock for threads, taken."""
        lock: threading.Lock = self._lock(self._locks, key, threading.Lock)
        lock.acquire()
        return lock

    async def _loop_lock(self, key: Any) -> asyncio.Lock:
        """The key's lock on the running event loop, taken."""
        loop_key = (id(asyncio.get_running_loop()), key)
        lock: asyncio.Lock = self._lock(self._alocks, loop_key, asyncio.Lock)
        await lock.acquire()
        return lock

    def _fetch(
        self,
        client: httpx.Client | httpx.AsyncClient,
        config: TokenGrant,
        timeout: dict[str, float | None],
    ) -> Flow[str]:
        """One token request (kept in this cache); raises :class:`TokenError`."""
        self.requests += 1
        request = _token_request(client, config, timeout)
        try:
            response = yield send(client, request, client.follow_redirects)
            try:
                body, chunks = bytearray(), Chunks(response, raw=False)
                while len(body) <= _MAX_TOKEN_BODY and (chunk := (yield chunks)) is not None:
                    body += chunk
            finally:
                yield close(response)
        except httpx.TransportError as exc:
            raise _transport_error(exc, config.label) from exc
        return self._store(config, response.status_code, bytes(body[:_MAX_TOKEN_BODY]))

    def _via_shared(
        self,
        client: httpx.Client | httpx.AsyncClient,
        config: OAuthConfig,
        timeout: dict[str, float | None],
        stale: str | None,
    ) -> Flow[str]:
        """The token from Redis, or fetched by this replica under the shared lock."""
        shared = self._shared
        assert shared is not None
        key = config.key
        deadline = time.monotonic() + shared.lock_seconds
        while True:
            try:
                found = yield Blocking(shared.lookup, key, stale)
                if found is not None:
                    return self._adopt(key, *found)
                me = yield Blocking(shared.lock, key)
            except SharedStateError as exc:
                shared.state.failed("oauth_token", "fail_open", exc)
                return (yield from self._fetch(client, config, timeout))
            if me is not None:
                try:
                    value = yield from self._fetch(client, config, timeout)
                    yield Blocking(self._share, key, value)
                    return value
                finally:
                    yield Blocking(self._unlock, key, me)
            if time.monotonic() >= deadline:  # the fetching replica died or hangs
                return (yield from self._fetch(client, config, timeout))
            yield Io(partial(time.sleep, _SHARED_POLL), partial(asyncio.sleep, _SHARED_POLL))

    def _adopt(self, key: Any, value: str, seconds: float) -> str:
        self._keep(key, _Token(value, self._clock() + seconds))
        return value

    def _share(self, key: Any, value: str) -> None:
        """Put the token just fetched in Redis for the time this cache keeps it."""
        shared = self._shared
        token = self._tokens.get(key)
        if shared is None or token is None:
            return
        try:
            shared.store(key, value, token.expires_at - self._clock())
        except SharedStateError as exc:
            shared.state.failed("oauth_token", "fail_open", exc)

    def _unlock(self, key: Any, me: str) -> None:
        if self._shared is None:
            return
        try:
            self._shared.unlock(key, me)
        except SharedStateError:  # the lock expires on its own
            pass

    def _raise_held(self, key: Any) -> None:
        """Fail with the error of a request that just failed for ``key``, if any."""
        held = self._failures.get(key)
        if held is not None and held[1] > self._clock():
            raise TokenError(held[0].error, held[0].status)

    def _hold(self, key: Any, error: TokenError) -> None:
        with self._guard:
            self._make_room(self._failures, lambda held: held[1])
            self._failures[key] = (error, self._clock() + _FAILURE_HOLD)

    def _make_room(self, table: dict[Any, Any], until: Callable[[Any], float]) -> None:
        """Room for one more entry in ``table`` (under the guard): expired ones go first,
        then the oldest (a dict's order is the age order)."""
        if len(table) >= self.max_tokens:
            now = self._clock()
            for old in [k for k, v in table.items() if until(v) <= now]:
                del table[old]
            while len(table) >= self.max_tokens:
                del table[next(iter(table))]

    def _prune(self, table: dict[Any, Any]) -> None:
        """Keep ``table`` (a lock table) within the bound; an idle lock is dropped first.

        A lock dropped just before its caller took it costs at most one extra request."""
        if len(table) < self.max_tokens:
            return
        for key in [k for k, lock in table.items() if not lock.locked()][: len(table) // 2 + 1]:
            del table[key]

    def _store(self, config: TokenGrant, status: int, body: bytes) -> str:
        import json

        label = config.label
        if status >= 400:
            raise TokenError(ToolError("http_error", f"the {label} answered HTTP {status}"), status)
        try:
            payload = json.loads(body)
            value = payload["access_token"]
            if not isinstance(value, str) or not value:
                raise TypeError("access_token is not a string")
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            error = ToolError("http_error", f"the {label} gave no access_token")
            raise TokenError(error, status) from exc
        if not is_bearer_text(value):
            # never sent: it could add a header line, and it is not echoed either
            raise TokenError(
                ToolError("invalid_response", f"the {label} gave an access_token that is not a "
                          "bearer token (control characters, spaces or too long)"),
                status,
            )  # fmt: skip
        token_type = payload.get("token_type")
        if isinstance(config, ExchangeGrant) and not (
            token_type is None or (isinstance(token_type, str) and token_type.lower() == "bearer")
        ):
            raise TokenError(
                ToolError("invalid_response", f"the {label} gave a token that is not a bearer "
                          "token (token_type)"),
                status,
            )  # fmt: skip
        now = self._clock()
        lifetime = payload.get("expires_in")
        if isinstance(lifetime, int | float) and not isinstance(lifetime, bool) and lifetime > 0:
            expires = now + max(lifetime - _EXPIRY_MARGIN, lifetime / 2)
        else:
            expires = float("inf")
        expires = min(expires, config.lifetime_cap(now))
        self._keep(config.key, _Token(value, expires))
        return value

    def _keep(self, key: Any, token: _Token) -> None:
        tokens = self._tokens
        with self._guard:  # other keys' fetches store at the same time
            tokens.pop(key, None)  # re-inserted last: the newest
            self._make_room(tokens, lambda t: t.expires_at)
            tokens[key] = token


def _token_request(
    client: httpx.Client | httpx.AsyncClient, config: TokenGrant, timeout: dict[str, float | None]
) -> httpx.Request:
    data, cap = config.form(), config.time_cap()
    client_of = config.config if isinstance(config, ExchangeGrant) else config
    if cap is not None:  # an exchange answers in its own bounded time, within the call's
        timeout = {k: cap if v is None else min(v, cap) for k, v in timeout.items()}
    basic = base64.b64encode(
        f"{quote(client_of.client_id, safe='')}:{quote(client_of.client_secret, safe='')}".encode()
    ).decode("ascii")
    request = client.build_request(
        "POST",
        client_of.token_url,
        data=data,
        headers={"Authorization": f"Basic {basic}", "Accept": "application/json"},
    )
    request.extensions["timeout"] = timeout
    return request


def _transport_error(exc: httpx.TransportError, label: str) -> TokenError:
    """The result for the model when the token request got no answer."""
    if isinstance(exc, httpx.TimeoutException):
        return TokenError(ToolError("timeout", f"the request to the {label} timed out"))
    return TokenError(
        ToolError("connection_error", f"the {label} is unreachable: {type(exc).__name__}")
    )
