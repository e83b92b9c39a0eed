"""What the catalog file models share: their configs (frozen, unknown keys rejected),
header values, and HTTP methods written in any case."""

from typing import Any

from pydantic import ConfigDict

__all__ = [
    "HeaderValue",
    "STRICT",
    "STRICT_LATE",
    "STRICT_X",
    "STRICT_X_LATE",
    "uppercase",
]

STRICT = ConfigDict(frozen=True, extra="forbid", strict=True)
# tools and services also take x- keys (owner, runbook, ...): the loader keeps them in the
# IR's ``extensions`` and takes them out before the model sees the document
STRICT_X = ConfigDict(
    frozen=True, extra="forbid", strict=True, json_schema_extra={"patternProperties": {"^x-": {}}}
)
# The models of what only some catalogs have (a server: or search: section, MCP servers and
# their tools) build their validators when first used: loading a catalog without those
# sections, or an OpenAPI spec, never pays for building them (pydantic's defer_build). The
# models every load uses (tools, services, openapi entries and their parts) are built here,
# once: a deferred part would be built again inside each model that holds it.
STRICT_LATE = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)
STRICT_X_LATE = ConfigDict(
    frozen=True,
    extra="forbid",
    strict=True,
    defer_build=True,
    json_schema_extra={"patternProperties": {"^x-": {}}},
)

HeaderValue = str | int | float | bool


def uppercase(value: Any) -> Any:
    """A method written in any case, spelled as the IR spells it (upper case); a value that
    is not a string is left to the model's own check."""
    return value.upper() if isinstance(value, str) else value
