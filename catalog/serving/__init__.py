"""The ``server:`` section compiled: how ``toolcat serve`` over HTTP authenticates its
callers, and its access rules, quotas, audit log and shared state. Frozen values, no I/O.

The MCP server (``toolcat.executor.mcp_server``) reads these; the loader builds them
(``toolcat.loader.LoadResult.server``)::

    ServerSettings ── ServeAuth ── JwtSettings, IntrospectionSettings, ApiKeyEntry
         ├─ AccessPolicy ── AccessRule ── AccessGrant
         ├─ QuotaPolicy ── QuotaRule
         ├─ AuditSettings
         └─ RedisSettings (redis_url_problem: why a URL cannot be used)
"""

from ._settings import (
    DEFAULT_CLIENT_CLAIMS,
    DEFAULT_JWT_ALGORITHMS,
    AccessGrant,
    AccessPolicy,
    AccessRule,
    ApiKeyEntry,
    AuditSettings,
    IntrospectionSettings,
    JwtSettings,
    QuotaPolicy,
    QuotaRule,
    RedisSettings,
    ServeAuth,
    ServerSettings,
    redis_url_problem,
)

__all__ = [
    "AccessGrant",
    "AccessPolicy",
    "AccessRule",
    "ApiKeyEntry",
    "AuditSettings",
    "DEFAULT_CLIENT_CLAIMS",
    "DEFAULT_JWT_ALGORITHMS",
    "IntrospectionSettings",
    "JwtSettings",
    "QuotaPolicy",
    "QuotaRule",
    "RedisSettings",
    "ServeAuth",
    "ServerSettings",
    "redis_url_problem",
]
