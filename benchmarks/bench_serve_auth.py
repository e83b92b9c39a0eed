"""Per-call cost of JWT authentication on `toolcat serve` over HTTP, against the same server
without it, same run.

    python benchmarks/bench_serve_auth.py [--calls 100] [--rounds 10]

Two MCP servers on 127.0.0.1 serve the same one-tool catalog (the demo's sample
service, in-process): one bare, one behind the authentication wrapper checking an
RS256 JWT against a loopback issuer's JWKS (fetched once, then cached). The MCP
SDK's client opens one session on each and calls the tool; each round times a chunk
of calls on both, alternating which goes first, and the ratio reported is the
median of the per-round ratios. It also gives the time of one token check alone
(``Authenticator.authenticate``), which is what the wrapper adds to each request.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.catalog import JwtSettings, ServeAuth
from toolcat.executor.mcp_server import Authenticator, AuthMiddleware, McpServer
from toolcat.testing import BackgroundServer, make_service

RESOURCE = "http://toolcat.bench/mcp"
CATALOG = """\
toolcat: 1
services:
  warehouse: {{base_url: "{url}"}}
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{{sku}}
    parameters:
      sku: {{type: string, description: The SKU}}
"""


def issuer_app(key: rsa.RSAPrivateKey) -> Starlette:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))

    async def jwks(request: Request) -> JSONResponse:
        return JSONResponse({"keys": [{**jwk, "kid": "k1", "alg": "RS256", "use": "sig"}]})

    return Starlette(routes=[Route("/jwks", jwks)])


async def calls(url: str, token: str | None, n: int, out: list[float]) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = httpx2.AsyncClient(headers=headers, timeout=30)
    async with (
        client,
        streamable_http_client(url, http_client=client) as (r, w),
        ClientSession(r, w) as s,
    ):
        await s.initialize()
        await s.call_tool("get_item", {"sku": "W-BLUE-01"})  # warm
        start = time.perf_counter()
        for _ in range(n):
            result = await s.call_tool("get_item", {"sku": "W-BLUE-01"})
            assert not result.is_error, result
        out.append((time.perf_counter() - start) / n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100, help="calls per chunk")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with (
        BackgroundServer(make_service()) as service,
        BackgroundServer(issuer_app(key)) as issuer,
        tempfile.TemporaryDirectory() as tmp,
    ):
        path = Path(tmp) / "catalog.yaml"
        path.write_text(CATALOG.format(url=service.url))
        settings = ServeAuth(jwt=JwtSettings(issuer.url + "/", issuer.url + "/jwks"))
        now = int(time.time())
        claims = {"iss": issuer.url + "/", "aud": RESOURCE, "sub": "bench", "iat": now}
        token = jwt.encode({**claims, "exp": now + 3600}, key, "RS256", headers={"kid": "k1"})

        def app(auth: bool) -> Any:
            server = McpServer([str(path)])
            server.load()
            inner = server.server.streamable_http_app(streamable_http_path="/mcp")
            if not auth:
                return inner
            checker = Authenticator(settings, resource=RESOURCE)
            return AuthMiddleware(inner, checker, resource=RESOURCE)

        with BackgroundServer(app(False)) as bare, BackgroundServer(app(True)) as guarded:
            plain: list[float] = []
            authed: list[float] = []
            ratios = []
            for i in range(args.rounds):
                order = [(bare, None, plain), (guarded, token, authed)]
                for server, bearer, out in order if i % 2 == 0 else order[::-1]:
                    anyio.run(calls, server.url + "/mcp", bearer, args.calls, out)
                ratios.append(authed[-1] / plain[-1])

        check = Authenticator(settings, resource=RESOURCE)

        async def verify(n: int) -> float:
            assert await check.authenticate(token) is not None  # fetches the JWKS once
            start = time.perf_counter()
            for _ in range(n):
                await check.authenticate(token)
            elapsed = (time.perf_counter() - start) / n
            await check.aclose()
            return elapsed

        one = anyio.run(verify, 2000)
    print(f"{args.rounds} rounds of {args.calls} tools/call each (median per call)")
    print(f"  no auth : {statistics.median(plain) * 1e3:7.3f} ms")
    print(f"  JWT auth: {statistics.median(authed) * 1e3:7.3f} ms")
    print(f"  ratio   : {statistics.median(ratios):.3f}x (median of per-round ratios)")
    print(f"  one RS256 token check alone: {one * 1e6:.0f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
