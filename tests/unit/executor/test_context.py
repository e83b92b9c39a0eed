"""Parameters bound to the caller's context (``from: claims.x`` / ``from: context.x``):
filled by the runtime, in no exported schema, refused when a model sends them, and a
call missing a required one is refused before anything is sent."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from toolcat.catalog import Catalog
from toolcat.executor import CallerIdentity, Executor, ToolCall, ToolContext, caller
from toolcat.executor.providers import PROVIDERS, export_catalog
from toolcat.tests.support import CatalogFiles

CATALOG = """\
toolcat: 1
services:
  s: {base_url: "http://api.test"}
tools:
  - name: list_orders
    service: s
    method: GET
    path: /tenants/{tenant}/orders
    description: Orders of the caller's tenant.
    parameters:
      tenant: {type: string, from: claims.tenant_id}
      user: {type: string, in: header, name: X-User, from: context.user_id, required: false}
      region: {type: string, in: query, from: claims.org.region, required: false}
      status: {type: string, description: Order status.}
"""


@pytest.fixture
def catalog(catalog_files: CatalogFiles) -> Catalog:
    catalog, result = catalog_files.load(CATALOG, "c.yaml")
    assert not result.diagnostics, [str(d) for d in result.diagnostics]
    return catalog


def _executor(catalog: Catalog, sent: list[httpx.Request]) -> Executor:
    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=[])

    return Executor(
        catalog,
        env={},
        client=httpx.Client(transport=httpx.MockTransport(handle)),
        async_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)),
        telemetry=False,
    )


def who(**claims: object) -> CallerIdentity:
    return CallerIdentity.make(subject="ana", method="jwt", claims=claims)


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_no_exported_schema_names_a_bound_argument(catalog: Catalog, provider: str) -> None:
    text = json.dumps(export_catalog(catalog, provider).tools)
    assert "status" in text
    for hidden in ("tenant", '"user"', "X-User", "region", "claims.", "context."):
        assert hidden not in text.replace("caller's tenant", ""), (provider, hidden)


def test_the_runtime_fills_them_from_claims_and_app_values(catalog: Catalog) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(catalog, sent)
    context = ToolContext.make(
        who(tenant_id="acme", org={"region": "eu"}), values={"user_id": "u-7"}
    )
    result = executor.execute(ToolCall("list_orders", {"status": "open"}), context=context)
    assert result.ok, result.error
    (request,) = sent
    assert request.url.path == "/tenants/acme/orders"
    assert dict(request.url.params) == {"status": "open", "region": "eu"}
    assert request.headers["x-user"] == "u-7"


def test_optional_bound_values_may_be_absent(catalog: Catalog) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(catalog, sent)
    with caller(who(tenant_id="acme")):  # as the MCP server sets it
        assert executor.execute(ToolCall("list_orders", {"status": "x"})).ok
    assert "x-user" not in sent[0].headers and "region" not in sent[0].url.params


@pytest.mark.parametrize("argument", ["tenant", "user", "region"])
def test_a_model_sending_a_bound_argument_gets_invalid_arguments(
    catalog: Catalog, argument: str
) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(catalog, sent)
    context = ToolContext(who(tenant_id="acme"))
    call = ToolCall("list_orders", {"status": "x", argument: "evil"})
    result = executor.execute(call, context=context)
    assert result.error is not None and result.error.type == "invalid_arguments"
    assert f"{argument!r} is filled from the caller's context" in result.error.msg
    assert result.errors[0].loc == (argument,)
    assert sent == []


def test_a_missing_required_context_value_is_refused_before_sending(catalog: Catalog) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(catalog, sent)
    for context in (None, ToolContext(who()), ToolContext.make(values={"tenant_id": "x"})):
        call = ToolCall("list_orders", {"status": "x"})
        result = executor.execute(call, context=context)
        assert result.error is not None and result.error.type == "refused_by_policy"
        assert "claims.tenant_id" in result.error.msg
    assert sent == []


def test_async_and_many_carry_the_context(catalog: Catalog) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(catalog, sent)
    context = ToolContext.make(who(tenant_id="t1"), values={"user_id": "u1"})
    calls = [ToolCall("list_orders", {"status": s}) for s in ("a", "b", "c")]

    async def run() -> list[bool]:
        one = await executor.aexecute(calls[0], context=context)
        many = await executor.aexecute_many(calls, context=context)
        return [one.ok, *(r.ok for r in many)]

    assert asyncio.run(run()) == [True] * 4
    assert all(r.ok for r in executor.execute_many(calls, context=context))
    assert {r.url.path for r in sent} == {"/tenants/t1/orders"}
    assert {r.headers["x-user"] for r in sent} == {"u1"}
    assert len(sent) == 7
