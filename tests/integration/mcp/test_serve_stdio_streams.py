"""`toolcat serve` over stdio on pipes (read and written on its event loop) and on regular
files (the SDK's own streams): the same answers, written whole, one per line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SERVE = [sys.executable, "-m", "toolcat.cli", "serve"]

REQUESTS = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "get_item", "arguments": {"sku": "W-BLUE-01"}},
    },
]


def _answers(out: bytes) -> dict[Any, dict[str, Any]]:
    lines = out.decode().splitlines()
    messages = [json.loads(line) for line in lines]  # every line one whole message
    return {m["id"]: m for m in messages if "id" in m}


def _check(answers: dict[Any, dict[str, Any]]) -> None:
    assert set(answers) == {1, 2, 3}
    assert {t["name"] for t in answers[2]["result"]["tools"]} == {"get_item", "create_order"}
    assert answers[3]["result"]["structuredContent"]["stock"] == 42


def test_pipes_split_anywhere(catalog_file: Path, serve_env: dict[str, str]) -> None:
    """The requests arrive in pieces that cut messages apart."""
    wire = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in REQUESTS).encode()
    with subprocess.Popen(
        [*SERVE, str(catalog_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=serve_env,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        try:
            for start in range(0, len(wire), 37):
                process.stdin.write(wire[start : start + 37])
                process.stdin.flush()
            lines: list[bytes] = []
            while len(_answers(b"".join(lines))) < 3:
                lines.append(process.stdout.readline())
                assert lines[-1], "serve closed its stdout before answering"
            process.stdin.close()  # end of file ends serve
            assert process.wait(timeout=60) == 0
        finally:
            process.kill()
    _check(_answers(b"".join(lines)))


def test_regular_files_get_the_sdk_streams(
    catalog_file: Path, serve_env: dict[str, str], tmp_path: Path
) -> None:
    requests = tmp_path / "requests.jsonl"
    # end of file comes at once: a request still running then is answered "Connection
    # closed" (the SDK's way, on any stream), so only the handshake is sure of its answer
    requests.write_text("".join(json.dumps(r) + "\n" for r in REQUESTS[:2]))
    answers = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        subprocess.run(
            [*SERVE, str(catalog_file)],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            env=serve_env,
            timeout=60,
            check=True,
        )
    answered = _answers(answers.read_bytes())
    assert answered[1]["result"]["serverInfo"]["name"] == "toolcat"
