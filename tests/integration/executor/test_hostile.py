"""Hostile arguments: refused before sending, or sent safely encoded; the server says which."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.executor import Executor, ToolCall

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
"""

REFUSED = "refused"
# (arguments, expected raw path on the server or REFUSED, expected raw query)
CASES = [
    ({"name": ".."}, REFUSED, None),
    ({"name": "."}, REFUSED, None),
    ({"name": "/"}, REFUSED, None),
    ({"name": ""}, REFUSED, None),
    ({"name": "../../admin"}, "/echo/base/files/..%2F..%2Fadmin/meta", ""),
    ({"name": "%2e%2e"}, "/echo/base/files/%252e%252e/meta", ""),
    ({"name": "%2e%2e%2fadmin"}, "/echo/base/files/%252e%252e%252fadmin/meta", ""),
    ({"name": "..%2f"}, "/echo/base/files/..%252f/meta", ""),
    ({"name": "..;"}, "/echo/base/files/..%3B/meta", ""),
    ({"name": "http://evil.test/x"}, "/echo/base/files/http%3A%2F%2Fevil.test%2Fx/meta", ""),
    ({"name": "//evil.test"}, "/echo/base/files/%2F%2Fevil.test/meta", ""),
    ({"name": "@evil.test:80"}, "/echo/base/files/%40evil.test%3A80/meta", ""),
    ({"name": "a?admin=1#frag"}, "/echo/base/files/a%3Fadmin%3D1%23frag/meta", ""),
    ({"name": "a\r\nX-Injected: 1"}, "/echo/base/files/a%0D%0AX-Injected%3A%201/meta", ""),
    ({"name": "nul\x00byte"}, "/echo/base/files/nul%00byte/meta", ""),
    ({"name": "\u2025"}, "/echo/base/files/%E2%80%A5/meta", ""),
    ({"name": "x", "q": "1&admin=true"}, "/echo/base/files/x/meta", "q=1%26admin%3Dtrue"),
    ({"name": "x", "q": "1#frag"}, "/echo/base/files/x/meta", "q=1%23frag"),
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
    with Executor(hostile_catalog, env={}) as ex:
        result = ex.execute(ToolCall("get_file", args))
    if path == REFUSED:
        assert result.error is not None
        assert not result.ok and result.error.type == "refused_by_policy", result.content
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
