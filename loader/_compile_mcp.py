"""MCP servers and their tools compiled to the IR: ``mcp_servers:`` entries and ``mcp:`` tools.

An entry is a stdio ``command`` or the ``url`` of a streamable-HTTP server (a list of
URLs: replicas of one server, probed as its ``health`` says), never both (TC092). A tool
bound to an upstream tool has the checks of an HTTP tool's schemas, without placement:
its arguments travel as one object, renamed by ``mcp.arguments``; ``mcp.fixed`` holds
upstream arguments the model never sees (TC096 when either names the wrong thing). The
pin must be ``sha256:`` and 64 hex digits (TC095). Which server a tool names is checked
once every file is read.
"""

from __future__ import annotations

import os
import re
from typing import Any

from toolcat.catalog import (
    FrozenDict,
    McpCommand,
    McpHealth,
    McpUpstream,
    NoAuth,
    SourceLocation,
    ToolAnnotations,
    ToolDefinition,
)

from ._compile_schemas import (
    checked_definitions,
    compile_examples,
    input_definitions,
    model_input_schema,
)
from ._compile_service import USERINFO, check_strings, header_text
from ._definitions import SharedDefinitions
from ._diagnostics import Diagnostic
from ._lint import (
    caller_token_to_mcp_server,
    credential_in_file,
    description_too_long,
    missing_description,
)
from ._models_mcp import McpServerDoc, McpToolDoc
from ._models_tools import ToolDoc
from ._params import compile_mcp_parameters
from ._scope import CompileContext, Scope
from ._shape import Locator, closest

__all__ = ["PIN", "compile_mcp_server", "compile_mcp_tool", "without_http_keys"]

PIN = re.compile(r"^sha256:[0-9a-f]{64}\Z")
_HTTP_URL = re.compile(r"(?i)^(https?://|\$\{)")
_STDIO_ONLY = ("env", "cwd")
_HTTP_ONLY = ("headers", "auth", "health")
# the keys of an HTTP tool that a tool of an MCP server has no use for (ToolDoc's own)
_HTTP_TOOL_KEYS = frozenset(ToolDoc.model_fields) - frozenset(McpToolDoc.model_fields)


def without_http_keys(
    body: dict[str, Any],
    label: str,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
    out: list[Diagnostic],
) -> dict[str, Any]:
    """``body`` (a tool with ``mcp:``) without an HTTP tool's keys, each reported (TC094):
    the shape check then reports only what is wrong besides."""
    found = [k for k in body if k in _HTTP_TOOL_KEYS]
    for key in found:
        advice = "set mcp.timeout" if key == "timeout" else "remove it"
        line, col = locate((*base, key), True)
        out.append(
            Diagnostic.make(
                "TC094",
                f"{label}: '{key}' is a key of HTTP tools, but 'mcp' binds this tool to an MCP "
                f"server's tool; {advice} (or remove 'mcp')",
                file,
                line,
                col,
                (*base, key),
            )
        )
    return {k: v for k, v in body.items() if k not in found} if found else body


def compile_mcp_server(
    name: str,
    doc: McpServerDoc,
    *,
    ctx: CompileContext,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
) -> McpUpstream | None:
    """An :class:`McpUpstream` from its entry (``${VAR}`` strings stay raw), or ``None``
    when the entry has errors (all reported)."""
    scope = Scope(ctx, file, base, locate, f"mcp server '{name}'")
    urls = [doc.url] if isinstance(doc.url, str) else list(doc.url or ())
    if doc.command is None and doc.url is None:
        scope.add(
            "TC092",
            "give 'command' (the argv of a stdio server) or 'url' (a streamable-HTTP server)",
            key=True,
        )
    elif doc.command is not None and doc.url is not None:
        scope.add(
            "TC092",
            "give 'command' or 'url', not both: a server is one or the other",
            ("url",),
            key=True,
        )
    elif doc.url is not None and not urls:
        scope.add("TC092", "'url' is an empty list; give the server's URL", ("url",))
    stdio = doc.command is not None
    for key in _HTTP_ONLY if stdio else _STDIO_ONLY:
        if key in doc.model_fields_set:
            kind, other = ("a stdio", "url") if stdio else ("an HTTP", "command")
            scope.add(
                "TC092",
                f"'{key}' is for servers with '{other}'; this is {kind} server: remove it",
                (key,),
                key=True,
            )
    for i, arg in enumerate(doc.command or ()):
        scope.env(("command", i), arg)
    for i, url in enumerate(urls):
        where: tuple[str | int, ...] = ("url", i) if isinstance(doc.url, list) else ("url",)
        _check_url(scope, where, url)
    for key, value in doc.env.items():
        scope.env(("env", key), value)
    if doc.cwd is not None:
        scope.env(("cwd",), doc.cwd)
    check_strings(scope, None, doc.headers, doc.auth)
    scope.report(credential_in_file({}, doc.env))  # the headers: check_strings's
    scope.report(caller_token_to_mcp_server(doc.auth.type if doc.auth else None))
    if scope.errors:
        return None
    line, col = locate(base, True)
    defaults = McpUpstream(name=name)
    cwd = doc.cwd
    if cwd is not None:  # relative to the catalog file's folder
        cwd = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(file)), cwd))
    return McpUpstream(
        name=name,
        command=tuple(doc.command or ()),
        urls=tuple(urls),
        env=FrozenDict(doc.env),
        cwd=cwd,
        headers=FrozenDict({k: header_text(v) for k, v in doc.headers.items()}),
        auth=doc.auth.to_spec() if doc.auth is not None else NoAuth(),
        timeout=doc.timeout,
        on_change=doc.on_change,
        health=McpHealth(doc.health.interval, doc.health.timeout) if doc.health else McpHealth(),
        max_response_chars=doc.max_response_chars or defaults.max_response_chars,
        source=SourceLocation(file, line, col),
    )


def _check_url(scope: Scope, where: tuple[str | int, ...], url: str) -> None:
    scope.env(where, url)
    userinfo = USERINFO.match(url)
    if userinfo is not None:  # the message never repeats what is before the '@'
        scope.add(
            "TC040",
            f"url {userinfo.group(1)}***@{userinfo.group(3)} holds credentials before '@'; "
            "they would show in logs. Give them in auth (type: bearer, or basic) with ${VAR}",
            where,
        )
    elif not _HTTP_URL.match(url):
        scope.add(
            "TC008",
            f"url {url!r} must start with http:// or https:// (or a ${{VAR}} that holds "
            "the URL); a stdio server is given by 'command'",
            where,
        )


def compile_mcp_tool(
    doc: McpToolDoc,
    *,
    ctx: CompileContext,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
    errors_only: bool = False,
    shared: SharedDefinitions | None = None,
) -> ToolDefinition | None:
    """One tool of an upstream MCP server, or ``None`` when it has errors (all reported).

    ``errors_only`` and ``shared`` mean what they mean for
    :func:`~toolcat.loader._compile.compile_tool`.
    """
    scope = Scope(ctx, file, base, locate, f"tool '{doc.name}'", errors_only)
    binding = doc.mcp
    if not PIN.match(binding.pin):
        scope.add(
            "TC095",
            f"pin {binding.pin[:80]!r} is not 'sha256:' and 64 lower-case hex digits, the "
            "digest of the reviewed definition; re-import the tool (toolcat import mcp) to "
            "write it",
            ("mcp", "pin"),
        )
    defs = input_definitions(doc, scope, shared, False)
    params = compile_mcp_parameters(doc.parameters or {}, scope, defs)
    output = checked_definitions(doc, scope, defs, shared, False)
    bound = {arg: p.from_ for arg, p in (doc.parameters or {}).items() if p.from_}
    _check_arguments(scope, binding.arguments, binding.fixed, list(params.properties))
    for rule in (missing_description, description_too_long):
        scope.report(rule(doc))
    if scope.errors:
        return None
    input_schema = model_input_schema(params, bound, defs)
    examples = compile_examples(doc, scope, input_schema) if doc.examples else ()
    if scope.errors:
        return None
    line, col = locate(base, False)
    stated = doc.annotations.model_dump(exclude_none=True) if doc.annotations else {}
    return ToolDefinition(
        name=doc.name,
        description=doc.description or "",
        input_schema=scope.ctx.values.freeze(input_schema),
        command=McpCommand(
            server=binding.server,
            tool=binding.tool,
            pin=binding.pin,
            timeout=binding.timeout,
            arguments=FrozenDict(binding.arguments),
            fixed=scope.ctx.values.freeze(binding.fixed),
            required_context=tuple(r for r in params.required if r in bound),
        ),
        output_schema=scope.ctx.values.freeze(output) if isinstance(output, dict) else None,
        annotations=ToolAnnotations(**stated),  # the upstream's, as reviewed: none derived
        confirm=bool(doc.confirm),
        return_direct=doc.return_direct,
        tags=tuple(doc.tags),
        source=SourceLocation(file, line, col),
        context_arguments=FrozenDict(bound),
        examples=examples,
        sensitive_arguments=tuple(
            arg for arg, p in (doc.parameters or {}).items() if p.sensitive and arg not in bound
        ),
    )


def _check_arguments(
    scope: Scope, renames: dict[str, str], fixed: dict[str, Any], arguments: list[str]
) -> None:
    """TC096: a rename of an argument the tool does not have, two arguments sent under one
    upstream name, or a fixed argument that one of them sends too."""
    for arg in renames:
        if arg not in arguments:
            hint = closest(arg, arguments)
            advice = f"did you mean '{hint}'?" if hint else "declare it under parameters"
            scope.add(
                "TC096",
                f"mcp.arguments renames '{arg}', which is not a parameter of the tool; {advice}",
                ("mcp", "arguments", arg),
                key=True,
            )
    sent: dict[str, str] = {}  # upstream name -> the argument that sends it
    for arg in arguments:
        upstream = renames.get(arg, arg)
        other = sent.get(upstream)
        if other is not None:
            # at the rename that made them meet
            renamed = arg if arg in renames else other if other in renames else None
            where = ("mcp", "arguments", renamed) if renamed else ("parameters", arg)
            scope.add(
                "TC096",
                f"arguments '{other}' and '{arg}' would both be sent as the upstream's "
                f"'{upstream}'; rename one in mcp.arguments",
                where,
                key=True,
            )
        sent[upstream] = arg
    for name in fixed:
        if name in sent:
            scope.add(
                "TC096",
                f"mcp.fixed sets the upstream's '{name}', which argument '{sent[name]}' "
                "sends too; remove one (a fixed argument is never the model's to give)",
                ("mcp", "fixed", name),
                key=True,
            )
