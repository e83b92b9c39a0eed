"""The access policy over real sockets: `toolcat serve` over HTTP with API keys and JWTs
from the test issuer, the official MCP client SDK, and an upstream on 127.0.0.1 that
records every request it receives."""

from __future__ import annotations

import hashlib
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
from toolcat.testing import BackgroundServer

from .conftest import RESOURCE, Issuer, Served, start_serve

READER_KEY = "reader-key-0123456789abcdef"
WRITER_KEY = "writer-key-0123456789abcdef"


def _hash(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


class Upstream:
    """Records (method, path, query, headers) of each request; answers JSON."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def handle(self, request: Request) -> Response:
        self.seen.append(
            {
                "method": request.method,
                "path": request.url.path,
                "query": dict(request.query_params),
                "headers": dict(request.headers),
            }
        )
        return JSONResponse({"path": request.url.path, "ok": True})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/items/{sku}", self.handle, methods=["GET", "DELETE", "PUT"]),
                Route("/tenants/{tenant}/orders", self.handle, methods=["GET"]),
            ]
        )


def catalog(issuer_url: str) -> str:
    return f"""\
toolcat: 1
services:
  shop:
    base_url: ${{SHOP_URL}}
    timeout: 5
tools:
  - name: get_item
    description: One item by SKU.
    service: shop
    method: GET
    path: /items/{{sku}}
    parameters:
      sku: {{type: string, description: The SKU}}
  - name: delete_item
    description: Delete an item.
    service: shop
    method: DELETE
    path: /items/{{sku}}
    confirm: false
    tags: [destructive]
    parameters:
      sku: {{type: string, description: The SKU}}
  - name: list_orders
    description: The orders of the caller's organisation.
    service: shop
    method: GET
    path: /tenants/{{tenant}}/orders
    parameters:
      tenant: {{type: string, from: claims.tenant_id}}
      status: {{type: string, description: Order status}}
toolsets:
  readonly: [get_item, list_orders]
  writes: [delete_item]
server:
  resource: {RESOURCE}
  auth:
    jwt:
      issuer: {issuer_url}/
      jwks_url: {issuer_url}/jwks
      algorithms: [RS256]
      jwks_min_refresh: 1
    api_keys:
      - {{name: reader, hash: "{_hash(READER_KEY)}"}}
      - {{name: writer, hash: "{_hash(WRITER_KEY)}"}}
  access:
    - name: readers
      when: {{groups: readers}}
      allow: {{toolsets: [readonly]}}
    - name: reader-key
      when: {{api_key: reader}}
      allow: {{toolsets: [readonly]}}
    - name: writers
      when: {{api_key: writer}}
      allow: {{tools: ["*"]}}
    - name: suspended
      when: {{suspended: "true"}}
      deny: {{tools: ["*"]}}
"""


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Upstream, str]]:
    found = Upstream()
    with BackgroundServer(found.app()) as server:
        yield found, server.url


@pytest.fixture(scope="module")
def served(
    issuer: Issuer, upstream: tuple[Upstream, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve-access")
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


def session(
    served: Served, token: str, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[str], list[tuple[bool, str]]]:
    """The tools the caller is listed, and (is_error, text) of each call."""

    async def run() -> tuple[list[str], list[tuple[bool, str]]]:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=20)
        async with (
            client,
            streamable_http_client(served.url, http_client=client) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            names = [t.name for t in (await s.list_tools()).tools]
            results = []
            for name, args in calls:
                result = await s.call_tool(name, args)
                text = " ".join(getattr(c, "text", "") for c in result.content)
                results.append((bool(result.is_error), text))
            return names, results

    return anyio.run(run)


def test_a_reader_sees_read_only_tools_and_cannot_call_a_hidden_write_tool(
    served: Served, upstream: tuple[Upstream, str]
) -> None:
    recorder, _ = upstream
    before = len(recorder.seen)
    names, results = session(
        served, READER_KEY, [("delete_item", {"sku": "A-1"}), ("get_item", {"sku": "A-1"})]
    )
    assert names == ["get_item", "list_orders"]
    (refused, text), (read_failed, _) = results
    assert refused and not read_failed
    error = json.loads(text)["error"]
    assert error["type"] == "forbidden"
    assert "delete_item" in error["message"] and "no rule allows it" in error["message"]
    assert [s["method"] for s in recorder.seen[before:]] == ["GET"]  # nothing deleted


def test_a_writer_sees_and_calls_everything(served: Served, upstream: tuple[Upstream, str]) -> None:
    recorder, _ = upstream
    before = len(recorder.seen)
    names, results = session(served, WRITER_KEY, [("delete_item", {"sku": "B-2"})])
    assert sorted(names) == ["delete_item", "get_item", "list_orders"]
    assert results == [(False, results[0][1])]
    assert [(s["method"], s["path"]) for s in recorder.seen[before:]] == [("DELETE", "/items/B-2")]


def test_jwt_claims_select_the_rules(served: Served, issuer: Issuer) -> None:
    reader = issuer.token(groups=["staff", "readers"])
    assert session(served, reader, [])[0] == ["get_item", "list_orders"]
    assert session(served, issuer.token(groups=["guests"]), [])[0] == []  # default closed
    suspended = issuer.token(groups=["readers"], suspended="true")  # deny wins
    names, results = session(served, suspended, [("get_item", {"sku": "C-3"})])
    assert names == [] and results[0][0] is True
    assert "suspended" in json.loads(results[0][1])["error"]["message"]


def test_newlines_in_claims_forge_no_log_line(served: Served, issuer: Issuer) -> None:
    token = issuer.token(sub="mallory\ntoolcat serve: FORGED admin granted", groups=["guests"])
    names, results = session(served, token, [("delete_item", {"sku": "D-4"})])
    assert names == [] and results[0][0] is True
    log = served.stderr()
    assert "access policy refused delete_item" in log
    for line in log.splitlines():
        assert (
            not line.startswith("toolcat serve: FORGED")
            and "FORGED" not in line.split("mallory")[0]
        )


def test_the_tenant_comes_from_the_token_and_never_from_the_model(
    served: Served, issuer: Issuer, upstream: tuple[Upstream, str]
) -> None:
    recorder, _ = upstream

    async def run(token: str) -> tuple[list[dict[str, Any]], list[tuple[bool, str]]]:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=20)
        async with (
            client,
            streamable_http_client(served.url, http_client=client) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            listed = [
                t.model_dump(mode="json", by_alias=True) for t in (await s.list_tools()).tools
            ]
            out = []
            for args in ({"status": "open"}, {"status": "open", "tenant": "globex"}):
                result = await s.call_tool("list_orders", args)
                text = " ".join(getattr(c, "text", "") for c in result.content)
                out.append((bool(result.is_error), text))
            return listed, out

    before = len(recorder.seen)
    listed, results = anyio.run(run, issuer.token(groups=["readers"], tenant_id="acme"))
    (orders,) = [t for t in listed if t["name"] == "list_orders"]
    assert list(orders["inputSchema"]["properties"]) == ["status"]
    assert "tenant" not in json.dumps(orders["inputSchema"])
    (ok, _), (refused, text) = results
    assert not ok and refused
    error = json.loads(text)["error"]
    assert error["type"] == "invalid_arguments" and "'tenant' is filled from" in error["message"]
    seen = recorder.seen[before:]
    assert [(s["path"], s["query"]) for s in seen] == [("/tenants/acme/orders", {"status": "open"})]

    # a token without the claim: refused, nothing sent
    before = len(recorder.seen)
    _, results = anyio.run(run, issuer.token(groups=["readers"]))
    assert results[0][0] is True
    assert json.loads(results[0][1])["error"]["type"] == "refused_by_policy"
    assert len(recorder.seen) == before


def test_tool_search_finds_only_what_the_caller_may_call(
    issuer: Issuer, upstream: tuple[Upstream, str], tmp_path: Path
) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(catalog(issuer.url))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["SHOP_URL"] = upstream[1]
    server = start_serve(path, env, tmp_path / "stderr.log", "--tool-search")
    try:
        query = ("search_tools", {"query": "delete an item"})
        names, [(failed, text)] = session(server, READER_KEY, [query])
        assert names == ["search_tools"] and not failed
        assert "get_item" in text and "delete_item" not in text
        _, [(failed, text)] = session(server, WRITER_KEY, [query])
        assert not failed and "delete_item" in text
    finally:
        server.proc.terminate()
        server.proc.wait(10)
