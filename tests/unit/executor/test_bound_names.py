"""Context-bound parameters in the body: a key of the whole-body argument may not stand
in for one (the request as rendered is checked; nothing is sent)."""

from __future__ import annotations

from pathlib import Path

import httpx
from toolcat.executor import CallerIdentity, Executor, ExecutorSettings, ToolCall, ToolContext
from toolcat.loader import load_catalog

CATALOG = """\
toolcat: 1
services:
  s: {base_url: "http://api.test"}
tools:
  - name: create_order
    description: Create an order.
    service: s
    method: POST
    path: /orders
    confirm: false
    body_argument: payload
    parameters:
      tenant: {type: string, in: body, from: claims.tenant_id}
      payload: {type: object, description: The order}
"""


def test_a_body_key_cannot_stand_in_for_a_context_bound_field(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CATALOG)
    result = load_catalog([str(path)], progress=False)
    assert result.catalog is not None
    assert [d.code for d in result.diagnostics] == ["TC145"]
    sent: list[bytes] = []

    def upstream(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        return httpx.Response(200, json={})

    executor = Executor(
        result.catalog,
        ExecutorSettings(
            env={}, client=httpx.Client(transport=httpx.MockTransport(upstream)), telemetry=False
        ),
    )
    caller = ToolContext(
        CallerIdentity.make(subject="u", method="jwt", claims={"tenant_id": "acme"})
    )
    forged = executor.execute(
        ToolCall("create_order", {"payload": {"tenant": "globex"}}), context=caller
    )
    assert forged.error is not None and forged.error.type == "refused_by_policy"
    assert sent == []
    fine = executor.execute(ToolCall("create_order", {"payload": {"x": 1}}), context=caller)
    assert fine.ok and sent == [b'{"x":1}']
