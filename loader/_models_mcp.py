"""The file models of upstream MCP servers: ``mcp_servers:`` entries, and the tools bound
to them (``mcp:`` where an HTTP tool has service, method and path)."""

# Annotations are objects here, not text (no ``from __future__ import annotations``): pydantic
# reads them as they are instead of evaluating the text of each one when a model is built.
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from toolcat.catalog.common import TOOL_NAME_PATTERN

from ._models_base import STRICT, STRICT_LATE, STRICT_X_LATE, HeaderValue
from ._models_services import AuthDoc
from ._models_tools import AnnotationsDoc, ParameterDoc

__all__ = [
    "McpBindingDoc",
    "McpExampleDoc",
    "McpHealthDoc",
    "McpResponseDoc",
    "McpServerDoc",
    "McpToolDoc",
]


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

    model_config = STRICT_LATE
    name: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    request: dict[str, Any] | None = Field(
        None, description="The upstream's arguments after renames, fixed and context ones."
    )
    response: McpResponseDoc | None = None
    result: Any = Field(None, description="What the model gets: text, or a JSON value.")


class McpHealthDoc(BaseModel):
    """How the replicas of an HTTP server with several URLs are probed."""

    model_config = STRICT
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

    model_config = STRICT_X_LATE
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

    model_config = STRICT_LATE
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

    model_config = STRICT_X_LATE
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
