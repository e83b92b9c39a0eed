"""`toolcat call`: real calls, dry runs, confirmation, exit codes and one-line errors."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli._app import main

CATALOG = """
toolcat: 1
services:
  api:
    base_url: {url}
    auth: {{type: bearer, token: "${{CLI_TOKEN}}"}}
tools:
  - name: echo
    description: Echo.
    service: api
    method: GET
    path: /echo/{{id}}
    parameters:
      id: {{type: string, description: i}}
      q: {{type: integer, required: false, description: q}}
  - name: wipe
    description: Deletes everything.
    service: api
    method: DELETE
    path: /echo/all
    confirm: true
  - name: missing
    description: Always 404.
    service: api
    method: GET
    path: /status/404
"""


@pytest.fixture()
def catalog_path(server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url, _ = server
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG.format(url=url))
    monkeypatch.setenv("CLI_TOKEN", "cli-secret-token")
    return str(path)


def test_call_prints_the_result(catalog_path: str, server: Any, capsys: Any) -> None:
    assert main(["call", catalog_path, "echo", "--args", '{"id": "a b", "q": 3}']) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["raw_path"] == "/echo/a%20b" and out["query"] == "q=3"
    assert "cli-secret-token" not in json.dumps(out)


def test_json_format(catalog_path: str, capsys: Any) -> None:
    assert main(["call", catalog_path, "echo", "--args", '{"id": "x"}', "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["status"] == 200 and out["tool"] == "echo"


def test_dry_run_sends_nothing_and_hides_secrets(
    catalog_path: str, server: Any, capsys: Any
) -> None:
    assert main(["call", catalog_path, "echo", "--args", '{"id": "x"}', "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert (
        out.splitlines()[0].startswith("GET http://127.0.0.1:")
        and "Authorization: Bearer ***" in out
    )
    assert (
        main(
            ["call", catalog_path, "echo", "--args", '{"id": "x"}', "--dry-run", "--format", "json"]
        )
        == 0
    )
    request = json.loads(capsys.readouterr().out)
    assert request["method"] == "GET" and request["headers"] == {"Authorization": "Bearer ***"}
    assert server[1].wire == []


def test_a_dry_run_with_the_secret_unset_shows_the_request_and_a_call_refuses(
    catalog_path: str, server: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLI_TOKEN")
    argv = ["call", catalog_path, "echo", "--args", '{"id": "x"}']
    assert main([*argv, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["Authorization: Bearer ***"]
    assert err == (
        "toolcat: note: CLI_TOKEN is not set: the request shows it masked, "
        "and a real call would stop\n"
    )
    assert main([*argv, "--dry-run", "--format", "json"]) == 0
    request = json.loads(capsys.readouterr().out)
    assert request["headers"] == {"Authorization": "Bearer ***"}
    assert request["unset"] == ["CLI_TOKEN"]
    assert main(argv) == 1
    assert capsys.readouterr().err.startswith(
        "toolcat: echo: missing_variable: environment variable CLI_TOKEN is not set"
    )
    assert server[1].wire == []


def test_tool_errors_exit_1_with_one_line(catalog_path: str, capsys: Any) -> None:
    assert main(["call", catalog_path, "missing"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "toolcat: missing: http_error (HTTP 404): HTTP 404 Not Found"
    assert main(["call", catalog_path, "echo", "--args", '{"id": 5}']) == 1
    assert "invalid_arguments" in capsys.readouterr().err


def test_confirmation_needs_yes_when_not_interactive(
    catalog_path: str, server: Any, capsys: Any
) -> None:
    assert main(["call", catalog_path, "wipe"]) == 1
    assert "pass --yes" in capsys.readouterr().err and server[1].wire == []
    assert main(["call", catalog_path, "wipe", "--yes"]) == 0
    assert server[1].seen[-1]["method"] == "DELETE"


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--args", "{bad"], "--args: arguments are not valid JSON"),
        (["--args", "[]"], "--args: arguments must be a JSON object, got array"),
        (
            ["--args", "@/nonexistent/args.json"],
            "cannot read arguments from /nonexistent/args.json",
        ),
    ],
)
def test_usage_errors_exit_2(catalog_path: str, capsys: Any, argv: list[str], message: str) -> None:
    assert main(["call", catalog_path, "echo", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toolcat: {message}") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "arguments,code,message",
    [
        ('{"id": "../../admin"}', 1, "echo: refused_by_policy: path argument holds a '.'"),
        ('{"id": "%252e%252e"}', 1, "echo: refused_by_policy: path argument holds a '.'"),
        ('{"id": "a/b"}', 1, "echo: refused_by_policy: path argument holds '/'"),
        ('{"id": "x", "q": NaN}', 2, "--args: q: NaN is not a JSON number"),
        ('{"id": "x", "q": 1e999}', 2, "--args: q: an infinite number is not a JSON number"),
        ('{"id": "\\ud800"}', 2, "--args: id: a string holds a lone UTF-16 surrogate"),
    ],
)
def test_unsafe_arguments_in_a_dry_run_are_one_line_errors(
    catalog_path: str, server: Any, capsys: Any, arguments: str, code: int, message: str
) -> None:
    assert main(["call", catalog_path, "echo", "--args", arguments, "--dry-run"]) == code
    out, err = capsys.readouterr()
    assert err.startswith(f"toolcat: {message}") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in out + err
    assert server[1].wire == []


def test_unknown_tool_and_missing_catalog(catalog_path: str, capsys: Any) -> None:
    assert main(["call", catalog_path, "ecko"]) == 2
    assert "did you mean: echo?" in capsys.readouterr().err
    assert main(["call", "/nonexistent.yaml", "echo"]) == 2


def test_arguments_from_a_file(catalog_path: str, tmp_path: Path, capsys: Any) -> None:
    args = tmp_path / "args.json"
    args.write_text('{"id": "from-file"}')
    assert main(["call", catalog_path, "echo", "--args", f"@{args}"]) == 0
    assert json.loads(capsys.readouterr().out)["raw_path"] == "/echo/from-file"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize("answer,code", [("y", 0), ("n", 1)])
def test_confirmation_on_a_terminal(catalog_path: str, server: Any, answer: str, code: int) -> None:
    """On a terminal the user is asked; only "y" sends the request."""
    import os
    import pty
    import subprocess

    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolcat.cli", "call", catalog_path, "wipe"],
        stdin=secondary,
        stdout=subprocess.PIPE,
        stderr=secondary,
        env=os.environ.copy(),
    )
    os.close(secondary)
    prompt = b""
    deadline = time.monotonic() + 30
    while b"[y/N]" not in prompt and time.monotonic() < deadline:
        prompt += os.read(primary, 1024)
    assert b"wipe: Deletes everything." in prompt and b"Run this call? [y/N]" in prompt
    os.write(primary, f"{answer}\n".encode())
    proc.communicate(timeout=30)
    os.close(primary)
    assert proc.returncode == code
    assert [s["method"] for s in server[1].seen] == (["DELETE"] if answer == "y" else [])
