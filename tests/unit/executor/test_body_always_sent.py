"""The body arguments of a POST, PUT or PATCH go out as one JSON object even when none is
given: a spec may require the body though none of its properties is required (rumble.run's
`createAccountCredential`), and `{}` conforms whether it does or not."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from toolcat.executor import Executor, ExecutorSettings, ToolCall

CATALOG = """\
toolcat: 1
services: {{s: {{base_url: "http://127.0.0.1:1"}}}}
tools:
  - name: t
    description: A tool.
    service: s
    method: {method}
    path: /things
    {extra}
    parameters:
      note: {{type: string, required: false, in: body, description: A note.}}
"""


def _sent(catalog_files: Any, method: str, extra: str = "") -> httpx.Request:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    catalog = catalog_files.catalog(CATALOG.format(method=method, extra=extra))
    client = httpx.Client(transport=httpx.MockTransport(answer))
    with Executor(catalog, ExecutorSettings(client=client, env={})) as ex:
        assert ex.execute(ToolCall("t", "{}")).ok
    return seen[0]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH"])
def test_a_json_body_with_no_argument_given_is_sent_empty(catalog_files: Any, method: str) -> None:
    request = _sent(catalog_files, method)
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {}


@pytest.mark.parametrize(
    "method, extra",
    [
        ("DELETE", ""),  # a body argument of DELETE stays optional, as its body
        ("POST", "content_type: application/x-www-form-urlencoded"),
    ],
)
def test_other_bodies_with_no_argument_given_are_left_out(
    catalog_files: Any, method: str, extra: str
) -> None:
    request = _sent(catalog_files, method, extra)
    assert request.content == b"" and "content-type" not in request.headers
