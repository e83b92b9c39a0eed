"""The URL `toolcat serve --transport http` announces is one a client can use."""

from __future__ import annotations

import httpx
import pytest
from toolcat.executor.mcp_server._http import http_url


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8000/mcp"),
        ("localhost", "http://localhost:8000/mcp"),
        ("::1", "http://[::1]:8000/mcp"),
        ("::", "http://[::]:8000/mcp"),
        ("fe80::1", "http://[fe80::1]:8000/mcp"),
        ("[::1]", "http://[::1]:8000/mcp"),
    ],
)
def test_the_announced_url_is_valid(host: str, url: str) -> None:
    assert http_url(host, 8000, "/mcp") == url
    parsed = httpx.URL(url)  # a client parses it back to the same port
    assert parsed.port == 8000 and parsed.path == "/mcp"
