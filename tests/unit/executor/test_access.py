"""The access policy (server.access): rule matching, deny precedence, default closed,
and the executor refusing a call before anything is sent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from toolcat.catalog import Catalog
from toolcat.catalog.serving import AccessGrant, AccessPolicy, AccessRule
from toolcat.executor import (
    AccessGuard,
    CallerIdentity,
    Executor,
    ExecutorSettings,
    ToolCall,
    ToolContext,
    caller,
)
from toolcat.tests.support import CatalogFiles

CATALOG = """\
toolcat: 1
services:
  s: {base_url: "http://api.test"}
tools:
  - {name: get_item, service: s, method: GET, path: /items, description: Read., tags: [read]}
  - {name: put_item, service: s, method: PUT, path: /items, description: Write., confirm: false}
  - name: drop_all
    service: s
    method: DELETE
    path: /items
    description: Delete.
    confirm: false
    tags: [destructive]
toolsets:
  readonly: [get_item]
  writes: [put_item, drop_all]
"""

ACCESS = """\
server:
  access:
    - name: readers
      when: {groups: readers}
      allow: {toolsets: [readonly]}
    - name: writers
      when: {groups: [writers, admins]}
      allow: {tools: ["*"]}
    - name: no-destruction-for-ci
      when: {api_key: ci}
      deny: {tags: [destructive]}
    - name: ci
      when: {api_key: ci}
      allow: {toolsets: [readonly, writes]}
    - name: realm-admins
      when: {realm_access.roles: admin, scope: tools:admin}
      allow: {tags: [destructive]}
"""


def _load(tmp_path: Path, text: str) -> tuple[Catalog, AccessPolicy]:
    catalog, result = CatalogFiles(tmp_path).load(text, "c.yaml")
    assert result.server is not None
    return catalog, result.server.access


def who(sub: str = "u", **claims: object) -> CallerIdentity:
    scopes = str(claims.pop("scope", "")).split()
    return CallerIdentity.make(subject=sub, method="jwt", scopes=scopes, claims=claims)


def key(name: str) -> CallerIdentity:
    return CallerIdentity.make(subject=name, method="api_key")


@pytest.fixture
def guard(tmp_path: Path) -> AccessGuard:
    catalog, policy = _load(tmp_path, CATALOG + ACCESS)
    return AccessGuard(policy, catalog)


TOOLS = ["get_item", "put_item", "drop_all"]


def test_readers_see_the_read_only_toolset(guard: AccessGuard) -> None:
    assert guard.allowed(who(groups=["readers"]), TOOLS) == ["get_item"]
    assert guard.decide(who(groups=["readers"]), "get_item").rule == "readers"


def test_a_claim_value_in_a_list_or_alone_matches(guard: AccessGuard) -> None:
    assert guard.allowed(who(groups=["x", "admins"]), TOOLS) == TOOLS
    assert guard.allowed(who(groups="writers"), TOOLS) == TOOLS


def test_default_closed_once_any_rule_exists(guard: AccessGuard) -> None:
    assert guard.allowed(who(groups=["guests"]), TOOLS) == []
    assert guard.allowed(who(), TOOLS) == []
    assert guard.allowed(None, TOOLS) == []  # unauthenticated (stdio, no auth)
    decision = guard.decide(who(), "get_item")
    assert not decision.allowed and decision.rule is None


def test_deny_takes_precedence_over_allow(guard: AccessGuard) -> None:
    assert guard.allowed(key("ci"), TOOLS) == ["get_item", "put_item"]
    decision = guard.decide(key("ci"), "drop_all")
    assert not decision.allowed and decision.rule == "no-destruction-for-ci"


def test_api_key_rule_does_not_match_a_jwt_with_that_subject(guard: AccessGuard) -> None:
    assert guard.allowed(who(sub="ci"), TOOLS) == []


def test_every_when_entry_must_match_nested_claims_and_scopes(guard: AccessGuard) -> None:
    admin = who(realm_access={"roles": ["admin"]}, scope="tools:admin")
    assert guard.allowed(admin, TOOLS) == ["drop_all"]
    assert guard.allowed(who(realm_access={"roles": ["admin"]}), TOOLS) == []
    assert guard.allowed(who(scope="tools:admin"), TOOLS) == []


def test_values_are_compared_exactly(guard: AccessGuard) -> None:
    assert guard.allowed(who(groups=["Readers", "readers "]), TOOLS) == []
    assert guard.allowed(who(groups=[["readers"]]), TOOLS) == []


def test_no_rules_allows_everything(tmp_path: Path) -> None:
    catalog, policy = _load(tmp_path, CATALOG + "server: {}\n")
    guard = AccessGuard(policy, catalog)
    assert not guard.enabled
    assert guard.allowed(None, TOOLS) == TOOLS


def test_any_value_star() -> None:
    rule = AccessRule("any-tenant", "allow", AccessGrant(tools=("t",)), (("tenant", ("*",)),))
    catalog = Catalog([], [])
    guard = AccessGuard(AccessPolicy((rule,)), catalog)
    assert guard.decide(who(tenant="acme"), "t").allowed
    assert not guard.decide(who(), "t").allowed


def _executor(tmp_path: Path, sent: list[httpx.Request]) -> Executor:
    catalog, policy = _load(tmp_path, CATALOG + ACCESS)

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"ok": True})

    return Executor(
        catalog,
        ExecutorSettings(
            env={},
            access=policy,
            client=httpx.Client(transport=httpx.MockTransport(handle)),
            async_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)),
            telemetry=False,
        ),
    )


def test_the_executor_refuses_before_sending(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(tmp_path, sent)
    reader = ToolContext(who(groups=["readers"]))
    refused = executor.execute(ToolCall("put_item", {}), context=reader)
    assert refused.error is not None and refused.error.type == "forbidden"
    assert "put_item" in refused.error.msg and "no rule allows it" in refused.error.msg
    assert sent == []
    assert executor.execute(ToolCall("get_item", {}), context=reader).ok
    assert len(sent) == 1
    denied = executor.execute(ToolCall("drop_all", {}), context=ToolContext(key("ci")))
    assert denied.error is not None and "no-destruction-for-ci" in denied.error.msg
    assert executor.execute(ToolCall("get_item", {})).error is not None  # no caller: closed
    with caller(who(groups=["writers"])):  # the identity a server set for this task
        assert executor.execute(ToolCall("drop_all", {})).ok
        many = executor.execute_many([ToolCall("put_item", {}), ToolCall("drop_all", {})])
        assert [r.ok for r in many] == [True, True]  # worker threads carry the caller
    assert len(sent) == 4


def test_the_async_executor_refuses_too(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []
    executor = _executor(tmp_path, sent)

    async def run() -> list[bool]:
        reader = ToolContext(who(groups=["readers"]))
        one = await executor.aexecute(ToolCall("put_item", {}), context=reader)
        many = await executor.aexecute_many(
            [ToolCall("get_item", {}), ToolCall("drop_all", {})], context=reader
        )
        return [one.ok, *(r.ok for r in many)]

    assert asyncio.run(run()) == [False, True, False]
    assert [r.method for r in sent] == ["GET"]


def test_an_unknown_tool_is_still_unknown_tool(tmp_path: Path) -> None:
    executor = _executor(tmp_path, [])
    result = executor.execute(ToolCall("nope", {}), context=ToolContext(who()))
    assert result.error is not None and result.error.type == "unknown_tool"


def test_unknown_tool_suggests_only_allowed_tools(tmp_path: Path) -> None:
    executor = _executor(tmp_path, [])
    reader = ToolContext(who(groups=["readers"]))
    hidden = executor.execute(ToolCall("drop_al", {}), context=reader)
    assert hidden.error is not None and "drop_all" not in hidden.content
    writer = ToolContext(who(groups=["writers"]))
    shown = executor.execute(ToolCall("drop_al", {}), context=writer)
    assert "drop_all" in shown.content
