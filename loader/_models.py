"""The catalog file format, version 1, as pydantic models: the document root, with the
toolsets: and search: sections; the other sections' models are in the _models_*
modules (services, tools, mcp, openapi, server).

These models check the shape of each document; the cross-references (services,
path templates, schemas, templates) are checked by the later stages. The
format's published JSON Schema is generated from them.
"""

# Annotations are objects here, not text (no ``from __future__ import annotations``): pydantic
# reads them as they are instead of evaluating the text of each one when a model is built.
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from toolcat.catalog.common import DEFER_ABOVE_TOOLS

from ._models_base import STRICT, STRICT_LATE, STRICT_X_LATE
from ._models_mcp import McpServerDoc, McpToolDoc
from ._models_openapi import OpenApiEntryDoc
from ._models_server import ServerDoc
from ._models_services import ServiceDoc
from ._models_tools import CALLERS_DESCRIPTION, Caller, ToolDoc

__all__ = [
    "Callers",
    "CatalogFileDoc",
    "EmbeddingsDoc",
    "SearchDoc",
    "ToolsetDoc",
]


class Callers(BaseModel):
    """A toolset's ``callers:`` (toolsets are read by hand; this checks the one key)."""

    model_config = STRICT
    callers: list[Caller] = Field(min_length=1, description=CALLERS_DESCRIPTION)


class ToolsetDoc(BaseModel):
    """A toolset in the long form, to carry x- keys: ``{tools: [...], x-owner: ...}``."""

    model_config = STRICT_X_LATE
    tools: list[str] = Field(description="Tool names, in the order a model sees them.")
    callers: list[Caller] | None = Field(
        None,
        min_length=1,
        description=CALLERS_DESCRIPTION + " For the toolset's tools that do not say.",
    )


class EmbeddingsDoc(BaseModel):
    """An OpenAI-compatible embeddings endpoint: semantic ranking fused with the lexical one."""

    model_config = STRICT_LATE
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

    model_config = STRICT_LATE
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
