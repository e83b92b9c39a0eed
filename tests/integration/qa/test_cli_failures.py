"""Every failure of the real `toolcat` process is one line on stderr with the documented exit code.

Bad usage and unreadable input exit 2; a model endpoint that fails exits 1;
Ctrl-C exits 130. Never a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from toolcat.testing import BackgroundServer

from .conftest import TOOLCAT, toolcat


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("toolcat: "), proc.stderr
    return lines[0]


def test_no_command_is_one_line_exit_2() -> None:
    proc = toolcat()
    assert proc.returncode == 2
    assert "a command is required" in one_line(proc)
    assert proc.stdout == ""


def test_an_empty_path_is_refused_not_read_as_the_current_directory(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*TOOLCAT, "validate", ""], capture_output=True, text=True, timeout=30, cwd=tmp_path
    )
    assert proc.returncode == 2
    assert "empty path" in one_line(proc)


@pytest.mark.parametrize("redirect", [">&-", "2>&-", "<&-"])
def test_closed_standard_streams_do_not_crash(redirect: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("toolcat: 1\ntools:\n  - nme: x\n")
    command = " ".join([*TOOLCAT, "validate", str(broken)])
    proc = subprocess.run(
        f"{command} {redirect}", shell=True, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 1  # the finding still decides the exit code
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


# -- toolcat serve --------------------------------------------------------------------------


def test_serve_on_a_port_in_use_is_one_line_exit_2(catalog_file: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = toolcat("serve", str(catalog_file), "--transport", "http", "--port", str(port))
    assert proc.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in one_line(proc)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--port", "99999"], "--port must be 0-65535"),
        (
            ["--host", "no-such-host.invalid", "--port", "0"],
            "cannot listen on no-such-host.invalid",
        ),
    ],
)
def test_serve_on_an_impossible_address_is_one_line_exit_2(
    catalog_file: Path, flags: list[str], words: str
) -> None:
    proc = toolcat("serve", str(catalog_file), "--transport", "http", *flags)
    assert proc.returncode == 2
    assert words in one_line(proc)


# -- toolcat chat against endpoints that misbehave ------------------------------------------


def raw_app(status: int, content_type: str, body: bytes) -> Callable[..., Any]:
    """An ASGI app answering every request with the same bytes."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", content_type.encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return app


def chat(catalog: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return toolcat(
        "chat",
        str(catalog),
        "--base-url",
        url,
        "--model",
        "m",
        "--max-retries",
        "0",
        *extra,
        "hello",
    )


@pytest.mark.parametrize(
    ("status", "content_type", "body", "words"),
    [
        (200, "text/html", b"<html><body>Bad gateway</body></html>", "not JSON"),
        (502, "text/html", b"<html><body>Bad gateway</body></html>", "HTTP 502"),
        (401, "application/json", b'{"error": {"message": "Invalid API key"}}', "HTTP 401"),
        (200, "application/json", b'{"choices": [{"mess', "not JSON"),
        (200, "application/json", b'{"id": "x"}', "no choices"),
    ],
)
def test_a_misbehaving_model_endpoint_is_one_line_exit_1(
    catalog_file: Path, status: int, content_type: str, body: bytes, words: str
) -> None:
    with BackgroundServer(raw_app(status, content_type, body)) as endpoint:
        proc = chat(catalog_file, endpoint.url + "/v1")
    assert proc.returncode == 1
    assert words in one_line(proc)
    assert proc.stdout == ""


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", b'{"choices": [{"message": {"role": "assistant", "content": "hi"}}]}'),
        ("text/html", b"<html><body>Bad gateway</body></html>"),
    ],
)
def test_streaming_from_an_endpoint_that_does_not_stream_is_an_error(
    catalog_file: Path, provider: str, content_type: str, body: bytes
) -> None:
    with BackgroundServer(raw_app(200, content_type, body)) as endpoint:
        proc = chat(catalog_file, endpoint.url + "/v1", "--stream", "--provider", provider)
    assert proc.returncode == 1  # not an empty answer and exit 0
    line = one_line(proc)
    assert "expected a stream of server-sent events" in line and content_type in line


def test_a_closed_port_is_one_line_exit_1(catalog_file: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens there
    proc = chat(catalog_file, f"http://127.0.0.1:{port}/v1")
    assert proc.returncode == 1
    assert "cannot reach model endpoint" in one_line(proc)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--base-url", "api.example.com/v1"], "--base-url must start with http"),
        (["--base-url", "http://127.0.0.1:9/v1", "--timeout", "0"], "--timeout must be positive"),
        (["--base-url", "http://127.0.0.1:9/v1", "--max-retries", "-1"], "cannot be negative"),
        (["--base-url", "http://127.0.0.1:9/v1", "--extra-body", "{"], "--extra-body is not JSON"),
        (["--base-url", "http://127.0.0.1:9/v1", "--model", " "], "--model cannot be empty"),
    ],
)
def test_chat_bad_usage_is_one_line_exit_2(
    catalog_file: Path, flags: list[str], words: str
) -> None:
    proc = toolcat("chat", str(catalog_file), "--model", "m", *flags, "hello")
    assert proc.returncode == 2
    assert words.replace("must be positive", "must be a positive") in one_line(proc)


def test_an_empty_prompt_is_one_line_exit_2(catalog_file: Path) -> None:
    proc = toolcat(
        "chat", str(catalog_file), "--model", "m", "--base-url", "http://127.0.0.1:9/v1", " "
    )
    assert proc.returncode == 2
    assert "no prompt" in one_line(proc)


def tool_call_turns(name: str, arguments: str) -> Callable[..., Any]:
    """A model that calls one tool, then answers with what the tool result said."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        last = json.loads(raw)["messages"][-1]
        if last["role"] == "tool":
            reply = {"role": "assistant", "content": "tool said: " + last["content"]}
            choice = {"index": 0, "finish_reason": "stop", "message": reply}
        else:
            call = {
                "id": "c1",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
            reply = {"role": "assistant", "content": None, "tool_calls": [call]}
            choice = {"index": 0, "finish_reason": "tool_calls", "message": reply}
        body = json.dumps({"choices": [choice]}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return app


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("get_itme", "{}", "unknown_tool"),
        ("get_item", "{not json", "invalid_json"),
        ("get_item", '{"sku": 5}', "invalid_arguments"),
        ("get_item", "null", "invalid_json"),
    ],
)
def test_a_bad_tool_call_goes_back_to_the_model_as_an_error(
    catalog_file: Path, name: str, arguments: str, error: str
) -> None:
    with BackgroundServer(tool_call_turns(name, arguments)) as endpoint:
        proc = chat(catalog_file, endpoint.url + "/v1")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.startswith("tool said: ") and error in proc.stdout
    assert f"<- {name} error (not sent" in proc.stderr


@pytest.fixture
def silent_socket() -> Iterator[socket.socket]:
    """Accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("command", ["chat", "serve-http"])
def test_ctrl_c_is_one_line_exit_130(
    catalog_file: Path, silent_socket: socket.socket, command: str
) -> None:
    silent_endpoint = f"http://127.0.0.1:{silent_socket.getsockname()[1]}/v1"
    if command == "chat":
        args = ["chat", str(catalog_file), "--base-url", silent_endpoint, "--model", "m", "hi"]
        ready = None
    else:
        args = ["serve", str(catalog_file), "--transport", "http", "--port", "0"]
        ready = "MCP streamable HTTP on"
    proc = subprocess.Popen(
        [*TOOLCAT, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},  # SIGABRT dumps every thread's stack
        # Ctrl-C as a terminal delivers it: a test run started in the background by a
        # non-interactive shell inherits SIGINT ignored, and so would the command
        preexec_fn=_default_sigint,
    )
    held: list[socket.socket] = []
    try:
        if ready:
            # its line may follow others (a warning about an unset variable comes first
            # on a loaded machine): read until it, a few lines at most
            assert proc.stderr is not None
            lines = [proc.stderr.readline()]
            while ready not in lines[-1] and lines[-1] and len(lines) < 10:
                lines.append(proc.stderr.readline())
            assert ready in lines[-1], lines
        else:
            # Wait until the request is out, not a fixed time: on a loaded machine the
            # process may still be starting after 1.5 s, before Python handles SIGINT.
            silent_socket.settimeout(30)
            connection, _ = silent_socket.accept()
            held.append(connection)  # left open, unanswered, until the process is gone
            assert connection.recv(1)  # the first byte of the request was sent
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # where it hangs, for whoever reads the failure
            _, stacks = proc.communicate(timeout=20)
            pytest.fail(f"{command} did not exit 20 s after SIGINT; its stacks:\n{stacks}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()  # reap it and close its pipes, or a later test meets them
        for connection in held:
            connection.close()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "toolcat: interrupted"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["list"], ["schema", "--provider", "mcp"], ["validate"]])
def test_a_full_disk_is_one_line_exit_2(catalog_file: Path, args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [*TOOLCAT, args[0], str(catalog_file), *args[1:]],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
        )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == "toolcat: cannot write the output: No space left on device"
