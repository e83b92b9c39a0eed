"""Every parameter location, style and body type, sent over real sockets to our echo server."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from toolcat.executor import Executor, ToolCall
from toolcat.tests.support import CatalogFiles

CATALOG = """
toolcat: 1
services:
  echo:
    base_url: {url}/echo
    headers: {{X-Team: ops}}
tools:
  - name: everything
    description: Every location and style.
    service: echo
    method: GET
    path: /paint/{{color}}/{{lbl}}/{{mtx}}
    parameters:
      color: {{type: array, items: {{type: string}}, description: simple}}
      lbl: {{type: array, items: {{type: string}}, style: label, explode: true, description: label}}
      mtx: {{type: object, additionalProperties: {{type: integer}}, style: matrix,
          explode: true, description: m}}
      tags: {{type: array, items: {{type: string}}, required: false, description: form}}
      csv: {{type: array, items: {{type: string}}, in: query, explode: false, required: false,
          description: c}}
      sp: {{type: array, items: {{type: string}}, in: query, style: spaceDelimited,
          explode: false, required: false, description: s}}
      pipes: {{type: array, items: {{type: string}}, in: query, style: pipeDelimited,
          explode: false, required: false, description: p}}
      filter: {{type: object, in: query, style: deepObject, explode: true, required: false,
          description: d}}
      limit: {{type: integer, default: 20, description: l}}
      trace: {{type: string, in: header, name: X-Trace-Id, required: false, description: t}}
      session: {{type: string, in: cookie, name: sid, required: false, description: c}}
  - name: create
    description: JSON body from a template.
    service: echo
    method: POST
    path: /orders
    parameters:
      customer_id: {{type: string, description: c}}
      items: {{type: array, items: {{type: object}}, description: i}}
      note: {{type: string, required: false, description: n}}
    body:
      customer: "{{{{ customer_id }}}}"
      lines: "{{{{ items }}}}"
      note: "{{{{ note }}}}"
  - name: form
    description: Form body.
    service: echo
    method: POST
    path: /form
    content_type: application/x-www-form-urlencoded
    parameters:
      a: {{type: string, description: a}}
      b: {{type: array, items: {{type: string}}, description: b}}
  - name: upload
    description: Multipart.
    service: echo
    method: POST
    path: /upload
    parameters:
      title: {{type: string, description: t}}
      doc: {{file: true, description: d}}
  - name: text
    description: Text body.
    service: echo
    method: PUT
    path: /text
    content_type: text/plain
    body_argument: text
    parameters:
      text: {{type: string, description: t}}
  - name: blob
    description: Binary body.
    service: echo
    method: PUT
    path: /blob
    content_type: application/octet-stream
    body_argument: data
    parameters:
      data: {{type: string, description: base64}}
"""


@pytest.fixture()
def executor(server: Any, catalog_files: CatalogFiles) -> Any:
    url, _ = server
    with Executor(catalog_files.catalog(CATALOG.format(url=url)), env={}) as ex:
        yield ex


def test_every_location_and_style(executor: Any, server: Any) -> None:
    _, state = server
    result = executor.execute(
        ToolCall(
            "everything",
            json.dumps(
                {
                    "color": ["blue", "black"],
                    "lbl": ["a", "b c"],
                    "mtx": {"R": 1, "G": 2},
                    "tags": ["x", "y"],
                    "csv": ["1", "2"],
                    "sp": ["p", "q"],
                    "pipes": ["m", "n"],
                    "filter": {"status": "open", "kind": "a&b"},
                    "trace": "tr-1",
                    "session": "s1",
                }
            ),
            "call-1",
        )
    )
    assert result.ok, result.content
    seen = state.seen[-1]
    assert seen["raw_path"] == "/echo/paint/blue,black/.a.b%20c/;R=1;G=2"
    assert seen["query"] == (
        "tags=x&tags=y&csv=1,2&sp=p%20q&pipes=m|n&filter[status]=open&filter[kind]=a%26b&limit=20"
    )
    headers = dict(seen["headers"])
    assert headers["x-trace-id"] == "tr-1" and headers["x-team"] == "ops"
    assert seen["cookies"] == {"sid": "s1"}
    assert result.status == 200 and result.data["method"] == "GET"


def test_json_body_template(executor: Any, server: Any) -> None:
    _, state = server
    result = executor.execute(
        ToolCall("create", {"customer_id": "c1", "items": [{"sku": "a", "qty": 2}]})
    )
    assert result.ok
    seen = state.seen[-1]
    assert json.loads(seen["body"]) == {"customer": "c1", "lines": [{"sku": "a", "qty": 2}]}
    assert dict(seen["headers"])["content-type"] == "application/json"


def test_form_multipart_text_and_binary_bodies(executor: Any, server: Any) -> None:
    _, state = server
    assert executor.execute(ToolCall("form", {"a": "x y", "b": ["1", "2"]})).ok
    assert state.seen[-1]["body"] == "a=x+y&b=1&b=2"
    doc = {
        "filename": "r.bin",
        "content_base64": base64.b64encode(b"\x00\x01\x02").decode(),
        "content_type": "application/x-thing",
    }
    assert executor.execute(ToolCall("upload", {"title": "T", "doc": doc})).ok
    raw = base64.b64decode(state.seen[-1]["body_base64"])
    assert (
        b'filename="r.bin"' in raw
        and b"Content-Type: application/x-thing\r\n\r\n\x00\x01\x02" in raw
    )
    assert dict(state.seen[-1]["headers"])["content-type"].startswith(
        "multipart/form-data; boundary="
    )
    assert executor.execute(ToolCall("text", {"text": "héllo"})).ok
    assert state.seen[-1]["body"] == "héllo" and state.seen[-1]["method"] == "PUT"
    assert executor.execute(ToolCall("blob", {"data": base64.b64encode(b"\xff\xfe").decode()})).ok
    assert base64.b64decode(state.seen[-1]["body_base64"]) == b"\xff\xfe"


def test_async_many_in_call_order_with_one_failure(executor: Any, server: Any) -> None:
    _, state = server
    calls = [
        ToolCall("create", {"customer_id": f"c{i}", "items": []}, f"id-{i}") for i in range(6)
    ] + [ToolCall("create", {"customer_id": 5}, "bad"), ToolCall("nope", {}, "unknown")]

    async def go() -> Any:
        async with executor:
            return await executor.aexecute_many(calls)

    results = asyncio.run(go())
    assert [r.call.id for r in results] == [c.id for c in calls]
    assert [r.ok for r in results] == [True] * 6 + [False, False]
    assert [r.data["body"] for r in results[:6]] == [
        json.dumps({"customer": f"c{i}", "lines": []}, separators=(",", ":")) for i in range(6)
    ]
    assert len(state.seen) == 6  # the invalid call never left


def test_sync_many_concurrent_and_sequential(executor: Any) -> None:
    calls = [ToolCall("text", {"text": str(i)}, str(i)) for i in range(10)]
    for concurrent in (True, False):
        results = executor.execute_many(calls, concurrent=concurrent)
        assert [r.data["body"] for r in results] == [str(i) for i in range(10)]
