"""Hostile arguments: refused before sending, or sent safely encoded; the server says which."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolcat.executor import Executor, ExecutorSettings, ToolCall

CATALOG = """
toolcat: 1
services:
  api:
    base_url: {url}/echo/base
tools:
  - name: get_file
    description: One file.
    service: api
    method: GET
    path: /files/{{name}}/meta
    parameters:
      name: {{type: string, description: n}}
      q: {{type: string, required: false, description: q}}
      hdr: {{type: string, in: header, name: X-Note, required: false, description: h}}
      ck: {{type: string, in: cookie, name: pref, required: false, description: c}}
  - name: delete_item
    description: Deletes one item; its id is untyped.
    service: api
    method: DELETE
    path: /api/items/{{id}}
    parameters:
      id: {{description: any JSON value}}
  - name: get_nullable
    description: One item by a nullable id.
    service: api
    method: GET
    path: /api/items/{{id}}
    parameters:
      id: {{type: [string, "null"], description: i}}
  - name: get_content
    description: A file by its path; the path parameter opts in to '/'.
    service: api
    method: GET
    path: /contents/{{path}}
    parameters:
      path: {{type: string, allow_reserved: true, description: p}}
  - name: create
    description: Creates an item from a JSON body.
    service: api
    method: POST
    path: /api/items
    parameters:
      doc: {{type: object, in: body, description: d}}
"""

REFUSED = "refused_by_policy"
INVALID = "invalid_arguments"
# (arguments, expected raw path on the server or the refusal's type, expected raw query)
CASES = [
    ({"name": ".."}, REFUSED, None),
    ({"name": "."}, REFUSED, None),
    ({"name": "/"}, REFUSED, None),
    ({"name": ""}, INVALID, None),
    # dot segments once decoded, whatever the encoding (a proxy may decode %2F, then route)
    ({"name": "../../admin"}, REFUSED, None),
    ({"name": "%2e%2e"}, REFUSED, None),
    ({"name": "%2E%2E%2Fadmin"}, REFUSED, None),
    ({"name": "%2e%2e%2fadmin"}, REFUSED, None),
    ({"name": "..%2f"}, REFUSED, None),
    ({"name": "%252e%252e"}, REFUSED, None),
    ({"name": "%25252e%25252e%25252fadmin"}, REFUSED, None),
    ({"name": "..\\admin"}, REFUSED, None),
    ({"name": "..;"}, REFUSED, None),
    ({"name": "..;jsessionid=1"}, REFUSED, None),
    ({"name": "..."}, REFUSED, None),
    ({"name": "\u2025"}, REFUSED, None),  # NFKC: ".."
    ({"name": "\uff0e\uff0e"}, REFUSED, None),  # fullwidth ".."
    ({"name": "%" + "25" * 12 + "2e"}, REFUSED, None),  # encoded past the bound
    # '/' once decoded: only where a parameter opts in (allow_reserved)
    ({"name": "http://evil.test/x"}, REFUSED, None),
    ({"name": "//evil.test"}, REFUSED, None),
    ({"name": "a%2Fb"}, REFUSED, None),
    # dots and escapes that are not a segment of their own stay sendable, encoded
    ({"name": "..a"}, "/echo/base/files/..a/meta", ""),
    ({"name": "v1.2"}, "/echo/base/files/v1.2/meta", ""),
    ({"name": "100%"}, "/echo/base/files/100%25/meta", ""),
    ({"name": "@evil.test:80"}, "/echo/base/files/%40evil.test%3A80/meta", ""),
    ({"name": "a?admin=1#frag"}, "/echo/base/files/a%3Fadmin%3D1%23frag/meta", ""),
    ({"name": "a\r\nX-Injected: 1"}, "/echo/base/files/a%0D%0AX-Injected%3A%201/meta", ""),
    ({"name": "nul\x00byte"}, "/echo/base/files/nul%00byte/meta", ""),
    ({"name": "\u00e9t\u00e9"}, "/echo/base/files/%C3%A9t%C3%A9/meta", ""),
    ({"name": "x", "q": "1&admin=true"}, "/echo/base/files/x/meta", "q=1%26admin%3Dtrue"),
    ({"name": "x", "q": "1#frag"}, "/echo/base/files/x/meta", "q=1%23frag"),
    ({"name": "x", "q": "../../admin"}, "/echo/base/files/x/meta", "q=..%2F..%2Fadmin"),
    ({"name": "x", "hdr": "a\r\nX-Injected: 1"}, REFUSED, None),
    ({"name": "x", "hdr": "a\nb"}, REFUSED, None),
    ({"name": "x", "hdr": "a\x00b"}, REFUSED, None),
    ({"name": "x", "ck": "a\r\nSet-Cookie: x=1"}, REFUSED, None),
    ({"name": "x", "ck": "v; admin=1"}, "/echo/base/files/x/meta", ""),
    ({"name": "x" * 20_000}, REFUSED, None),
    ({"name": "x", "q": "y" * 20_000}, REFUSED, None),
    ({"name": "x", "hdr": "z" * 9_000}, REFUSED, None),
]


@pytest.fixture(scope="module")
def hostile_catalog(_server: Any, tmp_path_factory: Any) -> Any:
    from toolcat.loader import load

    url, _ = _server
    path = tmp_path_factory.mktemp("hostile") / "catalog.yaml"
    path.write_text(CATALOG.format(url=url))
    return load([path])


@pytest.mark.parametrize("args,path,query", CASES, ids=[repr(c[0])[:40] for c in CASES])
def test_hostile_argument(
    server: Any, hostile_catalog: Any, args: dict[str, Any], path: str, query: str | None
) -> None:
    _, state = server
    with Executor(hostile_catalog, ExecutorSettings(env={})) as ex:
        result = ex.execute(ToolCall("get_file", args))
    if path in (REFUSED, INVALID):
        assert result.error is not None
        assert not result.ok and result.error.type == path, result.content
        assert state.wire == [], "a refused call reached the server"
        return
    # Starlette's router does not match a decoded CR/LF in a path: 404, but the request was safe
    assert result.ok or (result.status == 404 and "%0D" in path), result.content
    assert len(state.wire) == 1
    seen = state.wire[0]
    assert seen["raw_path"] == path and seen["query"] == query
    for name, value in seen["headers"]:
        assert name not in ("x-injected", "set-cookie")
        assert "\r" not in value and "\n" not in value and "\x00" not in value
    host = dict(seen["headers"])["host"]
    assert host.startswith("127.0.0.1:")
    if "ck" in args:
        assert (
            state.seen[0]["cookies"] == {"pref": "v%3B%20admin=1"}
            and "admin" not in state.seen[0]["cookies"]
        )


# Class 4: every path parameter renders to a non-empty, dot-free segment, or nothing is sent.
# (tool, arguments, expected raw path on the server or the refusal's type)
PATH_CASES = [
    ("delete_item", {"id": None}, INVALID),  # the example: DELETE /api/items/
    ("delete_item", {"id": []}, INVALID),
    ("delete_item", {"id": {}}, INVALID),
    ("delete_item", {"id": [""]}, INVALID),
    ("delete_item", {"id": [None, ""]}, INVALID),
    ("delete_item", {"id": {"": ""}}, INVALID),
    ("delete_item", {"id": ["..", ".."]}, "/echo/base/api/items/..,.."),  # one segment "..,.."
    ("delete_item", {"id": [".."]}, REFUSED),
    ("delete_item", {"id": 7}, "/echo/base/api/items/7"),
    ("delete_item", {"id": ["a", "b"]}, "/echo/base/api/items/a,b"),
    ("delete_item", {"id": 0}, "/echo/base/api/items/0"),
    ("delete_item", {"id": False}, "/echo/base/api/items/false"),
    ("get_nullable", {"id": None}, INVALID),
    ("get_nullable", {"id": ""}, INVALID),
    ("get_nullable", {"id": "x"}, "/echo/base/api/items/x"),
    # opted in: '/' is sent as is; dot segments, a leading '/' and '//' are still refused
    ("get_content", {"path": "docs/readme.md"}, "/echo/base/contents/docs/readme.md"),
    ("get_content", {"path": "docs/../../admin"}, REFUSED),
    ("get_content", {"path": "docs/%2e%2e/x"}, REFUSED),
    ("get_content", {"path": "/etc/passwd"}, REFUSED),
    ("get_content", {"path": "a//b"}, REFUSED),
    ("get_content", {"path": "a?b#c"}, "/echo/base/contents/a%3Fb%23c"),
]


@pytest.mark.parametrize(
    "tool,args,expected", PATH_CASES, ids=[f"{c[0]}-{c[1]!r}"[:50] for c in PATH_CASES]
)
def test_path_arguments_render_to_a_safe_segment(
    server: Any, hostile_catalog: Any, tool: str, args: dict[str, Any], expected: str
) -> None:
    _, state = server
    with Executor(hostile_catalog, ExecutorSettings(env={})) as ex:
        result = ex.execute(ToolCall(tool, args))
    if expected in (REFUSED, INVALID):
        assert result.error is not None and not result.ok, result.content
        assert result.error.type == expected, result.content
        assert result.error.loc == (next(iter(args)),)  # names the argument
        assert state.wire == [], "a refused call reached the server"
        return
    assert result.ok, result.content
    assert [w["raw_path"] for w in state.wire] == [expected]


# Class 4: arguments JSON cannot carry are invalid_arguments, and nothing is sent.
# (raw arguments as the model sent them, the location named)
UNSENDABLE = [
    ('{"doc": {"n": NaN}}', ["doc", "n"]),
    ('{"doc": {"n": Infinity}}', ["doc", "n"]),
    ('{"doc": {"n": -Infinity}}', ["doc", "n"]),
    ('{"doc": {"n": 1e999}}', ["doc", "n"]),
    ('{"doc": {"deep": [1, [2, {"x": -1e400}]]}}', ["doc", "deep", 1, 1, "x"]),
    ('{"doc": {"s": "\\ud800"}}', ["doc", "s"]),
    ('{"doc": {"s": "ok \\udfff"}}', ["doc", "s"]),
    ('{"doc": {"\\udc00key": 1}}', ["doc"]),
    ('{"doc": {"list": ["a", "\\ud83d"]}}', ["doc", "list", 1]),
]


@pytest.mark.parametrize("raw,loc", UNSENDABLE, ids=[c[0][:40] for c in UNSENDABLE])
def test_unsendable_arguments_are_invalid(
    server: Any, hostile_catalog: Any, raw: str, loc: list[str | int]
) -> None:
    _, state = server
    with Executor(hostile_catalog, ExecutorSettings(env={})) as ex:
        from_text = ex.execute(ToolCall("create", raw))
        from_mapping = ex.execute(ToolCall("create", json.loads(raw)))  # as an SDK hands it
    for result in (from_text, from_mapping):
        assert result.error is not None and not result.ok, result.content
        assert result.error.type == "invalid_arguments", result.content
        assert list(result.error.loc) == loc
        assert "Traceback" not in result.content
    assert state.wire == [], "an unsendable call reached the server"


def test_a_valid_surrogate_pair_and_large_finite_numbers_are_sent(
    server: Any, hostile_catalog: Any
) -> None:
    _, state = server
    raw = '{"doc": {"s": "\\ud83d\\ude00", "n": 1e308, "m": -0.0}}'
    with Executor(hostile_catalog, ExecutorSettings(env={})) as ex:
        result = ex.execute(ToolCall("create", raw))
    assert result.ok, result.content
    sent = {"s": "\U0001f600", "n": 1e308, "m": -0.0}
    assert json.loads(state.seen[0]["body"]) == {"doc": sent}
