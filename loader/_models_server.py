"""The file models of the ``server:`` section: how `toolcat serve` over HTTP authenticates
callers, who may call what, audit, quotas and shared state."""

# Annotations are objects here, not text (no ``from __future__ import annotations``): pydantic
# reads them as they are instead of evaluating the text of each one when a model is built.
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from ._models_base import STRICT_LATE

__all__ = [
    "AccessGrantDoc",
    "AccessRuleDoc",
    "ApiKeyEntryDoc",
    "AuditDoc",
    "IntrospectionDoc",
    "JwtAuthDoc",
    "QuotaDoc",
    "RedisDoc",
    "ServerAuthDoc",
    "ServerDoc",
]


# RFC 6749 §3.3 scope-token: printable ASCII but space, '"' and '\\'
Scope = Annotated[str, Field(pattern=r"^[\x21\x23-\x5B\x5D-\x7E]+$")]
JwtAlgorithm = Literal[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"
]


class JwtAuthDoc(BaseModel):
    """JWT access tokens signed by an issuer whose keys are read from ``jwks_url``."""

    model_config = STRICT_LATE
    issuer: str = Field(description="The exact 'iss' of accepted tokens; may hold ${VAR}.")
    jwks_url: str = Field(
        description="The issuer's JWKS: https (http only to loopback); may hold ${VAR}. "
        "Keys are read from here only, never from a URL a token names."
    )
    audience: str | None = Field(
        None, description="The 'aud' accepted (default: server.resource, the server's URI)."
    )
    algorithms: list[JwtAlgorithm] | None = Field(
        None,
        min_length=1,
        description="Signature algorithms accepted (default RS256, PS256, ES256, EdDSA); "
        "'none' and HMAC are never accepted.",
    )
    leeway: float = Field(30, ge=0, le=300, description="Seconds of clock skew on exp/nbf/iat.")
    required_claims: list[str] = Field(
        default_factory=list, description="Claims a token must carry besides exp, iss and aud."
    )
    jwks_cache_seconds: float = Field(
        3600, ge=60, le=86400, description="Seconds before the keys are fetched again."
    )
    jwks_min_refresh: float = Field(
        30,
        ge=1,
        le=3600,
        description="Least seconds between two fetches caused by a token with an unknown kid.",
    )


class IntrospectionDoc(BaseModel):
    """Opaque tokens checked at an RFC 7662 introspection endpoint."""

    model_config = STRICT_LATE
    url: str = Field(description="The endpoint: https (http only to loopback); may hold ${VAR}.")
    client_id: str | None = Field(None, description="This server's client id at the endpoint.")
    client_secret: str | None = Field(
        None, description="Use ${VAR} so the secret stays out of the file."
    )
    cache_seconds: float = Field(
        300, ge=0, le=3600, description="Longest an active answer is reused (never past exp)."
    )


class ApiKeyEntryDoc(BaseModel):
    """A static API key, stored as its hash (`toolcat hash-key` prints one)."""

    model_config = STRICT_LATE
    name: str = Field(pattern=r"^[A-Za-z0-9_.@-]{1,64}$", description="Who holds the key.")
    hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$", description="sha256:<hex> of the key.")
    scopes: list[Scope] = Field(default_factory=list, description="Scopes the key grants.")


# a claim name: printable ASCII without space (dots walk into objects: realm_access.roles)
ClaimName = Annotated[str, Field(pattern=r"^[\x21-\x7E]{1,256}$")]


class ServerAuthDoc(BaseModel):
    """How HTTP callers authenticate; a token any configured method accepts gets in."""

    model_config = STRICT_LATE
    jwt: JwtAuthDoc | None = None
    introspection: IntrospectionDoc | None = None
    api_keys: list[ApiKeyEntryDoc] = Field(default_factory=list)
    required_scopes: list[Scope] = Field(
        default_factory=list, description="Scopes every caller needs (403 insufficient_scope)."
    )
    client_claims: list[ClaimName] = Field(
        default_factory=lambda: ["client_id", "azp"],
        min_length=1,
        max_length=8,
        description="Who a token without 'sub' is (a client-credentials token): the first "
        "of these claims it carries. A token with neither is refused.",
    )


ClaimValue = Annotated[str, Field(min_length=1, max_length=1024)]


class AccessGrantDoc(BaseModel):
    """What a rule covers: tools by name ('*': all), toolsets and tags."""

    model_config = STRICT_LATE
    toolsets: list[str] = Field(default_factory=list, description="Every tool of these toolsets.")
    tools: list[str] = Field(default_factory=list, description="These tools; '*' for every tool.")
    tags: list[str] = Field(default_factory=list, description="Every tool with one of these tags.")


class AccessRuleDoc(BaseModel):
    """A rule: callers matching every 'when' entry are allowed or denied what it covers."""

    model_config = STRICT_LATE
    name: str | None = Field(None, description="Named in refusals and `toolcat access`.")
    when: dict[ClaimName, ClaimValue | list[ClaimValue]] = Field(
        default_factory=dict,
        description="Claim (sub, groups, any claim; scope; api_key; client_id) to the value "
        "or values that match ('*': any). All entries must match; none: every caller.",
    )
    allow: AccessGrantDoc | None = None
    deny: AccessGrantDoc | None = None


class AuditDoc(BaseModel):
    """One JSON line per tool call, allowed or refused."""

    model_config = STRICT_LATE
    path: str = Field(
        min_length=1, description="A file (rotated by size), or '-' for standard output."
    )
    max_bytes: int = Field(
        100 * 1024 * 1024, ge=1024, description="The file is rotated before it passes this size."
    )
    backups: int = Field(5, ge=0, le=1000, description="Rotated files kept (path.1, path.2, ...).")
    fail_closed: Literal["non_safe", "always", "never"] = Field(
        "non_safe",
        description="Calls refused while the log cannot be written: those with a non-safe "
        "method (default), all, or none (a warning is logged).",
    )
    max_argument_chars: int = Field(
        4096, ge=64, description="Arguments longer than this (as JSON) are cut in the line."
    )


class QuotaDoc(BaseModel):
    """A rate limit: callers matching 'when' get 'rate' calls of the tools it covers."""

    model_config = STRICT_LATE
    name: str | None = Field(None, description="Named in rate_limited errors and audit lines.")
    when: dict[ClaimName, ClaimValue | list[ClaimValue]] = Field(
        default_factory=dict,
        description="As in access rules: claim to the value or values that match ('*': any); "
        "none: every caller.",
    )
    rate: str = Field(description="COUNT/UNIT: 10/second, 100/minute, 1000/hour, 5000/day.")
    burst: int | None = Field(
        None, ge=1, description="Calls allowed at once (the bucket's size); default COUNT."
    )
    toolsets: list[str] = Field(default_factory=list, description="Every tool of these toolsets.")
    tools: list[str] = Field(default_factory=list, description="These tools; '*' for every tool.")
    tags: list[str] = Field(default_factory=list, description="Every tool with one of these tags.")
    per: Literal["tool", "rule"] = Field(
        "tool",
        description="tool: a bucket per caller and tool; rule: one bucket per caller for "
        "every tool the quota covers.",
    )


class RedisDoc(BaseModel):
    """Shared state for several replicas: quotas, OAuth tokens, idempotency records."""

    model_config = STRICT_LATE
    url: str = Field(
        min_length=1,
        description="redis://[user:password@]host:port/db, rediss:// (TLS) or unix://; "
        "${VAR} allowed, e.g. ${REDIS_URL}.",
    )
    prefix: str = Field("toolcat:", description="Every key starts with this.")
    timeout: float = Field(
        0.5, gt=0, description="Seconds a Redis command may take before Redis counts as down."
    )
    lease_seconds: float = Field(
        300,
        gt=0,
        description="A call's place under server.concurrency is freed after this long if its "
        "replica dies mid-call.",
    )
    idempotency_seconds: float = Field(
        600, gt=0, description="How long a call's idempotency record and result are kept."
    )


class ServerDoc(BaseModel):
    """How `toolcat serve --transport http` answers: its resource URI and authentication."""

    model_config = STRICT_LATE
    resource: str | None = Field(
        None,
        description="The server's resource URI (RFC 9728), e.g. https://tools.example.com/mcp; "
        "the JWT audience. Default: the URL it listens on.",
    )
    authorization_servers: list[str] | None = Field(
        None, description="Announced in the protected-resource metadata (default: the issuer)."
    )
    auth: ServerAuthDoc | None = None
    access: list[AccessRuleDoc] | None = Field(
        None,
        description="Who may call what. No rules: everyone may call every tool; any rule: "
        "only what an allow rule covers and no deny rule does.",
    )
    audit: AuditDoc | None = None
    quotas: list[QuotaDoc] | None = Field(
        None, description="Rate limits per caller and tool (token buckets)."
    )
    concurrency: dict[str, Annotated[int, Field(ge=1)]] | None = Field(
        None,
        description="Service name to the most calls to it at once; a call over the limit "
        "gets rate_limited and is not sent.",
    )
    redis: RedisDoc | None = Field(
        None,
        description="Counts and caches shared by replicas in Redis (default: in this process).",
    )
