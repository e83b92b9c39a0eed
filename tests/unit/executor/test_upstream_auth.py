"""Upstream credentials for the caller: forwarding its token, exchanging it (RFC 8693).

The caller's token goes upstream only to a service marked for it, only over https or
to loopback; an exchange is cached per subject and bounded; no token shows anywhere.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from toolcat.catalog import BearerAuth, ForwardCallerToken, NoAuth, TokenExchange
from toolcat.executor import (
    CallerIdentity,
    Executor,
    ExecutorSettings,
    PreparedRequest,
    TokenCache,
    ToolCall,
    ToolContext,
)
from toolcat.executor.http._exchange import ExchangeConfig, ExchangeGrant

INBOUND = "inbound-Tok.en_of-alice~123"
EXCHANGED = "exchanged-for-orders-456"
ENV = {"XSECRET": "exchange-client-secret", "T": "own-service-token"}
EXCHANGE = TokenExchange(
    "https://idp.test/token",
    "toolcat",
    "${XSECRET}",
    audience="orders",
    resource="https://api.test/v1",
    scopes=("orders:read",),
)
HTTPS = "https://api.test/v1"
ALICE = CallerIdentity.make(subject="alice", method="jwt", claims={"sub": "alice"})


def ctx(token: str | None = INBOUND, identity: CallerIdentity | None = ALICE) -> ToolContext:
    return ToolContext.make(identity, token=token)


class Idp:
    """A token endpoint (idp.test) and a service that echoes what it received."""

    def __init__(self, answer: dict[str, Any] | None = None, status: int = 200) -> None:
        self.exchanges: list[dict[str, list[str]]] = []
        self.auth: list[str] = []
        self.upstream: list[httpx.Request] = []
        self.answer = answer
        self.status = status
        self.issued = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        if request.url.host == "idp.test":
            form = parse_qs(request.content.decode())
            self.exchanges.append(form)
            self.auth.append(request.headers.get("authorization", ""))
            if self.answer is not None:
                return httpx.Response(self.status, json=self.answer)
            self.issued += 1
            subject = form["subject_token"][0]
            return httpx.Response(
                200,
                json={
                    "access_token": f"{EXCHANGED}-{self.issued}-{subject[:5]}",
                    "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
                    "token_type": "Bearer",
                    "expires_in": 600,
                },
            )
        self.upstream.append(request)
        # an upstream that echoes the credential it got: the result must mask it
        return httpx.Response(200, json={"got": request.headers.get("authorization")})

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))


def _everything(request: httpx.Request) -> str:
    return f"{request.url} {request.headers} {request.content!r}"


def test_the_inbound_token_is_never_sent_by_default(f: Any) -> None:
    idp = Idp()
    for auth in (NoAuth(), BearerAuth("${T}")):
        cat = f.catalog(f.tool(), base_url=HTTPS, auth=auth)
        with Executor(cat, ExecutorSettings(client=idp.client(), env=ENV)) as ex:
            assert ex.execute(ToolCall("t", {}), context=ctx()).ok
        assert INBOUND not in _everything(idp.upstream[-1])
    assert idp.upstream[-1].headers["authorization"] == "Bearer own-service-token"
    assert idp.exchanges == []


def test_forward_sends_the_callers_token_and_masks_its_echo(
    f: Any, caplog: pytest.LogCaptureFixture
) -> None:
    idp = Idp()
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=ForwardCallerToken())
    with (
        caplog.at_level(logging.DEBUG),
        Executor(cat, ExecutorSettings(client=idp.client(), env=ENV)) as ex,
    ):
        result = ex.execute(ToolCall("t", {}), context=ctx())
    assert result.ok, result.content
    assert idp.upstream[0].headers["authorization"] == f"Bearer {INBOUND}"
    assert INBOUND not in result.content and "Bearer ***" in result.content
    assert INBOUND not in caplog.text


@pytest.mark.parametrize(
    "base,sent",
    [
        ("https://api.test/v1", True),
        ("http://127.0.0.1:9/v1", True),
        ("http://localhost:9/v1", True),
        ("http://[::1]:9/v1", True),
        ("http://api.test/v1", False),
        ("http://10.0.0.1/v1", False),
        ("http://localhost.evil.test/v1", False),
    ],
)
def test_forward_only_over_https_or_loopback(f: Any, base: str, sent: bool) -> None:
    idp = Idp()
    # a ${VAR} base URL passes the load-time check (TC075): the run-time one decides
    cat = f.catalog(f.tool(), base_url="${BASE}", auth=ForwardCallerToken())
    with Executor(cat, ExecutorSettings(client=idp.client(), env={"BASE": base})) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx())
    assert bool(idp.upstream) is sent
    if not sent:
        assert result.error is not None and result.error.type == "refused_by_policy"
        assert "https" in result.error.msg and INBOUND not in result.content


@pytest.mark.parametrize(
    "token",
    [None, "", "two words", "line\r\nX-Evil: 1", "tab\there", "é-not-ascii", "x" * 9000],
)
def test_forward_without_a_sendable_token_sends_nothing(f: Any, token: str | None) -> None:
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=ForwardCallerToken())
    with Executor(
        cat, ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(f.forbid)))
    ) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx(token))
    assert result.error is not None and result.error.type == "refused_by_policy"
    assert "not sent" in result.error.msg
    if token:
        assert token not in result.content


def test_exchange_posts_rfc8693_and_sends_only_the_exchanged_token(f: Any) -> None:
    idp = Idp()
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
    with Executor(cat, ExecutorSettings(client=idp.client(), env=ENV)) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx())
    assert result.ok, result.content
    (form,) = idp.exchanges
    assert form == {
        "grant_type": ["urn:ietf:params:oauth:grant-type:token-exchange"],
        "subject_token": [INBOUND],
        "subject_token_type": ["urn:ietf:params:oauth:token-type:access_token"],
        "requested_token_type": ["urn:ietf:params:oauth:token-type:access_token"],
        "audience": ["orders"],
        "resource": ["https://api.test/v1"],
        "scope": ["orders:read"],
    }
    assert idp.auth == ["Basic dG9vbGNhdDpleGNoYW5nZS1jbGllbnQtc2VjcmV0"]  # toolcat:secret
    (sent,) = idp.upstream
    assert sent.headers["authorization"].startswith(f"Bearer {EXCHANGED}-1")
    assert INBOUND not in _everything(sent)
    assert EXCHANGED not in result.content and "exchange-client-secret" not in result.content


def test_exchange_is_cached_per_subject_and_token(f: Any) -> None:
    idp = Idp()
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
    bob = CallerIdentity.make(subject="bob", method="jwt")
    with Executor(cat, ExecutorSettings(client=idp.client(), env=ENV)) as ex:
        for _ in range(3):
            assert ex.execute(ToolCall("t", {}), context=ctx()).ok
        assert len(idp.exchanges) == 1
        assert ex.execute(ToolCall("t", {}), context=ctx("bobs-token-1", bob)).ok
        assert ex.execute(ToolCall("t", {}), context=ctx("alices-new-token")).ok
        assert len(idp.exchanges) == 3
    tokens = [r.headers["authorization"] for r in idp.upstream]
    assert len(set(tokens[:3])) == 1 and len(set(tokens)) == 3


def test_exchange_without_a_caller_token_sends_nothing(f: Any) -> None:
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
    client = httpx.Client(transport=httpx.MockTransport(f.forbid))
    with Executor(cat, ExecutorSettings(client=client, env=ENV)) as ex:
        result = ex.execute(ToolCall("t", {}))
    assert result.error is not None and result.error.type == "refused_by_policy"


def test_exchange_endpoint_must_be_https_or_loopback_at_run_time(f: Any) -> None:
    auth = TokenExchange("${IDP}/token", "toolcat", "${XSECRET}", audience="orders")
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=auth)
    client = httpx.Client(transport=httpx.MockTransport(f.forbid))
    with Executor(
        cat, ExecutorSettings(client=client, env={**ENV, "IDP": "http://idp.test"})
    ) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx())
    assert result.error is not None and result.error.type == "refused_by_policy"
    assert "token_url" in result.error.msg


@pytest.mark.parametrize(
    "status,answer,kind",
    [
        (400, {"error": "invalid_grant", "error_description": INBOUND}, "http_error"),
        (500, {"error": "server_error"}, "http_error"),
        (200, {"token": "no access_token"}, "http_error"),
        (200, {"access_token": 42}, "http_error"),
        (200, {"access_token": "bad\r\nX-Injected: 1"}, "invalid_response"),
        (200, {"access_token": "has space"}, "invalid_response"),
        (200, {"access_token": "x" * 10_000}, "invalid_response"),
        (200, {"access_token": "abc", "token_type": "DPoP"}, "invalid_response"),
    ],
)
def test_exchange_failures_are_typed_and_closed(
    f: Any, status: int, answer: dict[str, Any], kind: str
) -> None:
    idp = Idp(answer, status)
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
    with Executor(cat, ExecutorSettings(client=idp.client(), env=ENV)) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx())
    assert result.error is not None and result.error.type == kind
    assert "token-exchange endpoint" in result.error.msg
    assert idp.upstream == []  # fail closed: nothing reaches the service
    for secret in (INBOUND, "exchange-client-secret", "X-Injected"):
        assert secret not in result.content


@pytest.mark.parametrize(
    "exc,kind",
    [(httpx.ReadTimeout("slow"), "timeout"), (httpx.ConnectError("down"), "connection_error")],
)
def test_exchange_endpoint_down_or_slow(f: Any, exc: Exception, kind: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "idp.test":
            raise exc
        raise AssertionError("the service must not be called")

    cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
    with Executor(
        cat, ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(handler)), env=ENV)
    ) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx())
    assert result.error is not None and result.error.type == kind
    assert "token-exchange endpoint" in result.error.msg and INBOUND not in result.content


def test_exchange_timeout_is_bounded_by_its_setting(f: Any) -> None:
    seen: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "idp.test":
            seen.append(request.extensions["timeout"])
        return Idp()(request)

    auth = TokenExchange("https://idp.test/token", "c", "${XSECRET}", audience="o", timeout=0.5)
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=auth)
    with Executor(
        cat, ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(handler)), env=ENV)
    ) as ex:
        assert ex.execute(ToolCall("t", {}), context=ctx()).ok
    assert seen and all(v is not None and v <= 0.5 for v in seen[0].values())


def test_a_401_with_an_exchanged_token_exchanges_once_more(f: Any) -> None:
    idp = Idp()
    answers = iter([401, 200])

    def handler(request: httpx.Request) -> httpx.Response:
        response = idp(request)
        if request.url.host == "idp.test":
            return response
        return httpx.Response(next(answers), json={})

    cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
    with Executor(
        cat, ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(handler)), env=ENV)
    ) as ex:
        assert ex.execute(ToolCall("t", {}), context=ctx()).ok
    assert len(idp.exchanges) == 2


def test_concurrent_tasks_of_one_subject_share_one_exchange(f: Any) -> None:
    idp = Idp()

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "idp.test":
            await asyncio.sleep(0.05)
        return idp(request)

    async def go() -> list[Any]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
            ex = Executor(cat, ExecutorSettings(async_client=client, env=ENV))
            calls = [ToolCall("t", {}, str(i)) for i in range(12)]
            return await ex.aexecute_many(calls, context=ctx())

    results = asyncio.run(go())
    assert all(r.ok for r in results) and len(idp.exchanges) == 1


def test_worker_threads_carry_the_token(f: Any) -> None:
    idp = Idp()
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=ForwardCallerToken())
    with Executor(cat, ExecutorSettings(client=idp.client(), max_concurrency=4)) as ex:
        results = ex.execute_many([ToolCall("t", {}, str(i)) for i in range(6)], context=ctx())
    assert all(r.ok for r in results)
    assert {r.headers["authorization"] for r in idp.upstream} == {f"Bearer {INBOUND}"}


@pytest.mark.parametrize("auth", [ForwardCallerToken(), EXCHANGE])
@pytest.mark.parametrize("token", [None, INBOUND])
def test_dry_run_masks_and_exchanges_nothing(f: Any, auth: Any, token: str | None) -> None:
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=auth)
    client = httpx.Client(transport=httpx.MockTransport(f.forbid))
    with Executor(cat, ExecutorSettings(client=client, env=ENV)) as ex:
        prepared = ex.prepare(ToolCall("t", {}), context=ctx(token))
    assert isinstance(prepared, PreparedRequest)
    assert prepared.headers["Authorization"] == "Bearer ***"
    assert INBOUND not in repr(prepared.to_dict())


def test_the_context_never_shows_its_token() -> None:
    context = ctx()
    assert INBOUND not in repr(context) and INBOUND not in str(context)
    assert context == ctx("another-token")  # the token is no part of equality either


def _grant(token: str, subject: str = "alice", **config: Any) -> ExchangeGrant:
    settings = ExchangeConfig("https://idp.test/token", "toolcat", "s", audience="o", **config)
    return ExchangeGrant(settings, "svc", subject, token)


def test_exchanged_tokens_expire_and_are_capped() -> None:
    now = [1000.0]
    idp = Idp()
    client = idp.client()
    cache = TokenCache(clock=lambda: now[0])
    timeout = httpx.Timeout(5).as_dict()
    first = cache.get(client, _grant("tok-a"), timeout)
    now[0] += 500  # expires_in 600 minus the 30 s margin: still good
    assert cache.get(client, _grant("tok-a"), timeout) == first
    now[0] += 100
    assert cache.get(client, _grant("tok-a"), timeout) != first
    capped = _grant("tok-b", max_lifetime=10)
    token = cache.get(client, capped, timeout)
    now[0] += 11
    assert cache.get(client, capped, timeout) != token
    # never past the caller's own token: its exp is the end of the exchanged one too
    short = ExchangeGrant(capped.config, "svc", "carol", "tok-c", expires_at=now[0] + 5)
    token = cache.get(client, short, timeout)
    now[0] += 6
    assert cache.get(client, short, timeout) != token
    assert cache.requests == len(idp.exchanges) == 6


def test_the_cache_is_bounded() -> None:
    idp = Idp()
    cache = TokenCache(max_tokens=50)
    client = idp.client()
    timeout = httpx.Timeout(5).as_dict()
    for i in range(200):
        cache.get(client, _grant(f"tok-{i}", subject=f"user-{i}"), timeout)
    assert len(cache._tokens) <= 50 and len(cache._locks) <= 50
    before = len(idp.exchanges)
    cache.get(client, _grant("tok-199", subject="user-199"), timeout)  # the newest is kept
    assert len(idp.exchanges) == before


def test_the_exchanged_token_never_outlives_the_callers(f: Any) -> None:
    """The ``exp`` claim of the verified caller bounds the exchanged token's cache life."""
    idp = Idp()
    cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
    expiring = CallerIdentity.make(subject="dave", method="jwt", claims={"exp": time.time() - 1})
    with Executor(cat, ExecutorSettings(client=idp.client(), env=ENV)) as ex:
        for _ in range(2):
            assert ex.execute(ToolCall("t", {}), context=ctx("daves-token", expiring)).ok
    assert len(idp.exchanges) == 2  # already expired: never reused


class _TwoCallModel:
    """Asks for ``calls`` once, then answers; keeps the tool messages it read."""

    provider = "openai"
    model = "scripted"

    def __init__(self, *calls: ToolCall) -> None:
        self.calls = calls
        self.read: list[Any] = []

    def user_message(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def tool_specs(self, tools: Any) -> list[dict[str, Any]]:
        return [{"name": t.name} for t in tools]

    def result_messages(self, results: Any) -> list[dict[str, Any]]:
        from toolcat.executor import format_result

        return [format_result("openai", r) for r in results]

    async def create(self, messages: Any, **_: Any) -> Any:
        from toolcat.executor.agent import ModelTurn

        if not self.read:
            self.read.append(None)
            return ModelTurn({"role": "assistant", "content": ""}, "", self.calls)
        self.read = [m for m in messages if m.get("role") == "tool"]
        return ModelTurn({"role": "assistant", "content": "done"}, "done")

    async def aclose(self) -> None:
        return None


def test_the_agent_loop_carries_the_token(f: Any) -> None:
    from toolcat.executor.agent import AgentLoop, LoopSettings

    idp = Idp()
    cat = _two_services(f)
    model = _TwoCallModel(ToolCall("fwd", {}, "c1"), ToolCall("exc", {}, "c2"))

    async def go() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(idp)) as client:
            executor = Executor(cat, ExecutorSettings(async_client=client, env=ENV))
            await AgentLoop(model, executor, LoopSettings(context=ctx())).arun("go")

    asyncio.run(go())
    sent = sorted(r.headers["authorization"] for r in idp.upstream)
    assert sent[0].startswith(f"Bearer {EXCHANGED}") and sent[1] == f"Bearer {INBOUND}"
    assert len(model.read) == 2
    for message in model.read:
        assert INBOUND not in message["content"] and EXCHANGED not in message["content"]
        assert "Bearer ***" in message["content"]


ODD = 'ab/cd+ef=<gh>&ij~kl-mn_op.qr"st\\uv'


def _go(token: str, hexes: str) -> str:
    """JSON as Go's encoding/json writes it: <, > and & as \\u escapes."""
    text = token.replace("\\", "\\\\").replace('"', '\\"')
    for ch in "<>&":
        text = text.replace(ch, "\\u" + hexes.format(ord(ch)))
    return text


@pytest.mark.parametrize(
    "echo",
    [
        lambda t: t,
        lambda t: t.replace("\\", "\\\\").replace('"', '\\"'),
        lambda t: t.replace("\\", "\\\\").replace('"', '\\"').replace("/", "\\/"),
        lambda t: _go(t, "{:04x}"),
        lambda t: _go(t, "{:04X}"),
        lambda t: __import__("urllib.parse").parse.quote(t, safe=""),
        lambda t: __import__("urllib.parse").parse.quote(t, safe="").lower(),
    ],
    ids=["plain", "json", "json-slash", "go-html", "go-html-upper", "percent", "percent-lower"],
)
def test_echoes_of_a_forwarded_token_are_masked(f: Any, echo: Any) -> None:
    from toolcat.executor._redact import Redactor

    text = f"got: {echo(ODD)} end"
    redactor = Redactor()
    redactor.add_token(ODD)
    masked = redactor(text)
    assert masked.startswith("got: ") and masked.endswith(" end") and "***" in masked
    assert "gh" not in masked and "ij~kl" not in masked


def test_a_long_caller_token_costs_no_pattern_per_call() -> None:
    """A JWT-sized token that changes per caller is masked without compiling a regex."""
    from toolcat.executor._redact import Redactor

    text = "an echo with escapes \\u00e9 %20 + and the token in it: "
    start = time.perf_counter()
    for i in range(50):
        token = f"eyJ{i:04d}" + "a-b_" * 250  # about 1 KB, another per caller
        redactor = Redactor()
        redactor.add_token(token)
        masked = redactor(text + token)
        assert token not in masked and masked.endswith("***")
    # a compiled per-character pattern costs about 0.3 s per token on a quiet machine
    assert (time.perf_counter() - start) / 50 < 0.05


@pytest.mark.parametrize("auth", [ForwardCallerToken(), EXCHANGE], ids=["forward", "exchange"])
@pytest.mark.parametrize(
    "target",
    [
        "https://evil.test/steal",
        "http://api.test/v1/x",  # the same host over plain http
        "https://api.test/other",  # outside the base path
        "https://api.test.evil.test/v1/x",
    ],
)
def test_the_callers_credential_never_follows_a_redirect_elsewhere(
    f: Any, auth: Any, target: str
) -> None:
    idp = Idp()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "idp.test":
            return idp(request)
        request.read()
        idp.upstream.append(request)
        if request.url.path == "/v1/items":
            return httpx.Response(302, headers={"Location": target})
        return httpx.Response(200, json={})

    cat = f.catalog(f.tool(), base_url=HTTPS, auth=auth)
    with Executor(
        cat, ExecutorSettings(client=httpx.Client(transport=httpx.MockTransport(handler)), env=ENV)
    ) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx())
    assert result.error is not None and result.error.type == "refused_by_policy"
    assert [str(r.url) for r in idp.upstream] == ["https://api.test/v1/items"]


def test_no_parameter_can_read_the_token(tmp_path: Any) -> None:
    from toolcat.loader import load

    (tmp_path / "c.yaml").write_text(
        """\
toolcat: 1
services:
  svc: {base_url: "https://api.test/v1"}
tools:
  - name: t
    description: T.
    service: svc
    method: GET
    path: /items
    parameters:
      token: {type: string, from: context.token}
      tok: {type: string, from: claims.token, required: false}
"""
    )
    idp = Idp()
    with Executor(load([tmp_path]), ExecutorSettings(client=idp.client())) as ex:
        result = ex.execute(ToolCall("t", {}), context=ctx())
        exported = json.dumps(ex.catalog["t"].input_schema)
    assert result.error is not None and result.error.type == "refused_by_policy"
    assert "context.token" in result.error.msg and idp.upstream == []
    assert "token" not in exported


def test_no_token_in_any_span(f: Any) -> None:
    from opentelemetry.sdk import trace as sdk_trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    idp = Idp()
    cat = _two_services(f)
    with Executor(
        cat, ExecutorSettings(client=idp.client(), env=ENV, tracer_provider=provider)
    ) as ex:
        assert ex.execute(ToolCall("fwd", {}), context=ctx()).ok
        assert ex.execute(ToolCall("exc", {}), context=ctx()).ok
        failing = Idp({"error": "invalid_grant", "error_description": INBOUND}, 400)
        ex.http._client = failing.client()  # the next exchange fails: its span too
        assert not ex.execute(ToolCall("exc", {}), context=ctx("another-caller-token")).ok
    spans = exporter.get_finished_spans()
    assert len(spans) == 3
    dumped = " ".join(span.to_json() for span in spans)
    exchanged = [r.headers["authorization"].removeprefix("Bearer ") for r in idp.upstream]
    for secret in (INBOUND, "another-caller-token", "exchange-client-secret", *exchanged):
        assert secret not in dumped


def _two_services(f: Any) -> Any:
    """Tool ``fwd`` on a forwarding service, ``exc`` on an exchanging one."""
    from toolcat.catalog import Catalog, Service

    services = [
        Service("fw", HTTPS, auth=ForwardCallerToken()),
        Service("ex", HTTPS, auth=EXCHANGE),
    ]
    return Catalog([f.tool("fwd", service="fw"), f.tool("exc", service="ex")], services)


def test_callers_queued_behind_a_failing_exchange_fail_with_it(f: Any) -> None:
    """A slow endpoint: the calls that waited on the one exchange fail at once with its
    error, instead of each waiting out another timeout in turn."""
    asked = []

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "idp.test":
            asked.append(1)
            await asyncio.sleep(0.3)
            raise httpx.ReadTimeout("slow", request=request)
        raise AssertionError("the service must not be called")

    async def go() -> tuple[list[Any], float]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            cat = f.catalog(f.tool(), base_url=HTTPS, auth=EXCHANGE)
            ex = Executor(cat, ExecutorSettings(async_client=client, env=ENV))
            start = time.perf_counter()
            calls = [ToolCall("t", {}, str(i)) for i in range(8)]
            results = await ex.aexecute_many(calls, context=ctx())
            return results, time.perf_counter() - start

    results, elapsed = asyncio.run(go())
    assert [r.error.type if r.error else None for r in results] == ["timeout"] * 8
    assert len(asked) == 1 and elapsed < 0.3 * 4  # one wait, not eight in turn
