"""`serve` and `chat` say at start which ${VAR}s without a default are unset."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]

CATALOG = """\
toolcat: 1
services:
  s:
    base_url: "https://x.example"
    headers: {X-Team: "${TEAM_NAME_FOR_TEST}"}
tools:
  - name: t
    description: Do.
    service: s
    method: GET
    path: /y
"""

WARNING = (
    ": warning: environment variable TEAM_NAME_FOR_TEST is not set "
    "(needed by service s: headers.X-Team at catalog.yaml:5); see 'toolcat env'"
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TEAM_NAME_FOR_TEST"}
    env.update(extra)
    return env


def test_serve_warns_at_start(tmp_path: Path) -> None:
    (tmp_path / "catalog.yaml").write_text(CATALOG, encoding="utf-8")
    run = [*TOOLCAT, "serve", "catalog.yaml"]
    proc = subprocess.run(
        run, cwd=tmp_path, capture_output=True, text=True, timeout=60, env=_env(), input=""
    )
    assert proc.returncode == 0, proc.stderr
    assert f"toolcat serve{WARNING}" in proc.stderr.splitlines()
    proc = subprocess.run(
        run,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(TEAM_NAME_FOR_TEST="ops"),
        input="",
    )
    assert "warning" not in proc.stderr


def test_chat_warns_at_start(tmp_path: Path) -> None:
    (tmp_path / "catalog.yaml").write_text(CATALOG, encoding="utf-8")
    with socket.socket() as closed:  # bound, never listening: the model call is refused
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
        argv = [*TOOLCAT, "chat", "catalog.yaml", "hi", "--base-url", url, "--model", "m"]
        proc = subprocess.run(
            [*argv, "--max-retries", "0"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env=_env(),
        )
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == f"toolcat chat{WARNING}"
