"""The last stage of a load: names resolved across files, then the catalog built.

Once every file is read (and every ``openapi:`` entry imported), each tool's service or
MCP server, each toolset's members, the server's access rules and the search pins are
checked against what all the files define; the catalog is built when no error was found.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from toolcat.catalog import Catalog, ToolDefinition
from toolcat.catalog.common import CALLER_TOKEN_AUTH, TOOL_NAME, credentials_may_travel

from ._diagnostics import Severity, sort_diagnostics
from ._lint import (
    caller_token_without_oauth_callers,
    duplicate_toolset_member,
    response_validation_without_spec,
    toolset_too_large,
)
from ._load_imports import run_imports
from ._load_state import LoadResult, LoadState, ToolRecord
from ._models_server import ServerDoc
from ._shape import Locator, closest

__all__ = ["finish"]


def finish(state: LoadState, files: tuple[str, ...], progress: bool | None) -> LoadResult:
    """The imports run, the names checked across files, and the result of the load."""
    run_imports(state, progress)
    files += tuple(s for s in dict.fromkeys(state.specs) if s not in files)
    tools = _resolve_tools(state)
    first = state.first
    toolsets = _check_toolsets(state, first)
    tools = _with_toolset_callers(state, tools, toolsets)
    for service, service_file, service_where in state.services.values():
        for f in response_validation_without_spec(service):
            state.add(
                f.code, f.message, service_file, service_where, ("services", service.name, *f.path)
            )
    if state.server_doc is not None:
        _check_server_references(state, tools, toolsets)
    pins = _pins(state, toolsets)
    _check_exports(state, tools, toolsets)
    diagnostics = tuple(sort_diagnostics(state.ctx.diagnostics))
    catalog = None
    if not any(d.severity is Severity.ERROR for d in diagnostics):
        catalog = Catalog(
            tools,
            (s for s, _, _ in state.services.values()),
            toolsets,
            toolset_extensions=state.toolset_extensions,
            pins=pins,
            search=_search_settings(state),
            mcp_servers=(s for s, _, _ in state.mcp_servers.values()),
        )
    server = state.server[0] if state.server else None
    return LoadResult(catalog, diagnostics, files, tuple(dict.fromkeys(state.missing)), server)


def _resolve_tools(state: LoadState) -> list[ToolDefinition]:
    """Each tool's name checked (provider-safe, once), its service or MCP server looked up;
    the compiled tools, in catalog order."""
    tools: list[ToolDefinition] = []
    for tool in state.tools:
        name = tool.name
        if name is None:
            continue
        if not TOOL_NAME.match(name):
            state.add(
                "TC010",
                f"tool name {name!r} is not accepted by model providers; use 1-64 "
                "letters, digits, '_' or '-'",
                tool.file,
                tool.locate((*tool.base, "name")),
                (*tool.base, "name"),
            )
        earlier = tool.earlier
        if earlier is not None:
            line, col = earlier.locate(earlier.base, False)
            state.add(
                "TC011",
                f"tool name '{name}' is already used at {earlier.file}:{line}:"
                f"{col}; rename one of them",
                tool.file,
                tool.locate((*tool.base, "name")),
                (*tool.base, "name"),
            )
            continue
        if tool.server is not None:
            _check_server_use(state, tool, name, tool.server)
        elif tool.service is None:
            continue
        else:
            _check_service_use(state, tool, name, tool.service)
        state.ctx.diagnostics.extend(tool.found)
        if tool.compiled is not None:
            tools.append(tool.compiled)
    return tools


def _check_server_references(
    state: LoadState, tools: list[ToolDefinition], toolsets: Mapping[str, list[str]]
) -> None:
    """The names ``server.access`` and ``server.concurrency`` use, and the services that
    need a caller's token on a server that takes only API keys."""
    assert state.server_doc is not None
    from ._server import check_access_references

    server_doc, server_file, server_locate = state.server_doc
    check_access_references(
        server_doc,
        # every tool's name (a broken one has its own finding), the compiled ones' tags
        tools=[*((name, ()) for name in state.first), *((t.name, t.tags) for t in tools)],
        toolsets=toolsets,
        file=server_file,
        locate=server_locate,
        out=state.ctx.diagnostics,
        # server.concurrency limits a service or an MCP server (a plan's target)
        services=[*state.services, *state.mcp_servers],
    )
    _check_caller_token_sources(state, server_doc)


def _pins(state: LoadState, toolsets: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """``search.pinned``, checked against the tools and toolsets of every file."""
    pins: dict[str, list[str]] = {}
    if state.search is not None and state.search[0].pinned is not None:
        from ._pins import check_pins

        search_doc, search_file, search_locate = state.search
        pins = check_pins(
            search_doc.pinned,
            tools=list(state.first),
            toolsets=toolsets,
            file=search_file,
            locate=search_locate,
            out=state.ctx.diagnostics,
            names_known=not state.lost,
        )
    return pins


def _check_exports(
    state: LoadState, tools: list[ToolDefinition], toolsets: Mapping[str, list[str]]
) -> None:
    """What the exports will carry: confirm tools code may call, namespaces past the size."""
    from ._export_lint import check_code_callers, check_namespaces

    check_code_callers(tools, state.ctx.diagnostics)
    if state.search is not None and state.search[0].namespaces is not None:
        search_doc, search_file, search_locate = state.search
        check_namespaces(
            search_doc.namespaces,
            tools,
            toolsets,
            search_file,
            search_locate,
            state.ctx.diagnostics,
        )


def _check_server_use(state: LoadState, tool: ToolRecord, name: str, server: str) -> None:
    """TC093 for an MCP server no file defines."""
    if server in state.mcp_servers or server in state.broken_mcp_servers or state.lost:
        return
    hint = closest(server, list(state.mcp_servers))
    known = ", ".join(sorted(state.mcp_servers)) or "none defined in mcp_servers"
    advice = f"did you mean '{hint}'?" if hint else f"known servers: {known}"
    state.add(
        "TC093",
        f"tool '{name}': unknown MCP server '{server}'; {advice}",
        tool.file,
        tool.locate((*tool.base, "mcp", "server")),
        (*tool.base, "mcp", "server"),
    )


def _check_service_use(state: LoadState, tool: ToolRecord, name: str, service_name: str) -> None:
    """TC012 for a service no file defines; TC008 and TC075 for what the tool's base URL
    and auth ask of the service it names (which may be defined in another file)."""
    if (
        service_name not in state.services
        and service_name not in state.broken_services
        and not state.lost
    ):
        hint = closest(service_name, list(state.services))
        known = ", ".join(sorted(state.services)) or "none defined"
        advice = f"did you mean '{hint}'?" if hint else f"known services: {known}"
        state.add(
            "TC012",
            f"tool '{name}': unknown service '{service_name}'; {advice}",
            tool.file,
            tool.locate((*tool.base, "service")),
            (*tool.base, "service"),
        )
    found = state.services.get(service_name)
    if found is None:
        return
    if tool.base_url:
        outside = _outside(tool.base_url, found[0].base_url)
        if outside:
            state.add(
                "TC008",
                f"tool '{name}': base_url leaves the base URL of service "
                f"'{service_name}' ({outside}); a request goes only under its service's "
                "base URL, so every call would be refused. Define another service for it",
                tool.file,
                tool.locate((*tool.base, "base_url")),
                (*tool.base, "base_url"),
            )
    auth_type = tool.auth_type
    if auth_type in CALLER_TOKEN_AUTH and not tool.base_url:
        target = found[0].base_url
        if "$" not in target and not credentials_may_travel(target):
            state.add(
                "TC075",
                f"tool '{name}': auth {auth_type} sends the caller's token, so the base_url "
                f"of service '{service_name}' must be https (or http to a loopback "
                f"address), not {target!r}",
                tool.file,
                tool.locate((*tool.base, "auth"), True),
                (*tool.base, "auth"),
            )


def _search_settings(state: LoadState) -> Any:
    """The catalog's ``search:`` settings, or ``None`` when no file has the section."""
    doc = None if state.search is None else state.search[0]
    exports = doc is not None and (doc.defer is not None or doc.namespaces is not None)
    if state.embeddings is None and not exports:
        return None
    from toolcat.catalog.search import SearchSettings

    return SearchSettings(
        embeddings=None if state.embeddings is None else state.embeddings[0],
        defer=None if doc is None else doc.defer,
        namespaces=None if doc is None else doc.namespaces,
    )


def _check_caller_token_sources(state: LoadState, server: ServerDoc) -> None:
    """TC131: services that need the caller's OAuth token, on a server that accepts only
    API keys (which are never forwarded): every served call to them would be refused."""
    for name, (service, file, where) in state.services.items():
        needs = service.auth.type in CALLER_TOKEN_AUTH
        for f in caller_token_without_oauth_callers(server.auth, name, service.auth.type, needs):
            state.add(f.code, f.message, file, where, ("services", name, *f.path))


def _with_toolset_callers(
    state: LoadState, tools: list[ToolDefinition], toolsets: Mapping[str, list[str]]
) -> list[ToolDefinition]:
    """Each tool that states no ``callers:`` takes those of its first toolset that does."""
    given: dict[str, tuple[str, ...]] = {}
    for name, callers in state.toolset_callers.items():
        for member in toolsets.get(name, ()):
            given.setdefault(member, callers)
    if not given:
        return tools
    return [
        dataclasses.replace(t, callers=given[t.name]) if not t.callers and t.name in given else t
        for t in tools
    ]


def _check_toolsets(state: LoadState, known: Mapping[str, ToolRecord]) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for name, (members, file, base, locate) in state.toolsets.items():
        for f in duplicate_toolset_member(name, members, _line_of(locate, base)):
            state.add(f.code, f.message, file, locate((*base, *f.path)), (*base, *f.path))
        seen: set[str] = set()
        for i, member in enumerate(members):
            if member in seen:
                continue  # listed again: TC107 above
            seen.add(member)
            if member not in known and not state.lost:
                hint = closest(member, list(known))
                advice = f"did you mean '{hint}'?" if hint else "remove it or define the tool"
                state.add(
                    "TC014",
                    f"toolset '{name}' names unknown tool '{member}'; {advice}",
                    file,
                    locate((*base, i)),
                    (*base, i),
                )
        for f in toolset_too_large(name, members):
            state.add(f.code, f.message, file, locate(base, f.key), base)
        result[name] = list(dict.fromkeys(members))
    return result


def _line_of(locate: Locator, base: tuple[str | int, ...]) -> Callable[[int], int]:
    """The line of item ``i`` of the list at ``base``."""
    return lambda i: locate((*base, i))[0]


def _outside(url: str, base: str) -> str | None:
    """How a tool's literal ``base_url`` leaves its service's literal one (``None`` when it
    is under it, or when either holds a ``${VAR}``: the executor checks those per call)."""
    if "$" in url or "$" in base:
        return None
    try:
        a, b = urlsplit(url), urlsplit(base)
        ports = (a.port or _PORTS.get(a.scheme.lower())), (b.port or _PORTS.get(b.scheme.lower()))
    except ValueError:
        return None
    if not a.hostname or not b.hostname:
        return None
    if (a.scheme.lower(), a.hostname, ports[0]) != (b.scheme.lower(), b.hostname, ports[1]):
        return "another scheme, host or port"
    prefix, path = b.path.rstrip("/"), a.path.rstrip("/")
    if prefix and path != prefix and not path.startswith(prefix + "/"):
        return "the same host, another base path"
    return None


_PORTS = {"http": 80, "https": 443}
