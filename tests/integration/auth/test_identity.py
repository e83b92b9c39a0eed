"""The verified caller reaches the tool-call path as a frozen CallerIdentity."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from toolcat.catalog.serving import ServerSettings
from toolcat.executor import CallerIdentity, ToolResult, current_identity
from toolcat.executor.mcp_server import Authenticator, AuthMiddleware, McpServer, McpServerSettings
from toolcat.testing import BackgroundServer

from .conftest import Issuer, catalog


def test_the_tool_call_sees_who_called(
    issuer: Issuer, warehouse: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text(catalog(issuer.url))
    env = {"WAREHOUSE_URL": warehouse, "INTROSPECTION_SECRET": "s3cret-introspection"}
    server = McpServer([str(path)], McpServerSettings(env=env))
    server.load()
    settings = server.server_settings
    assert isinstance(settings, ServerSettings)
    seen: list[CallerIdentity | None] = []
    executor = server.load().executor

    async def spy(call: Any, *args: Any, **kwargs: Any) -> ToolResult:
        seen.append(current_identity())  # what the call path sees; nothing is sent upstream
        return ToolResult(call, True, '{"sku": "W-BLUE-01"}', 200, {"sku": "W-BLUE-01"})

    monkeypatch.setattr(executor, "aexecute", spy)
    assert settings.resource is not None
    app = AuthMiddleware(
        server.server.streamable_http_app(streamable_http_path="/mcp"),
        Authenticator(settings.auth, resource=settings.resource, env=env),
        resource=settings.resource,
    )
    token = issuer.token(sub="alice\nnot a new line", groups=["ops"], tenant_id="t-42")

    async def session(url: str) -> None:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=20)
        async with (
            client,
            streamable_http_client(url, http_client=client) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            result = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
            assert result.is_error is False

    with BackgroundServer(app) as background:
        anyio.run(session, background.url + "/mcp")
    assert current_identity() is None  # nothing leaks out of the call
    (identity,) = seen
    assert identity is not None
    assert identity.subject == "alice\nnot a new line"
    assert identity.method == "jwt" and identity.client_id == "agent-1"
    assert identity.issuer == issuer.url + "/"
    assert identity.scopes == frozenset({"tools:call"})
    assert identity.claims["tenant_id"] == "t-42" and identity.claims["groups"] == ["ops"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        identity.subject = "mallory"  # type: ignore[misc]
    with pytest.raises(TypeError):
        identity.claims["tenant_id"] = "t-1"
    assert token not in repr(identity)
