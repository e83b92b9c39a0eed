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


def test_serve_warns_once_started(tmp_path: Path) -> None:
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


def test_chat_warns_once_the_model_answers(tmp_path: Path) -> None:
    from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn

    (tmp_path / "catalog.yaml").write_text(CATALOG, encoding="utf-8")
    model = ScriptedModel([ScriptedTurn(text="Hello."), ScriptedTurn(text="Again.")])
    with BackgroundServer(model.app) as endpoint:
        argv = [*TOOLCAT, "chat", "catalog.yaml", "--base-url", endpoint.url + "/v1"]
        proc = subprocess.run(
            [*argv, "--model", "m", "--api-key-env", "CHAT_KEY"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env=_env(CHAT_KEY="sk-test"),
            input="hi\nand again\n",
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines().count(f"toolcat chat{WARNING}") == 1  # once per session


def test_chat_says_nothing_more_when_the_model_fails(tmp_path: Path) -> None:
    """A failure before the session starts stays one line (the warning waits for a reply)."""
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
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
