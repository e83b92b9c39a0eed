"""The ``server:`` section: how ``toolcat serve`` over HTTP authenticates, compiled to the IR."""

from __future__ import annotations

from toolcat.catalog import (
    DEFAULT_JWT_ALGORITHMS,
    ApiKeyEntry,
    IntrospectionSettings,
    JwtSettings,
    ServeAuth,
    ServerSettings,
)

from ._diagnostics import Diagnostic
from ._docs import ServerDoc
from ._shape import Locator

__all__ = ["compile_server"]


def compile_server(
    doc: ServerDoc, *, file: str, locate: Locator, out: list[Diagnostic]
) -> ServerSettings:
    """``doc`` as :class:`~toolcat.catalog.ServerSettings`; problems go to ``out``."""
    auth = doc.auth
    if auth is None:
        return ServerSettings(doc.resource, ServeAuth(), tuple(doc.authorization_servers or ()))
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
    return ServerSettings(doc.resource, settings, tuple(doc.authorization_servers or ()))
