"""The ``server:`` section: how ``toolcat serve`` over HTTP authenticates, compiled to the IR."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from toolcat.catalog.serving import (
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

from ._diagnostics import Diagnostic
from ._lint import redis_password_in_file
from ._models_server import ServerDoc
from ._shape import Locator

__all__ = ["check_access_references", "compile_server", "parse_rate"]


def compile_server(
    doc: ServerDoc, *, file: str, locate: Locator, out: list[Diagnostic]
) -> ServerSettings:
    """``doc`` as :class:`~toolcat.catalog.serving.ServerSettings`; problems go to ``out``."""
    access = _compile_access(doc, file=file, locate=locate, out=out)
    audit = _compile_audit(doc)
    quotas = _compile_quotas(doc, file=file, locate=locate, out=out)
    redis = _compile_redis(doc, file=file, locate=locate, out=out)
    auth = doc.auth
    if auth is None:
        return ServerSettings(
            doc.resource,
            ServeAuth(),
            tuple(doc.authorization_servers or ()),
            access,
            audit,
            quotas,
            redis,
        )
    jwt = None
    if auth.jwt is not None:
        j = auth.jwt
        jwt = JwtSettings(
            issuer=j.issuer,
            jwks_url=j.jwks_url,
            audience=j.audience,
            algorithms=tuple(j.algorithms) if j.algorithms else DEFAULT_JWT_ALGORITHMS,
            leeway=float(j.leeway),
            required_claims=tuple(j.required_claims),
            jwks_cache_seconds=float(j.jwks_cache_seconds),
            jwks_min_refresh=float(j.jwks_min_refresh),
        )
    introspection = None
    if auth.introspection is not None:
        i = auth.introspection
        introspection = IntrospectionSettings(
            i.url, i.client_id, i.client_secret, float(i.cache_seconds)
        )
    seen: dict[str, int] = {}
    for n, key in enumerate(auth.api_keys):
        base = ("server", "auth", "api_keys", n)
        for label, value in (("name", key.name), ("hash", key.hash)):
            first = seen.get(f"{label}:{value}")
            if first is not None:
                line, col = locate((*base, label))
                out.append(
                    Diagnostic.make(
                        "TC017",
                        f"api_keys[{n}]: the same {label} as api_keys[{first}]; "
                        "each key needs its own name and its own key",
                        file,
                        line,
                        col,
                        (*base, label),
                    )
                )
            seen[f"{label}:{value}"] = n
    keys = tuple(ApiKeyEntry(k.name, k.hash, tuple(k.scopes)) for k in auth.api_keys)
    settings = ServeAuth(
        jwt, introspection, keys, tuple(auth.required_scopes), tuple(auth.client_claims)
    )
    return ServerSettings(
        doc.resource, settings, tuple(doc.authorization_servers or ()), access, audit, quotas, redis
    )


#: Upper bounds of server.redis's seconds (a typo of ms for s would hang every call).
_REDIS_LIMITS = {"timeout": 60.0, "lease_seconds": 86400.0, "idempotency_seconds": 7 * 86400.0}


def _compile_redis(
    doc: ServerDoc, *, file: str, locate: Locator, out: list[Diagnostic]
) -> RedisSettings | None:
    r = doc.redis
    if r is None:
        return None
    base: tuple[str | int, ...] = ("server", "redis")

    def problem(code: str, message: str, key: str) -> None:
        line, col = locate((*base, key))
        out.append(Diagnostic.make(code, message, file, line, col, (*base, key)))

    bad = False
    if "${" not in r.url:  # a ${VAR} is read at start (`toolcat serve` checks it then)
        reason = redis_url_problem(r.url)
        if reason is not None:
            problem("TC082", f"server.redis.url: {reason}", "url")
            bad = True
        else:
            for f in redis_password_in_file(_has_password(r.url)):
                problem(f.code, f.message, "url")
    for key, cap in _REDIS_LIMITS.items():
        value = getattr(r, key)
        if value > cap:
            problem("TC082", f"server.redis.{key}: {value:g} s is over the limit of {cap:g} s", key)
            bad = True
    if bad:
        return None
    return RedisSettings(
        r.url, r.prefix, float(r.timeout), float(r.lease_seconds), float(r.idempotency_seconds)
    )


def _has_password(url: str) -> bool:
    from urllib.parse import urlsplit

    return bool(urlsplit(url).password)


def _compile_audit(doc: ServerDoc) -> AuditSettings | None:
    a = doc.audit
    if a is None:
        return None
    fail: Literal["non_safe", "always", "never"] = (
        "always"
        if a.fail_closed == "always"
        else "never"
        if a.fail_closed == "never"
        else "non_safe"
    )
    return AuditSettings(a.path, a.max_bytes, a.backups, fail, a.max_argument_chars)


_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_RATE = re.compile(
    r"\s*(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)?\s*"
    r"(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hour|hours|d|day|days)\s*"
)


def parse_rate(text: str) -> tuple[float, float] | None:
    """``COUNT/UNIT`` (``10/minute``, ``5/2s``) as (count, seconds), or ``None``.

    >>> parse_rate("10/minute")
    (10.0, 60.0)
    """
    m = _RATE.fullmatch(text)
    if m is None:
        return None
    count = float(m.group(1))
    seconds = float(m.group(2) or 1) * _UNITS[m.group(3)[0]]
    if count <= 0 or seconds <= 0:
        return None
    return count, seconds


def _compile_quotas(
    doc: ServerDoc, *, file: str, locate: Locator, out: list[Diagnostic]
) -> QuotaPolicy:
    rules = []
    names: dict[str, int] = {}
    for n, quota in enumerate(doc.quotas or ()):
        base: tuple[str | int, ...] = ("server", "quotas", n)

        def problem(message: str, where: tuple[str | int, ...] = base) -> None:
            line, col = locate(where)
            out.append(Diagnostic.make("TC080", message, file, line, col, where))

        rate = parse_rate(quota.rate)
        if rate is None:
            problem(
                f"quotas[{n}]: cannot read the rate {quota.rate!r}; write COUNT/UNIT with a "
                "positive COUNT, such as 10/second, 100/minute, 1000/hour or 5000/day",
                (*base, "rate"),
            )
            continue
        name = quota.name or f"quotas[{n}]"
        if name in names:
            problem(
                f"quotas[{n}]: the quota name '{name}' is taken by quotas[{names[name]}]; "
                "rate_limited errors name the quota, so each needs its own",
                (*base, "name"),
            )
        names[name] = n
        when = tuple(
            (claim, (value,) if isinstance(value, str) else tuple(value))
            for claim, value in quota.when.items()
        )
        covers = quota.toolsets or quota.tools or quota.tags
        grant = AccessGrant(tuple(quota.toolsets), tuple(quota.tools), tuple(quota.tags))
        count, seconds = rate
        burst = quota.burst if quota.burst is not None else max(1, int(count))
        scope: Literal["tool", "rule"] = "rule" if quota.per == "rule" else "tool"
        rules.append(QuotaRule(name, count, seconds, burst, grant if covers else None, when, scope))
    concurrency = tuple((doc.concurrency or {}).items())
    return QuotaPolicy(tuple(rules), concurrency)


def _compile_access(
    doc: ServerDoc, *, file: str, locate: Locator, out: list[Diagnostic]
) -> AccessPolicy:
    rules = []
    names: dict[str, int] = {}
    for n, rule in enumerate(doc.access or ()):
        base: tuple[str | int, ...] = ("server", "access", n)

        def problem(message: str, where: tuple[str | int, ...] = base) -> None:
            line, col = locate(where)
            out.append(Diagnostic.make("TC019", message, file, line, col, where))

        if (rule.allow is None) == (rule.deny is None):
            problem(f"access[{n}]: give exactly one of 'allow' or 'deny'")
            continue
        effect: Literal["allow", "deny"] = "allow" if rule.allow is not None else "deny"
        grant = rule.allow if rule.allow is not None else rule.deny
        assert grant is not None
        if not (grant.toolsets or grant.tools or grant.tags):
            problem(
                f"access[{n}]: '{effect}' covers nothing; name toolsets, tools ('*' for all) "
                "or tags",
                (*base, effect),
            )
            continue
        name = rule.name or f"access[{n}]"
        if name in names:
            problem(
                f"access[{n}]: the rule name '{name}' is taken by access[{names[name]}]; "
                "refusals name the rule, so each needs its own",
                (*base, "name"),
            )
        names[name] = n
        when = tuple(
            (claim, (value,) if isinstance(value, str) else tuple(value))
            for claim, value in rule.when.items()
        )
        for claim, values in when:
            if not values:
                problem(
                    f"access[{n}]: when.{claim} lists no value, so the rule never matches; "
                    "use '*' for any value",
                    (*base, "when", claim),
                )
        compiled = AccessGrant(tuple(grant.toolsets), tuple(grant.tools), tuple(grant.tags))
        rules.append(AccessRule(name, effect, compiled, when))
    return AccessPolicy(tuple(rules))


def check_access_references(
    doc: ServerDoc,
    *,
    tools: Iterable[tuple[str, tuple[str, ...]]],
    toolsets: Iterable[str],
    file: str,
    locate: Locator,
    out: list[Diagnostic],
    services: Iterable[str] = (),
) -> None:
    """TC018 for each toolset, tool or tag a rule names that the catalog does not have;
    TC081 for each one a quota names, and each service ``concurrency`` names."""
    names: set[str] = {"*"}
    tags: set[str] = set()
    for name, tool_tags in tools:
        names.add(name)
        tags.update(tool_tags)
    sets = set(toolsets)
    _check_quota_references(doc, names, sets, tags, set(services), file, locate, out)
    if not doc.access:
        return
    for n, rule in enumerate(doc.access):
        for effect, grant in (("allow", rule.allow), ("deny", rule.deny)):
            if grant is None:
                continue
            label = rule.name or f"access[{n}]"
            for kind, listed, known in (
                ("toolsets", grant.toolsets, sets),
                ("tools", grant.tools, names),
                ("tags", grant.tags, tags),
            ):
                for i, value in enumerate(listed):
                    if value in known:
                        continue
                    where: tuple[str | int, ...] = ("server", "access", n, effect, kind, i)
                    line, col = locate(where)
                    out.append(
                        Diagnostic.make(
                            "TC018",
                            f"access rule '{label}' names {kind[:-1]} '{value}', which the "
                            "catalog does not have (a typo here would "
                            f"{'let callers through' if effect == 'deny' else 'lock them out'})",
                            file,
                            line,
                            col,
                            where,
                        )
                    )


def _check_quota_references(
    doc: ServerDoc,
    names: set[str],
    sets: set[str],
    tags: set[str],
    services: set[str],
    file: str,
    locate: Locator,
    out: list[Diagnostic],
) -> None:
    def problem(message: str, where: tuple[str | int, ...]) -> None:
        line, col = locate(where)
        out.append(Diagnostic.make("TC081", message, file, line, col, where))

    for n, quota in enumerate(doc.quotas or ()):
        label = quota.name or f"quotas[{n}]"
        for kind, listed, known in (
            ("toolsets", quota.toolsets, sets),
            ("tools", quota.tools, names),
            ("tags", quota.tags, tags),
        ):
            for i, value in enumerate(listed):
                if value not in known:
                    problem(
                        f"quota '{label}' names {kind[:-1]} '{value}', which the catalog does "
                        "not have (a typo here leaves those calls unlimited)",
                        ("server", "quotas", n, kind, i),
                    )
    for service in doc.concurrency or {}:
        if service not in services:
            problem(
                f"concurrency names service '{service}', which the catalog does not have",
                ("server", "concurrency", service),
            )
