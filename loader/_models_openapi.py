"""The file models of ``openapi:`` entries: which operations to import, rules for many
at once, and per-operation overrides."""

# Annotations are objects here, not text (no ``from __future__ import annotations``): pydantic
# reads them as they are instead of evaluating the text of each one when a model is built.
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator
from toolcat.catalog import HttpMethod
from toolcat.catalog.common import METHODS

from ._models_base import STRICT, HeaderValue, uppercase
from ._models_services import AuthDoc, RetryDoc, Timeout
from ._models_tools import AnnotationsDoc, ParameterDoc, ResponseDoc

__all__ = [
    "OpenApiEntryDoc",
    "OpenApiOverrideDoc",
    "OpenApiRuleDoc",
    "OpenApiRuleMatchDoc",
    "OpenApiSelectionDoc",
]


class OpenApiSelectionDoc(BaseModel):
    """Which operations an ``openapi:`` entry takes (every list is optional)."""

    model_config = STRICT
    tags: list[str] | None = None
    operations: list[str] | None = None
    paths: list[str] | None = Field(None, description="Globs such as /pets*.")
    methods: list[HttpMethod] | None = Field(None, description="HTTP methods, any case.")

    @field_validator("methods", mode="before")
    @classmethod
    def _normalise_methods(cls, value: Any) -> Any:
        return [uppercase(v) for v in value] if isinstance(value, list) else value


class OpenApiOverrideDoc(BaseModel):
    """Per-operation overrides, keyed by operationId."""

    model_config = STRICT
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

    _normalise_method = field_validator("method", mode="before")(uppercase)


class OpenApiRuleMatchDoc(BaseModel):
    """Which operations a rule applies to: every given list must match (any value of it)."""

    model_config = STRICT
    tags: list[str] | None = None
    methods: list[HttpMethod] | None = Field(None, description="HTTP methods, any case.")
    paths: list[str] | None = Field(None, description="Path globs such as /repos/*.")
    operations: list[str] | None = Field(None, description="operationId globs such as delete*.")

    @field_validator("methods", mode="before")
    @classmethod
    def _normalise_methods(cls, value: Any) -> Any:
        return [uppercase(v) for v in value] if isinstance(value, list) else value


class OpenApiRuleDoc(BaseModel):
    """What to set on every imported operation a rule matches (in order; tools: wins)."""

    model_config = STRICT
    match: OpenApiRuleMatchDoc | None = Field(None, description="Default: every operation.")
    confirm: bool | None = None
    toolsets: list[str] | None = Field(None, description="Toolsets the tools join.")
    timeout: Timeout | None = None
    retry: RetryDoc | None = None
    description_prefix: str | None = None
    exclude: bool | None = Field(None, description="true leaves the operations out.")


class OpenApiEntryDoc(BaseModel):
    """Tools imported from an OpenAPI 3.x or Swagger 2.0 spec."""

    model_config = STRICT
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
        return [uppercase(v) for v in value] if isinstance(value, list) else value
