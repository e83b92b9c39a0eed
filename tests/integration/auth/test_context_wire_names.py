"""A context-bound parameter's wire name carries only the context's value: through
`toolcat serve` over HTTP with tokens of the test issuer, the official MCP client SDK and
an upstream on 127.0.0.1 that records what reaches it. `toolcat validate` warns (TC145)
of the schemas that let a model try."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from toolcat.cli._app import main
from toolcat.testing import BackgroundServer

from .conftest import RESOURCE, Issuer, Served, start_serve


def catalog(issuer_url: str) -> str:
    return f"""\
toolcat: 1
services:
  shop: {{base_url: "${{SHOP_URL}}"}}
tools:
  - name: list_orders
    description: The orders of the caller's tenant.
    service: shop
    method: GET
    path: /orders
    parameters:
      tenant: {{type: string, from: claims.tenant_id}}
      filter:
        type: object
        additionalProperties: {{type: string}}
        required: false
        description: Filters by field
      x_tenant: {{type: string, in: header, name: x-tenant, required: false, description: A hint}}
      tenant_header: {{type: string, in: header, name: X-Tenant, from: claims.tenant_id}}
server:
  resource: {RESOURCE}
  auth:
    jwt:
      issuer: {issuer_url}/
      jwks_url: {issuer_url}/jwks
      algorithms: [RS256]
"""


class Upstream:
    def __init__(self) -> None:
        self.seen: list[tuple[list[tuple[str, str]], list[str]]] = []

    async def handle(self, request: Request) -> Response:
        tenants = [v for k, v in request.headers.items() if k.lower() == "x-tenant"]
        self.seen.append((list(request.query_params.multi_items()), tenants))
        return JSONResponse({"ok": True})

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/orders", self.handle)])


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Upstream, str]]:
    found = Upstream()
    with BackgroundServer(found.app()) as server:
        yield found, server.url


@pytest.fixture(scope="module")
def served(
    issuer: Issuer, upstream: tuple[Upstream, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve-wire-names")
    path = folder / "catalog.yaml"
    path.write_text(catalog(issuer.url))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["SHOP_URL"] = upstream[1]
    server = start_serve(path, env, folder / "stderr.log")
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(10)


def _calls(served: Served, token: str, calls: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    async def run() -> list[tuple[bool, str]]:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=20)
        async with (
            client,
            streamable_http_client(served.url, http_client=client) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            out = []
            for args in calls:
                result = await s.call_tool("list_orders", args)
                text = " ".join(getattr(c, "text", "") for c in result.content)
                out.append((bool(result.is_error), text))
            return out

    return anyio.run(run)


@pytest.mark.parametrize(
    "args",
    [
        {"filter": {"tenant": "globex"}},  # ?tenant=acme&tenant=globex
        {"filter": {"tenant[]": "globex"}},  # read as tenant by PHP and Rack
        {"x_tenant": "globex"},  # a second X-Tenant header
    ],
    ids=["query key", "query key[]", "header"],
)
def test_no_argument_doubles_a_context_bound_name(
    args: dict[str, Any], served: Served, issuer: Issuer, upstream: tuple[Upstream, str]
) -> None:
    recorder, _ = upstream
    before = len(recorder.seen)
    ((refused, text),) = _calls(served, issuer.token(tenant_id="acme"), [args])
    assert refused
    error = json.loads(text)["error"]
    assert error["type"] == "refused_by_policy" and "claims.tenant_id" in error["message"]
    assert len(recorder.seen) == before  # nothing was sent


def test_other_keys_go_through(
    served: Served, issuer: Issuer, upstream: tuple[Upstream, str]
) -> None:
    recorder, _ = upstream
    before = len(recorder.seen)
    ((refused, _),) = _calls(
        served, issuer.token(tenant_id="acme"), [{"filter": {"status": "open"}}]
    )
    assert not refused
    assert recorder.seen[before:] == [([("tenant", "acme"), ("status", "open")], ["acme"])]


def test_validate_warns_of_the_schemas_that_could(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(catalog("https://issuer.example"))
    assert main(["validate", str(path), "--fail-on", "warning"]) == 1
    out = capsys.readouterr().out
    assert "TC145 tool 'list_orders': parameter 'filter'" in out
    assert "TC145 tool 'list_orders': parameter 'x_tenant' sends header 'x-tenant'" in out
    path.write_text(catalog("https://issuer.example").replace("{type: string}\n", "false\n"))
    main(["validate", str(path)])
    assert "parameter 'filter'" not in capsys.readouterr().out
