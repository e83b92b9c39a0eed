"""The file models of HTTP tools: ``tools:`` entries, their parameters, response shaping,
annotations and examples."""

# Annotations are objects here, not text (no ``from __future__ import annotations``): pydantic
# reads them as they are instead of evaluating the text of each one when a model is built.
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from toolcat.catalog import HttpMethod
from toolcat.catalog.common import METHODS, TOOL_NAME_PATTERN

from ._models_base import STRICT, STRICT_X, HeaderValue, uppercase
from ._models_services import AuthDoc, RetryDoc, Timeout

__all__ = [
    "AnnotationsDoc",
    "CALLERS_DESCRIPTION",
    "Caller",
    "ExampleDoc",
    "ExampleRequestDoc",
    "ExampleResponseDoc",
    "ParameterDoc",
    "ResponseDoc",
    "ToolDoc",
]

Style = Literal[
    "form", "spaceDelimited", "pipeDelimited", "deepObject", "simple", "label", "matrix"
]


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

    model_config = STRICT
    select: str | None = Field(None, description="Jinja2 over body, status and headers.")
    max_chars: int | None = Field(None, ge=1)


class AnnotationsDoc(BaseModel):
    """Behaviour hints; unset ones are derived from the method."""

    model_config = STRICT
    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


QueryValue = str | int | float | bool


class ExampleRequestDoc(BaseModel):
    """The request an example's arguments must render; every key is optional."""

    model_config = STRICT
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

    _normalise_method = field_validator("method", mode="before")(uppercase)


class ExampleResponseDoc(BaseModel):
    """A recorded response that the offline test answers the request with."""

    model_config = STRICT
    status: int = Field(200, ge=100, le=599)
    headers: dict[str, HeaderValue] = Field(default_factory=dict)
    body: Any = Field(None, description="A JSON value (sent as JSON), or text.")


Caller = Literal["model", "code"]
CALLERS_DESCRIPTION = (
    "Who may call the tool: model (a tool call of the model's own, the default), code "
    "(the model's code-execution tool, Anthropic's programmatic tool calling), or both."
)


class ExampleDoc(BaseModel):
    """One example of a tool: arguments, the request they render, a response, the result."""

    model_config = STRICT
    name: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    request: ExampleRequestDoc | None = None
    response: ExampleResponseDoc | None = None
    result: Any = Field(None, description="What the model gets: text, or a JSON value.")


class ToolDoc(BaseModel):
    """One HTTP tool."""

    model_config = STRICT_X
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

    _normalise_method = field_validator("method", mode="before")(uppercase)
