"""The ``server:`` section: how ``toolcat serve`` over HTTP authenticates, compiled to the IR."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from toolcat.catalog import (
    DEFAULT_JWT_ALGORITHMS,
    AccessGrant,
    AccessPolicy,
    AccessRule,
    ApiKeyEntry,
    IntrospectionSettings,
    JwtSettings,
    ServeAuth,
    ServerSettings,
)

from ._diagnostics import Diagnostic
from ._docs import ServerDoc
from ._shape import Locator

__all__ = ["check_access_references", "compile_server"]


def compile_server(
    doc: ServerDoc, *, file: str, locate: Locator, out: list[Diagnostic]
) -> ServerSettings:
    """``doc`` as :class:`~toolcat.catalog.ServerSettings`; problems go to ``out``."""
    access = _compile_access(doc, file=file, locate=locate, out=out)
    auth = doc.auth
    if auth is None:
        return ServerSettings(
            doc.resource, ServeAuth(), tuple(doc.authorization_servers or ()), access
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
    settings = ServeAuth(jwt, introspection, keys, tuple(auth.required_scopes))
    return ServerSettings(doc.resource, settings, tuple(doc.authorization_servers or ()), access)


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
) -> None:
    """TC018 for each toolset, tool or tag a rule names that the catalog does not have."""
    if not doc.access:
        return
    names: set[str] = {"*"}
    tags: set[str] = set()
    for name, tool_tags in tools:
        names.add(name)
        tags.update(tool_tags)
    sets = set(toolsets)
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
