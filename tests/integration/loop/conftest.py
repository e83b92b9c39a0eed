"""A real tool service and a real model endpoint on 127.0.0.1, and a catalog that points at one."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.catalog import Catalog
from toolcat.testing import BackgroundServer
from toolcat.tests.support import CatalogFiles

CATALOG = """\
toolcat: 1
services:
  svc:
    base_url: ${SVC_URL}
    timeout: 5
tools:
  - name: get_item
    description: One item by SKU.
    service: svc
    method: GET
    path: /items/{sku}
    parameters:
      sku: {type: string, pattern: "^[A-Z0-9-]+$"}
  - name: slow_echo
    description: Echo a label after a short pause.
    service: svc
    method: GET
    path: /slow
    parameters:
      label: {type: string}
  - name: lookup_answer
    description: The final answer to a question, verbatim.
    service: svc
    method: GET
    path: /answer
    return_direct: true
    parameters:
      question: {type: string}
toolsets:
  items: [get_item]
"""


class ToolService:
    """Records every request and the most requests it had in flight at once."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.inflight = 0
        self.max_inflight = 0
        self._lock = threading.Lock()

    def app(self) -> Starlette:
        async def item(request: Request) -> JSONResponse:
            self.requests.append(str(request.url.path))
            sku = request.path_params["sku"]
            if sku == "NONE":
                return JSONResponse({"error": "no such item"}, status_code=404)
            return JSONResponse({"sku": sku, "stock": 5})

        async def slow(request: Request) -> JSONResponse:
            self.requests.append(str(request.url))
            with self._lock:
                self.inflight += 1
                self.max_inflight = max(self.max_inflight, self.inflight)
            await asyncio.sleep(0.3)
            with self._lock:
                self.inflight -= 1
            return JSONResponse({"echo": request.query_params.get("label")})

        async def answer(request: Request) -> JSONResponse:
            self.requests.append(str(request.url))
            return JSONResponse({"answer": 42})

        return Starlette(
            routes=[Route("/items/{sku}", item), Route("/slow", slow), Route("/answer", answer)]
        )


@pytest.fixture
def tool_service() -> Iterator[tuple[ToolService, str]]:
    service = ToolService()
    with BackgroundServer(service.app()) as server:
        yield service, server.url


@pytest.fixture
def catalog(catalog_files: CatalogFiles) -> Catalog:
    return catalog_files.catalog(CATALOG)
