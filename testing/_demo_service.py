"""The sample warehouse service of ``toolcat demo`` (described by specs/sample-service.yaml)."""

from __future__ import annotations

import itertools
import threading
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

__all__ = ["make_service"]

_ITEMS = (
    {"sku": "W-BLUE-01", "name": "Blue widget", "stock": 42, "price": 4.5},
    {"sku": "W-RED-02", "name": "Red widget", "stock": 0, "price": 4.75},
    {"sku": "G-STEEL-10", "name": "Steel gadget", "stock": 7, "price": 19.0},
    {"sku": "B-BOLT-M6", "name": "M6 bolt, box of 100", "stock": 310, "price": 8.2},
)


def make_service(*, stock: int | None = None) -> Starlette:  # noqa: C901  the demo service's routes, each small, defined together beside its state
    """A fresh service with its own stock and orders (state lives in the app); ``stock``
    gives every item that many (default: the demo's counts)."""
    items: dict[str, dict[str, Any]] = {str(i["sku"]): dict(i) for i in _ITEMS}
    if stock is not None:
        for item in items.values():
            item["stock"] = stock
    orders: dict[str, dict[str, Any]] = {}
    numbers = itertools.count(1001)
    lock = threading.Lock()

    async def search(request: Request) -> JSONResponse:
        q = request.query_params.get("q", "").strip().lower()
        try:
            limit = int(request.query_params.get("limit", "10"))
        except ValueError:
            return JSONResponse({"error": "limit must be an integer"}, status_code=400)
        if not q:
            return JSONResponse({"error": "q is required"}, status_code=400)
        words = q.split()
        found = [
            i for i in items.values() if all(w in f"{i['name']} {i['sku']}".lower() for w in words)
        ]
        return JSONResponse({"items": found[:limit]})

    async def get_item(request: Request) -> JSONResponse:
        sku = request.path_params["sku"]
        item = items.get(sku)
        if item is None:
            return JSONResponse({"error": f"no item with sku {sku}"}, status_code=404)
        return JSONResponse(item)

    async def create_order(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "body must be JSON"}, status_code=400)
        sku, quantity, customer = body.get("sku"), body.get("quantity"), body.get("customer")
        if not isinstance(quantity, int) or isinstance(quantity, bool) or quantity < 1:
            return JSONResponse({"error": "quantity must be a positive integer"}, status_code=400)
        if not isinstance(customer, str) or not customer:
            return JSONResponse({"error": "customer is required"}, status_code=400)
        with lock:
            item = items.get(sku) if isinstance(sku, str) else None
            if item is None:
                return JSONResponse({"error": f"no item with sku {sku}"}, status_code=404)
            if item["stock"] < quantity:
                return JSONResponse({"error": f"only {item['stock']} in stock"}, status_code=409)
            item["stock"] -= quantity
            order_id = f"ORD-{next(numbers)}"
            order = {
                "order_id": order_id,
                "sku": sku,
                "quantity": quantity,
                "customer": customer,
                "status": "created",
                "total": round(item["price"] * quantity, 2),
            }
            orders[order_id] = order
        return JSONResponse(order, status_code=201)

    async def get_order(request: Request) -> JSONResponse:
        order = orders.get(request.path_params["order_id"])
        if order is None:
            return JSONResponse({"error": "no such order"}, status_code=404)
        return JSONResponse(order)

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return Starlette(
        routes=[
            Route("/items", search, methods=["GET"]),
            Route("/items/{sku}", get_item, methods=["GET"]),
            Route("/orders", create_order, methods=["POST"]),
            Route("/orders/{order_id}", get_order, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ]
    )
