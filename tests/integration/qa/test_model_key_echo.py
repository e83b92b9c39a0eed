"""`toolcat chat` never prints the model API key, even when the endpoint's error echoes it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from toolcat.testing import BackgroundServer

from .conftest import toolcat

KEY = "sk-test-9f3a/5ecret+key"


def echoing_app(status: int, shape: str) -> Callable[..., Any]:
    """An endpoint that answers ``status`` with the request's headers in its body."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        if shape == "message":
            body = json.dumps({"error": {"message": f"bad request, headers were {headers}"}})
        elif shape == "escaped":  # the echo escapes '/': JSON's \/ form
            body = json.dumps({"headers": headers}).replace("/", "\\/")
        else:
            body = f"<html>denied: {headers}</html>"
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})

    return app


@pytest.mark.parametrize(
    ("status", "shape"), [(401, "message"), (400, "escaped"), (403, "html"), (200, "html")]
)
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_endpoint_echoing_the_key_never_shows_it(
    catalog_file: Path, status: int, shape: str, provider: str
) -> None:
    env = {**os.environ, "OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY}
    with BackgroundServer(echoing_app(status, shape)) as endpoint:
        proc = toolcat(
            "chat",
            str(catalog_file),
            "--provider",
            provider,
            "--base-url",
            endpoint.url + "/v1",
            "--model",
            "m",
            "--max-retries",
            "0",
            "hello",
            env=env,
        )
    assert proc.returncode == 1, proc.stderr
    shown = proc.stdout + proc.stderr
    assert "***" in shown  # the echo was there, masked
    assert KEY not in shown and "5ecret" not in shown and "9f3a" not in shown
