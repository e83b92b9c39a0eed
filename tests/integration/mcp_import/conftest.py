"""An MCP upstream over streamable HTTP for the import tests: the SDK server of
``toolcat.tests.support.mcp_upstream`` in this process, on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def mcp_upstream_url() -> Iterator[str]:
    from toolcat.testing import BackgroundServer
    from toolcat.tests.support.mcp_upstream import http_app

    with BackgroundServer(http_app()) as server:
        yield f"{server.url}/mcp"
