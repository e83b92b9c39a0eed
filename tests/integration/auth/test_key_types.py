"""Each default algorithm verifies with its key type, and never with another's."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import anyio
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.catalog.serving import JwtSettings, ServeAuth
from toolcat.executor.mcp_server import Authenticator
from toolcat.testing import BackgroundServer

RESOURCE = "http://toolcat.test/mcp"
KEYS: dict[str, Any] = {
    "RS256": rsa.generate_private_key(public_exponent=65537, key_size=2048),
    "PS256": rsa.generate_private_key(public_exponent=65537, key_size=2048),
    "ES256": ec.generate_private_key(ec.SECP256R1()),
    "EdDSA": ed25519.Ed25519PrivateKey.generate(),
}


def _jwk(alg: str) -> dict[str, Any]:
    algorithm = jwt.get_algorithm_by_name(alg)
    data: dict[str, Any] = json.loads(algorithm.to_jwk(KEYS[alg].public_key()))
    return {**data, "kid": alg.lower(), "use": "sig"}  # no "alg": the key type decides


@pytest.fixture(scope="module")
def jwks_url() -> Iterator[str]:
    async def jwks(request: Request) -> JSONResponse:
        return JSONResponse({"keys": [_jwk(alg) for alg in KEYS]})

    with BackgroundServer(Starlette(routes=[Route("/jwks", jwks)])) as server:
        yield server.url


def _token(issuer: str, alg: str, kid: str) -> str:
    claims = {"iss": issuer, "aud": RESOURCE, "sub": alg, "exp": int(time.time()) + 60}
    return jwt.encode(claims, KEYS[alg], algorithm=alg, headers={"kid": kid})


def _check(jwks_url: str, token: str) -> Any:
    async def run() -> Any:
        settings = ServeAuth(jwt=JwtSettings(jwks_url + "/", jwks_url + "/jwks"))
        auth = Authenticator(settings, resource=RESOURCE)
        try:
            return await auth.authenticate(token)
        finally:
            await auth.aclose()

    return anyio.run(run)


@pytest.mark.parametrize("alg", sorted(KEYS))
def test_each_default_algorithm_is_accepted_with_its_key(jwks_url: str, alg: str) -> None:
    identity = _check(jwks_url, _token(jwks_url + "/", alg, alg.lower()))
    assert identity is not None and identity.subject == alg


@pytest.mark.parametrize(
    ("alg", "kid"), [("RS256", "es256"), ("ES256", "eddsa"), ("EdDSA", "rs256")]
)
def test_a_kid_of_another_key_type_is_refused(jwks_url: str, alg: str, kid: str) -> None:
    assert _check(jwks_url, _token(jwks_url + "/", alg, kid)) is None
