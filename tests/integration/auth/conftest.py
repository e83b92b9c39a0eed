"""An OAuth issuer on 127.0.0.1 for `toolcat serve` auth tests: keys made here, a JWKS
endpoint whose behaviour a test can change (slow, down, garbage), an RFC 7662
introspection endpoint and an RFC 8693 token-exchange endpoint (whose behaviour a test
can change too); plus a catalog whose ``server:`` section trusts it."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from toolcat.testing import BackgroundServer

RESOURCE = "http://toolcat.test/mcp"
TOOLCAT = [sys.executable, "-m", "toolcat.cli"]


@dataclass
class Issuer:
    """Signs tokens; serves /jwks and /introspect; counts the JWKS fetches."""

    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )
    kid: str = "k1"
    extra_keys: dict[str, rsa.RSAPrivateKey] = field(default_factory=dict)
    jwks_mode: str = "ok"  # ok | slow | down | garbage | bad-key | deep
    jwks_fetches: list[str] = field(default_factory=list)
    opaque: dict[str, dict[str, Any]] = field(default_factory=dict)  # token -> answer
    introspections: int = 0
    introspect_mode: str = "ok"  # ok | huge (300 MB, streamed) | deep (nested 20,000 levels)
    streamed: int = 0  # bytes of the last huge answer actually handed to the socket
    exchange_mode: str = "ok"  # ok | slow | down | garbage | injection
    exchanges: list[dict[str, str]] = field(default_factory=list)  # the forms received
    url: str = ""

    def public_jwk(self, key: rsa.RSAPrivateKey, kid: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
        return {**data, "kid": kid, "use": "sig", "alg": "RS256"}

    def token(
        self,
        *,
        key: rsa.RSAPrivateKey | None = None,
        headers: dict[str, Any] | None = None,
        **claims: Any,
    ) -> str:
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.url + "/",
            "aud": RESOURCE,
            "sub": "alice",
            "client_id": "agent-1",
            "scope": "tools:call",
            "iat": now,
            "exp": now + 300,
        }
        body.update(claims)
        body = {k: v for k, v in body.items() if v is not None}
        head = {"kid": self.kid, **(headers or {})}
        return jwt.encode(body, key or self.key, algorithm="RS256", headers=head)

    async def jwks(self, request: Request) -> Response:
        self.jwks_fetches.append(request.url.path)
        if self.jwks_mode == "slow":
            await anyio.sleep(3)
        if self.jwks_mode == "down":
            return Response("unavailable", status_code=503)
        if self.jwks_mode == "garbage":
            return Response(b"\x00not json{" * 10, media_type="application/json")
        if self.jwks_mode == "deep":  # 100,000 levels in 200 KB: under the size cap
            return Response(b"[" * 100_000 + b"]" * 100_000, media_type="application/json")
        keys = [self.public_jwk(self.key, self.kid)]
        if self.jwks_mode == "bad-key":  # one key no JWT library can read, first
            keys.insert(0, {"kty": "RSA", "kid": "broken", "use": "sig", "n": "!!", "e": 1})
        keys += [self.public_jwk(k, kid) for kid, k in self.extra_keys.items()]
        return JSONResponse({"keys": keys})

    async def other(self, request: Request) -> Response:
        self.jwks_fetches.append(request.url.path)  # a URL a token tried to point at
        return JSONResponse({"keys": []})

    async def introspect(self, request: Request) -> Response:
        self.introspections += 1
        if (
            request.headers.get("authorization")
            != "Basic " + base64.b64encode(b"toolcat:s3cret-introspection").decode()
        ):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        form = await request.form()
        if self.introspect_mode == "huge":
            return StreamingResponse(self._huge(request), media_type="application/json")
        if self.introspect_mode == "deep":
            nested = b"[" * 20_000 + b"]" * 20_000
            return Response(b'{"active": true, "sub": "deep", "x": ' + nested + b"}")
        answer = self.opaque.get(str(form.get("token")), {"active": False})
        return JSONResponse(answer)

    async def _huge(self, request: Request) -> Any:
        """A 300 MB introspection answer, 64 KiB at a time, counting what was sent.

        It stops once the reader has hung up: after that the server drops what is written
        without waiting, so on a loaded machine the loop would count chunks nobody read
        (130 MB of them once) before the disconnect reached the response."""
        self.streamed = 0
        chunk = b'{"active": true, "sub": "huge", "pad": "' + b"x" * 65_536
        for _ in range(300 * 16):
            if await request.is_disconnected():
                return
            yield chunk
            self.streamed += len(chunk)
            chunk = b"x" * 65_536

    async def exchange(self, request: Request) -> Response:
        """RFC 8693: a token of this issuer (its signature checked) for one meant for the
        requested audience, with the same subject and ``act`` naming the client."""
        form = {k: str(v) for k, v in (await request.form()).items()}
        self.exchanges.append(form)
        if self.exchange_mode == "slow":
            await anyio.sleep(3)
        if self.exchange_mode == "down":
            return Response("unavailable", status_code=503)
        if self.exchange_mode == "garbage":
            return Response(b"\x00not json{" * 10, media_type="application/json")
        if self.exchange_mode == "injection":
            return JSONResponse({"access_token": "x\r\nX-Injected: 1", "token_type": "Bearer"})
        client = request.headers.get("authorization", "")
        if client != "Basic " + base64.b64encode(b"toolcat-exchange:s3cret-exchange").decode():
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if (
            form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange"
            or form.get("subject_token_type") != "urn:ietf:params:oauth:token-type:access_token"
        ):
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        try:
            subject = jwt.decode(
                form.get("subject_token", ""),
                self.key.public_key(),
                algorithms=["RS256"],
                audience=RESOURCE,
                issuer=self.url + "/",
            )
        except jwt.PyJWTError:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        issued = self.token(
            aud=form.get("audience"),
            sub=subject.get("sub"),
            scope=form.get("scope"),
            client_id="toolcat-exchange",
            act={"sub": "toolcat-exchange"},
            jti=f"x{len(self.exchanges)}",
        )
        return JSONResponse(
            {
                "access_token": issued,
                "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
                "token_type": "Bearer",
                "expires_in": 300,
            }
        )

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/jwks", self.jwks),
                Route("/evil", self.other),
                Route("/introspect", self.introspect, methods=["POST"]),
                Route("/token", self.exchange, methods=["POST"]),
            ]
        )


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    found = Issuer()
    with BackgroundServer(found.app()) as server:
        found.url = server.url
        yield found


def catalog(issuer_url: str, extra: str = "") -> str:
    return f"""\
toolcat: 1
services:
  warehouse:
    base_url: ${{WAREHOUSE_URL}}
    timeout: 5
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{{sku}}
    parameters:
      sku: {{type: string, description: The SKU}}
server:
  resource: {RESOURCE}
  auth:
    required_scopes: [tools:call]
    jwt:
      issuer: {issuer_url}/
      jwks_url: {issuer_url}/jwks
      algorithms: [RS256]
      leeway: 5
      jwks_min_refresh: 1
    introspection:
      url: {issuer_url}/introspect
      client_id: toolcat
      client_secret: ${{INTROSPECTION_SECRET}}
    api_keys:
      - name: ci-bot
        hash: "sha256:{__import__("hashlib").sha256(b"ci-bot-key-0123456789").hexdigest()}"
        scopes: [tools:call]
{extra}"""


@dataclass
class Served:
    url: str
    proc: subprocess.Popen[str]
    log: Path

    def stderr(self) -> str:
        return self.log.read_text()


def start_serve(path: Path, env: dict[str, str], log: Path, *extra: str) -> Served:
    errors = open(log, "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [
            *TOOLCAT,
            "serve",
            str(path),
            "--transport",
            "http",
            "--port",
            "0",
            "--log-level",
            "info",
            *extra,
        ],
        stderr=errors,
        text=True,
        env=env,
    )
    errors.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = re.search(r"http://127\.0\.0\.1:\d+/mcp", log.read_text())
        if found:
            return Served(found.group(0), proc, log)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"toolcat serve did not start: {log.read_text()}")


@pytest.fixture(scope="module")
def served(
    issuer: Issuer, warehouse: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve-auth")
    path = folder / "catalog.yaml"
    path.write_text(catalog(issuer.url))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["WAREHOUSE_URL"] = warehouse
    env["INTROSPECTION_SECRET"] = "s3cret-introspection"
    server = start_serve(path, env, folder / "stderr.log")
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(10)
