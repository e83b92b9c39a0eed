"""Per-call cost of JWT authentication, and of authentication plus access policy plus
audit log (plus a quota), on `toolcat serve` over HTTP, against the same server without
them, same run.

    python benchmarks/bench_serve_auth.py [--calls 100] [--rounds 10] [--local-calls 2000]

Three MCP servers on 127.0.0.1 serve the same one-tool catalog (the demo's sample
service, in-process): one bare, one behind the authentication wrapper checking an
RS256 JWT against a loopback issuer's JWKS (fetched once, then cached), and one with
that wrapper and a catalog whose ``server:`` section adds an access rule matching the
token's claims, an audit log to a file and a quota on the tool. The MCP SDK's client
opens one session on each and calls the tool; each round times a chunk of calls on
all three, rotating which goes first, and the ratios reported are the medians of the
per-round ratios. It also gives the time of one token check alone
(``Authenticator.authenticate``: a token never seen, and one seen before, which the
verified-JWT cache answers), and the same comparison without the MCP round trip:
``Executor.execute`` of the tool against the local service, bare and with the access
policy, audit log and quota and a caller context (what each call adds in the core).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.catalog.serving import JwtSettings, ServeAuth
from toolcat.executor import CallerIdentity, Executor, ExecutorSettings, ToolCall, ToolContext
from toolcat.executor.mcp_server import Authenticator, AuthMiddleware, McpServer
from toolcat.loader import load_catalog
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
# the same catalog with an access rule the token matches, an audit log and a quota
GUARDED = """\
server:
  access:
    - {{name: staff, when: {{groups: staff}}, allow: {{tools: ["*"]}}}}
  audit: {{path: "{audit}"}}
  quotas:
    - {{name: calls, tools: [get_item], rate: 1000000/second}}
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


def sample_service() -> tuple[subprocess.Popen[bytes], str]:
    """The demo's sample service in its own process (uvicorn), so that this process's CPU
    time is the client's alone; its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "toolcat.testing:make_service"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "error"]
    cmd += ["--no-access-log", "--lifespan", "off", "--ws", "none"]
    proc = subprocess.Popen(cmd)
    url = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            httpx.get(url + "/items/W-BLUE-01", timeout=1)
            return proc, url
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the sample service did not start")


def local_calls(
    folder: Path, n: int, rounds: int
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """``Executor.execute`` against the sample service, bare and guarded: (bare, guarded,
    median ratio) per call, in wall-clock time and in this process's CPU time."""
    proc, url = sample_service()
    try:
        return _local_calls(folder, url, n, rounds)
    finally:
        proc.terminate()
        proc.wait(10)


def _local_calls(
    folder: Path, url: str, n: int, rounds: int
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    path = folder / "local.yaml"
    guarded = folder / "local-guarded.yaml"
    path.write_text(CATALOG.format(url=url))
    guarded.write_text(
        CATALOG.format(url=url) + GUARDED.format(audit=(folder / "local.jsonl").as_posix())
    )
    bare = load_catalog([str(path)], progress=False)
    full = load_catalog([str(guarded)], progress=False)
    assert bare.catalog is not None and full.catalog is not None and full.server is not None
    who = CallerIdentity.make(subject="bench", method="jwt", claims={"groups": ["staff"]})
    context = ToolContext(who)
    call = ToolCall("get_item", {"sku": "W-BLUE-01"})
    server = full.server
    with (
        Executor(bare.catalog, ExecutorSettings(telemetry=False)) as plain,
        Executor(
            full.catalog,
            ExecutorSettings(
                telemetry=False, access=server.access, audit=server.audit, quotas=server.quotas
            ),
        ) as checked,
    ):

        def chunk(run: Callable[[], Any]) -> tuple[float, float]:
            start, cpu = time.perf_counter(), time.process_time()
            for _ in range(n):
                run()
            return (time.perf_counter() - start) / n, (time.process_time() - cpu) / n

        def one_plain() -> Any:
            assert plain.execute(call).ok

        def one_checked() -> Any:
            assert checked.execute(call, context=context).ok

        chunk(one_plain), chunk(one_checked)  # warm: connections, plans, the audit file
        a: list[tuple[float, float]] = []
        b: list[tuple[float, float]] = []
        for i in range(rounds):
            pair = [(one_plain, a), (one_checked, b)]
            for run, out in pair if i % 2 == 0 else pair[::-1]:
                out.append(chunk(run))

    def summary(k: int) -> tuple[float, float, float]:
        x = [t[k] for t in a]
        y = [t[k] for t in b]
        ratio = statistics.median(q / p for p, q in zip(x, y, strict=True))
        return statistics.median(x), statistics.median(y), ratio

    return summary(0), summary(1)


def main() -> int:  # noqa: PLR0915  the benchmark's one run: options, servers, paired rounds, report, in print order
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100, help="calls per chunk")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--local-calls", type=int, default=2000, help="Executor.execute calls per chunk"
    )
    args = parser.parse_args()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with (
        BackgroundServer(make_service()) as service,
        BackgroundServer(issuer_app(key)) as issuer,
        tempfile.TemporaryDirectory() as tmp,
    ):
        path = Path(tmp) / "catalog.yaml"
        path.write_text(CATALOG.format(url=service.url))
        guarded = Path(tmp) / "guarded.yaml"
        audit_log = Path(tmp) / "audit.jsonl"
        guarded.write_text(
            CATALOG.format(url=service.url) + GUARDED.format(audit=audit_log.as_posix())
        )
        settings = ServeAuth(jwt=JwtSettings(issuer.url + "/", issuer.url + "/jwks"))
        now = int(time.time())
        claims = {"iss": issuer.url + "/", "aud": RESOURCE, "sub": "bench", "iat": now}
        claims["groups"] = ["staff"]
        token = jwt.encode({**claims, "exp": now + 3600}, key, "RS256", headers={"kid": "k1"})

        def app(auth: bool, catalog: Path = path) -> Any:
            server = McpServer([str(catalog)])
            server.load()
            inner = server.server.streamable_http_app(streamable_http_path="/mcp")
            if not auth:
                return inner
            checker = Authenticator(settings, resource=RESOURCE)
            return AuthMiddleware(inner, checker, resource=RESOURCE)

        with (
            BackgroundServer(app(False)) as bare,
            BackgroundServer(app(True)) as authed_app,
            BackgroundServer(app(True, guarded)) as full_app,
        ):
            plain: list[float] = []
            authed: list[float] = []
            full: list[float] = []
            ratios = []
            full_ratios = []
            for i in range(args.rounds):
                order = [(bare, None, plain), (authed_app, token, authed), (full_app, token, full)]
                shift = i % 3
                for server, bearer, out in order[shift:] + order[:shift]:
                    anyio.run(calls, server.url + "/mcp", bearer, args.calls, out)
                ratios.append(authed[-1] / plain[-1])
                full_ratios.append(full[-1] / plain[-1])
        lines = len(audit_log.read_text().splitlines())
        assert lines == args.rounds * (args.calls + 1), lines  # every call was audited
        wall, cpu = local_calls(Path(tmp), args.local_calls, args.rounds)

        check = Authenticator(settings, resource=RESOURCE)

        # tokens never seen (a jti each): the full check; the same token again: the cache
        fresh = [
            jwt.encode(
                {**claims, "exp": now + 3600, "jti": str(i)}, key, "RS256", headers={"kid": "k1"}
            )
            for i in range(2000)
        ]

        async def verify(tokens: list[str]) -> float:
            assert await check.authenticate(token) is not None  # fetches the JWKS once
            start = time.perf_counter()
            for each in tokens:
                await check.authenticate(each)
            return (time.perf_counter() - start) / len(tokens)

        async def both() -> tuple[float, float]:
            try:
                return await verify(fresh), await verify([token] * 2000)
            finally:
                await check.aclose()

        one, seen = anyio.run(both)
    print(f"{args.rounds} rounds of {args.calls} tools/call each (median per call)")
    print(f"  no auth : {statistics.median(plain) * 1e3:7.3f} ms")
    print(f"  JWT auth: {statistics.median(authed) * 1e3:7.3f} ms")
    print(f"  JWT auth + access + audit + quota: {statistics.median(full) * 1e3:7.3f} ms")
    print(f"  ratio JWT auth : {statistics.median(ratios):.3f}x (median of per-round ratios)")
    print(f"  ratio all four : {statistics.median(full_ratios):.3f}x")
    print(
        f"  one RS256 token check alone: {one * 1e6:.0f} us "
        f"(a token seen before: {seen * 1e6:.1f} us)"
    )
    print(
        f"Executor.execute against the sample service in its own process, {args.rounds} "
        f"rounds of {args.local_calls} calls (median per call)"
    )
    for label, (x, y, r) in (("wall-clock", wall), ("CPU (this process)", cpu)):
        print(f"  {label}: bare {x * 1e6:8.1f} us, with a caller + access + audit + quota ")
        print(f"      {y * 1e6:8.1f} us, ratio {r:.3f}x, added {(y - x) * 1e6:.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
