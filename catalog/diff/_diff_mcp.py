"""How the upstream side of a tool of an MCP server changed: its server, tool, pin, arguments.

:func:`mcp_changes` compares two :class:`McpCommand` values with their servers and says
each difference through ``say(rule, location, message)``, as the HTTP comparison does.
Values that may hold a secret (URLs, auth fields, header and environment values) are
never shown: the message names what changed, not what it is now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from toolcat.catalog._mcp import McpCommand, McpUpstream

__all__ = ["ON_CHANGE_CARE", "mcp_changes"]

Say = Callable[[str, str, str], None]

# how much care each on_change asks for: a step down is a safety finding
ON_CHANGE_CARE = {"refuse": 2, "warn": 1, "accept": 0}


def mcp_changes(
    a: McpCommand,
    b: McpCommand,
    old_server: McpUpstream | None,
    new_server: McpUpstream | None,
    say: Say,
) -> None:
    """Every difference between ``a`` and ``b`` (and their servers) that a caller or a
    reviewer must know of."""
    if a.server != b.server:
        say("TD115", "/command/server", f"MCP server '{a.server}' -> '{b.server}'")
    if a.tool != b.tool:
        say("TD116", "/command/tool", f"upstream tool '{a.tool}' -> '{b.tool}'")
    if a.pin != b.pin:
        say(
            "TD308",
            "/command/pin",
            f"the upstream definition of {b.server}/{b.tool} changed since review "
            f"(pin {_short(a.pin)} -> {_short(b.pin)})",
        )
    _arguments(a, b, say)
    if a.timeout != b.timeout:
        say("TD307", "/command/timeout", f"timeout {a.timeout} -> {b.timeout}")
    if old_server is None or new_server is None:
        return
    _on_change(old_server, new_server, say)  # another server may ask for less care too
    if a.server == b.server:
        _server(old_server, new_server, say)


def _short(pin: str) -> str:
    return pin[:15] + "…" if len(pin) > 16 else pin


def _arguments(a: McpCommand, b: McpCommand, say: Say) -> None:
    for arg in sorted({*a.arguments, *b.arguments}):
        before, after = a.arguments.get(arg, arg), b.arguments.get(arg, arg)
        if before != after:
            say(
                "TD113",
                f"/command/arguments/{arg}",
                f"argument '{arg}' is sent as the upstream's '{after}' (was '{before}')",
            )
    if a.fixed != b.fixed:
        names = _changed(a.fixed, b.fixed)
        say("TD113", "/command/fixed", f"fixed arguments changed: {', '.join(names)}")


def _changed(before: Mapping[str, object], after: Mapping[str, object]) -> list[str]:
    return sorted(k for k in {*before, *after} if before.get(k) != after.get(k))


def _server(old: McpUpstream, new: McpUpstream, say: Say) -> None:
    where = "/mcp_server"
    if old.stdio != new.stdio:
        kinds = ("stdio", "HTTP") if old.stdio else ("HTTP", "stdio")
        say("TD115", f"{where}", f"the server is {kinds[1]} now (was {kinds[0]})")
    elif old.command != new.command:
        say("TD115", f"{where}/command", "the server's command changed")
    elif old.urls != new.urls:
        say("TD115", f"{where}/url", "the server's URLs changed")
    if old.auth != new.auth:
        shown = f"{old.auth.type} -> {new.auth.type}" if old.auth.type != new.auth.type else ""
        what = shown or f"{new.auth.type}: credentials or token URL changed"
        say("TD112", f"{where}/auth", f"the server's auth {what}")
    if old.env != new.env:
        say(
            "TD307", f"{where}/env", f"the server's environment changed: {_names(old.env, new.env)}"
        )
    if old.cwd != new.cwd:
        say("TD307", f"{where}/cwd", "the server's working folder changed")
    if old.headers != new.headers:
        say(
            "TD307",
            f"{where}/headers",
            f"the server's headers changed: {_names(old.headers, new.headers)}",
        )
    if old.timeout != new.timeout:
        say("TD307", f"{where}/timeout", f"the server's timeout {old.timeout} -> {new.timeout}")
    if old.max_response_chars != new.max_response_chars:
        shown = f"{old.max_response_chars} -> {new.max_response_chars}"
        say("TD307", f"{where}/max_response_chars", f"the server's max_response_chars {shown}")
    if old.health != new.health:
        say(
            "TD307",
            f"{where}/health",
            f"the server's health probes {_health(old)} -> {_health(new)}",
        )


def _health(server: McpUpstream) -> str:
    return f"every {server.health.interval:g} s (timeout {server.health.timeout:g} s)"


def _on_change(old: McpUpstream, new: McpUpstream, say: Say) -> None:
    where, shown = "/mcp_server/on_change", f"on_change {old.on_change} -> {new.on_change}"
    if ON_CHANGE_CARE[new.on_change] < ON_CHANGE_CARE[old.on_change]:
        what = (
            "a changed upstream definition is offered instead of refused"
            if old.on_change == "refuse"
            else "a changed upstream definition is no longer logged"
        )
        say("TD204", where, f"{shown}: {what}")
    elif new.on_change != old.on_change:
        say("TD307", where, shown)


def _names(before: Mapping[str, object], after: Mapping[str, object]) -> str:
    return ", ".join(_changed(before, after))
