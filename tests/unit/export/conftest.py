"""Hand-built IR for exporter tests: a small catalog whose service holds a literal secret."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.catalog import (
    BearerAuth,
    Catalog,
    HttpCommand,
    ParameterBinding,
    ParamLocation,
    Service,
    ToolAnnotations,
    ToolDefinition,
)
from toolcat.catalog.common import freeze

SECRET = "sk-live-SECRET-7f3a9c"


def make_tool(
    name: str,
    method: str = "GET",
    properties: dict[str, Any] | None = None,
    required: list[str] | None = None,
    description: str = "Does a thing.",
    defs: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    annotations: ToolAnnotations | None = None,
) -> ToolDefinition:
    props = properties or {}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": list(required if required is not None else props),
        "additionalProperties": False,
    }
    if defs:
        schema["$defs"] = defs
    location = ParamLocation.QUERY if method == "GET" else ParamLocation.BODY
    command = HttpCommand(
        service="orders",
        method=method,  # type: ignore[arg-type]  # a plain str here; HttpMethod is a private Literal
        path=f"/{name}",
        parameters=tuple(ParameterBinding(p, location, p, p in schema["required"]) for p in props),
    )
    return ToolDefinition(
        name=name,
        description=description,
        input_schema=freeze(schema),
        command=command,
        output_schema=freeze(output_schema) if output_schema is not None else None,
        annotations=annotations or ToolAnnotations(),
    )


@pytest.fixture
def catalog() -> Catalog:
    service = Service(
        name="orders",
        base_url="https://orders.example/api",
        headers=freeze({"X-Api-Key": SECRET}),
        auth=BearerAuth(token=SECRET),
    )
    get_order = make_tool(
        "get_order",
        "GET",
        {
            "order_id": {"type": "string", "description": "The order id"},
            "expand": {"type": "array", "items": {"type": "string"}},
        },
        required=["order_id"],
        description="Look up one order by id.",
        output_schema={"type": "object", "properties": {"id": {"type": "string"}}},
    )
    create_order = make_tool(
        "create_order",
        "POST",
        {
            "customer_id": {"type": "string"},
            "note": {"type": "string", "maxLength": 200},
        },
        required=["customer_id"],
        description="Create an order.",
    )
    ping = make_tool("ping", "HEAD", {}, description="Is the service up?")
    return Catalog([get_order, create_order, ping], [service], {"readonly": ["get_order", "ping"]})


@pytest.fixture
def secret() -> str:
    return SECRET


@pytest.fixture
def tool_factory() -> Any:
    return make_tool
