"""Token checks for ``toolcat serve`` over HTTP: JWT (JWKS), RFC 7662 introspection, API keys.

:class:`Authenticator` tries, in order, the API keys (a hash compared in constant
time with every stored one), a JWT signed by the configured issuer (when the
token has a JWT's shape) and the introspection endpoint, and returns the
verified :class:`~toolcat.executor.CallerIdentity` or ``None``. It is also an
``mcp.server.auth.provider.TokenVerifier``. A reason for each refusal is
logged, never the token.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import httpx
import jwt
from jwt import PyJWK
from mcp.server.auth.provider import AccessToken
from pydantic import InstanceOf
from toolcat._errors import ToolcatError
from toolcat.catalog import MissingVariableError
from toolcat.catalog.common import credentials_may_travel, interpolate
from toolcat.catalog.serving import ApiKeyEntry, IntrospectionSettings, JwtSettings, ServeAuth
from toolcat.executor import CallerIdentity

from ._idp import AnswerRefused, read_json
from ._jwks import JwksCache

__all__ = [
    "AuthConfigError",
    "Authenticator",
    "INTROSPECTION_CACHE_SIZE",
    "INTROSPECTION_CONCURRENCY",
    "JWT_CACHE_SECONDS",
    "JWT_CACHE_SIZE",
    "MAX_TOKEN_BYTES",
    "Refusal",
    "VerifiedToken",
    "hash_api_key",
]

log = logging.getLogger("toolcat.serve")

MAX_TOKEN_BYTES = 8192  # a longer bearer token is refused before any parsing
MAX_INTROSPECTION_BYTES = 64 * 1024  # a longer introspection answer is refused (never read)
INTROSPECTION_CACHE_SIZE = 10_000  # active tokens remembered (least recently used dropped)
JWT_CACHE_SIZE = 10_000  # verified JWTs remembered (least recently used dropped)
JWT_CACHE_SECONDS = 300.0  # a verified JWT is checked again after this, or at its exp
INTROSPECTION_CONCURRENCY = 16  # introspection requests in flight at once; others wait
_HASH_PREFIX = "sha256:"


class VerifiedToken(AccessToken):
    """The SDK's ``AccessToken`` (session binding, ``get_access_token``) with the identity.

    ``token`` holds a fingerprint, not the token: nothing downstream can leak it.
    """

    identity: InstanceOf[CallerIdentity]


def hash_api_key(key: str) -> str:
    """The form an API key is stored in: ``sha256:<64 hex digits>``."""
    return _HASH_PREFIX + hashlib.sha256(key.encode()).hexdigest()


def _digest(stored: str) -> bytes:
    if not stored.startswith(_HASH_PREFIX):
        raise AuthConfigError("an API key hash starts with 'sha256:' (see `toolcat hash-key`)")
    return bytes.fromhex(stored[len(_HASH_PREFIX) :])


class AuthConfigError(ToolcatError, ValueError):
    """The authentication settings cannot be used (an http URL elsewhere, a ${VAR} unset)."""


class _Rejected(ToolcatError):
    """A token that is not accepted; the message is a fixed reason, safe to log."""


class _Unavailable(_Rejected):
    """The identity provider could not be asked, or gave no usable answer: the token
    itself may be good (the server answers 503, not 401)."""


@dataclass(frozen=True)
class Refusal:
    """Why a token is not accepted: ``reason`` (safe to log, never the token) and whether
    the identity provider was ``unavailable`` rather than the token bad."""

    reason: str
    unavailable: bool = False


class Authenticator:
    """Checks bearer tokens against ``settings``; ``resource`` is the server's resource URI.

    ``env`` resolves ``${VAR}`` in the settings (default: the process environment).
    """

    def __init__(
        self,
        settings: ServeAuth,
        *,
        resource: str,
        env: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
        jwks_timeout: float = 5.0,
        introspection_timeout: float = 5.0,
    ) -> None:
        import os

        environ = os.environ if env is None else env
        self.settings = settings
        self.resource = resource
        self.required_scopes = frozenset(settings.required_scopes)
        # one client for JWKS and introspection; no redirects, no proxy from the environment
        self._client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(max(jwks_timeout, introspection_timeout)),
            follow_redirects=False,
            trust_env=False,
        )
        self._keys = [(_digest(k.hash), k) for k in settings.api_keys]
        self._jwt: _JwtCheck | None = None
        if settings.jwt is not None:
            self._jwt = _JwtCheck(
                settings.jwt, resource, environ, self._client, jwks_timeout, settings.client_claims
            )
        self._introspect: _Introspection | None = None
        if settings.introspection is not None:
            self._introspect = _Introspection(
                settings.introspection,
                settings.jwt,
                resource,
                environ,
                self._client,
                introspection_timeout,
                settings.client_claims,
            )

    @staticmethod
    def issuer_of(settings: JwtSettings, env: Mapping[str, str] | None = None) -> str:
        """The issuer of ``settings`` with its ``${VAR}`` resolved."""
        import os

        return _resolve(settings.issuer, os.environ if env is None else env, "jwt.issuer")

    @property
    def jwks(self) -> JwksCache | None:
        return self._jwt.jwks if self._jwt else None

    async def authenticate(self, token: str) -> CallerIdentity | None:
        """The verified identity of ``token``, or ``None`` (the reason is logged)."""
        verdict = await self.check(token)
        return verdict if isinstance(verdict, CallerIdentity) else None

    async def check(self, token: str) -> CallerIdentity | Refusal:
        """The verified identity of ``token``, or why it is not accepted (also logged)."""
        if len(token) > MAX_TOKEN_BYTES:
            log.info("token refused: longer than %d bytes", MAX_TOKEN_BYTES)
            return Refusal(f"longer than {MAX_TOKEN_BYTES} bytes")
        try:
            found = self._api_key(token)
            if found is not None:
                return found
            if self._jwt is not None and token.count(".") == 2:
                return await self._jwt.verify(token)
            if self._introspect is not None:
                return await self._introspect.verify(token)
            raise _Rejected("not an accepted API key or token")
        except _Rejected as exc:
            log.info("token refused: %s", str(exc))
            return Refusal(str(exc), unavailable=isinstance(exc, _Unavailable))

    async def verify_token(self, token: str) -> AccessToken | None:
        """``mcp.server.auth.provider.TokenVerifier``: the identity as an ``AccessToken``."""
        identity = await self.authenticate(token)
        return None if identity is None else access_token(identity, token)

    def _api_key(self, token: str) -> CallerIdentity | None:
        if not self._keys:
            return None
        presented = hashlib.sha256(token.encode()).digest()
        match: ApiKeyEntry | None = None
        for digest, entry in self._keys:  # every hash compared: the time says nothing
            if hmac.compare_digest(presented, digest):
                match = entry
        if match is None:
            return None
        return CallerIdentity.make(
            subject=match.name, method="api_key", client_id=match.name, scopes=match.scopes
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def access_token(identity: CallerIdentity, token: str) -> VerifiedToken:
    fingerprint = hashlib.sha256(token.encode()).hexdigest()[:16]
    return VerifiedToken(
        token=f"sha256:{fingerprint}",
        client_id=identity.client_id or identity.subject or "",
        scopes=sorted(identity.scopes),
        subject=identity.subject,
        claims={"iss": identity.issuer} if identity.issuer else None,
        identity=identity,
    )


def _resolve(text: str, env: Mapping[str, str], where: str) -> str:
    try:
        return interpolate(text, env, where=where)
    except MissingVariableError as exc:
        raise AuthConfigError(str(exc)) from exc


def _resolve_url(text: str, env: Mapping[str, str], where: str) -> str:
    """An issuer endpoint: https, or http only to a loopback address (a key or an answer
    read over plain HTTP from elsewhere could be forged on the way)."""
    url = _resolve(text, env, where)
    if credentials_may_travel(url):
        return url
    raise AuthConfigError(f"{where} must be an https URL (http only to a loopback address)")


#: Claims that hold a time (RFC 7519 NumericDate): a number, never a string or a boolean.
_TIME_CLAIMS = ("exp", "nbf", "iat")


def _check_times(claims: Mapping[str, Any]) -> None:
    """Refuse a token whose ``exp``, ``nbf`` or ``iat`` is not a number (the JWT library
    reads ``"9999999999"`` as a time; RFC 7519 and RFC 7662 say NumericDate)."""
    for name in _TIME_CLAIMS:
        value = claims.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise _Rejected(f"the {name!r} claim is not a number")


def _identify(
    claims: Mapping[str, Any],
    method: Literal["jwt", "introspection"],
    issuer: str | None,
    client_claims: Sequence[str],
) -> CallerIdentity:
    """The caller ``claims`` name, or refused: a token with neither a subject nor a client
    claim would be every such caller at once (one quota, one idempotency record)."""
    identity = CallerIdentity.from_claims(
        claims, method=method, issuer=issuer, client_claims=client_claims
    )
    if not identity.identified:
        raise _Rejected(f"the token names no caller (no 'sub', nor any of {list(client_claims)})")
    return identity


class _JwtCheck:
    def __init__(
        self,
        settings: JwtSettings,
        resource: str,
        env: Mapping[str, str],
        client: httpx.AsyncClient,
        timeout: float,
        client_claims: Sequence[str],
    ) -> None:
        self.issuer = _resolve(settings.issuer, env, "server.auth.jwt.issuer")
        self.audience = _resolve(settings.audience or resource, env, "server.auth.jwt.audience")
        self.algorithms = tuple(settings.algorithms)
        self.leeway = settings.leeway
        self.required = ["exp", "iss", "aud", *settings.required_claims]
        self.client_claims = client_claims
        url = _resolve_url(settings.jwks_url, env, "server.auth.jwt.jwks_url")
        self.jwks = JwksCache(
            url,
            client,
            timeout=timeout,
            max_age=settings.jwks_cache_seconds,
            min_refresh=settings.jwks_min_refresh,
        )
        # the token's SHA-256 -> (valid until, kid, algorithm, the key that verified it,
        # the identity): a token seen again costs a lookup, not a signature check
        self._cache: OrderedDict[bytes, tuple[float, str | None, str, PyJWK, CallerIdentity]] = (
            OrderedDict()
        )

    async def verify(self, token: str) -> CallerIdentity:
        """The identity of ``token``: from the cache while it holds the token and the
        JWKS still has the same key for its ``kid``, else checked in full."""
        digest = hashlib.sha256(token.encode()).digest()  # the cache never holds the token
        hit = self._cache.get(digest)
        if hit is not None:
            until, kid, algorithm, key, identity = hit
            if time.time() < until and await self.jwks.key(kid, algorithm) is key:
                self._cache.move_to_end(digest)
                return identity
            del self._cache[digest]  # expired, or its key rotated out: checked again
        identity, kid, algorithm, key, exp = await self._verify(token)
        self._cache[digest] = (
            min(exp + self.leeway, time.time() + JWT_CACHE_SECONDS),
            kid,
            algorithm,
            key,
            identity,
        )
        while len(self._cache) > JWT_CACHE_SIZE:
            self._cache.popitem(last=False)
        return identity

    async def _verify(self, token: str) -> tuple[CallerIdentity, str | None, str, PyJWK, float]:
        """The full check: the identity, and the kid, algorithm, key and ``exp`` it
        was verified with."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise _Rejected("malformed JWT") from exc
        algorithm = header.get("alg")
        if not isinstance(algorithm, str) or algorithm not in self.algorithms:
            raise _Rejected("JWT algorithm not allowed")
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise _Rejected("JWT kid is not a string")
        key = await self.jwks.key(kid, algorithm)
        if key is None and not self.jwks.known:
            raise _Unavailable("no signing key could be read from the issuer's JWKS")
        if key is None:
            raise _Rejected("no signing key of the issuer matches the JWT's kid")
        try:
            claims = jwt.decode(
                token,
                key=key.key,
                algorithms=[algorithm],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": self.required, "verify_signature": True},
            )
        except jwt.ExpiredSignatureError as exc:
            raise _Rejected("JWT expired") from exc
        except jwt.ImmatureSignatureError as exc:
            raise _Rejected("JWT not yet valid (nbf or iat)") from exc
        except jwt.InvalidAudienceError as exc:
            raise _Rejected("JWT audience is not this server") from exc
        except jwt.InvalidIssuerError as exc:
            raise _Rejected("JWT issuer is not the configured one") from exc
        except jwt.MissingRequiredClaimError as exc:
            raise _Rejected(f"JWT lacks the required claim {exc.claim!r}") from exc
        except jwt.PyJWTError as exc:
            raise _Rejected(f"JWT refused ({type(exc).__name__})") from exc
        _check_times(claims)
        identity = _identify(claims, "jwt", self.issuer, self.client_claims)
        return identity, kid, algorithm, key, float(claims["exp"])


class _Introspection:
    def __init__(
        self,
        settings: IntrospectionSettings,
        jwt_settings: JwtSettings | None,
        resource: str,
        env: Mapping[str, str],
        client: httpx.AsyncClient,
        timeout: float,
        client_claims: Sequence[str],
    ) -> None:
        self.client_claims = client_claims
        self.url = _resolve_url(settings.url, env, "server.auth.introspection.url")
        cid = settings.client_id
        secret = settings.client_secret
        self.auth: tuple[str | bytes, str | bytes] | None = (
            (
                _resolve(cid, env, "server.auth.introspection.client_id"),
                _resolve(secret or "", env, "server.auth.introspection.client_secret"),
            )
            if cid is not None
            else None
        )
        self.cache_seconds = settings.cache_seconds
        self.issuer = (
            _resolve(jwt_settings.issuer, env, "server.auth.jwt.issuer") if jwt_settings else None
        )
        self.audience = resource
        self.leeway = jwt_settings.leeway if jwt_settings else 30.0
        self.timeout = timeout
        self._client = client
        self._cache: OrderedDict[bytes, tuple[float, CallerIdentity]] = OrderedDict()
        # unknown tokens cannot make this server flood the issuer with requests
        self._limiter = anyio.CapacityLimiter(INTROSPECTION_CONCURRENCY)

    async def verify(self, token: str) -> CallerIdentity:
        key = hashlib.sha256(token.encode()).digest()  # the cache never holds the token
        now = time.time()
        hit = self._cache.get(key)
        if hit is not None:
            if hit[0] > now:
                self._cache.move_to_end(key)
                return hit[1]
            del self._cache[key]
        claims = await self._ask(token)
        identity, until = self._check(claims, now)
        self._cache[key] = (until, identity)
        while len(self._cache) > INTROSPECTION_CACHE_SIZE:
            self._cache.popitem(last=False)
        return identity

    async def _ask(self, token: str) -> dict[str, Any]:
        try:
            with anyio.fail_after(self.timeout):  # waiting for a slot counts too
                async with self._limiter:
                    claims = await read_json(
                        self._client,
                        "POST",
                        self.url,
                        max_bytes=MAX_INTROSPECTION_BYTES,
                        what="introspection answer",
                        data={"token": token, "token_type_hint": "access_token"},
                        auth=self.auth or httpx.USE_CLIENT_DEFAULT,
                    )
        except TimeoutError as exc:
            raise _Unavailable("introspection endpoint did not answer in time") from exc
        except httpx.HTTPError as exc:
            raise _Unavailable(f"introspection failed ({type(exc).__name__})") from exc
        except AnswerRefused as exc:
            raise _Unavailable(str(exc)) from exc
        if not isinstance(claims, dict):
            raise _Unavailable("the introspection answer is not an object")
        return claims

    def _check(self, claims: dict[str, Any], now: float) -> tuple[CallerIdentity, float]:
        if claims.get("active") is not True:
            raise _Rejected("token is not active")
        _check_times(claims)
        exp, nbf = claims.get("exp"), claims.get("nbf")
        if isinstance(exp, int | float) and exp + self.leeway <= now:
            raise _Rejected("token expired")
        if isinstance(nbf, int | float) and nbf - self.leeway > now:
            raise _Rejected("token not yet valid")
        if self.issuer is not None and "iss" in claims and claims["iss"] != self.issuer:
            raise _Rejected("token issuer is not the configured one")
        aud = claims.get("aud")
        if aud is not None:
            audiences: Sequence[Any] = aud if isinstance(aud, list) else [aud]
            if self.audience not in audiences:
                raise _Rejected("token audience is not this server")
        until = now + self.cache_seconds
        if isinstance(exp, int | float):
            until = min(until, float(exp))
        iss = claims.get("iss")
        identity = _identify(
            {k: v for k, v in claims.items() if k != "active"},
            "introspection",
            iss if isinstance(iss, str) else None,
            self.client_claims,
        )
        return identity, until
