"""The auth types: one entry each, the registry every list of auth types derives from.

An entry is an IR spec below, named by its ``type``. Its two other parts live in the
layers that own them and are keyed to it: the file model (``toolcat.loader``'s
``AuthDoc`` union, whose ``type:`` is the key) and the resolver (what the HTTP transport
sends, registered per spec class). Fields are kept raw (they may hold ``${VAR}``): the
executor resolves them per call. Any section that authenticates to an upstream takes
these types (``services:`` today).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "AUTH_TYPES",
    "CALLER_TOKEN_AUTH",
    "ApiKeyAuth",
    "AuthSpec",
    "BasicAuth",
    "BearerAuth",
    "ForwardCallerToken",
    "NoAuth",
    "OAuth2ClientCredentials",
    "TokenExchange",
]


@dataclass(frozen=True, slots=True)
class NoAuth:
    type: Literal["none"] = "none"


@dataclass(frozen=True, slots=True)
class BearerAuth:
    token: str
    type: Literal["bearer"] = "bearer"


@dataclass(frozen=True, slots=True)
class BasicAuth:
    username: str
    password: str
    type: Literal["basic"] = "basic"


@dataclass(frozen=True, slots=True)
class ApiKeyAuth:
    location: Literal["header", "query", "cookie"]
    name: str
    value: str
    type: Literal["api_key"] = "api_key"


@dataclass(frozen=True, slots=True)
class OAuth2ClientCredentials:
    token_url: str
    client_id: str
    client_secret: str
    scopes: tuple[str, ...] = ()
    type: Literal["oauth2_client_credentials"] = "oauth2_client_credentials"


@dataclass(frozen=True, slots=True)
class ForwardCallerToken:
    """Send the caller's own bearer token (the one it authenticated with) upstream.

    Only services marked with it get the token, and only over HTTPS or to a loopback
    address (checked at load, and again at run time on the resolved URL).
    """

    type: Literal["forward_caller_token"] = "forward_caller_token"


@dataclass(frozen=True, slots=True)
class TokenExchange:
    """OAuth 2.0 token exchange (RFC 8693): the caller's token is exchanged at
    ``token_url`` for one meant for this service (``audience``/``resource``/``scopes``);
    the result is cached per subject until it expires. ``timeout`` bounds the exchange
    (seconds); ``max_lifetime`` caps how long an exchanged token is cached (seconds)."""

    token_url: str
    client_id: str
    client_secret: str
    audience: str | None = None
    resource: str | None = None
    scopes: tuple[str, ...] = ()
    timeout: float = 5.0
    max_lifetime: float = 3600.0
    type: Literal["token_exchange"] = "token_exchange"


#: The registry, in the order the format lists the types (its diagnostics and schema too).
AuthSpec = (
    NoAuth
    | BearerAuth
    | BasicAuth
    | ApiKeyAuth
    | OAuth2ClientCredentials
    | ForwardCallerToken
    | TokenExchange
)


#: Each auth type's name (its ``type:`` in a catalog) -> its IR spec class.
AUTH_TYPES: Mapping[str, type[AuthSpec]] = {
    spec.__dataclass_fields__["type"].default: spec for spec in get_args(AuthSpec)
}

#: The auth types that send (or exchange) the caller's own token.
CALLER_TOKEN_AUTH = frozenset(
    name for name, spec in AUTH_TYPES.items() if spec in (ForwardCallerToken, TokenExchange)
)
