"""One retrieval policy: no command reads a URL a spec's ``$ref`` names.

A server on 127.0.0.1 stands where the refs point; each command runs against a spec
(and a catalog) whose schemas refer to it, and the server must never see a request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli._app import main


class _Watcher(BaseHTTPRequestHandler):
    seen: list[str]

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.seen.append(self.path)
        body = json.dumps({"type": "string", "name": "x"}).encode()  # a schema, and a body
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def watcher() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []
    handler = type("Handler", (_Watcher,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def _spec(remote: str, with_refs: bool = True) -> dict[str, Any]:
    schema: dict[str, Any] = {"$ref": f"{remote}/item.json"} if with_refs else {"type": "string"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Items", "version": "1"},
        "servers": [{"url": "http://api.test"}],
        "paths": {
            "/items": {
                "get": {
                    "operationId": "listItems",
                    "parameters": [
                        {"name": "q", "in": "query", "required": True, "schema": schema}
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"name": schema},
                                    }
                                }
                            },
                        }
                    },
                }
            }
        },
    }


def _write(tmp_path: Path, remote: str) -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_spec(remote)))
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "{spec}"],
        ["import", "openapi", "{spec}"],
        ["schema", "{spec}", "--provider", "openai"],
        ["list", "{spec}"],
        ["test", "{spec}", "--conformance"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_a_command_on_the_spec_reads_no_url(
    command: list[str],
    watcher: tuple[str, list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    remote, seen = watcher
    spec = _write(tmp_path, remote)
    main([part.format(spec=spec) for part in command])
    capsys.readouterr()
    assert seen == []


CATALOG = """\
toolcat: 1
services:
  items: {{base_url: "http://api.test"}}
tools:
  - name: list_items
    description: List items.
    service: items
    method: GET
    path: /items
    parameters:
      q: {{type: string, description: a query}}
"""


def test_conformance_against_a_named_spec_reads_no_url(
    watcher: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote, seen = watcher
    spec = _write(tmp_path, remote)
    catalog = tmp_path / "c.yaml"
    catalog.write_text(CATALOG.format())
    main(["test", str(catalog), "--conformance", "--spec", str(spec)])
    out = capsys.readouterr()
    assert seen == [], out.out + out.err


def test_call_with_validate_responses_reads_no_url(
    watcher: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote, seen = watcher  # the upstream too: the call itself goes to /items
    spec = _write(tmp_path, remote)
    catalog = tmp_path / "c.yaml"
    catalog.write_text(
        "toolcat: 1\n"
        "services:\n"
        f"  items: {{base_url: '{remote}', validate_responses: warn, spec: {spec.name}}}\n"
        "tools:\n"
        "  - {name: list_items, description: List items., service: items, method: GET,\n"
        "     path: /items, parameters: {q: {type: string, description: a query}}}\n"
    )
    assert main(["call", str(catalog), "list_items", "--args", '{"q": "x"}']) == 0
    out = capsys.readouterr()
    assert seen == ["/items?q=x"], out.err  # the call, and no $ref target
