"""Real servers on 127.0.0.1 for the executor: a Starlette app, a resetting socket, httpbin."""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp


@dataclass
class ServerState:
    """What the server saw and how it should behave; tests read and set it."""

    seen: list[dict[str, Any]] = field(default_factory=list)  # requests our handlers read
    wire: list[dict[str, Any]] = field(default_factory=list)  # every request, before routing
    counters: dict[str, int] = field(default_factory=dict)
    tokens_issued: int = 0
    valid_tokens: set[str] = field(default_factory=set)
    token_lifetime: int = 3600
    token_delay: float = 0.0

    def reset(self) -> None:
        self.seen.clear()
        self.wire.clear()
        self.counters.clear()
        self.tokens_issued = 0
        self.valid_tokens.clear()
        self.token_lifetime = 3600
        self.token_delay = 0.0

    def bump(self, key: str) -> int:
        self.counters[key] = self.counters.get(key, 0) + 1
        return self.counters[key]


async def _record(request: Request, state: ServerState) -> dict[str, Any]:
    body = await request.body()
    try:
        text: str | None = body.decode()
    except UnicodeDecodeError:
        text = None
    entry = {
        "method": request.method,
        "raw_path": request.scope["raw_path"].decode("latin-1"),
        "path": request.url.path,
        "query": request.scope["query_string"].decode("latin-1"),
        "headers": [
            [k.decode("latin-1"), v.decode("latin-1")] for k, v in request.scope["headers"]
        ],
        "cookies": dict(request.cookies),
        "body": text,
        "body_base64": base64.b64encode(body).decode(),
    }
    state.seen.append(entry)
    return entry


def build_app(state: ServerState) -> ASGIApp:  # noqa: C901, PLR0915  the fake service's routes, each small, defined together beside its state
    async def echo(request: Request) -> Response:
        return JSONResponse(await _record(request, state))

    async def slow(request: Request) -> Response:
        await _record(request, state)
        await asyncio.sleep(float(request.query_params.get("delay", "2")))
        return JSONResponse({"slow": True})

    async def trickle(request: Request) -> Response:
        await _record(request, state)

        async def chunks() -> Any:
            for _ in range(int(request.query_params.get("chunks", "20"))):
                yield b"x" * 10
                await asyncio.sleep(float(request.query_params.get("every", "0.1")))

        return StreamingResponse(chunks(), media_type="text/plain")

    async def huge(request: Request) -> Response:
        await _record(request, state)
        size = int(request.query_params.get("size", "50000000"))
        declare = request.query_params.get("declare") == "1"

        async def chunks() -> Any:
            sent = 0
            block = b"y" * 65536
            while sent < size:
                piece = block[: size - sent]
                sent += len(piece)
                yield piece

        headers = {"content-length": str(size)} if declare else None
        return StreamingResponse(chunks(), media_type="application/octet-stream", headers=headers)

    async def retry_after(request: Request) -> Response:
        entry = await _record(request, state)
        key = request.path_params["key"]
        fails = int(request.query_params.get("fail", "1"))
        if state.bump(key) <= fails:
            after = request.query_params.get("after", "1")
            return JSONResponse(
                {"error": "busy"},
                status_code=int(request.query_params.get("status", "503")),
                headers={"retry-after": after},
            )
        return JSONResponse({"ok": True, "attempt": state.counters[key], "method": entry["method"]})

    async def flaky(request: Request) -> Response:
        await _record(request, state)
        key = request.path_params["key"]
        fails = int(request.query_params.get("fail", "2"))
        status = int(request.query_params.get("status", "503"))
        if state.bump(key) <= fails:
            return JSONResponse({"error": "try again"}, status_code=status)
        return JSONResponse({"ok": True, "attempt": state.counters[key]})

    async def token(request: Request) -> Response:
        entry = await _record(request, state)
        if state.token_delay:
            await asyncio.sleep(state.token_delay)
        expected = "Basic " + base64.b64encode(b"client-1:s3cret-value").decode()
        auth = dict((k, v) for k, v in entry["headers"]).get("authorization")
        form = dict(x.split("=", 1) for x in (entry["body"] or "").split("&") if "=" in x)
        if auth != expected or form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        state.tokens_issued += 1
        value = f"tok-{state.tokens_issued}"
        state.valid_tokens.add(value)
        return JSONResponse(
            {
                "access_token": value,
                "token_type": "Bearer",
                "expires_in": state.token_lifetime,
                "scope": form.get("scope", ""),
            }
        )

    async def protected(request: Request) -> Response:
        entry = await _record(request, state)
        auth = dict((k, v) for k, v in entry["headers"]).get("authorization", "")
        value = auth.removeprefix("Bearer ")
        if value not in state.valid_tokens:
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        return JSONResponse({"ok": True, "token": value})

    async def redirect(request: Request) -> Response:
        await _record(request, state)
        return Response(
            status_code=int(request.query_params.get("status", "302")),
            headers={"location": request.query_params["to"]},
        )

    async def binary(request: Request) -> Response:
        await _record(request, state)
        return Response(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, media_type="image/png")

    async def status(request: Request) -> Response:
        await _record(request, state)
        code = int(request.path_params["code"])
        return JSONResponse(
            {"detail": "x" * int(request.query_params.get("pad", "10"))}, status_code=code
        )

    async def big_json(request: Request) -> Response:
        await _record(request, state)
        n = int(request.query_params.get("n", "1000"))
        return JSONResponse({"items": [{"id": i, "name": f"item {i}"} for i in range(n)]})

    routes = [
        Route("/echo", echo, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
        Route(
            "/echo/{rest:path}",
            echo,
            methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
        ),
        Route("/slow", slow),
        Route("/trickle", trickle),
        Route("/huge", huge),
        Route("/retry-after/{key}", retry_after, methods=["GET", "POST"]),
        Route("/flaky/{key}", flaky, methods=["GET", "POST", "PUT"]),
        Route("/token", token, methods=["POST"]),
        Route("/protected", protected),
        Route("/redirect", redirect, methods=["GET", "POST"]),
        Route("/binary", binary),
        Route("/status/{code:int}", status, methods=["GET", "POST"]),
        Route("/big", big_json),
    ]
    app = Starlette(routes=routes)

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            state.wire.append(
                {
                    "raw_path": scope["raw_path"].decode("latin-1"),
                    "query": scope["query_string"].decode("latin-1"),
                    "headers": [
                        [k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]
                    ],
                }
            )
        await app(scope, receive, send)

    return recording


class _UvicornThread:
    def __init__(self, app: Any) -> None:
        import uvicorn

        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=0,
            log_level="error",
            lifespan="off",
            ws="none",
            access_log=False,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)


@pytest.fixture(scope="session")
def _server() -> Iterator[tuple[str, ServerState]]:
    state = ServerState()
    with _UvicornThread(build_app(state)) as url:
        yield url, state


@pytest.fixture()
def server(_server: tuple[str, ServerState]) -> Iterator[tuple[str, ServerState]]:
    """(base URL, state) of the session's Starlette server; the state is reset for each test."""
    _server[1].reset()
    yield _server
    _server[1].reset()


class _ResettingServer:
    """Accepts, reads the request, then closes with RST (SO_LINGER 0): a connection reset."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.accepted = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import struct

        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.settimeout(2)
            try:
                conn.recv(65536)
            except OSError:
                pass
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def close(self) -> None:
        self.sock.close()


@pytest.fixture()
def resetting_server() -> Iterator[_ResettingServer]:
    srv = _ResettingServer()
    yield srv
    srv.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def httpbin_url(tmp_path_factory: Any) -> Iterator[str]:
    """httpbin 0.10.4 under gunicorn in a subprocess; skips when it is not installed."""
    try:
        import httpbin  # noqa: F401
    except ImportError:
        pytest.skip("httpbin is not installed (pip install httpbin==0.10.4 gunicorn flasgger)")
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or shutil.which(
        "gunicorn"
    )
    if gunicorn is None:
        pytest.skip("gunicorn is not installed")
    port = _free_port()
    log = tmp_path_factory.mktemp("httpbin") / "gunicorn.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen(
            [
                gunicorn,
                "-b",
                f"127.0.0.1:{port}",
                "-w",
                "2",
                "--log-level",
                "warning",
                "httpbin:app",
            ],
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    try:
        while True:
            try:
                if httpx.get(f"{url}/get", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                err = log.read_text(errors="replace")[-500:]
                pytest.skip(f"httpbin did not start: {err}")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
