"""The compiled intermediate representation: tools, HTTP commands and services.

Everything here is frozen. The loader builds these values once; the exporters
and the executor only read them. Strings that may hold ``${VAR}`` references
(base URLs, header values, auth fields) are kept raw: they are resolved by the
executor when a call runs, never at load time.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._auth import AuthSpec, NoAuth
from ._frozen import FrozenDict
from ._methods import HttpMethod

if TYPE_CHECKING:  # _mcp builds on this module's specs
    from ._mcp import McpCommand

__all__ = [
    "BodySpec",
    "HttpCommand",
    "ParamLocation",
    "ParameterBinding",
    "ResponseSpec",
    "RetryPolicy",
    "Service",
    "SourceLocation",
    "Timeouts",
    "ToolAnnotations",
    "ToolDefinition",
    "ToolExample",
    "credentials_may_travel",
    "is_json_media_type",
    "is_loopback_host",
]


# the one empty mapping every record without headers, extensions, ... shares (frozen:
# sharing it is safe, and a catalog keeps one object instead of one per record)
_EMPTY = FrozenDict()


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """Where a value was declared: a file and a 1-based line and column."""

    file: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class ParamLocation(enum.StrEnum):
    """Where an argument goes in the HTTP request."""

    PATH = "path"
    QUERY = "query"
    HEADER = "header"
    COOKIE = "cookie"
    BODY = "body"


@dataclass(frozen=True, slots=True)
class ParameterBinding:
    """How one top-level argument of a tool reaches the wire.

    ``argument`` is the property name in the tool's input schema; ``wire_name``
    the name in the request (they differ when OpenAPI names clash across
    locations, or when a YAML parameter sets ``name:``). ``style``/``explode``
    follow OpenAPI 3 (``None`` means the location's default: ``simple`` for path
    and header, ``form`` for query and cookie, explode only for ``form``).
    ``content_type`` is set for OpenAPI parameters described by ``content``:
    the value is serialized with that media type (JSON) instead of a style.
    For ``BODY`` bindings, ``wire_name`` is the property name in the body object.
    """

    argument: str
    location: ParamLocation
    wire_name: str
    required: bool = False
    style: str | None = None
    explode: bool | None = None
    allow_reserved: bool = False
    content_type: str | None = None


@dataclass(frozen=True, slots=True)
class BodySpec:
    """How the request body is built from the arguments.

    Exactly one way applies, in this order:

    - ``template`` (YAML ``body:``): a JSON value whose strings are Jinja2
      templates over the arguments; a string that is exactly one ``{{ expr }}``
      keeps the native JSON type, and a key whose only reference is an absent
      argument is left out.
    - ``argument``: the whole body is the value of this one argument (a
      non-object OpenAPI body, or a body whose properties could not be lifted to
      top-level arguments without a clash).
    - otherwise the ``BODY`` parameter bindings of the command, as one object
      keyed by their wire names (absent optional arguments are left out).

    ``media_type`` decides the encoding: ``application/json`` (and ``+json``),
    ``application/x-www-form-urlencoded``, ``multipart/form-data``,
    ``text/plain``, ``application/octet-stream``. ``binary_fields`` names the
    multipart parts that are files: their argument is either a string (sent as
    text) or ``{"filename": ..., "content_base64": ..., "content_type": ...}``.
    For ``application/octet-stream`` the argument is base64 text.
    """

    media_type: str = "application/json"
    template: Any = None
    argument: str | None = None
    binary_fields: tuple[str, ...] = ()
    required: bool = True


@dataclass(frozen=True, slots=True)
class ResponseSpec:
    """How a response is shaped for the model."""

    select: str | None = None  # Jinja2 expression over body, status, headers
    max_chars: int | None = None  # overrides the service's max_response_chars


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds; ``None`` means the default (or the service's value)."""

    connect: float | None = None
    read: float | None = None
    total: float | None = None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries for idempotent methods (or tools that opt in with ``retry_unsafe``)."""

    attempts: int = 1  # total attempts, 1 = no retry
    backoff: float = 0.2  # base seconds, doubled each attempt, with jitter
    max_backoff: float = 10.0
    on_status: tuple[int, ...] = (429, 502, 503, 504)
    retry_after_cap: float = 30.0  # longest Retry-After honoured, seconds


def is_json_media_type(media_type: str) -> bool:
    """Whether a body of ``media_type`` is JSON: ``*/json`` (``text/json`` too) or ``+json``."""
    base = media_type.split(";")[0].strip().lower()
    return base.endswith(("/json", "+json"))


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this
    machine: ``localhost``, ``127.0.0.0/8`` or ``::1``. Any other name may resolve anywhere.

    >>> is_loopback_host("LOCALHOST"), is_loopback_host("[::1]"), is_loopback_host("127.9.9.9")
    (True, True, True)
    >>> is_loopback_host("localhost.example"), is_loopback_host("10.0.0.1")
    (False, False)
    """
    import ipaddress

    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.lru_cache(maxsize=1024)  # base URLs and token endpoints: a handful per catalog
def credentials_may_travel(url: str) -> bool:
    """Whether a caller's token may be sent to ``url``: https, or http to a loopback address
    (``localhost``, ``127.0.0.0/8``, ``::1``); a token read on the way could be replayed.

    >>> credentials_may_travel("https://api.example"), credentials_may_travel("http://[::1]:8080")
    (True, True)
    >>> credentials_may_travel("http://api.example")
    False
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return False
    if not host:
        return False
    scheme = parts.scheme.lower()
    if scheme == "https":
        return True
    return scheme == "http" and is_loopback_host(host)


#: What the model sees of one result at most, by default: an HTTP service's
#: ``max_response_chars``, and an MCP server's.
MAX_RESPONSE_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class Service:
    """An HTTP service that tools call. Raw strings may hold ``${VAR}``."""

    name: str
    base_url: str
    headers: FrozenDict = field(default=_EMPTY)
    auth: AuthSpec = field(default_factory=NoAuth)
    timeouts: Timeouts = field(default_factory=lambda: Timeouts(total=30.0))
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_response_chars: int = MAX_RESPONSE_CHARS
    max_response_bytes: int = 10_000_000
    source: SourceLocation | None = None
    # check responses against the OpenAPI spec at ``spec`` (a path): "warn", "error" or None
    validate_responses: str | None = None
    spec: str | None = None
    # the service's ``x-`` keys as written (owner, runbook, ...): read by tools around
    # toolcat, never by the executor or an exporter
    extensions: FrozenDict = field(default=_EMPTY)


@dataclass(frozen=True, slots=True)
class HttpCommand:
    """The HTTP request a tool sends, with every argument's placement decided."""

    service: str
    method: HttpMethod
    path: str  # template with {name} placeholders (wire names of PATH bindings)
    parameters: tuple[ParameterBinding, ...] = ()
    body: BodySpec | None = None
    response: ResponseSpec = field(default_factory=ResponseSpec)
    timeouts: Timeouts | None = None  # overrides the service's, field by field
    retry: RetryPolicy | None = None  # overrides the service's
    retry_unsafe: bool = False  # allow retries of a non-idempotent method
    auth: AuthSpec | None = None  # overrides the service's (OpenAPI per-operation security)
    base_url: str | None = None  # overrides the service's (OpenAPI operation servers)
    headers: FrozenDict = field(default=_EMPTY)  # constant headers of this tool

    def bindings(self, location: ParamLocation) -> tuple[ParameterBinding, ...]:
        return tuple(p for p in self.parameters if p.location is location)


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """Behaviour hints, as MCP names them. ``None`` means "not stated"."""

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True, slots=True)
class ToolExample:
    """One example a catalog carries for a tool (``toolcat test`` runs it offline).

    ``request`` holds the keys the request must match (``method``, ``path``,
    ``query``, ``headers``: a subset, ``body``); ``response`` the recorded answer
    (``status``, ``headers``, ``body``); ``result`` what the model must get
    (``None``: not compared). Values are frozen JSON.
    """

    arguments: FrozenDict
    name: str | None = None
    request: FrozenDict | None = None
    response: FrozenDict | None = None
    result: Any = None
    source: SourceLocation | None = None


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """One tool as a model sees it, with the command that runs it.

    ``command`` is an :class:`HttpCommand` (a request to a service) or an
    :class:`~toolcat.catalog.McpCommand` (a tool of an upstream MCP server); code that
    reads one kind's fields narrows with ``isinstance`` first.
    """

    name: str
    description: str
    input_schema: FrozenDict  # JSON Schema 2020-12, type object; may carry $defs
    command: HttpCommand | McpCommand
    output_schema: FrozenDict | None = None
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    confirm: bool = False
    return_direct: bool = False
    tags: tuple[str, ...] = ()
    source: SourceLocation | None = None
    # arguments the runtime fills from the caller's context (``from: claims.tenant_id``,
    # ``from: context.user_id``): argument -> source. They are not in ``input_schema``.
    context_arguments: FrozenDict = field(default=_EMPTY)
    examples: tuple[ToolExample, ...] = ()
    # arguments the catalog marks ``sensitive: true``: masked in audit lines
    sensitive_arguments: tuple[str, ...] = ()
    # the tool's ``x-`` keys as written (owner, runbook, ...): read by tools around
    # toolcat, never by the executor or an exporter
    extensions: FrozenDict = field(default=_EMPTY)
    # the argument or header whose value names one attempt of a non-safe call: a retry
    # with the same value gets the first attempt's result instead of a second request
    idempotency_key: str | None = None
    # who may call it: "model" (the model's own tool calls) and/or "code" (the provider's
    # code-execution tool); () is the default, the model only
    callers: tuple[str, ...] = ()

    @property
    def target(self) -> str:
        """The name of what the tool calls: its service, or its MCP server."""
        command = self.command
        return command.service if isinstance(command, HttpCommand) else command.server
