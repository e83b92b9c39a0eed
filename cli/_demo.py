"""``toolcat demo``: the example catalog, the sample service and a scripted model, end to end.

Everything runs on 127.0.0.1: the sample warehouse service and a scripted
OpenAI-compatible model endpoint, each on a free port in a background
thread. The conversation goes through the real loop, executor and HTTP.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx
from toolcat._errors import ToolcatError

__all__ = ["DemoError", "demo_catalog_dir", "run_demo", "run_sample_service"]

PROMPT = (
    "Which widgets do we have in stock, and how many steel gadgets are left? "
    "Then order 3 blue widgets for ACME."
)


class DemoError(ToolcatError):
    """The demo cannot run (its catalog is missing or does not validate)."""


def demo_catalog_dir() -> Path:
    """examples/demo next to the package (the repository, or the wheel's package data)."""
    from toolcat import __file__ as package_init

    root = Path(package_init).resolve().parent
    for candidate in (root / "examples" / "demo", Path.cwd() / "examples" / "demo"):
        if (candidate / "catalog.yaml").is_file():
            return candidate
    raise DemoError(
        f"the demo catalog is missing (looked for {root / 'examples' / 'demo'}); "
        "reinstall toolcat or run from a clone of the repository"
    )


def _script() -> list[Any]:
    from toolcat.testing import ScriptedTurn

    return [
        ScriptedTurn(
            tool_calls=[
                {"name": "search_items", "arguments": {"q": "widget"}},
                {"name": "get_item", "arguments": {"sku": "G-STEEL-10"}},
            ]
        ),
        # A typical model slip: the quantity as a string. The executor refuses it
        # before any request leaves, and the model corrects itself.
        ScriptedTurn(
            tool_calls=[
                {
                    "name": "place_order",
                    "arguments": {"sku": "W-BLUE-01", "quantity": "3", "customer": "ACME"},
                }
            ]
        ),
        ScriptedTurn(
            tool_calls=[
                {
                    "name": "place_order",
                    "arguments": {"sku": "W-BLUE-01", "quantity": 3, "customer": "ACME"},
                }
            ]
        ),
        _final_answer,
    ]


def _final_answer(body: Mapping[str, Any]) -> Any:
    from toolcat.testing import ScriptedTurn

    found: dict[str, Any] = {}
    for message in body.get("messages", []):
        if message.get("role") != "tool":
            continue
        data = _json(message.get("content"))
        if isinstance(data, dict) and "items" in data:
            found["items"] = data["items"]
        elif isinstance(data, dict) and "order_id" in data:
            found["order"] = data
        elif isinstance(data, dict) and data.get("sku") == "G-STEEL-10":
            found["gadget"] = data
    parts = []
    if "items" in found:
        stocked = [f"{i['name']} ({i['stock']})" for i in found["items"] if i.get("stock")]
        empty = [i["name"] for i in found["items"] if not i.get("stock")]
        parts.append(
            f"Widgets in stock: {', '.join(stocked) or 'none'}"
            + (f"; sold out: {', '.join(empty)}." if empty else ".")
        )
    if "gadget" in found:
        parts.append(f"Steel gadgets left: {found['gadget'].get('stock')}.")
    if "order" in found:
        o = found["order"]
        parts.append(
            f"I ordered {o['quantity']} x {o['sku']} for {o['customer']}: "
            f"order {o['order_id']}, total {o['total']:.2f}."
        )
    return ScriptedTurn(text=" ".join(parts) or "I could not get the data I needed.")


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        match = re.search(r"\{.*\}", text, flags=re.S)  # content with a status prefix
        if match:
            try:
                return json.loads(match.group(0))
            except ValueError:
                return None
    return None


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."


def run_sample_service(port: int, say: Callable[[str], None] = print) -> int:
    """Serve the sample service on 127.0.0.1:``port`` until interrupted (Ctrl-C)."""
    from toolcat.testing import BackgroundServer, make_service

    with BackgroundServer(make_service(), port=port) as service:
        say(f"toolcat demo: sample service on {service.url} (Ctrl-C stops it); try:")
        say(f'  toolcat call {demo_catalog_dir()} get_item --args \'{{"sku": "W-BLUE-01"}}\'')
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            say("toolcat demo: sample service stopped")
    return 0


def run_demo(say: Callable[[str], None] = print) -> int:
    """Run the demo, printing each step with ``say``; returns the exit code."""
    from toolcat.loader import load_catalog
    from toolcat.testing import BackgroundServer, ScriptedModel, make_service

    started = time.perf_counter()
    catalog_dir = demo_catalog_dir()
    result = load_catalog([str(catalog_dir)], progress=False)
    errors = [d for d in result.diagnostics if str(d.severity) == "error"]
    if result.catalog is None or errors:
        raise DemoError(f"the demo catalog does not validate: {errors[0] if errors else '?'}")
    catalog = result.catalog
    warnings = len(result.diagnostics) - len(errors)
    model = ScriptedModel(_script())
    with BackgroundServer(make_service()) as service, BackgroundServer(model.app) as endpoint:
        say("toolcat demo: the feedback loop end to end, offline")
        say(f"  sample service : {service.url}  (described by specs/sample-service.yaml)")
        say(
            f"  catalog        : {catalog_dir} -> {len(catalog)} tools "
            f"({', '.join(sorted(t.name for t in catalog))}); validated: 0 errors, "
            f"{warnings} warnings"
        )
        say(
            f"  model          : scripted OpenAI-compatible endpoint {endpoint.url}/v1 "
            "(no network, no key)"
        )
        env = {**os.environ, "WAREHOUSE_URL": service.url}
        code = asyncio.run(_converse(catalog, env, endpoint.url + "/v1", say))
    say(f"done in {time.perf_counter() - started:.2f} s")
    return code


async def _converse(
    catalog: Any, env: Mapping[str, str], base_url: str, say: Callable[[str], None]
) -> int:
    from toolcat.executor import Executor, ExecutorSettings
    from toolcat.executor.agent import AgentLoop, LoopSettings, LoopStep, OpenAIChatClient

    async def on_response(response: httpx.Response) -> None:
        request = response.request
        say(f"    http  {request.method} {request.url} -> {response.status_code}")

    def confirm(call: Any, tool: Any) -> bool:
        say(f"    confirm {tool.name}? yes (the demo confirms; `toolcat call` asks on a terminal)")
        return True

    def on_step(step: LoopStep) -> None:
        if step.phase == "model":
            calls = step.reply.tool_calls
            what = f"{len(calls)} tool call(s)" if calls else "final answer"
            say(f"\n[model call {step.index}] tool_choice={step.tool_choice}: {what}")
            for call in calls:
                args = (
                    call.arguments
                    if isinstance(call.arguments, str)
                    else json.dumps(call.arguments)
                )
                say(f"  call  {call.name} {args}")
            return
        for r in step.results:
            status = f" HTTP {r.status}" if r.status is not None else " (no request sent)"
            mark = "ok " if r.ok else "ERR"
            say(f"  {mark}   {r.call.name}{status}: {_short(r.content)}")

    client = httpx.AsyncClient(event_hooks={"response": [on_response]})
    model = OpenAIChatClient(base_url, "scripted-demo-model", api_key_env=None)
    executor = Executor(catalog, ExecutorSettings(env=env, async_client=client, confirm=confirm))
    try:
        loop = AgentLoop(
            model,
            executor,
            LoopSettings(
                catalog=catalog,
                max_iterations=6,
                on_step=on_step,
                system="You are an operations assistant for a warehouse.",
            ),
        )
        say(f"\nuser> {PROMPT}")
        result = await loop.arun(PROMPT)
    finally:
        await model.aclose()
        await executor.aclose()
        await client.aclose()
    tokens = result.usage.total_tokens if result.usage else None
    calls = len(result.tool_results)
    say(f"\nassistant> {result.final_text}")
    say(
        f"\nstopped: {result.stop_reason} after {len(result.steps)} model calls and {calls} "
        f"tool calls; tokens: {tokens if tokens is not None else 'not reported'}"
    )
    return 0 if result.stop_reason == "final_answer" else 1
