"""A non-ASCII secret echoed by an upstream that reads header bytes as Latin-1 stays masked.

The upstream is Python's own http.server on 127.0.0.1: it decodes request headers as
Latin-1 (as WSGI, Node and Java servlets do), so the UTF-8 bytes of ``clé-€`` reach its
handler as ``clÃ©-â\\x82¬``. It echoes that text back in the forms such services write.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote

import pytest
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.loader import load

SECRET = "clé-sécrète-€-ü-9f3a"
# Windows-1252 as web stacks read "latin1": 0x80-0x9F are letters (five stay controls)
_CP1252 = {b: bytes([b]).decode("cp1252", "ignore") or chr(b) for b in range(0x80, 0xA0)}


def _echo(read: str, form: str) -> tuple[bytes, str, dict[str, str]]:
    """(body, content type, extra headers) that echo ``read``, the header as decoded."""
    if form == "json":
        return json.dumps({"key": read}, ensure_ascii=False).encode(), "application/json", {}
    if form == "json-ascii":  # Python's json.dumps default: \u00c3\u00a9
        return json.dumps({"key": read}).encode(), "application/json", {}
    if form == "windows-1252":
        text = json.dumps({"key": read.translate(_CP1252)}, ensure_ascii=False)
        return text.encode(), "application/json", {}
    if form == "url":
        return json.dumps({"next": f"/page?key={quote(read)}"}).encode(), "application/json", {}
    if form == "latin-1-body":  # the bytes back, declared as Latin-1: the client reads it so
        return read.encode("latin-1"), "text/plain; charset=iso-8859-1", {}
    assert form == "header"  # a kept response header, its text written as UTF-8
    return b"{}", "application/json", {"X-Request-Id": read.encode().decode("latin-1")}


FORMS = ("json", "json-ascii", "windows-1252", "url", "latin-1-body", "header")


class _Handler(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self) -> None:
        read = self.headers.get("x-api-key") or ""  # http.server: Latin-1
        self.seen.append(read)
        body, ctype, extra = _echo(read, self.path.rsplit("/", 1)[1])
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def catalog(upstream: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    tools = "".join(
        f"  - {{name: {form.replace('-', '_')}, description: Echo., service: s, "
        f"method: GET, path: /echo/{form}}}\n"
        for form in FORMS
    )
    path = tmp_path_factory.mktemp("latin1") / "catalog.yaml"
    path.write_text(
        "toolcat: 1\nservices:\n  s:\n"
        f"    base_url: {upstream}\n"
        "    auth: {type: api_key, in: header, name: X-Api-Key, value: '${KEY}'}\n"
        "tools:\n" + tools,
        encoding="utf-8",
    )
    return load(path)


@pytest.mark.parametrize("form", FORMS)
def test_the_echoed_mojibake_is_masked(catalog: Any, form: str) -> None:
    mojibake = SECRET.encode("utf-8").decode("latin-1")
    with Executor(catalog, ExecutorSettings(env={"KEY": SECRET})) as executor:
        result = executor.execute(ToolCall(form.replace("-", "_"), {}))
    assert result.ok, result.content
    assert _Handler.seen[-1] == mojibake  # the upstream did read it as Latin-1
    shown = json.dumps(result.to_dict(), ensure_ascii=False) + result.content
    assert "***" in shown
    for leak in (SECRET, mojibake, mojibake.translate(_CP1252), "sécr", "sÃ©cr", "9f3a"):
        assert leak not in shown, (form, shown)
