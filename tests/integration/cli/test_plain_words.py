"""Small things a new user meets: paths as they read, a did-you-mean for a mistyped flag,
and a line from `serve` when a person runs it at a terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from toolcat.cli import main

REPO = Path(__file__).resolve().parents[3]
SPEC = REPO / "specs" / "sample-service.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_spec_named_through_dot_dot_is_shown_normalised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "catalog").mkdir()
    (tmp_path / "specs").mkdir()
    text = SPEC.read_text(encoding="utf-8").replace(
        "operationId: createOrder\n",
        'operationId: createOrder\n      parameters: [{$ref: "https://e.example/p.yaml#/L"}]\n',
        1,
    )
    (tmp_path / "specs" / "shop.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "catalog" / "shop.yaml").write_text(
        "toolcat: 1\nopenapi:\n  - spec: ../specs/shop.yaml\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "validate", "catalog")
    assert code == 0
    assert out.startswith("specs/shop.yaml:"), out
    assert "catalog/../" not in out


@pytest.mark.parametrize(
    "argv, said",
    [
        (["validate", ".", "--fial-on", "warning"], "--fial-on warning; did you mean --fail-on?"),
        (["diff", "a", "b", "--formt=json"], "--formt=json; did you mean --format?"),
        (["schema", ".", "--provder", "openai"], "did you mean --provider (for --provder)?"),
        (["validate", ".", "--xyzzy"], "unrecognized arguments: --xyzzy (see"),
        (["call", ".", "t", '{"a": 1}'], """{"a": 1}; a tool's arguments go in --args JSON"""),
        (["import", "--update", "-q", "x.yaml"], "(its value goes right after --update)"),
    ],
)
def test_a_mistyped_flag_gets_a_did_you_mean(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert said in err and err.count("\n") == 1, err


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_serve_on_a_terminal_says_it_waits_for_a_client() -> None:
    """On a TTY, stdio serving would look hung: one line on stderr says what it is."""
    main_fd, tty_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolcat.cli", "serve", str(SPEC)],
        stdin=tty_fd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    os.close(tty_fd)
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        said = b""
        while b"\n" not in said and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 1)
            if ready:
                said += os.read(proc.stderr.fileno(), 4096)
        line = said.decode().splitlines()[0] if said else ""
        assert line == (
            "toolcat serve: serving 4 tools over MCP on stdio; waiting for an MCP client to "
            "speak on standard input (start it from the client; Ctrl-C stops)"
        )
    finally:
        proc.kill()
        proc.communicate(timeout=30)
        os.close(main_fd)


def test_serve_on_a_pipe_stays_quiet(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolcat.cli", "serve", str(SPEC)],
        stdin=subprocess.DEVNULL,  # a client that closes at once: the server ends
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "waiting for an MCP client" not in proc.stderr
