"""The catalog file format, version 1, as pydantic models (frozen, unknown keys rejected).

These models check the shape of each document; the cross-references (services,
path templates, schemas, templates) are checked by the later stages. The
format's published JSON Schema is generated from them.
"""

# Annotations are objects here, not text (no ``from __future__ import annotations``): pydantic
# reads them as they are instead of evaluating the text of each one when a model is built.
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator
from toolcat.catalog import AUTH_TYPES, AuthSpec, HttpMethod, RetryPolicy
from toolcat.catalog.common import DEFER_ABOVE_TOOLS, METHODS, TOOL_NAME_PATTERN

__all__ = [
    "AccessGrantDoc",
    "AccessRuleDoc",
    "ApiKeyAuthDoc",
    "ApiKeyEntryDoc",
    "AuditDoc",
    "AuthDoc",
    "BasicAuthDoc",
    "BearerAuthDoc",
    "CatalogFileDoc",
    "ExampleDoc",
    "ExampleRequestDoc",
    "ExampleResponseDoc",
    "ForwardCallerTokenDoc",
    "IntrospectionDoc",
    "JwtAuthDoc",
    "McpBindingDoc",
    "McpExampleDoc",
    "McpHealthDoc",
    "McpResponseDoc",
    "McpServerDoc",
    "McpToolDoc",
    "NoAuthDoc",
    "OAuth2ClientCredentialsDoc",
    "OpenApiEntryDoc",
    "OpenApiOverrideDoc",
    "OpenApiRuleDoc",
    "OpenApiRuleMatchDoc",
    "OpenApiSelectionDoc",
    "ParameterDoc",
    "QuotaDoc",
    "RedisDoc",
    "RetryDoc",
    "SearchDoc",
    "ServerAuthDoc",
    "ServerDoc",
    "ServiceDoc",
    "TimeoutDoc",
    "TokenExchangeDoc",
    "ToolDoc",
    "ToolsetDoc",
]

_STRICT = ConfigDict(frozen=True, extra="forbid", strict=True)
# tools and services also take x- keys (owner, runbook, ...): the loader keeps them in the
# IR's ``extensions`` and takes them out before the model sees the document
_STRICT_X = ConfigDict(
    frozen=True, extra="forbid", strict=True, json_schema_extra={"patternProperties": {"^x-": {}}}
)
# The models of what only some catalogs have (a server: or search: section, MCP servers and
# their tools) build their validators when first used: loading a catalog without those
# sections, or an OpenAPI spec, never pays for building them (pydantic's defer_build). The
# models every load uses (tools, services, openapi entries and their parts) are built here,
# once: a deferred part would be built again inside each model that holds it.
_STRICT_LATE = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)
_STRICT_X_LATE = ConfigDict(
    frozen=True,
    extra="forbid",
    strict=True,
    defer_build=True,
    json_schema_extra={"patternProperties": {"^x-": {}}},
)

HeaderValue = str | int | float | bool
Style = Literal[
    "form", "spaceDelimited", "pipeDelimited", "deepObject", "simple", "label", "matrix"
]


class TimeoutDoc(BaseModel):
    """Per-phase timeouts in seconds; unset phases keep the default."""

    model_config = _STRICT
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

    model_config = _STRICT
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

    model_config = _STRICT

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

    model_config = _STRICT_X
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


class ParameterDoc(BaseModel):
    """One argument: its placement keys; every other key is JSON Schema (2020-12)."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True, populate_by_name=True)
    in_: Literal["path", "query", "header", "cookie", "body"] | None = Field(
        None, alias="in", description="Where the argument goes; default from the path and method."
    )
    name: str | None = Field(None, description="The name on the wire, when it differs.")
    required: bool | list[str] | None = Field(
        None,
        description="false makes the argument optional (a list is JSON Schema's object keyword).",
    )
    style: Style | None = None
    explode: bool | None = None
    allow_reserved: bool | None = None
    content_type: str | None = Field(None, description="Serialize the value with this media type.")
    file: bool | None = Field(None, description="A multipart file part.")
    from_: str | None = Field(
        None,
        alias="from",
        pattern=r"^(claims|context)\.[A-Za-z0-9_:/-]+(\.[A-Za-z0-9_:/-]+)*$",
        description="Filled by the runtime from the caller: claims.NAME (a verified token "
        "claim) or context.NAME (a value the embedding app sets); never in exported schemas.",
    )
    sensitive: bool | None = Field(
        None, description="Mask the value in audit lines (as writeOnly or format: password do)."
    )


class ResponseDoc(BaseModel):
    """How the response is shaped for the model."""

    model_config = _STRICT
    select: str | None = Field(None, description="Jinja2 over body, status and headers.")
    max_chars: int | None = Field(None, ge=1)


class AnnotationsDoc(BaseModel):
    """Behaviour hints; unset ones are derived from the method."""

    model_config = _STRICT
    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


QueryValue = str | int | float | bool


class ExampleRequestDoc(BaseModel):
    """The request an example's arguments must render; every key is optional."""

    model_config = _STRICT
    method: HttpMethod | None = Field(None, description="HTTP method, any case.")
    path: str | None = Field(
        None, description="The rendered path below the base URL, percent-encoded as sent."
    )
    query: dict[str, QueryValue | list[QueryValue]] | None = Field(
        None, description="The whole query: name to value (a list for a repeated name)."
    )
    headers: dict[str, HeaderValue] | None = Field(
        None, description="Headers that must be sent with these values (others may be too)."
    )
    body: Any = Field(None, description="The body: a JSON value, or the text sent.")

    _normalise_method = field_validator("method", mode="before")(_upper)


class ExampleResponseDoc(BaseModel):
    """A recorded response that the offline test answers the request with."""

    model_config = _STRICT
    status: int = Field(200, ge=100, le=599)
    headers: dict[str, HeaderValue] = Field(default_factory=dict)
    body: Any = Field(None, description="A JSON value (sent as JSON), or text.")


Caller = Literal["model", "code"]
CALLERS_DESCRIPTION = (
    "Who may call the tool: model (a tool call of the model's own, the default), code "
    "(the model's code-execution tool, Anthropic's programmatic tool calling), or both."
)


class Callers(BaseModel):
    """A toolset's ``callers:`` (toolsets are read by hand; this checks the one key)."""

    model_config = _STRICT
    callers: list[Caller] = Field(min_length=1, description=CALLERS_DESCRIPTION)


class ExampleDoc(BaseModel):
    """One example of a tool: arguments, the request they render, a response, the result."""

    model_config = _STRICT
    name: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    request: ExampleRequestDoc | None = None
    response: ExampleResponseDoc | None = None
    result: Any = Field(None, description="What the model gets: text, or a JSON value.")


class McpResponseDoc(BaseModel):
    """An upstream's recorded answer: an MCP ``CallToolResult``."""

    model_config = ConfigDict(
        defer_build=True, frozen=True, extra="forbid", strict=True, populate_by_name=True
    )
    content: list[dict[str, Any]] = Field(
        default_factory=list, description="Content blocks (text, image, audio, resources)."
    )
    structured_content: dict[str, Any] | None = Field(None, alias="structuredContent")
    is_error: bool | None = Field(None, alias="isError")


class McpExampleDoc(BaseModel):
    """One example of an MCP tool: arguments, the upstream's arguments they become, its
    recorded answer, the result the model gets."""

    model_config = _STRICT_LATE
    name: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    request: dict[str, Any] | None = Field(
        None, description="The upstream's arguments after renames, fixed and context ones."
    )
    response: McpResponseDoc | None = None
    result: Any = Field(None, description="What the model gets: text, or a JSON value.")


class ToolDoc(BaseModel):
    """One HTTP tool."""

    model_config = _STRICT_X
    name: str = Field(description=f"{TOOL_NAME_PATTERN}, unique in the catalog.")
    description: str | None = None
    service: str
    method: HttpMethod = Field(
        description="HTTP method, any case.",
        json_schema_extra={"enum": [*METHODS, *(m.lower() for m in METHODS)]},
    )
    path: str = Field(description="Path template with {argument} placeholders.")
    parameters: dict[str, ParameterDoc] | None = None
    body: Any = Field(None, description="JSON value whose strings are Jinja2 templates.")
    body_argument: str | None = Field(None, description="The argument that is the whole body.")
    content_type: str | None = Field(None, description="Request body media type.")
    response: ResponseDoc | None = None
    confirm: bool | None = None
    return_direct: bool = False
    timeout: Timeout | None = None
    retry: RetryDoc | None = None
    retry_unsafe: bool = False
    tags: list[str] = Field(default_factory=list)
    definitions: dict[str, dict[str, Any] | bool] | None = Field(
        None, description="Shared JSON Schemas, referred to as #/$defs/Name."
    )
    output_schema: dict[str, Any] | bool | None = None
    annotations: AnnotationsDoc | None = None
    auth: AuthDoc | None = None
    base_url: str | None = None
    headers: dict[str, HeaderValue] = Field(default_factory=dict)
    examples: list[ExampleDoc] | None = Field(
        None, description="Checked by `toolcat test`: arguments, request, response, result."
    )
    idempotency_key: str | None = Field(
        None,
        description="The argument or header whose value names one attempt of this call: a "
        "retry with the same value gets the first result and is not sent again.",
    )
    callers: list[Caller] | None = Field(None, min_length=1, description=CALLERS_DESCRIPTION)

    _normalise_method = field_validator("method", mode="before")(_upper)


class McpHealthDoc(BaseModel):
    """How the replicas of an HTTP server with several URLs are probed."""

    model_config = _STRICT
    interval: float = Field(
        10.0, gt=0, description="Seconds between two probes of each replica (default 10)."
    )
    timeout: float = Field(
        5.0,
        gt=0,
        description="Seconds a probe may take: a ping on the open session, or a connect to a "
        "replica that is down (default 5).",
    )


class McpServerDoc(BaseModel):
    """An upstream MCP server: a stdio ``command``, or the ``url`` of a streamable-HTTP one."""

    model_config = _STRICT_X_LATE
    command: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None,
        min_length=1,
        description="A stdio server: the program and its arguments (argv); may hold ${VAR}.",
    )
    url: str | list[str] | None = Field(
        None,
        description="A streamable-HTTP server's URL, or a list of replicas of one server; "
        "may hold ${VAR}.",
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="stdio: the only environment the server gets (besides PATH); values may "
        "hold ${VAR}.",
    )
    cwd: str | None = Field(None, description="stdio: the working folder, relative to this file.")
    headers: dict[str, HeaderValue] = Field(
        default_factory=dict, description="HTTP: headers sent with every request; may hold ${VAR}."
    )
    auth: AuthDoc | None = Field(None, description="HTTP: how toolcat authenticates upstream.")
    timeout: float = Field(30.0, gt=0, description="Seconds one call may take (a tool's wins).")
    on_change: Literal["refuse", "warn", "accept"] = Field(
        "refuse",
        description="A tool whose live definition differs from its pin: refuse (not offered, "
        "calls refused), warn (offered, logged) or accept.",
    )
    max_response_chars: int | None = Field(
        None,
        ge=1,
        description="What the model sees of one result at most, in characters (default "
        "20000, as for a service).",
    )
    health: McpHealthDoc | None = Field(
        None,
        description="HTTP with several URLs: how often each replica is probed, and how long "
        "a probe may take; a replica failing its probe gets no calls until it passes again.",
    )


class McpBindingDoc(BaseModel):
    """The upstream tool a catalog tool calls, and how its arguments reach it."""

    model_config = _STRICT_LATE
    server: str = Field(description="A server of mcp_servers.")
    tool: str = Field(min_length=1, description="The upstream's name of the tool.")
    pin: str = Field(
        description="sha256:<hex> of the upstream's definition as reviewed "
        "(toolcat import mcp writes it).",
        json_schema_extra={"pattern": "^sha256:[0-9a-f]{64}$"},  # the loader says it in words
    )
    timeout: float | None = Field(None, gt=0, description="Seconds one call may take.")
    arguments: dict[str, str] = Field(
        default_factory=dict,
        description="Renames: this tool's argument name to the upstream's name for it.",
    )
    fixed: dict[str, Any] = Field(
        default_factory=dict,
        description="Upstream arguments the model never sees, always sent with these values.",
    )


class McpToolDoc(BaseModel):
    """One tool of an upstream MCP server (``mcp:`` where an HTTP tool has service, method
    and path)."""

    model_config = _STRICT_X_LATE
    name: str = Field(description=f"{TOOL_NAME_PATTERN}, unique in the catalog.")
    description: str | None = None
    mcp: McpBindingDoc
    parameters: dict[str, ParameterDoc] | None = Field(
        None, description="The upstream's input schema as reviewed: argument name to schema."
    )
    definitions: dict[str, dict[str, Any] | bool] | None = Field(
        None, description="Shared JSON Schemas, referred to as #/$defs/Name."
    )
    output_schema: dict[str, Any] | bool | None = None
    annotations: AnnotationsDoc | None = None
    confirm: bool | None = None
    return_direct: bool = False
    tags: list[str] = Field(default_factory=list)
    examples: list[McpExampleDoc] | None = Field(
        None, description="Checked by `toolcat test`: arguments, a recorded result."
    )


class OpenApiSelectionDoc(BaseModel):
    """Which operations an ``openapi:`` entry takes (every list is optional)."""

    model_config = _STRICT
    tags: list[str] | None = None
    operations: list[str] | None = None
    paths: list[str] | None = Field(None, description="Globs such as /pets*.")
    methods: list[HttpMethod] | None = Field(None, description="HTTP methods, any case.")

    @field_validator("methods", mode="before")
    @classmethod
    def _normalise_methods(cls, value: Any) -> Any:
        return [_upper(v) for v in value] if isinstance(value, list) else value


class OpenApiOverrideDoc(BaseModel):
    """Per-operation overrides, keyed by operationId."""

    model_config = _STRICT
    name: str | None = None
    description: str | None = None
    confirm: bool | None = None
    return_direct: bool | None = None
    tags: list[str] | None = None
    # every other tool field; the merged tool is validated as a written one
    service: str | None = None
    method: HttpMethod | None = Field(
        None,
        description="HTTP method, any case.",
        json_schema_extra={"enum": [*METHODS, *(m.lower() for m in METHODS)]},
    )
    path: str | None = None
    parameters: dict[str, ParameterDoc] | None = None
    body: Any = None
    body_argument: str | None = None
    content_type: str | None = None
    response: ResponseDoc | None = None
    timeout: Timeout | None = None
    retry: RetryDoc | None = None
    retry_unsafe: bool | None = None
    definitions: dict[str, dict[str, Any] | bool] | None = None
    output_schema: dict[str, Any] | bool | None = None
    annotations: AnnotationsDoc | None = None
    auth: AuthDoc | None = None
    base_url: str | None = None
    headers: dict[str, HeaderValue] | None = None
    idempotency_key: str | None = None

    _normalise_method = field_validator("method", mode="before")(_upper)


class OpenApiRuleMatchDoc(BaseModel):
    """Which operations a rule applies to: every given list must match (any value of it)."""

    model_config = _STRICT
    tags: list[str] | None = None
    methods: list[HttpMethod] | None = Field(None, description="HTTP methods, any case.")
    paths: list[str] | None = Field(None, description="Path globs such as /repos/*.")
    operations: list[str] | None = Field(None, description="operationId globs such as delete*.")

    @field_validator("methods", mode="before")
    @classmethod
    def _normalise_methods(cls, value: Any) -> Any:
        return [_upper(v) for v in value] if isinstance(value, list) else value


class OpenApiRuleDoc(BaseModel):
    """What to set on every imported operation a rule matches (in order; tools: wins)."""

    model_config = _STRICT
    match: OpenApiRuleMatchDoc | None = Field(None, description="Default: every operation.")
    confirm: bool | None = None
    toolsets: list[str] | None = Field(None, description="Toolsets the tools join.")
    timeout: Timeout | None = None
    retry: RetryDoc | None = None
    description_prefix: str | None = None
    exclude: bool | None = Field(None, description="true leaves the operations out.")


class OpenApiEntryDoc(BaseModel):
    """Tools imported from an OpenAPI 3.x or Swagger 2.0 spec."""

    model_config = _STRICT
    spec: str = Field(description="Path of the spec, relative to this file.")
    service: str | None = None
    include: OpenApiSelectionDoc | None = None
    exclude: OpenApiSelectionDoc | None = None
    prefix: str = ""
    tools: dict[str, OpenApiOverrideDoc] | None = None
    ref_root: str | None = Field(
        default=None,
        description="Folder that the spec's $refs may read files under, relative to "
        "this file (default: the enclosing git repository, else the spec's folder).",
    )
    overlays: list[str] | None = Field(
        None,
        description="OpenAPI Overlay 1.0 files applied to the spec in order, relative to "
        "this file.",
    )
    rules: list[OpenApiRuleDoc] | None = Field(
        None, description="Settings for many operations at once, applied in order."
    )
    output_schemas: Literal["shared", "inline", "none"] | None = Field(
        None, description="Output schemas: shared (default) or inline keep them, none drops them."
    )
    descriptions: Literal["markdown", "keep"] | None = Field(
        None, description="markdown (default): HTML descriptions become Markdown."
    )
    description_max: int | None = Field(
        None, ge=40, le=100000, description="Cut descriptions to this length (default 1024)."
    )
    base_url_style: Literal["env", "fixed"] | None = Field(
        None,
        description="env (default): the service's base_url is ${SERVICE_BASE_URL:-<server>}.",
    )
    naming: Literal["operation_id", "snake_case"] | None = Field(
        None, description="Tool names: the operationId as written (default) or snake_case."
    )
    confirm_methods: list[HttpMethod] | None = Field(
        None,
        description="Methods whose tools get confirm: true (default: every method that is "
        "not safe); other writes get confirm: false.",
    )

    @field_validator("confirm_methods", mode="before")
    @classmethod
    def _normalise_confirm(cls, value: Any) -> Any:
        return [_upper(v) for v in value] if isinstance(value, list) else value


# RFC 6749 §3.3 scope-token: printable ASCII but space, '"' and '\\'
Scope = Annotated[str, Field(pattern=r"^[\x21\x23-\x5B\x5D-\x7E]+$")]
JwtAlgorithm = Literal[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"
]


class JwtAuthDoc(BaseModel):
    """JWT access tokens signed by an issuer whose keys are read from ``jwks_url``."""

    model_config = _STRICT_LATE
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

    model_config = _STRICT_LATE
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

    model_config = _STRICT_LATE
    name: str = Field(pattern=r"^[A-Za-z0-9_.@-]{1,64}$", description="Who holds the key.")
    hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$", description="sha256:<hex> of the key.")
    scopes: list[Scope] = Field(default_factory=list, description="Scopes the key grants.")


# a claim name: printable ASCII without space (dots walk into objects: realm_access.roles)
ClaimName = Annotated[str, Field(pattern=r"^[\x21-\x7E]{1,256}$")]


class ServerAuthDoc(BaseModel):
    """How HTTP callers authenticate; a token any configured method accepts gets in."""

    model_config = _STRICT_LATE
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

    model_config = _STRICT_LATE
    toolsets: list[str] = Field(default_factory=list, description="Every tool of these toolsets.")
    tools: list[str] = Field(default_factory=list, description="These tools; '*' for every tool.")
    tags: list[str] = Field(default_factory=list, description="Every tool with one of these tags.")


class AccessRuleDoc(BaseModel):
    """A rule: callers matching every 'when' entry are allowed or denied what it covers."""

    model_config = _STRICT_LATE
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

    model_config = _STRICT_LATE
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

    model_config = _STRICT_LATE
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

    model_config = _STRICT_LATE
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

    model_config = _STRICT_LATE
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


class ToolsetDoc(BaseModel):
    """A toolset in the long form, to carry x- keys: ``{tools: [...], x-owner: ...}``."""

    model_config = _STRICT_X_LATE
    tools: list[str] = Field(description="Tool names, in the order a model sees them.")
    callers: list[Caller] | None = Field(
        None,
        min_length=1,
        description=CALLERS_DESCRIPTION + " For the toolset's tools that do not say.",
    )


class EmbeddingsDoc(BaseModel):
    """An OpenAI-compatible embeddings endpoint: semantic ranking fused with the lexical one."""

    model_config = _STRICT_LATE
    url: str = Field(
        min_length=1,
        description="The API base (https://api.openai.com/v1), to which /embeddings is added; "
        "https, or http to a loopback address; may hold ${VAR}.",
    )
    model: str = Field(min_length=1, description="The embeddings model; may hold ${VAR}.")
    api_key: str | None = Field(
        None, description="Sent as a bearer token to url only; use ${VAR} (a secret)."
    )
    dimensions: int | None = Field(
        None, ge=1, le=16384, description="Vector size to ask for (the model's own by default)."
    )
    timeout: float = Field(10.0, gt=0, le=120, description="Seconds one request may take.")
    cache: str | None = Field(
        None,
        description="Directory of cached tool vectors, relative to this file "
        "(default: the user's cache directory, toolcat/embeddings).",
    )
    weight: float = Field(
        1.0, ge=0, le=10, description="The semantic ranking's weight in the fusion (lexical: 1)."
    )
    k: int = Field(60, ge=1, le=1000, description="The reciprocal rank fusion constant.")


class SearchDoc(BaseModel):
    """How models find tools in a large catalog: the tools every request carries, and how
    tools are ranked for a request (`toolcat search`, search_tools)."""

    model_config = _STRICT_LATE
    pinned: (
        list[Annotated[str, Field(min_length=1, max_length=200)]]
        | dict[str, list[Annotated[str, Field(min_length=1, max_length=200)]]]
        | None
    ) = Field(
        None,
        description="Tools a model always gets in search mode (names or globs such as "
        "repos_get*): a list for the whole catalog, or toolset name ('*': the whole "
        "catalog) to a list.",
    )
    embeddings: EmbeddingsDoc | None = None
    defer: bool | None = Field(
        None,
        description="Exports for the providers' own tool search (toolcat schema): true "
        "defers every tool but the pinned ones and adds the provider's tool-search tool, "
        f"false never (default: deferred above {DEFER_ABOVE_TOOLS} tools).",
    )
    namespaces: Literal["toolset", "service"] | None = Field(
        None,
        description="OpenAI Responses exports: group the functions into namespaces by "
        "toolset or by service (default: none).",
    )


class CatalogFileDoc(BaseModel):
    """A toolcat catalog file, format version 1."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        title="toolcat catalog, format version 1",
        defer_build=True,  # only the JSON Schema export needs this one; items validate alone
        # x- keys are ignored: a place for YAML anchors that several tools share
        json_schema_extra={"patternProperties": {"^x-": {}}},
    )
    toolcat: Literal[1] = Field(description="Format version.")
    services: dict[str, ServiceDoc] | None = None
    mcp_servers: dict[str, McpServerDoc] | None = None
    tools: list[ToolDoc | McpToolDoc] | None = None
    toolsets: dict[str, list[str] | ToolsetDoc] | None = None
    openapi: list[OpenApiEntryDoc] | None = None
    server: ServerDoc | None = None
    search: SearchDoc | None = None
    definitions: (
        dict[Annotated[str, Field(pattern=r"^[A-Za-z0-9._-]{1,200}$")], dict[str, Any] | bool]
        | None
    ) = Field(
        None,
        description="JSON Schemas shared by this file's tools, referred to as #/$defs/Name "
        "from parameters, a tool's definitions and output_schema.",
    )
