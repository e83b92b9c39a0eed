"""ServeLimits' ranges, and SessionLimits counting sessions per caller around an ASGI app
that opens a session on every request without one (as the SDK's does)."""

from __future__ import annotations

import subprocess
import sys
from itertools import count
from typing import Any

import anyio
import pytest
from toolcat.executor import CallerIdentity
from toolcat.executor.mcp_server import ServeLimits
from toolcat.executor.mcp_server._limits import SessionLimits
from toolcat.executor.mcp_server._verify import VerifiedToken, access_token


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("header_timeout", 0),
        ("header_timeout", float("inf")),
        ("keep_alive_timeout", -1),
        ("session_idle_timeout", 86401),
        ("max_connections", 0),
        ("max_sessions", 0),
        ("max_sessions_per_caller", 0),
    ],
)
def test_out_of_range_is_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field.replace("_", "-")):
        ServeLimits(**{field: value})  # type: ignore[arg-type]


def test_a_bad_flag_is_one_line_exit_2(tmp_path: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("toolcat: 1\ntools: []\n")
    done = subprocess.run(
        [sys.executable, "-m", "toolcat.cli", "serve", str(path), "--transport", "http"]
        + ["--port", "0", "--max-sessions-per-caller", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "toolcat: --max-sessions-per-caller must be 1-1000000"
    ]


class _Opens:
    """An ASGI app that names a new session in each answer to a request without one,
    after ``delay`` seconds; DELETE ends a session."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.ids = count(1)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await anyio.sleep(self.delay)
        headers = [(b"content-length", b"0")]
        if not any(k == b"mcp-session-id" for k, _ in scope["headers"]):
            headers.append((b"mcp-session-id", f"s{next(self.ids)}".encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


def _scope(who: str, method: str = "POST", session: str | None = None) -> dict[str, Any]:
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

    identity = CallerIdentity.make(subject=who, method="api_key")
    token: VerifiedToken = access_token(identity, f"key-of-{who}")
    headers = [] if session is None else [(b"mcp-session-id", session.encode())]
    user = AuthenticatedUser(token)
    return {"type": "http", "method": method, "path": "/mcp", "headers": headers, "user": user}


async def _call(app: Any, scope: dict[str, Any]) -> tuple[int, str | None]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    named = dict(start["headers"]).get(b"mcp-session-id")
    return start["status"], named.decode() if named else None


def test_sessions_opened_at_once_count_before_their_answers() -> None:
    limits = SessionLimits(_Opens(delay=0.2), path="/mcp", per_caller=3, idle_timeout=60)
    statuses: list[int] = []

    async def run() -> None:
        async def one() -> None:
            statuses.append((await _call(limits, _scope("alice")))[0])

        async with anyio.create_task_group() as tg:
            for _ in range(10):  # ten at once: only three get a session
                tg.start_soon(one)

    anyio.run(run)
    assert sorted(statuses) == [200, 200, 200] + [429] * 7
    assert limits.open_sessions(CallerIdentity.make(subject="alice", method="api_key").key) == 3


def test_a_deleted_or_idle_session_makes_room() -> None:
    limits = SessionLimits(_Opens(), path="/mcp", per_caller=1, idle_timeout=0.2)
    alice = CallerIdentity.make(subject="alice", method="api_key").key

    async def run() -> None:
        status, first = await _call(limits, _scope("alice"))
        assert status == 200 and first is not None
        assert (await _call(limits, _scope("alice")))[0] == 429
        assert (await _call(limits, _scope("bob")))[0] == 200  # per caller
        assert (await _call(limits, {**_scope("alice"), "path": "/docs/"}))[0] == 200
        await _call(limits, _scope("alice", "DELETE", first))
        assert limits.open_sessions(alice) == 0
        assert (await _call(limits, _scope("alice")))[0] == 200
        await anyio.sleep(0.3)  # idle past idle_timeout
        assert limits.open_sessions(alice) == 0

    anyio.run(run)
