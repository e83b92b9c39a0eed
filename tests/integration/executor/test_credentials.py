"""Credentials go only to their service, through real sockets on 127.0.0.1.

Two plain HTTP servers on loopback play the catalog's service ("vendor") and
another host; each records every request it gets, and the token must never
arrive anywhere but under the vendor's base path.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.loader import load_catalog

TOKEN = "tok-5ecret/9f3a+x=="  # characters that JSON and URLs escape


@dataclass
class Host:
    """A loopback server: what it saw, and redirects it answers with (path -> status, location)."""

    url: str = ""
    seen: list[dict[str, Any]] = field(default_factory=list)
    redirects: dict[str, tuple[int, str]] = field(default_factory=dict)

    def auth_seen(self) -> list[str]:
        return [h for r in self.seen for k, h in r["headers"] if k.lower() == "authorization"]

    def token_seen(self) -> bool:
        return any(TOKEN in json.dumps(r) for r in self.seen)


def _handler(host: Host) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
            host.seen.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": list(self.headers.items()),
                    "body": body,
                }
            )
            path = self.path.partition("?")[0]
            if path.startswith("/api/echo/"):  # echo the token back in the form named
                self._echo(path.rsplit("/", 1)[1])
                return
            if path in host.redirects:
                status, location = host.redirects[path]
                self.send_response(status)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = json.dumps({"path": path}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _echo(self, form: str) -> None:
            token = (self.headers.get("authorization") or "").partition(" ")[2]
            echoed = {
                "json": json.dumps(token).replace("/", "\\/")[1:-1],
                "unicode": "".join(f"\\u{ord(c):04X}" for c in token),
                "url": quote(token, safe=""),
                "mixed": token[:3] + f"\\u{ord(token[3]):04x}" + quote(token[4:], safe="-"),
            }[form]
            data = ('{"echo": "' + echoed + '", "raw": "Bearer ' + echoed + '"}').encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Link", f"<{host.url}/api/next?token={quote(token)}>; rel=next")
            self.send_header("X-Request-Id", f"req-{token}")
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture()
def hosts() -> Iterator[tuple[Host, Host]]:
    made: list[tuple[ThreadingHTTPServer, threading.Thread]] = []
    out: list[Host] = []
    for _ in range(2):
        host = Host()
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(host))
        host.url = f"http://127.0.0.1:{server.server_address[1]}"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        made.append((server, thread))
        out.append(host)
    try:
        yield out[0], out[1]
    finally:
        for server, thread in made:
            server.shutdown()
            server.server_close()
            thread.join(5)


def _catalog(tmp_path: Path, text: str, spec: dict[str, Any] | None = None) -> Any:
    if spec is not None:
        (tmp_path / "vendor.json").write_text(json.dumps(spec), encoding="utf-8")
    path = tmp_path / "catalog.yaml"
    path.write_text(text, encoding="utf-8")
    return load_catalog([path], progress=False)


def _vendor(base: str, extra: str = "") -> str:
    return (
        "toolcat: 1\nservices:\n  vendor:\n"
        f"    base_url: {base}\n"
        "    auth: {type: bearer, token: '${VENDOR_TOKEN}'}\n" + extra
    )


def _call(catalog: Any, name: str, **env: str) -> Any:
    with Executor(catalog, ExecutorSettings(env={"VENDOR_TOKEN": TOKEN, **env})) as ex:
        return ex.execute(ToolCall(name, {}))


# -- 1. an imported spec's servers entry -------------------------------------------------


def _spec(where: str, server: str) -> dict[str, Any]:
    op: dict[str, Any] = {"operationId": "collect", "responses": {"200": {"description": "ok"}}}
    item: dict[str, Any] = {"post": op}
    if where == "operation":
        op["servers"] = [{"url": server}]
    else:
        item["servers"] = [{"url": server}]
    return {
        "openapi": "3.0.3",
        "info": {"title": "Vendor", "version": "1"},
        "servers": [{"url": "https://vendor.invalid/api"}],
        "paths": {
            "/collect": item,
            "/items": {
                "get": {"operationId": "items", "responses": {"200": {"description": "ok"}}}
            },
        },
    }


@pytest.mark.parametrize(
    ("where", "target"),
    [
        ("operation", "other"),  # the example: another host (another port)
        ("path", "other"),  # a path-level servers entry
        ("operation", "same-origin"),  # the vendor's own origin, outside its base path
    ],
)
def test_a_spec_server_elsewhere_never_gets_the_token(
    hosts: tuple[Host, Host], tmp_path: Path, where: str, target: str
) -> None:
    vendor, other = hosts
    server = f"{other.url}/collect" if target == "other" else f"{vendor.url}/elsewhere"
    # confirm_methods: [] (the import policy): the POST runs without asking
    entry = "openapi:\n  - spec: vendor.json\n    service: vendor\n    confirm_methods: []\n"
    text = _vendor(f"{vendor.url}/api", entry)
    result = _catalog(tmp_path, text, _spec(where, server))
    assert [d.code for d in result.diagnostics] == ["TC209"]
    assert result.diagnostics[0].severity == "warning"  # validate --fail-on warning fails
    catalog = result.catalog
    tool = catalog.get("collect")
    assert tool.command.service != "vendor" and tool.command.base_url is None
    called = _call(catalog, "collect")
    assert called.ok  # the operation still works, without credentials
    reached = other if target == "other" else vendor
    assert [r["path"] for r in reached.seen] == (
        ["/collect/collect"] if target == "other" else ["/elsewhere/collect"]
    )
    assert not other.token_seen() and not other.auth_seen()
    assert not any(TOKEN in json.dumps(r) for r in vendor.seen if r["path"].startswith("/else"))
    # the service's own operation still carries its token, to the vendor only
    assert _call(catalog, "items").ok
    assert vendor.seen[-1]["path"] == "/api/items" and vendor.auth_seen()[-1] == f"Bearer {TOKEN}"


@pytest.mark.parametrize(
    "tool_base",
    [
        "{other}/api",  # another port
        "{vendor}/apix",  # same origin, a sibling of the base path
        "{vendor}",  # same origin, above the base path
    ],
)
def test_the_executor_refuses_a_url_outside_the_service(
    hosts: tuple[Host, Host], tmp_path: Path, tool_base: str
) -> None:
    """Defense in depth: a tool base_url off the service's base URL, known only at run time
    (a literal one is a TC008 at load)."""
    vendor, other = hosts
    base = tool_base.format(vendor=vendor.url, other=other.url)
    tool = (
        "tools:\n  - name: leak\n    description: Leak.\n    service: vendor\n"
        "    base_url: '${LEAK_URL}'\n    method: GET\n    path: /items\n"
    )
    result = _catalog(tmp_path, _vendor(f"{vendor.url}/api", tool))
    assert result.catalog is not None, result.diagnostics
    called = _call(result.catalog, "leak", LEAK_URL=base)
    assert called.error.type == "refused_by_policy" and "nothing was sent" in called.error.msg
    assert vendor.seen == [] and other.seen == []


# -- 2. userinfo in base_url -----------------------------------------------------------


@pytest.mark.parametrize(
    "base",
    [
        "http://ops:s3cretpw@127.0.0.1:9/api",
        "http://s3cretpw@127.0.0.1:9",
        "http://ops:${PASSWORD_s3cretpw}@127.0.0.1:9/api",
    ],
)
def test_userinfo_in_base_url_is_refused_at_load(tmp_path: Path, base: str) -> None:
    result = _catalog(tmp_path, _vendor(base))
    assert result.catalog is None
    assert [(d.code, d.line) for d in result.diagnostics] == [("TC040", 4)]
    assert "s3cretpw" not in str(result.diagnostics[0])


def test_userinfo_from_a_variable_is_refused_at_run_time(
    hosts: tuple[Host, Host], tmp_path: Path
) -> None:
    vendor, _ = hosts
    text = _vendor("${VENDOR_URL}") + (
        "tools:\n  - name: items\n    description: Items.\n    service: vendor\n"
        "    method: GET\n    path: /items\n"
    )
    catalog = _catalog(tmp_path, text).catalog
    url = vendor.url.replace("http://", "http://ops:s3cretpw@")
    with Executor(catalog, ExecutorSettings(env={"VENDOR_TOKEN": TOKEN, "VENDOR_URL": url})) as ex:
        called = ex.execute(ToolCall("items", {}))
    assert called.error is not None
    assert called.error.type == "refused_by_policy" and "s3cretpw" not in called.error.msg
    assert vendor.seen == []


# -- 3. redirects ------------------------------------------------------------------------


def _tool(method: str) -> str:
    return (
        "tools:\n  - name: act\n    description: Act.\n    service: vendor\n"
        f"    method: {method}\n    path: /act\n"
        + ("    body: {note: hello}\n" if method != "GET" else "")
    )


@pytest.mark.parametrize(
    "location",
    [
        "/outside",  # the example: same origin, outside the base path
        "/apix/act",  # a sibling that shares the prefix
        "{other}/api/act",  # another host, even under the same path
    ],
)
def test_a_redirect_outside_the_base_path_is_not_followed(
    hosts: tuple[Host, Host], tmp_path: Path, location: str
) -> None:
    vendor, other = hosts
    vendor.redirects["/api/act"] = (302, location.format(other=other.url))
    catalog = _catalog(tmp_path, _vendor(f"{vendor.url}/api", _tool("GET"))).catalog
    called = _call(catalog, "act")
    assert called.error.type == "refused_by_policy" and called.status == 302
    assert [r["path"] for r in vendor.seen] == ["/api/act"] and other.seen == []


@pytest.mark.parametrize(("method", "status"), [("POST", 307), ("PUT", 308), ("DELETE", 301)])
def test_a_non_safe_method_is_never_resent_on_a_redirect(
    hosts: tuple[Host, Host], tmp_path: Path, method: str, status: int
) -> None:
    vendor, _ = hosts
    vendor.redirects["/api/act"] = (status, "/api/again")
    catalog = _catalog(tmp_path, _vendor(f"{vendor.url}/api", _tool(method))).catalog
    called = _call(catalog, "act")
    assert called.error.type == "refused_by_policy" and called.status == status
    assert [(r["method"], r["path"]) for r in vendor.seen] == [(method, "/api/act")]


def test_a_redirect_under_the_base_path_is_followed(
    hosts: tuple[Host, Host], tmp_path: Path
) -> None:
    vendor, _ = hosts
    vendor.redirects["/api/act"] = (303, "/api/done")
    catalog = _catalog(tmp_path, _vendor(f"{vendor.url}/api", _tool("POST"))).catalog
    called = _call(catalog, "act")
    assert called.ok
    assert [(r["method"], r["path"], r["body"]) for r in vendor.seen] == [
        ("POST", "/api/act", '{"note":"hello"}'),
        ("GET", "/api/done", ""),
    ]


# -- 4. secrets echoed back, encoded -----------------------------------------------------


@pytest.mark.parametrize("form", ["json", "unicode", "url", "mixed"])
def test_an_echoed_token_is_masked_in_every_encoding_and_header(
    hosts: tuple[Host, Host], tmp_path: Path, form: str
) -> None:
    vendor, _ = hosts
    tool = (
        "tools:\n  - name: echo\n    description: Echo.\n    service: vendor\n"
        f"    method: GET\n    path: /echo/{form}\n"
    )
    catalog = _catalog(tmp_path, _vendor(f"{vendor.url}/api", tool)).catalog
    called = _call(catalog, "echo")
    assert called.ok and vendor.auth_seen() == [f"Bearer {TOKEN}"]
    shown = repr(called) + called.content + json.dumps(dict(called.headers))
    assert "***" in called.content and "***" in called.headers["link"]
    assert called.headers["x-request-id"] == "req-***"
    for leaked in (TOKEN, "5ecret", quote(TOKEN, safe=""), "5ecret\\/9f3a"):
        assert leaked not in shown
