"""An issuer whose JWKS endpoint is slow, down or answers garbage: bounded time, fail closed.

The authenticator talks to the loopback issuer over real sockets; a fresh one per case,
so that no key is known before the broken fetch.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import anyio
import pytest
from toolcat.catalog.serving import IntrospectionSettings, JwtSettings, ServeAuth
from toolcat.executor.mcp_server import Authenticator

from .conftest import RESOURCE, Issuer


@pytest.fixture
def broken(issuer: Issuer, request: pytest.FixtureRequest) -> Iterator[Issuer]:
    issuer.jwks_mode = request.param
    try:
        yield issuer
    finally:
        issuer.jwks_mode = "ok"


def authenticator(issuer: Issuer, timeout: float = 1.0) -> Authenticator:
    settings = ServeAuth(jwt=JwtSettings(issuer.url + "/", issuer.url + "/jwks"))
    return Authenticator(settings, resource=RESOURCE, jwks_timeout=timeout)


@pytest.mark.parametrize("broken", ["slow", "down", "garbage"], indirect=True)
def test_a_broken_jwks_endpoint_refuses_every_token_in_bounded_time(broken: Issuer) -> None:
    async def check() -> None:
        auth = authenticator(broken)
        try:
            started = time.monotonic()
            assert await auth.authenticate(broken.token()) is None
            assert time.monotonic() - started < 2.5  # the 1 s fetch bound, not the 3 s stall
        finally:
            await auth.aclose()

    anyio.run(check)


def test_keys_already_known_survive_a_broken_refresh(issuer: Issuer) -> None:
    async def check() -> None:
        auth = authenticator(issuer)
        try:
            assert (await auth.authenticate(issuer.token())) is not None
            issuer.jwks_mode = "garbage"
            assert auth.jwks is not None
            auth.jwks.max_age = 0  # the next use fetches again, and gets garbage
            auth.jwks.min_refresh = 0
            fetches = auth.jwks.fetches
            identity = await auth.authenticate(issuer.token())
            assert auth.jwks.fetches == fetches + 1
            assert identity is not None and identity.subject == "alice"
        finally:
            issuer.jwks_mode = "ok"
            await auth.aclose()

    anyio.run(check)


def test_a_jwks_url_over_plain_http_elsewhere_is_refused() -> None:
    settings = ServeAuth(jwt=JwtSettings("https://idp.test/", "http://idp.test/jwks"))
    with pytest.raises(ValueError, match="https"):
        Authenticator(settings, resource=RESOURCE)


def test_an_issuer_down_from_the_start_is_asked_once_per_interval(issuer: Issuer) -> None:
    async def check() -> None:
        auth = authenticator(issuer)
        try:
            issuer.jwks_mode = "down"
            for kid in ("k1", "k1", "other", "k1"):
                assert await auth.authenticate(issuer.token(headers={"kid": kid})) is None
            assert auth.jwks is not None and auth.jwks.fetches == 1  # jwks_min_refresh: 30 s
        finally:
            issuer.jwks_mode = "ok"
            await auth.aclose()

    anyio.run(check)


@pytest.mark.parametrize("path", ["/nothing-here", "/jwks"])  # 404, and 405 to a POST
def test_an_introspection_endpoint_that_fails_refuses_the_token(issuer: Issuer, path: str) -> None:
    async def check() -> None:
        settings = ServeAuth(introspection=IntrospectionSettings(issuer.url + path))
        auth = Authenticator(settings, resource=RESOURCE, introspection_timeout=1.0)
        try:
            assert await auth.authenticate("opaque-abc-123") is None
        finally:
            await auth.aclose()

    anyio.run(check)


def test_an_introspection_endpoint_that_is_down_refuses_in_bounded_time() -> None:
    import socket

    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]

    async def check() -> None:
        url = f"http://127.0.0.1:{port}/introspect"
        auth = Authenticator(
            ServeAuth(introspection=IntrospectionSettings(url)),
            resource=RESOURCE,
            introspection_timeout=1.0,
        )
        try:
            started = time.monotonic()
            assert await auth.authenticate("opaque-abc-123") is None
            assert time.monotonic() - started < 2.5
        finally:
            await auth.aclose()

    anyio.run(check)
