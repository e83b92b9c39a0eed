"""Hand-built IR for executor tests: tools, services and a recording mock transport."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx
from toolcat.catalog import (
    BodySpec,
    Catalog,
    HttpCommand,
    NoAuth,
    ParameterBinding,
    ParamLocation,
    Service,
    ToolDefinition,
)
from toolcat.catalog.common import freeze

BASE = "http://api.test/v1"


def p(
    argument: str,
    location: str,
    schema: Mapping[str, Any] | None = None,
    *,
    wire: str | None = None,
    required: bool = False,
    **kw: Any,
) -> tuple[ParameterBinding, dict[str, Any]]:
    """One parameter: its binding and its JSON Schema."""
    binding = ParameterBinding(argument, ParamLocation(location), wire or argument, required, **kw)
    return binding, dict(schema or {"type": "string"})


def tool(
    name: str = "t",
    *,
    method: str = "GET",
    path: str = "/items",
    params: tuple[Any, ...] = (),
    body: BodySpec | None = None,
    service: str = "svc",
    confirm: bool = False,
    return_direct: bool = False,
    extra_props: Mapping[str, Any] | None = None,
    **command: Any,
) -> ToolDefinition:
    props = {b.argument: s for b, s in params}
    props.update(extra_props or {})
    required = [b.argument for b, _ in params if b.required]
    schema = {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }
    # ``method`` is a plain str here (HttpMethod, a Literal, is private to toolcat.catalog).
    cmd = HttpCommand(service, method, path, tuple(b for b, _ in params), body, **command)  # type: ignore[arg-type]
    return ToolDefinition(
        name, f"The {name} tool.", freeze(schema), cmd, confirm=confirm, return_direct=return_direct
    )


def catalog(
    *tools: ToolDefinition, base_url: str = BASE, auth: Any = None, **service: Any
) -> Catalog:
    svc = Service("svc", base_url, auth=auth or NoAuth(), **service)
    return Catalog(tools, [svc])


class Recorder:
    """A MockTransport handler that records every request and answers with ``respond``."""

    def __init__(self, respond: Callable[[httpx.Request], httpx.Response] | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.respond = respond or (lambda r: httpx.Response(200, json={"ok": True}))

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return self.respond(request)

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))

    def async_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]


def forbid(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request may leave, but {request.method} {request.url} did")


def body_json(request: httpx.Request) -> Any:
    return json.loads(request.content)
