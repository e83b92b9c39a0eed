"""Auth providers: headers and placement, ${VAR} at call time, the OAuth2 token cache."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from toolcat.catalog import ApiKeyAuth, BasicAuth, BearerAuth, OAuth2ClientCredentials
from toolcat.executor import Executor, ExecutorSettings, TokenCache, ToolCall
from toolcat.executor._flow import adrive, drive
from toolcat.executor.http._auth import OAuthConfig, TokenError

OAUTH = OAuth2ClientCredentials("https://auth.test/token", "${CID}", "${CSECRET}", ("a", "b"))
ENV = {"CID": "me", "CSECRET": "very-secret", "T": "tkn-123"}


def test_env_is_read_at_call_time(f: Any) -> None:
    env: dict[str, str] = {}
    rec = f.Recorder()
    with Executor(
        f.catalog(f.tool(), auth=BearerAuth("${T}")), ExecutorSettings(client=rec.client(), env=env)
    ) as ex:
        first = ex.execute(ToolCall("t", {}))
        env["T"] = "now-set"
        second = ex.execute(ToolCall("t", {}))
    assert first.error is not None
    assert first.error.type == "missing_variable" and first.error.msg.startswith(
        "environment variable T is not set"
    )
    assert second.ok and rec.last.headers["authorization"] == "Bearer now-set"
    assert len(rec.requests) == 1


def test_os_environ_is_the_default(f: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCAT_TEST_TOKEN", "from-env")
    rec = f.Recorder()
    with Executor(
        f.catalog(f.tool(), auth=BearerAuth("${TOOLCAT_TEST_TOKEN}")),
        ExecutorSettings(client=rec.client()),
    ) as ex:
        assert ex.execute(ToolCall("t", {})).ok
    assert rec.last.headers["authorization"] == "Bearer from-env"


@pytest.mark.parametrize(
    "auth,check",
    [
        (BasicAuth("u", "${T}"), lambda q: q.headers["authorization"] == "Basic dTp0a24tMTIz"),
        (ApiKeyAuth("header", "X-Key", "${T}"), lambda q: q.headers["x-key"] == "tkn-123"),
        (ApiKeyAuth("query", "k", "${T}"), lambda q: q.url.params["k"] == "tkn-123"),
        (ApiKeyAuth("cookie", "k", "${T}"), lambda q: q.headers["cookie"] == "k=tkn-123"),
    ],
)
def test_static_auth(f: Any, auth: Any, check: Any) -> None:
    rec = f.Recorder(lambda q: httpx.Response(500, text=f"echo {q.url} {q.headers}"))
    with Executor(
        f.catalog(f.tool(), auth=auth), ExecutorSettings(client=rec.client(), env=ENV)
    ) as ex:
        result = ex.execute(ToolCall("t", {}))
    assert check(rec.last)
    assert "tkn-123" not in result.content and "dTp0a24tMTIz" not in result.content


def test_tool_auth_overrides_service_auth(f: Any) -> None:
    from toolcat.catalog import NoAuth

    rec = f.Recorder()
    cat = f.catalog(f.tool("open", auth=NoAuth()), f.tool("closed"), auth=BearerAuth("${T}"))
    with Executor(cat, ExecutorSettings(client=rec.client(), env=ENV)) as ex:
        ex.execute(ToolCall("open", {}))
        assert "authorization" not in rec.last.headers
        ex.execute(ToolCall("closed", {}))
        assert rec.last.headers["authorization"] == "Bearer tkn-123"


class TokenServer:
    def __init__(self, lifetime: Any = 3600, delay: float = 0.0) -> None:
        self.issued = 0
        self.lifetime = lifetime
        self.delay = delay
        self.valid: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == "auth.test":
            if self.delay:
                time.sleep(self.delay)
            with self.lock:
                self.issued += 1
                token = f"t{self.issued}"
            self.valid.add(token)
            body: dict[str, Any] = {"access_token": token}
            if self.lifetime is not None:
                body["expires_in"] = self.lifetime
            return httpx.Response(200, json=body)
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        return httpx.Response(200 if token in self.valid else 401, json={"token": token})


def test_token_request_shape(f: Any) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        request.read()
        seen.append(request)
        return (
            httpx.Response(200, json={"access_token": "x"})
            if request.url.host == "auth.test"
            else httpx.Response(200, json={})
        )

    with Executor(
        f.catalog(f.tool(), auth=OAUTH),
        ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(handler)), env=ENV),
    ) as ex:
        assert ex.execute(ToolCall("t", {})).ok
    token_request = seen[0]
    assert (
        token_request.method == "POST"
        and token_request.content == b"grant_type=client_credentials&scope=a+b"
    )
    assert token_request.headers["authorization"] == "Basic bWU6dmVyeS1zZWNyZXQ="
    assert seen[1].headers["authorization"] == "Bearer x"


def test_token_cache_expiry_with_a_clock() -> None:
    now = [1000.0]
    cache = TokenCache(clock=lambda: now[0])
    server = TokenServer(lifetime=100)
    client = httpx.Client(transport=httpx.MockTransport(server))
    config = OAuthConfig("https://auth.test/token", "me", "s")
    timeout = httpx.Timeout(5).as_dict()
    assert cache.get(client, config, timeout) == "t1"
    now[0] += 60
    assert cache.get(client, config, timeout) == "t1"
    now[0] += 11  # past expires_in minus the 30 s margin
    assert cache.get(client, config, timeout) == "t2"
    assert cache.get(client, config, timeout, stale="t2") == "t3"
    assert cache.requests == 3


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_the_token_flow_is_one_for_both_drivers(driver: str) -> None:
    """The same steps, driven in this thread or on an event loop: cache, expiry, a stale
    token, a failure held for the callers behind it, an endpoint that is not there."""
    now = [1000.0]
    cache = TokenCache(clock=lambda: now[0])
    server = TokenServer(lifetime=100)
    down = OAuthConfig("https://down.test/token", "me", "s")
    config = OAuthConfig("https://auth.test/token", "me", "s")
    timeout = httpx.Timeout(5).as_dict()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "down.test":
            raise httpx.ConnectError("refused", request=request)
        return server(request) if server.issued < 3 else httpx.Response(503)

    def run(grant: OAuthConfig, stale: str | None = None) -> str:
        if driver == "sync":
            with httpx.Client(transport=httpx.MockTransport(handler)) as client:
                return drive(cache.flow(client, grant, timeout, stale))

        async def go() -> str:
            async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
                return await adrive(cache.flow(client, grant, timeout, stale))

        return asyncio.run(go())

    assert run(config) == "t1"
    now[0] += 60
    assert run(config) == "t1"
    now[0] += 11  # past expires_in minus the 30 s margin
    assert run(config) == "t2"
    assert run(config, stale="t2") == "t3"
    with pytest.raises(TokenError) as failed:
        run(config, stale="t3")
    assert failed.value.error.msg == "the OAuth2 token endpoint answered HTTP 503"
    with pytest.raises(TokenError):  # held: the same error, without asking again
        run(config, stale="t3")
    assert cache.requests == 4
    with pytest.raises(TokenError) as unreachable:
        run(down)
    assert unreachable.value.error.type == "connection_error"


def test_token_without_lifetime_is_kept_until_rejected(f: Any) -> None:
    server = TokenServer(lifetime=None)
    with Executor(
        f.catalog(f.tool(), auth=OAUTH),
        ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(server)), env=ENV),
    ) as ex:
        assert ex.execute(ToolCall("t", {})).ok and ex.execute(ToolCall("t", {})).ok
        assert server.issued == 1
        server.valid.clear()
        assert ex.execute(ToolCall("t", {})).ok
        assert server.issued == 2


def test_threads_share_one_token_request(f: Any) -> None:
    server = TokenServer(delay=0.05)
    with Executor(
        f.catalog(f.tool(), auth=OAUTH),
        ExecutorSettings(
            client=httpx.Client(transport=httpx.MockTransport(server)), env=ENV, max_concurrency=8
        ),
    ) as ex:
        results = ex.execute_many([ToolCall("t", {}, str(i)) for i in range(16)])
    assert all(r.ok for r in results) and server.issued == 1


def test_tasks_share_one_token_request(f: Any) -> None:
    server = TokenServer()

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "auth.test":
            await asyncio.sleep(0.05)
        return server(request)

    async def go() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            ex = Executor(
                f.catalog(f.tool(), auth=OAUTH), ExecutorSettings(async_client=client, env=ENV)
            )
            return await ex.aexecute_many([ToolCall("t", {}, str(i)) for i in range(16)])

    results = asyncio.run(go())
    assert all(r.ok for r in results) and server.issued == 1


@pytest.mark.parametrize(
    "answer,kind",
    [
        (httpx.Response(401, json={"error": "invalid_client"}), "http_error"),
        (httpx.Response(200, json={"token": "no access_token"}), "http_error"),
        (httpx.Response(200, text="not json"), "http_error"),
    ],
)
def test_token_endpoint_failures(f: Any, answer: httpx.Response, kind: str) -> None:
    with Executor(
        f.catalog(f.tool(), auth=OAUTH),
        ExecutorSettings(
            client=httpx.Client(transport=httpx.MockTransport(lambda q: answer)), env=ENV
        ),
    ) as ex:
        result = ex.execute(ToolCall("t", {}))
    assert result.error is not None
    assert result.error.type == kind and "token endpoint" in result.error.msg
    assert "very-secret" not in result.content
