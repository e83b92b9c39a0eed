"""Against httpbin 0.10.4: a YAML tool of every kind, and operations imported from its own spec."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.loader import load

CATALOG = """
toolcat: 1
services:
  bin:
    base_url: {url}
    auth: {{type: bearer, token: "${{BIN_TOKEN}}"}}
tools:
  - name: anything
    description: Every location.
    service: bin
    method: GET
    path: /anything/{{id}}
    parameters:
      id: {{type: string, description: i}}
      tags: {{type: array, items: {{type: string}}, description: t}}
      pipes: {{type: array, items: {{type: string}}, style: pipeDelimited, explode: false,
          in: query, description: p}}
      filter: {{type: object, style: deepObject, explode: true, in: query, description: f}}
      trace: {{type: string, in: header, name: X-Trace-Id, description: t}}
      pref: {{type: string, in: cookie, description: c}}
  - name: create
    description: JSON body.
    service: bin
    method: POST
    path: /anything/orders
    parameters:
      customer: {{type: string, description: c}}
      qty: {{type: integer, minimum: 1, description: q}}
  - name: form
    description: Form body.
    service: bin
    method: PUT
    path: /anything/form
    content_type: application/x-www-form-urlencoded
    parameters:
      a: {{type: string, description: a}}
      b: {{type: array, items: {{type: string}}, description: b}}
  - name: upload
    description: Multipart.
    service: bin
    method: POST
    path: /anything/upload
    parameters:
      title: {{type: string, description: t}}
      doc: {{file: true, description: d}}
"""


@pytest.fixture()
def executor(httpbin_url: str, tmp_path: Path) -> Any:
    path = tmp_path / "bin.yaml"
    path.write_text(CATALOG.format(url=httpbin_url))
    with Executor(load([path]), ExecutorSettings(env={"BIN_TOKEN": "bin-token-777"})) as ex:
        yield ex


def test_anything_sees_every_location(executor: Any) -> None:
    result = executor.execute(
        ToolCall(
            "anything",
            {
                "id": "a b?c",  # "/" in a path value is refused unless allow_reserved
                "tags": ["x", "y"],
                "pipes": ["1", "2"],
                "filter": {"k": "v"},
                "trace": "t-1",
                "pref": "dark",
            },
        )
    )
    assert result.ok, result.content
    echoed = result.data
    assert echoed["method"] == "GET"
    # werkzeug shows the path decoded; the raw path is checked against our own echo server
    assert echoed["url"].endswith("?tags=x&tags=y&pipes=1|2&filter[k]=v")
    assert echoed["args"] == {"tags": ["x", "y"], "pipes": "1|2", "filter[k]": "v"}
    assert echoed["headers"]["X-Trace-Id"] == "t-1" and echoed["headers"]["Cookie"] == "pref=dark"
    assert echoed["headers"]["Authorization"] == "Bearer ***"  # echoed secrets are masked
    assert "bin-token-777" not in result.content


def test_bodies(executor: Any) -> None:
    created = executor.execute(ToolCall("create", {"customer": "c1", "qty": 2}))
    assert created.data["json"] == {"customer": "c1", "qty": 2}
    form = executor.execute(ToolCall("form", {"a": "x&y", "b": ["1", "2"]}))
    assert form.data["form"] == {"a": "x&y", "b": ["1", "2"]} and form.data["method"] == "PUT"
    doc = {
        "filename": "n.txt",
        "content_base64": base64.b64encode(b"hello file").decode(),
        "content_type": "text/plain",
    }
    upload = executor.execute(ToolCall("upload", {"title": "T", "doc": doc}))
    assert upload.data["files"] == {"doc": "hello file"} and upload.data["form"] == {"title": "T"}


def test_invalid_arguments_never_reach_httpbin(executor: Any) -> None:
    result = executor.execute(ToolCall("create", {"customer": "c1", "qty": 0}))
    assert result.error.type == "invalid_arguments" and result.error.loc == ("qty",)


IMPORTED = """
toolcat: 1
services:
  httpbin_org:
    base_url: {url}
openapi:
  - spec: {spec}
    service: httpbin_org
"""


@pytest.fixture()
def imported(httpbin_url: str, corpus_dir: Path, tmp_path: Path) -> Any:
    path = tmp_path / "imported.yaml"
    path.write_text(IMPORTED.format(url=httpbin_url, spec=corpus_dir / "httpbin-swagger2.json"))
    with Executor(load([path]), ExecutorSettings(env={})) as ex:
        yield ex


def test_imported_operations(imported: Any, httpbin_url: str) -> None:
    assert len(imported.catalog) == 78
    got = imported.execute(ToolCall("get_anything_anything", {"anything": "x y"}))
    assert got.ok and got.data["method"] == "GET"
    moved = imported.execute(ToolCall("get_redirect-to", {"url": "/get?x=1", "status_code": 307}))
    assert moved.ok and moved.data["args"] == {"x": "1"}  # a redirect within the host is followed
    teapot = imported.execute(ToolCall("get_status_codes", {"codes": "418"}))
    assert teapot.status == 418 and teapot.error.type == "http_error"
    outside = imported.execute(ToolCall("get_redirect-to", {"url": "http://example.invalid/"}))
    assert outside.error.type == "refused_by_policy"
    image = imported.execute(ToolCall("get_image_png", {}))
    assert image.ok and image.data["content_type"] == "image/png" and image.data["size"] > 1000
    hops = imported.execute(ToolCall("get_redirect_n", {"n": 3}))
    assert hops.ok and hops.data["url"].endswith("/get")
    unknown = imported.execute(ToolCall("get_anythin", {}))
    assert unknown.error.type == "unknown_tool" and "get_anything" in unknown.content
