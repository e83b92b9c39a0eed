"""A large synthetic catalog from one template, for tests and benchmarks of big catalogs
(the catalog browser, search): names, paths, tags and toolsets vary, text repeats."""

from __future__ import annotations

from typing import Any

__all__ = ["synthetic_catalog"]

_WORDS = "account invoice order user repo issue payment file report ticket".split()
_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def synthetic_catalog(n: int) -> dict[str, Any]:
    """A catalog of ``n`` tools from one template (5 services, 5 methods, 50 tags, 3 toolsets)."""
    tools = []
    for i in range(n):
        a, b, c = _WORDS[i % 10], _WORDS[(i // 10) % 10], _WORDS[(i // 7) % 10]
        method = _METHODS[i % 5]
        tools.append(
            {
                "name": f"{a}_{b}_op{i}",
                "description": f"Operation {i} on the {a} of a {c}. It reads or changes one "
                f"{b} and returns it as JSON; see the service's reference for the fields.",
                "service": f"svc{i % 5}",
                "method": method,
                "path": f"/{a}s/{{id}}/{b}s/op{i}",
                "parameters": {"id": {"type": "string", "description": f"The {c} id"}},
                "tags": [a, f"group{i % 40}"],
                "confirm": method != "GET",
                "annotations": {"read_only": method == "GET", "destructive": method == "DELETE"},
            }
        )
    return {
        "toolcat": 1,
        "services": {f"svc{s}": {"base_url": "http://127.0.0.1:9"} for s in range(5)},
        "tools": tools,
        "toolsets": {f"set{k}": [t["name"] for t in tools[k::50]] for k in range(3)},
    }
