"""Per-call cost of the upstream credential modes, as a ratio to the service's own credentials.

    python benchmarks/bench_upstream_auth.py [--calls 300] [--rounds 10]

The demo's sample service runs on 127.0.0.1 in its own uvicorn process (real
sockets, no GIL shared with the client), with a loopback RFC 8693 token endpoint
(in-process: it is asked once). One executor calls the same tool through three
services that differ only in ``auth``: ``bearer`` (the service's own token),
``forward_caller_token`` and ``token_exchange`` (cached: one exchange per subject,
then every call reuses it), each call carrying the caller's context. Each round
times a chunk of calls per mode, rotating which goes first; the ratio reported is
the median of the per-round ratios to ``bearer``. It also gives the time of one
cached exchange lookup alone (hashing the caller's token, finding the token), which
is what a cached exchange adds to a call besides its header.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.executor import CallerIdentity, Executor, ExecutorSettings, ToolCall, ToolContext
from toolcat.loader import load
from toolcat.testing import BackgroundServer

CATALOG = """\
toolcat: 1
services:
  own: {{base_url: "{url}", auth: {{type: bearer, token: "${{OWN_TOKEN}}"}}}}
  forward: {{base_url: "{url}", auth: {{type: forward_caller_token}}}}
  exchange:
    base_url: "{url}"
    auth: {{type: token_exchange, token_url: "{idp}/token", client_id: bench,
            client_secret: "${{SECRET}}", audience: warehouse}}
tools:
{tools}"""
TOOL = """\
  - name: get_item_{mode}
    description: One item by SKU.
    service: {mode}
    method: GET
    path: /items/{{sku}}
    parameters:
      sku: {{type: string, description: The SKU}}
"""
MODES = ("own", "forward", "exchange")


def idp_app() -> Starlette:
    issued = [0]

    async def token(request: Request) -> JSONResponse:
        await request.form()
        issued[0] += 1
        return JSONResponse(
            {"access_token": f"exchanged-{issued[0]}", "token_type": "Bearer", "expires_in": 3600}
        )

    return Starlette(routes=[Route("/token", token, methods=["POST"])])


@contextmanager
def sample_service() -> Iterator[str]:
    """The sample service in a uvicorn subprocess; its base URL."""
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "toolcat.testing:make_service", "--factory",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "error",
         "--no-access-log", "--lifespan", "off", "--ws", "none"]
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(url + "/health", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise SystemExit("the sample service did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def chunk(executor: Executor, mode: str, n: int, context: ToolContext) -> float:
    call = ToolCall(f"get_item_{mode}", {"sku": "W-BLUE-01"})
    start = time.perf_counter()
    for _ in range(n):
        result = executor.execute(call, context=context)
        assert result.ok, result.content
    return (time.perf_counter() - start) / n


def _lookup(context: ToolContext, n: int = 20_000) -> float:
    """Seconds per cache hit of the exchanged token of ``context`` (no request after
    the first)."""
    import httpx
    from toolcat.executor import TokenCache
    from toolcat.executor.http._exchange import ExchangeConfig, ExchangeGrant

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"access_token": "cached", "expires_in": 3600})

    config = ExchangeConfig("http://127.0.0.1:9/token", "bench", "s", audience="warehouse")
    assert context.token is not None
    cache = TokenCache()
    timeout = httpx.Timeout(5).as_dict()
    with httpx.Client(transport=httpx.MockTransport(answer)) as client:
        cache.get(client, ExchangeGrant(config, "exchange", "bench", context.token), timeout)
        start = time.perf_counter()
        for _ in range(n):
            # a grant per call, as render makes one per call
            grant = ExchangeGrant(config, "exchange", "bench", context.token)
            cache.get(client, grant, timeout)
        elapsed = (time.perf_counter() - start) / n
    assert cache.requests == 1
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per chunk")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    with (
        sample_service() as service_url,
        BackgroundServer(idp_app()) as idp,
        tempfile.TemporaryDirectory() as tmp,
    ):
        path = Path(tmp) / "catalog.yaml"
        tools = "".join(TOOL.format(mode=m) for m in MODES)
        path.write_text(CATALOG.format(url=service_url, idp=idp.url, tools=tools))
        catalog = load([path])
        env = {"OWN_TOKEN": "own-service-token-0123456789", "SECRET": "bench-secret"}
        identity = CallerIdentity.make(subject="bench", method="jwt")
        # a JWT-sized caller token (about 1 KB), as an issuer would sign
        context = ToolContext.make(identity, token="eyJ" + "a-b_" * 250)
        times: dict[str, list[float]] = {m: [] for m in MODES}
        ratios: dict[str, list[float]] = {m: [] for m in MODES[1:]}
        with Executor(catalog, ExecutorSettings(env=env)) as executor:
            for mode in MODES:  # warm: connections, plans, the one exchange
                chunk(executor, mode, 5, context)
            for i in range(args.rounds):
                order = MODES[i % 3 :] + MODES[: i % 3]
                for mode in order:
                    times[mode].append(chunk(executor, mode, args.calls, context))
                for mode in MODES[1:]:
                    ratios[mode].append(times[mode][-1] / times["own"][-1])
            exchanges = executor.tokens.requests
    lookup = _lookup(context)
    print(f"{args.rounds} rounds of {args.calls} calls per mode (median per call)")
    for mode in MODES:
        ratio = "1.000x" if mode == "own" else f"{statistics.median(ratios[mode]):.3f}x"
        print(f"  {mode:9}: {statistics.median(times[mode]) * 1e6:7.0f} us  {ratio}")
    print(f"  token exchanges made: {exchanges} (cached after the first)")
    print(f"  one cached exchange lookup alone: {lookup * 1e6:.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
