"""A verified JWT is remembered (by its SHA-256) so that a request with the same token costs
no signature check; the verdict must stay what a full check would say. Against the
loopback issuer of the conftest: its JWKS and keys are real, and a test changes them."""

from __future__ import annotations

import time

import anyio
from cryptography.hazmat.primitives.asymmetric import rsa
from toolcat.catalog.serving import JwtSettings, ServeAuth
from toolcat.executor.mcp_server import Authenticator

from .conftest import RESOURCE, Issuer


def _authenticator(issuer: Issuer, *, leeway: float = 30, min_refresh: float = 30) -> Authenticator:
    jwt = JwtSettings(
        issuer.url + "/", issuer.url + "/jwks", leeway=leeway, jwks_min_refresh=min_refresh
    )
    return Authenticator(ServeAuth(jwt=jwt), resource=RESOURCE)


def test_a_remembered_token_is_refused_once_it_expires(issuer: Issuer) -> None:
    exp = int(time.time()) + 2
    token = issuer.token(exp=exp)
    check = _authenticator(issuer, leeway=0)

    async def run() -> tuple[object, object, object]:
        try:
            first = await check.check(token)
            again = await check.check(token)
            await anyio.sleep(exp - time.time() + 0.2)
            return first, again, await check.check(token)
        finally:
            await check.aclose()

    first, again, late = anyio.run(run)
    assert getattr(first, "subject", None) == "alice"
    assert again is first  # remembered, not checked again
    assert getattr(late, "reason", None) == "JWT expired"


def test_a_remembered_token_is_refused_once_its_key_left_the_jwks(issuer: Issuer) -> None:
    rotated = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer.extra_keys["k-old"] = rotated
    token = issuer.token(key=rotated, headers={"kid": "k-old"})
    check = _authenticator(issuer, min_refresh=0)

    async def run() -> tuple[object, object]:
        try:
            first = await check.check(token)
            issuer.extra_keys.clear()  # the issuer rotates the key out
            # a token with an unknown kid makes the server read the JWKS again
            await check.check(issuer.token(key=rotated, headers={"kid": "k-unknown"}))
            after = await check.check(token)
        finally:
            issuer.extra_keys.clear()
            await check.aclose()
        return first, after

    first, after = anyio.run(run)
    assert getattr(first, "subject", None) == "alice"
    assert getattr(after, "reason", None) == "no signing key of the issuer matches the JWT's kid"


def test_each_token_is_checked_on_its_own(issuer: Issuer) -> None:
    # the same claims signed by a stranger: another token, so no cached verdict applies
    good = issuer.token()
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = issuer.token(key=stranger)
    check = _authenticator(issuer)

    async def run() -> tuple[object, object]:
        try:
            return await check.check(good), await check.check(forged)
        finally:
            await check.aclose()

    accepted, refused = anyio.run(run)
    assert getattr(accepted, "subject", None) == "alice"
    assert getattr(refused, "reason", None) == "JWT refused (InvalidSignatureError)"
