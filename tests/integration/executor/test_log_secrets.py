"""No log line carries a secret: httpx's request line, httpcore's header dumps, toolcat's own."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from toolcat.executor import Executor, ToolCall
from toolcat.tests.support import CatalogFiles

KEY = "key-42-s3cret/x+y"  # characters that URLs escape
CATALOG = """
toolcat: 1
services:
  api:
    base_url: {url}
    auth: {{type: api_key, in: query, name: {name}, value: '${{KEY}}'}}
tools:
  - name: echo
    description: Echo.
    service: api
    method: GET
    path: /echo/x
    parameters:
      q: {{type: string, required: false, description: q}}
"""


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(
        caplog.handler.format(r) for r in caplog.records
    )  # formatted as a handler would write them, tracebacks included


async def _acall(catalog: Any) -> Any:
    async with Executor(catalog, env={"KEY": KEY}) as ex:
        return await ex.aexecute(ToolCall("echo", {"q": "1"}))


@pytest.mark.parametrize("name", ["api_key", "sig", "q2"])  # q2: only the call's own secret
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_query_secret_never_reaches_the_debug_log(
    server: Any, catalog_files: CatalogFiles, caplog: pytest.LogCaptureFixture, name: str, mode: str
) -> None:
    url, state = server
    catalog = catalog_files.catalog(CATALOG.format(url=url, name=name))
    with caplog.at_level(logging.DEBUG):
        if mode == "sync":
            with Executor(catalog, env={"KEY": KEY}) as ex:
                result = ex.execute(ToolCall("echo", {"q": "1"}))
        else:
            result = asyncio.run(_acall(catalog))
    assert result.ok
    assert state.seen, "the request was sent"
    logged = _logged(caplog)
    assert "HTTP Request: GET" in logged  # httpx did log the request line
    assert "receive_response_headers" in logged  # and httpcore its debug lines
    assert KEY not in logged and "s3cret" not in logged
    assert f"{name}=***" in logged


def test_a_credential_like_query_parameter_is_masked_outside_any_call(
    server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A request toolcat did not make (no call's secrets known) still has its keys masked,
    once the filter is installed."""
    import httpx
    from toolcat.executor import Redactor, redacted_logs

    url, _ = server
    with redacted_logs(Redactor()):
        pass  # installs the filter
    with caplog.at_level(logging.INFO, logger="httpx"), httpx.Client() as client:
        client.get(f"{url}/echo/x", params={"access_token": "tok-abc-123", "q": "visible"})
    logged = _logged(caplog)
    assert "tok-abc-123" not in logged and "access_token=***" in logged
    assert "q=visible" in logged


def test_a_secret_in_a_transport_error_traceback_is_masked(
    catalog_files: CatalogFiles, caplog: pytest.LogCaptureFixture
) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    catalog = catalog_files.catalog(CATALOG.format(url=f"http://127.0.0.1:{port}", name="api_key"))
    with caplog.at_level(logging.DEBUG):
        with Executor(catalog, env={"KEY": KEY}) as ex:
            result = ex.execute(ToolCall("echo", {}))
    assert not result.ok
    assert KEY not in _logged(caplog) and KEY not in result.content
