"""Schemas never fetch: a ``$ref``/``$dynamicRef`` to a URL or a file is refused at load
(TC045, located) and, in a hand-built catalog, never retrieved at call time.

A loopback server plays the URL a hostile schema points at; it records every hit.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import Catalog, HttpCommand, NoAuth, Service, ToolDefinition
from toolcat.catalog.common import freeze
from toolcat.cli._app import main
from toolcat.executor import Executor, ToolCall, sealed_validator

SECRET = "s3cret-file-contents-7f1e"


class Bait:
    """A loopback server that answers any GET with a JSON schema, and counts the hits."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        bait = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                bait.hits.append(self.path)
                data = json.dumps({"const": SECRET}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/schema+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def bait() -> Iterator[Bait]:
    b = Bait()
    thread = threading.Thread(target=b.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield b
    finally:
        b.server.shutdown()
        b.server.server_close()
        thread.join(5)


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    f = tmp_path / "secret.json"
    f.write_text(json.dumps({"const": SECRET}), encoding="utf-8")
    return f


def _catalog(tmp_path: Path, tool_extra: str) -> Path:
    text = (
        "version: 1\n"
        "services:\n"
        "  svc: {base_url: 'http://127.0.0.1:9/api'}\n"
        "tools:\n"
        "  - name: get_item\n"
        "    description: Get one item.\n"
        "    service: svc\n"
        "    method: GET\n"
        "    path: /items\n"
        "    parameters:\n"
        "      filter: {$ref: '#/$defs/Filter', description: Which items.}\n" + tool_extra
    )
    path = tmp_path / "catalog.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _validate(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    return captured.out + captured.err


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_file_ref_inside_allof_in_definitions_is_located(
    tmp_path: Path, secret_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uri = secret_file.as_uri()
    path = _catalog(
        tmp_path,
        "    definitions:\n"
        "      Filter:\n"
        "        type: object\n"
        "        allOf:\n"
        f"          - {{$ref: '{uri}'}}\n",
    )
    out = _validate(path, capsys)
    line = _line_of(path, uri)
    assert re.search(rf"catalog\.yaml:{line}:\d+:.*TC045", out), out
    assert SECRET not in out


def test_dynamic_ref_to_a_url_is_located_and_never_fetched(
    tmp_path: Path, bait: Bait, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _catalog(
        tmp_path,
        "    definitions:\n"
        "      Filter:\n"
        "        type: object\n"
        f"        properties: {{q: {{$dynamicRef: '{bait.url}/x'}}}}\n",
    )
    out = _validate(path, capsys)
    line = _line_of(path, "$dynamicRef")
    assert re.search(rf"catalog\.yaml:{line}:\d+:.*TC045", out), out
    assert bait.hits == []


def test_ref_in_output_schema_is_located(
    tmp_path: Path, bait: Bait, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _catalog(
        tmp_path,
        "    definitions:\n"
        "      Filter: {type: object, description: Which items.}\n"
        "    output_schema:\n"
        "      type: object\n"
        "      properties:\n"
        f"        item: {{$ref: '{bait.url}/item.json'}}\n",
    )
    out = _validate(path, capsys)
    line = _line_of(path, "item.json")
    assert re.search(rf"catalog\.yaml:{line}:\d+:.*TC045", out), out
    assert bait.hits == []


def test_relative_file_ref_in_a_parameter_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "common.json").write_text(json.dumps({"const": SECRET}), encoding="utf-8")
    path = _catalog(
        tmp_path,
        "      limit: {anyOf: [{$ref: 'common.json'}], description: Page size.}\n"
        "    definitions:\n"
        "      Filter: {type: object, description: Which items.}\n",
    )
    out = _validate(path, capsys)
    assert "TC045" in out and SECRET not in out


def _hand_built(prop: dict[str, Any]) -> Executor:
    schema = {
        "type": "object",
        "properties": {"q": prop},
        "additionalProperties": False,
        "$defs": {"Filter": {"allOf": [prop]}},
    }
    tool = ToolDefinition(
        "get_item", "Get one item.", freeze(schema), HttpCommand("svc", "GET", "/items")
    )
    return Executor(Catalog([tool], [Service("svc", "http://127.0.0.1:9/api", auth=NoAuth())]))


@pytest.mark.parametrize("keyword", ["$ref", "$dynamicRef"])
def test_hand_built_url_ref_is_never_fetched(bait: Bait, keyword: str) -> None:
    executor = _hand_built({keyword: f"{bait.url}/schema.json"})
    result = executor.execute(ToolCall("get_item", {"q": "x"}))
    assert not result.ok
    assert result.error is not None and result.error.type == "refused_by_policy"
    assert bait.hits == []
    assert SECRET not in result.content


def test_hand_built_file_ref_is_never_read(secret_file: Path) -> None:
    executor = _hand_built({"allOf": [{"$ref": secret_file.as_uri()}]})
    result = executor.execute(ToolCall("get_item", {"q": "x"}))
    assert not result.ok
    assert SECRET not in result.content


def test_output_validator_retrieves_nothing(bait: Bait) -> None:
    with pytest.raises(Exception, match="a.json"):
        sealed_validator({"properties": {"a": {"$ref": f"{bait.url}/a.json"}}})
    assert bait.hits == []
