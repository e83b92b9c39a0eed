"""The SDK test server (tests/support/mcp_upstream.py) for real: over streamable HTTP under
uvicorn on a free port of 127.0.0.1, or as a stdio subprocess behind a shared executor."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from toolcat.executor import Executor
from toolcat.testing import BackgroundServer
from toolcat.tests.support.mcp_upstream import http_app, stdio_upstream, upstream_executor


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The test server over streamable HTTP, for the module."""
    with BackgroundServer(http_app()) as server:
        yield f"{server.url}/mcp"


@pytest.fixture(scope="module")
def stdio_executor() -> Iterator[Executor]:
    """One stdio upstream ``up``, shared by a module's tests (a start costs seconds here)."""
    executor = upstream_executor(stdio_upstream("up"))
    yield executor
    executor.close()
