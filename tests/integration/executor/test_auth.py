"""Every auth type against the real server, OAuth2 against a local token endpoint."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from typing import Any

import pytest
from toolcat.executor import Executor, PreparedRequest, ToolCall
from toolcat.tests.support import CatalogFiles

SERVICE = """
toolcat: 1
services:
  api:
    base_url: {url}
    auth: {auth}
tools:
  - name: echo
    description: Echo.
    service: api
    method: GET
    path: /echo/x
    parameters:
      q: {{type: string, required: false, description: q}}
  - name: protected
    description: Needs a token.
    service: api
    method: GET
    path: /protected
"""

ENV = {
    "TOKEN": "tok-abcdef123",
    "USER": "ops",
    "PASSWORD": "pa55-word!",
    "KEY": "key-42-secret",
    "CLIENT_ID": "client-1",
    "CLIENT_SECRET": "s3cret-value",
}
SECRETS = (
    "tok-abcdef123",
    "pa55-word!",
    "key-42-secret",
    "s3cret-value",
    base64.b64encode(b"ops:pa55-word!").decode(),
)

STATIC = [
    (
        "{type: bearer, token: '${TOKEN}'}",
        lambda s: s["headers"]["authorization"] == "Bearer tok-abcdef123",
    ),
    (
        "{type: basic, username: '${USER}', password: '${PASSWORD}'}",
        lambda s: (
            s["headers"]["authorization"] == "Basic " + base64.b64encode(b"ops:pa55-word!").decode()
        ),
    ),
    (
        "{type: api_key, in: header, name: X-Api-Key, value: '${KEY}'}",
        lambda s: s["headers"]["x-api-key"] == "key-42-secret",
    ),
    (
        "{type: api_key, in: query, name: api_key, value: '${KEY}'}",
        lambda s: s["query"] == "q=1&api_key=key-42-secret",
    ),
    (
        "{type: api_key, in: cookie, name: session, value: '${KEY}'}",
        lambda s: s["cookies"] == {"session": "key-42-secret"},
    ),
]


def _seen(state: Any) -> dict[str, Any]:
    entry = dict(state.seen[-1])
    entry["headers"] = dict(entry["headers"])
    return entry


@pytest.mark.parametrize(
    "auth,check", STATIC, ids=["bearer", "basic", "key-header", "key-query", "key-cookie"]
)
def test_static_auth_reaches_the_server_and_never_the_model(
    server: Any, catalog_files: CatalogFiles, auth: str, check: Any
) -> None:
    url, state = server
    with Executor(catalog_files.catalog(SERVICE.format(url=url, auth=auth)), env=ENV) as ex:
        result = ex.execute(ToolCall("echo", {"q": "1"}))
        prepared = ex.prepare(ToolCall("echo", {"q": "1"}))
    assert result.ok and check(_seen(state))
    assert isinstance(prepared, PreparedRequest)
    shown = result.content + json.dumps(result.data) + json.dumps(prepared.to_dict())
    for secret in SECRETS:
        assert secret not in shown


def test_missing_variable_is_named_and_nothing_is_sent(
    server: Any, catalog_files: CatalogFiles
) -> None:
    url, state = server
    with Executor(
        catalog_files.catalog(
            SERVICE.format(url=url, auth="{type: bearer, token: '${NOPE_TOKEN}'}")
        ),
        env=ENV,
    ) as ex:
        result = ex.execute(ToolCall("echo", {}))
    assert result.error is not None
    assert result.error.type == "missing_variable" and "NOPE_TOKEN" in result.error.msg
    assert state.seen == []


OAUTH = (
    "{{type: oauth2_client_credentials, token_url: '{url}/token', client_id: '${{CLIENT_ID}}', "
    "client_secret: '${{CLIENT_SECRET}}', scopes: [read, write]}}"
)


@pytest.fixture()
def oauth_catalog(server: Any, catalog_files: CatalogFiles) -> Any:
    url, _ = server
    return catalog_files.catalog(SERVICE.format(url=url, auth=OAUTH.format(url=url)))


def test_oauth_token_fetched_once_and_cached(server: Any, oauth_catalog: Any) -> None:
    _, state = server
    with Executor(oauth_catalog, env=ENV) as ex:
        results = [ex.execute(ToolCall("protected", {})) for _ in range(3)]
    assert all(r.ok for r in results) and state.tokens_issued == 1
    token_request = state.seen[0]
    assert token_request["path"] == "/token" and "scope=read+write" in token_request["body"]
    assert all("tok-1" not in r.content for r in results)  # the token is a secret too


def test_oauth_token_refreshed_after_expiry(server: Any, oauth_catalog: Any) -> None:
    _, state = server
    state.token_lifetime = 1  # counts as expired after half its life
    with Executor(oauth_catalog, env=ENV) as ex:
        assert ex.execute(ToolCall("protected", {})).ok
        time.sleep(0.6)
        assert ex.execute(ToolCall("protected", {})).ok
    assert state.tokens_issued == 2


def test_oauth_refreshed_once_on_401(server: Any, oauth_catalog: Any) -> None:
    _, state = server
    with Executor(oauth_catalog, env=ENV) as ex:
        assert ex.execute(ToolCall("protected", {})).ok
        state.valid_tokens.clear()  # the API revokes the token
        assert ex.execute(ToolCall("protected", {})).ok
        assert state.tokens_issued == 2
        state.token_lifetime = 3600
        # a token endpoint whose tokens are always refused: one refresh, then the 401 is the result
        state.valid_tokens.clear()
        original = state.valid_tokens
        state.valid_tokens = _Refusing()
        result = ex.execute(ToolCall("protected", {}))
        state.valid_tokens = original
    assert result.error is not None
    assert result.status == 401 and result.error.type == "http_error"
    assert state.tokens_issued == 3


class _Refusing(set[str]):
    def add(self, item: str) -> None:
        pass


def test_concurrent_refreshes_are_coalesced(server: Any, oauth_catalog: Any) -> None:
    _, state = server
    state.token_delay = 0.2

    async def go() -> Any:
        async with Executor(oauth_catalog, env=ENV) as ex:
            return await ex.aexecute_many([ToolCall("protected", {}, str(i)) for i in range(10)])

    results = asyncio.run(go())
    assert all(r.ok for r in results) and state.tokens_issued == 1
    with Executor(oauth_catalog, env=ENV) as ex:
        results = ex.execute_many([ToolCall("protected", {}, str(i)) for i in range(10)])
    assert all(r.ok for r in results) and state.tokens_issued == 2


def test_oauth_bad_secret_is_an_error_without_the_secret(server: Any, oauth_catalog: Any) -> None:
    _, state = server
    with Executor(oauth_catalog, env={**ENV, "CLIENT_SECRET": "wrong-secret-1"}) as ex:
        result = ex.execute(ToolCall("protected", {}))
        prepared = ex.prepare(ToolCall("protected", {}))
    assert result.error is not None
    assert result.error.type == "http_error" and "token endpoint" in result.error.msg
    assert "wrong-secret-1" not in result.content
    assert (
        isinstance(prepared, PreparedRequest) and prepared.headers["Authorization"] == "Bearer ***"
    )
    assert [s["path"] for s in state.seen] == ["/token"]
