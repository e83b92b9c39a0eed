"""The file models of services: ``services:`` entries, their auth types, timeouts and
retries (which tools and OpenAPI imports also set)."""

# Annotations are objects here, not text (no ``from __future__ import annotations``): pydantic
# reads them as they are instead of evaluating the text of each one when a model is built.
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, field_validator
from toolcat.catalog import AUTH_TYPES, AuthSpec, RetryPolicy

from ._models_base import STRICT, STRICT_X, HeaderValue

__all__ = [
    "ApiKeyAuthDoc",
    "AuthDoc",
    "BasicAuthDoc",
    "BearerAuthDoc",
    "ForwardCallerTokenDoc",
    "NoAuthDoc",
    "OAuth2ClientCredentialsDoc",
    "RetryDoc",
    "ServiceDoc",
    "Timeout",
    "TimeoutDoc",
    "TokenExchangeDoc",
]


class TimeoutDoc(BaseModel):
    """Per-phase timeouts in seconds; unset phases keep the default."""

    model_config = STRICT
    connect: float | None = Field(None, gt=0, description="Seconds to open the connection.")
    read: float | None = Field(None, gt=0, description="Seconds to wait for each read.")
    total: float | None = Field(None, gt=0, description="Seconds for the whole request.")


def _timeout_kind(value: Any) -> str:
    return "phases" if isinstance(value, dict | TimeoutDoc) else "seconds"


Timeout = Annotated[
    Annotated[float, Field(gt=0), Tag("seconds")] | Annotated[TimeoutDoc, Tag("phases")],
    Discriminator(_timeout_kind),
    Field(description="Total seconds, or {connect, read, total}."),
]


_RETRY = RetryPolicy()  # the IR's defaults are the format's


class RetryDoc(BaseModel):
    """Retries of idempotent requests (others only with ``retry_unsafe``)."""

    model_config = STRICT
    attempts: int = Field(
        _RETRY.attempts, ge=1, le=20, description="Total attempts; 1 means no retry."
    )
    backoff: float = Field(
        _RETRY.backoff, ge=0, description="Base delay in seconds, doubled each attempt."
    )
    max_backoff: float = Field(
        _RETRY.max_backoff, ge=0, description="Longest delay between attempts."
    )
    on_status: list[Annotated[int, Field(ge=100, le=599)]] = Field(
        list(_RETRY.on_status), description="HTTP statuses that are retried."
    )
    retry_after_cap: float = Field(
        _RETRY.retry_after_cap, ge=0, description="Longest Retry-After honoured."
    )


class _AuthDoc(BaseModel):
    """The file model of one auth type: ``type`` names its entry in the registry
    (``AUTH_TYPES``), and the other fields are its IR spec's, by name."""

    model_config = STRICT

    @field_validator("scopes", check_fields=False)
    @classmethod
    def _split(cls, scopes: list[str] | str) -> list[str]:
        return scopes.split() if isinstance(scopes, str) else scopes  # as OAuth sends them

    def to_spec(self) -> AuthSpec:
        """The IR spec of this document (lists become tuples)."""
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in self}
        return AUTH_TYPES[values.pop("type")](**values)


class NoAuthDoc(_AuthDoc):
    """No authentication."""

    type: Literal["none"]


class BearerAuthDoc(_AuthDoc):
    """``Authorization: Bearer <token>``."""

    type: Literal["bearer"]
    token: str = Field(description="The token; use ${VAR} so the secret stays out of the file.")


class BasicAuthDoc(_AuthDoc):
    """HTTP basic authentication."""

    type: Literal["basic"]
    username: str
    password: str = Field(description="Use ${VAR} so the secret stays out of the file.")


class ApiKeyAuthDoc(_AuthDoc):
    """An API key sent in a header, query parameter or cookie."""

    type: Literal["api_key"]
    location: Literal["header", "query", "cookie"] = Field(alias="in")
    name: str = Field(description="Header, query parameter or cookie name.")
    value: str = Field(description="The key; use ${VAR} so the secret stays out of the file.")


class OAuth2ClientCredentialsDoc(_AuthDoc):
    """OAuth 2 client-credentials grant; the token is fetched and cached at run time."""

    type: Literal["oauth2_client_credentials"]
    token_url: str
    client_id: str
    client_secret: str = Field(description="Use ${VAR} so the secret stays out of the file.")
    scopes: list[str] | str = Field(
        default_factory=list, description="A list, or one space-separated string as OAuth sends it."
    )


class ForwardCallerTokenDoc(_AuthDoc):
    """Send the caller's own bearer token upstream (HTTPS or loopback services only)."""

    type: Literal["forward_caller_token"]


class TokenExchangeDoc(_AuthDoc):
    """OAuth 2.0 token exchange (RFC 8693): the caller's token is exchanged for one meant
    for this service, cached per subject until it expires."""

    type: Literal["token_exchange"]
    token_url: str = Field(description="The token endpoint: https, or http to a loopback address.")
    client_id: str
    client_secret: str = Field(description="Use ${VAR} so the secret stays out of the file.")
    audience: str | None = Field(None, description="The logical name of the service (RFC 8693).")
    resource: str | None = Field(None, description="The URI of the service (RFC 8693, RFC 8707).")
    scopes: list[str] | str = Field(
        default_factory=list, description="A list, or one space-separated string as OAuth sends it."
    )
    timeout: float = Field(5.0, gt=0, le=60, description="Seconds one exchange may take at most.")
    max_lifetime: float = Field(
        3600.0, gt=0, description="Seconds an exchanged token is cached at most."
    )


#: The format's union of auth types, in the registry's order (a test ties the two).
AuthDoc = Annotated[
    NoAuthDoc
    | BearerAuthDoc
    | BasicAuthDoc
    | ApiKeyAuthDoc
    | OAuth2ClientCredentialsDoc
    | ForwardCallerTokenDoc
    | TokenExchangeDoc,
    Field(discriminator="type"),
]


class ServiceDoc(BaseModel):
    """An HTTP service that tools call."""

    model_config = STRICT_X
    base_url: str = Field(description="Scheme, host and base path; may hold ${VAR}.")
    description: str | None = None
    headers: dict[str, HeaderValue] = Field(
        default_factory=dict, description="Headers sent with every request; may hold ${VAR}."
    )
    auth: AuthDoc | None = None
    timeout: Timeout | None = None
    retry: RetryDoc | None = None
    max_response_chars: int | None = Field(None, ge=1)
    max_response_bytes: int | None = Field(None, ge=1)
    validate_responses: Literal["warn", "error"] | None = Field(
        None,
        description="Check responses against the OpenAPI spec: warn (a note) or error.",
    )
    spec: str | None = Field(
        None,
        description="The OpenAPI spec that validate_responses checks against, relative to "
        "this file (default: the spec the service was imported from).",
    )
