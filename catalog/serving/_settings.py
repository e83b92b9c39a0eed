"""How ``toolcat serve`` over HTTP authenticates its callers: the compiled ``server:`` section.

Frozen values, no I/O. Strings that may hold ``${VAR}`` (URLs, the introspection
client's credentials) are kept raw; the server resolves them when it starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "DEFAULT_CLIENT_CLAIMS",
    "DEFAULT_JWT_ALGORITHMS",
    "AccessGrant",
    "AccessPolicy",
    "AccessRule",
    "ApiKeyEntry",
    "AuditSettings",
    "IntrospectionSettings",
    "JwtSettings",
    "QuotaPolicy",
    "QuotaRule",
    "RedisSettings",
    "ServeAuth",
    "ServerSettings",
    "redis_url_problem",
]

# Asymmetric only: an HMAC algorithm would verify with a "secret" that is the
# issuer's public key, which anyone can fetch ("none" is never accepted at all).
DEFAULT_JWT_ALGORITHMS = ("RS256", "PS256", "ES256", "EdDSA")
# The claims that name the client of a token without ``sub`` (a client-credentials
# token); the first one that is a non-empty string wins (server.auth.client_claims).
DEFAULT_CLIENT_CLAIMS = ("client_id", "azp")


@dataclass(frozen=True, slots=True)
class JwtSettings:
    """JWT access tokens signed by ``issuer`` with a key from ``jwks_url``."""

    issuer: str
    jwks_url: str
    audience: str | None = None  # default: the server's resource URI
    algorithms: tuple[str, ...] = DEFAULT_JWT_ALGORITHMS
    leeway: float = 30.0  # seconds of clock skew allowed on exp, nbf, iat
    required_claims: tuple[str, ...] = ()  # on top of exp, iss, aud (always required)
    jwks_cache_seconds: float = 3600.0  # keys are fetched again after this long
    jwks_min_refresh: float = 30.0  # least seconds between fetches caused by an unknown kid


@dataclass(frozen=True, slots=True)
class IntrospectionSettings:
    """Opaque tokens checked at an RFC 7662 introspection endpoint."""

    url: str
    client_id: str | None = None
    client_secret: str | None = None
    cache_seconds: float = 300.0  # an active answer is kept at most this long (and never past exp)


@dataclass(frozen=True, slots=True)
class ApiKeyEntry:
    """A static API key, stored as ``sha256:<hex>`` of the key (``toolcat hash-key``)."""

    name: str
    hash: str
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServeAuth:
    """The ways a caller may authenticate; any one that accepts the token admits it."""

    jwt: JwtSettings | None = None
    introspection: IntrospectionSettings | None = None
    api_keys: tuple[ApiKeyEntry, ...] = ()
    required_scopes: tuple[str, ...] = ()
    # who a token without ``sub`` is: the first of these claims it carries
    client_claims: tuple[str, ...] = DEFAULT_CLIENT_CLAIMS

    @property
    def enabled(self) -> bool:
        return bool(self.jwt or self.introspection or self.api_keys)


@dataclass(frozen=True, slots=True)
class AccessGrant:
    """What a rule covers: tools named here (``*``: every tool), these toolsets, these tags."""

    toolsets: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AccessRule:
    """One rule of the access policy: callers matching every ``when`` entry are allowed
    (or denied) the tools ``grant`` covers.

    ``when`` pairs a claim (``sub``, ``groups``, ``realm_access.roles``, any claim;
    ``scope``: the granted scopes; ``api_key``: the API key's name; ``client_id``)
    with the values that match (``*``: any value); no entries: every caller.
    """

    name: str
    effect: Literal["allow", "deny"]
    grant: AccessGrant
    when: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class AccessPolicy:
    """The ``server.access`` rules. None: every caller may call every tool (as before);
    any: a caller may call a tool only when an ``allow`` rule covers it and no ``deny`` does.
    """

    rules: tuple[AccessRule, ...] = ()

    @property
    def enabled(self) -> bool:
        return bool(self.rules)


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """The ``server:`` section: the resource URI the server answers as, its auth and access."""

    resource: str | None = None  # default: the URL it listens on
    auth: ServeAuth = field(default_factory=ServeAuth)
    authorization_servers: tuple[str, ...] = ()  # default: the JWT issuer, if any
    access: AccessPolicy = field(default_factory=AccessPolicy)
    audit: AuditSettings | None = None  # None: no audit log
    quotas: QuotaPolicy = field(default_factory=lambda: QuotaPolicy())
    redis: RedisSettings | None = None  # None: every count and cache in this process


@dataclass(frozen=True, slots=True)
class AuditSettings:
    """The ``server.audit`` section: one JSON line per tool call, allowed or refused.

    ``path`` is a file (rotated when it would pass ``max_bytes``, keeping ``backups``
    old files) or ``-`` for standard output. ``fail_closed`` says which calls are
    refused, before anything is sent, while the log cannot be written: ``non_safe``
    (calls with a method that is not safe), ``always`` or ``never``.
    """

    path: str
    max_bytes: int = 100 * 1024 * 1024
    backups: int = 5
    fail_closed: Literal["non_safe", "always", "never"] = "non_safe"
    max_argument_chars: int = 4096  # the arguments' JSON in one line; longer is cut


@dataclass(frozen=True, slots=True)
class QuotaRule:
    """A rate limit: callers matching every ``when`` entry (as in access rules) get
    ``rate`` calls per ``per_seconds`` (``burst`` at once) of the tools ``grant`` covers
    (no grant: every tool). ``scope`` ``tool``: a bucket per caller and tool; ``rule``:
    one bucket per caller shared by every tool the rule covers (a toolset's quota).
    """

    name: str
    rate: float  # calls ...
    per_seconds: float  # ... per this many seconds
    burst: int
    grant: AccessGrant | None = None
    when: tuple[tuple[str, tuple[str, ...]], ...] = ()
    scope: Literal["tool", "rule"] = "tool"


@dataclass(frozen=True, slots=True)
class QuotaPolicy:
    """The ``server.quotas`` rules and ``server.concurrency`` (service -> calls at once)."""

    rules: tuple[QuotaRule, ...] = ()
    concurrency: tuple[tuple[str, int], ...] = ()

    @property
    def enabled(self) -> bool:
        return bool(self.rules or self.concurrency)


@dataclass(frozen=True, slots=True)
class RedisSettings:
    """The ``server.redis`` section: state shared by replicas (quotas, OAuth tokens,
    idempotency records) in the Redis at ``url`` (``${VAR}`` resolved at start), under
    keys that start with ``prefix``.

    ``timeout``: seconds one Redis command may take (connect or answer) before Redis
    counts as down. ``lease_seconds``: how long a call's place among a service's calls
    at once is held if its replica dies mid-call. ``idempotency_seconds``: how long a
    call's idempotency record (and its result) is kept.
    """

    url: str
    prefix: str = "toolcat:"
    timeout: float = 0.5
    lease_seconds: float = 300.0
    idempotency_seconds: float = 600.0


def redis_url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a Redis URL, in words, or ``None`` when it is usable
    (the forms the ``redis`` client reads: ``redis://``, ``rediss://`` for TLS, ``unix://``).

    >>> redis_url_problem("redis://localhost:6379/0") is None
    True
    >>> redis_url_problem("localhost:6379")
    "it must start with redis://, rediss:// (TLS) or unix:// (got 'localhost')"
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"it cannot be read as a URL ({exc})"
    scheme = parts.scheme.lower()
    if scheme not in ("redis", "rediss", "unix"):
        shown = (scheme or url.split("/", 1)[0])[:40]
        return f"it must start with redis://, rediss:// (TLS) or unix:// (got {shown!r})"
    if scheme == "unix":
        return None if parts.path else "a unix:// URL needs the socket's path"
    if not parts.hostname:
        return "it names no host (redis://HOST:PORT/DB)"
    if port == 0:
        return "port 0 is not a port"
    db = parts.path.strip("/")
    if db and not db.isdigit():
        return f"the database after the host must be a number (got {db[:20]!r})"
    return None
