"""`toolcat serve --transport http` answers only the Host and Origin values it should
(issue 10, class 6): DNS-rebinding protection on every bind address, ``--allowed-host``
and ``--allowed-origin`` for real deployments, and ``--host ::1`` over IPv6.

Each server is the real command in a subprocess; allowed requests go through the
official MCP client SDK, refused ones through raw HTTP so the status is seen.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
CATALOG = """\
toolcat: 1
services:
  warehouse: {base_url: "${WAREHOUSE_URL}"}
tools:
  - name: get_item
    description: One item by SKU.
    service: warehouse
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, description: The SKU}
  - name: create_order
    description: Order an item.
    service: warehouse
    method: POST
    path: /orders
    confirm: true
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class Served:
    """A running `toolcat serve --transport http`: its announced URL and its stderr lines."""

    def __init__(self, proc: subprocess.Popen[str], url: str, lines: list[str]) -> None:
        self.proc = proc
        self.url = url
        self.lines = lines
        self.port = int(url.rsplit(":", 1)[1].split("/")[0])

    def post(self, **headers: str) -> httpx.Response:
        """An initialize request with these extra headers (``Host`` overrides the real one)."""
        with httpx.Client(timeout=10) as client:
            return client.post(self.url, json=INITIALIZE, headers={**HEADERS, **headers})


def serve(catalog: Path, env: dict[str, str], *flags: str) -> Served:
    proc = subprocess.Popen(
        [*TOOLCAT, "serve", str(catalog), "--transport", "http", "--port", "0", *flags],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    for _ in range(20):  # the ready line, after any notice the server printed first
        lines.append(proc.stderr.readline())
        found = re.search(r"http://\S+/mcp", lines[-1])
        if found or not lines[-1]:
            break
    if not found:
        proc.kill()
        proc.wait(10)
        proc.stderr.close()
        pytest.fail(f"no ready line: {lines}")
    return Served(proc, found.group(0), lines)


def stop(served: Served) -> None:
    served.proc.terminate()
    served.proc.wait(10)
    if served.proc.stderr:
        served.proc.stderr.close()


@pytest.fixture(scope="module")
def shared_catalog(tmp_path_factory: pytest.TempPathFactory, warehouse: str) -> Path:
    """The mcp folder's catalog, for the servers shared by this module's tests."""
    path = tmp_path_factory.mktemp("hosts") / "catalog.yaml"
    path.write_text(CATALOG.replace("${WAREHOUSE_URL}", warehouse))
    return path


@pytest.fixture(scope="module")
def loopback(shared_catalog: Path) -> Iterator[Served]:
    served = serve(shared_catalog, dict(os.environ))
    yield served
    stop(served)


@pytest.fixture(scope="module")
def deployed(shared_catalog: Path) -> Iterator[Served]:
    """Behind a load balancer named api.example.com, with a browser app on its own origin."""
    served = serve(
        shared_catalog,
        dict(os.environ),
        "--host",
        "0.0.0.0",
        "--insecure-no-auth",  # the Host checks are under test here, not authentication
        "--allowed-host",
        "api.example.com",
        "--allowed-host",
        "mcp.internal:9443",
        "--allowed-origin",
        "https://app.example.com",
    )
    yield served
    stop(served)


def list_tools(url: str, headers: dict[str, str] | None = None) -> list[str]:
    """Through the MCP client SDK: initialize, then tools/list."""

    async def session() -> list[str]:
        with anyio.fail_after(30):
            async with (
                create_mcp_http_client(headers=headers) as http,
                streamable_http_client(url, http_client=http) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                return [t.name for t in (await s.list_tools()).tools]

    return anyio.run(session)


# -- the default: a loopback bind -------------------------------------------------------


def test_a_loopback_server_serves_its_own_names_to_the_sdk_client(loopback: Served) -> None:
    assert list_tools(loopback.url) == ["get_item", "create_order"]
    port = loopback.port
    assert list_tools(loopback.url, {"Host": f"localhost:{port}"}) == ["get_item", "create_order"]
    # a browser page served from the server's own origin
    origin = {"Origin": f"http://localhost:{port}"}
    assert list_tools(loopback.url, origin) == ["get_item", "create_order"]


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("evil.example:{port}", "a rebinding attacker's name"),
        ("127.0.0.1:{other}", "the right address with a different port"),
        ("localhost", "no port: port 80, not the server's"),
        ("localhost:{port}.evil.example", "a name that only starts like an allowed one"),
        ("127.0.0.1:{port}, evil.example", "two values in one header"),
    ],
)
def test_a_wrong_host_gets_421_before_anything_runs(loopback: Served, host: str, why: str) -> None:
    other = loopback.port + 1 if loopback.port < 65535 else loopback.port - 1
    response = loopback.post(Host=host.format(port=loopback.port, other=other))
    assert response.status_code == 421, why
    assert "mcp-session-id" not in response.headers  # no session was made
    assert "--allowed-host" in response.text


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "http://127.0.0.1:{other}", "null", "https://localhost:{port}.evil"],
)
def test_an_origin_that_is_not_allowed_gets_403(loopback: Served, origin: str) -> None:
    other = loopback.port + 1 if loopback.port < 65535 else loopback.port - 1
    response = loopback.post(Origin=origin.format(port=loopback.port, other=other))
    assert response.status_code == 403
    assert "mcp-session-id" not in response.headers


def test_a_request_without_a_host_header_gets_421(loopback: Served) -> None:
    with socket.create_connection(("127.0.0.1", loopback.port), timeout=10) as sock:
        sock.sendall(b"GET /mcp HTTP/1.0\r\nAccept: text/event-stream\r\n\r\n")
        status = sock.recv(64).split(b"\r\n", 1)[0]
    assert b" 421 " in status, status


def test_a_non_browser_client_without_origin_is_allowed(loopback: Served) -> None:
    response = loopback.post()
    assert response.status_code == 200, response.text
    assert "mcp-session-id" in response.headers


# -- a real deployment: 0.0.0.0 with --allowed-host and --allowed-origin ----------------


def test_a_deployment_answers_the_names_it_is_given(deployed: Served) -> None:
    assert not any("answering only" in line for line in deployed.lines)
    url = f"http://127.0.0.1:{deployed.port}/mcp"  # the load balancer's hop, on loopback
    tools = ["get_item", "create_order"]
    assert list_tools(url, {"Host": "api.example.com"}) == tools  # any port for a bare HOST
    assert list_tools(url, {"Host": "API.Example.COM:443"}) == tools  # names ignore case
    assert list_tools(url, {"Host": "mcp.internal:9443"}) == tools
    browser = {"Host": "api.example.com", "Origin": "https://app.example.com"}
    assert list_tools(url, browser) == tools
    same_origin = {"Host": "api.example.com", "Origin": "https://api.example.com"}
    assert list_tools(url, same_origin) == tools
    assert list_tools(url, {"Host": f"localhost:{deployed.port}"}) == tools  # loopback stays


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example"}, 421),
        ({"Host": "10.1.2.3:{port}"}, 421),  # an address of the machine, never named
        ({"Host": "mcp.internal:9444"}, 421),  # a named port is that port only
        ({"Host": "mcp.internal"}, 421),  # ... and a missing port is 80
        ({"Host": "api.example.com", "Origin": "https://evil.example"}, 403),
        ({"Host": "api.example.com", "Origin": "http://app.example.com"}, 403),  # not https
        ({"Host": "api.example.com", "Origin": "https://app.example.com:8443"}, 403),
    ],
)
def test_a_deployment_refuses_other_names_and_origins(
    deployed: Served, headers: dict[str, str], status: int
) -> None:
    sent = {k: v.format(port=deployed.port) for k, v in headers.items()}
    assert deployed.post(**sent).status_code == status


def test_a_wildcard_bind_without_allowed_host_answers_loopback_names_only(
    catalog_file: Path, serve_env: dict[str, str]
) -> None:
    served = serve(catalog_file, serve_env, "--host", "0.0.0.0", "--insecure-no-auth")
    try:
        notice = "".join(served.lines)
        assert "answering only Host localhost:PORT, 127.0.0.1:PORT, [::1]:PORT" in notice
        assert "--allowed-host" in notice
        url = f"http://127.0.0.1:{served.port}/mcp"
        assert list_tools(url) == ["get_item", "create_order"]
        assert served.post(Host=f"localhost:{served.port}").status_code == 200
        assert served.post(Host=f"api.example.com:{served.port}").status_code == 421
        assert served.post(Host=f"0.0.0.0:{served.port}").status_code == 421
    finally:
        stop(served)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--allowed-host", "api example.com"], "--allowed-host 'api example.com'"),
        (["--allowed-host", "api.example.com:99999"], "the port must be 1-65535"),
        (["--allowed-host", "[::1"], "closed with ']'"),
        (["--allowed-origin", "app.example.com"], "--allowed-origin: not an origin"),
        (["--allowed-origin", "https://app.example.com/path"], "not an origin"),
    ],
)
def test_a_bad_allowed_value_is_one_line_exit_2(
    catalog_file: Path, flags: list[str], words: str
) -> None:
    done = subprocess.run(
        [*TOOLCAT, "serve", str(catalog_file), "--transport", "http", "--port", "0", *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], done.stderr


# -- IPv6 loopback ------------------------------------------------------------------------


def _has_ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="this machine has no IPv6 loopback (::1)")
@pytest.mark.parametrize("host", ["::1", "[::1]", "0:0:0:0:0:0:0:1"])
def test_an_ipv6_loopback_server_announces_a_url_the_sdk_client_uses(
    catalog_file: Path, serve_env: dict[str, str], host: str
) -> None:
    served = serve(catalog_file, serve_env, "--host", host)
    try:
        assert re.fullmatch(r"http://\[[0-9a-f:]+\]:\d+/mcp", served.url), served.url
        assert httpx.URL(served.url).host in ("::1", "0:0:0:0:0:0:0:1")
        assert list_tools(served.url) == ["get_item", "create_order"]
        assert served.post(Host=f"[::1]:{served.port + 1}").status_code == 421
        assert served.post(Origin="http://evil.example").status_code == 403
    finally:
        stop(served)
