"""`toolcat serve --transport http` with authentication, attacked over real sockets.

The issuer (conftest) runs on 127.0.0.1 with keys made in the test; the server is a
`toolcat serve` subprocess whose catalog trusts it; clients are httpx and the MCP SDK.
"""

from __future__ import annotations

import base64
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from .conftest import RESOURCE, Issuer, Served

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def post(served: Served, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(served.url, json=INIT, headers={**ACCEPT, **(headers or {})}, timeout=20)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def challenge(response: httpx.Response) -> str:
    value = str(response.headers.get("www-authenticate", ""))
    assert value.startswith("Bearer "), value
    assert 'resource_metadata="http://toolcat.test/.well-known/oauth-protected-resource/mcp"' in (
        value
    )
    return value


def b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_metadata_is_served_without_a_token(served: Served, issuer: Issuer) -> None:
    base = served.url.removesuffix("/mcp")
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        answer = httpx.get(base + path, timeout=10)
        assert answer.status_code == 200
        document = answer.json()
        assert document["resource"] == RESOURCE
        assert document["authorization_servers"] == [issuer.url + "/"]
        assert document["scopes_supported"] == ["tools:call"]
        assert document["bearer_methods_supported"] == ["header"]


def test_missing_token_is_401_with_the_metadata_named(served: Served) -> None:
    answer = post(served)
    assert answer.status_code == 401
    value = challenge(answer)
    assert "error=" not in value  # RFC 6750 §3.1: no error code when no credentials came


@pytest.mark.parametrize(
    "header, status",
    [
        ("Basic YWxpY2U6c2VjcmV0", 401),  # another scheme: no bearer token
        ("Bearer", 400),
        ("Bearer ", 400),
        ("Bearer a b c", 400),
        ('Bearer "quoted"', 400),
        ("Bearer tok\u00e9n", 400),
    ],
)
def test_malformed_authorization_header(served: Served, header: str, status: int) -> None:
    # raw bytes on the socket: httpx refuses to send some of these headers
    url = httpx.URL(served.url)
    body = json.dumps(INIT).encode()
    request = (
        (
            f"POST {url.path} HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n"
        ).encode()
        + b"Authorization: "
        + header.encode("utf-8")
        + b"\r\n\r\n"
        + body
    )
    with socket.create_connection((url.host, url.port), timeout=20) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    assert head.split()[1] == str(status), head
    assert 'resource_metadata="http://toolcat.test/' in head


def test_two_authorization_headers_are_refused(served: Served, issuer: Issuer) -> None:
    token = issuer.token()
    answer = httpx.post(
        served.url,
        json=INIT,
        headers=[
            *ACCEPT.items(),
            ("Authorization", f"Bearer {token}"),
            ("Authorization", "Bearer x"),
        ],
        timeout=20,
    )
    assert answer.status_code == 400
    assert 'error="invalid_request"' in challenge(answer)


def _hs256_with_public_key(issuer: Issuer) -> str:
    pem = issuer.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    import hashlib
    import hmac

    header = b64({"alg": "HS256", "typ": "JWT", "kid": issuer.kid})
    now = int(time.time())
    claims = b64(
        {
            "iss": issuer.url + "/",
            "aud": RESOURCE,
            "sub": "mallory",
            "exp": now + 300,
            "scope": "tools:call",
        }
    )
    signature = hmac.new(pem, f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def _alg_none(issuer: Issuer) -> str:
    now = int(time.time())
    claims = {
        "iss": issuer.url + "/",
        "aud": RESOURCE,
        "sub": "mallory",
        "exp": now + 300,
        "scope": "tools:call",
    }
    return f"{b64({'alg': 'none', 'typ': 'JWT', 'kid': issuer.kid})}.{b64(claims)}."


BAD_TOKENS: dict[str, Callable[[Issuer], str]] = {
    "alg_none": _alg_none,
    "hs256_with_the_public_key": _hs256_with_public_key,
    "other_issuer": lambda i: i.token(iss="http://127.0.0.1:1/"),
    "other_audience": lambda i: i.token(aud="http://elsewhere.test/mcp"),
    "expired": lambda i: i.token(exp=int(time.time()) - 60, iat=int(time.time()) - 600),
    "not_yet_valid": lambda i: i.token(nbf=int(time.time()) + 600),
    "no_exp": lambda i: i.token(exp=None),
    "signed_by_another_key": lambda i: i.token(
        key=rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ),
    "oversized": lambda i: i.token(pad="x" * 9000),
    "alg_not_allowed": lambda i: jwt.encode(
        {"iss": i.url + "/", "aud": RESOURCE, "sub": "x", "exp": int(time.time()) + 60},
        i.key,
        algorithm="RS384",
        headers={"kid": i.kid},
    ),
    "iat_in_the_future": lambda i: i.token(iat=int(time.time()) + 600),
    "garbage": lambda i: "not.a.jwt",
    "unknown_opaque": lambda i: "opaque-token-nobody-issued",
}


@pytest.mark.parametrize("name", sorted(BAD_TOKENS))
def test_refused_tokens_get_401_invalid_token(served: Served, issuer: Issuer, name: str) -> None:
    token = BAD_TOKENS[name](issuer)
    answer = post(served, bearer(token))
    assert answer.status_code == 401, answer.text
    assert 'error="invalid_token"' in challenge(answer)
    assert token not in served.stderr()  # the reason is logged, never the token
    assert token not in answer.text


def test_missing_scope_is_403_insufficient_scope(served: Served, issuer: Issuer) -> None:
    answer = post(served, bearer(issuer.token(scope="profile")))
    assert answer.status_code == 403
    value = challenge(answer)
    assert 'error="insufficient_scope"' in value and 'scope="tools:call"' in value


def test_unknown_kid_refreshes_once_then_fails(served: Served, issuer: Issuer) -> None:
    assert post(served, bearer(issuer.token())).status_code == 200  # keys known
    time.sleep(1.1)  # past jwks_min_refresh
    before = len(issuer.jwks_fetches)
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    for kid in ("nope-1", "nope-2", "nope-3"):
        answer = post(served, bearer(issuer.token(key=stranger, headers={"kid": kid})))
        assert answer.status_code == 401
    assert len(issuer.jwks_fetches) - before == 1  # one refresh for three unknown kids


def test_a_rotated_key_is_found_by_one_refresh(served: Served, issuer: Issuer) -> None:
    assert post(served, bearer(issuer.token())).status_code == 200
    time.sleep(1.1)
    fresh = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer.extra_keys["k2"] = fresh
    try:
        answer = post(served, bearer(issuer.token(key=fresh, headers={"kid": "k2"})))
        assert answer.status_code == 200
    finally:
        issuer.extra_keys.clear()


@pytest.mark.parametrize(
    "headers",
    [
        {"kid": "../evil"},
        {"kid": "http://127.0.0.1/evil"},
        {"jku": "{url}/evil"},
        {"x5u": "{url}/evil"},
        {"kid": "k1", "jku": "{url}/evil"},
    ],
)
def test_a_token_never_makes_the_server_fetch_its_url(
    served: Served, issuer: Issuer, headers: dict[str, str]
) -> None:
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    filled = {k: v.replace("{url}", issuer.url) for k, v in headers.items()}
    answer = post(served, bearer(issuer.token(key=stranger, headers=filled)))
    assert answer.status_code == 401
    assert "/evil" not in issuer.jwks_fetches


def test_newlines_in_sub_forge_no_log_line(served: Served, issuer: Issuer) -> None:
    token = issuer.token(sub="alice\ntoolcat serve: FORGED admin logged in", scope="nothing")
    assert post(served, bearer(token)).status_code == 403
    stale = issuer.token(sub="bob\r\nFORGED", exp=int(time.time()) - 100)
    assert post(served, bearer(stale)).status_code == 401
    for line in served.stderr().splitlines():
        assert not line.startswith("FORGED") and "serve: FORGED" not in line


def test_introspected_opaque_token_is_cached_for_its_lifetime(
    served: Served, issuer: Issuer
) -> None:
    issuer.opaque["opaque-abc-123"] = {
        "active": True,
        "sub": "carol",
        "client_id": "agent-2",
        "scope": "tools:call",
        "exp": int(time.time()) + 120,
        "aud": RESOURCE,
    }
    issuer.opaque["opaque-inactive"] = {"active": False}
    issuer.opaque["opaque-other-aud"] = {
        "active": True,
        "scope": "tools:call",
        "aud": "http://elsewhere.test/",
    }
    before = issuer.introspections
    for _ in range(3):
        assert post(served, bearer("opaque-abc-123")).status_code == 200
    assert issuer.introspections - before == 1
    assert post(served, bearer("opaque-inactive")).status_code == 401
    assert post(served, bearer("opaque-other-aud")).status_code == 401


def test_api_keys(served: Served) -> None:
    assert post(served, bearer("ci-bot-key-0123456789")).status_code == 200
    assert post(served, bearer("ci-bot-key-0123456780")).status_code == 401
    assert "ci-bot-key-0123456789" not in served.stderr()


def test_the_mcp_client_calls_tools_with_a_token(served: Served, issuer: Issuer) -> None:
    async def session(token: str) -> str:
        client = httpx2.AsyncClient(headers=bearer(token), timeout=20)
        async with (
            client,
            streamable_http_client(served.url, http_client=client) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            assert [t.name for t in (await s.list_tools()).tools] == ["get_item"]
            result = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
            assert result.is_error is False
            return json.dumps(result.structured_content or {})

    assert "W-BLUE-01" in anyio.run(session, issuer.token())
    assert "W-BLUE-01" in anyio.run(session, "ci-bot-key-0123456789")


def test_the_mcp_client_without_a_token_is_refused(served: Served) -> None:
    async def session() -> None:
        client = httpx2.AsyncClient(timeout=20)
        with anyio.fail_after(30):
            async with (
                client,
                streamable_http_client(served.url, http_client=client) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()

    with pytest.raises(BaseException) as caught:  # noqa: B017 - the SDK's error type varies
        anyio.run(session)
    # the SDK reports the 401 as an error response; initialize never succeeds
    assert "error response" in repr(caught.value) or "401" in repr(caught.value), caught.value
