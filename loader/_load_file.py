"""One catalog file's document checked: its version and keys, then each section in turn.

Services, MCP servers and tools are checked and compiled as the file is read (a tool
needs nothing from other files to compile); the sections a catalog has once or merges
across files are :mod:`._load_sections`'; names that refer across files are resolved
once every file is read (:mod:`._load_finish`).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from toolcat.catalog import ToolDefinition
from toolcat.catalog.common import freeze

from ._compile import compile_tool
from ._compile_mcp import compile_mcp_server, compile_mcp_tool, without_http_keys
from ._compile_service import compile_service
from ._definitions import DEF_NAME, SharedDefinitions
from ._load_sections import check_search, check_server, read_toolsets
from ._load_state import LoadState, ToolRecord, add_service, section, split_extensions
from ._models_mcp import McpServerDoc, McpToolDoc
from ._models_openapi import OpenApiEntryDoc
from ._models_services import ServiceDoc
from ._models_tools import ToolDoc
from ._shape import Locator, closest, describe, intended_name, validate_item

__all__ = ["add_tool", "check_file"]

_TOP_KEYS = (
    "toolcat",
    "services",
    "mcp_servers",
    "tools",
    "toolsets",
    "openapi",
    "server",
    "definitions",
    "search",
)


def check_file(state: LoadState, data: Any, file: str, locate: Locator, folder: Path) -> None:
    """Every section of one file's document, in the file's order of sections."""
    if not _check_header(state, data, file, locate):
        return
    shared = _shared_definitions(state, data, file, locate)
    _check_services(state, data, file, locate)
    for name, raw in section(state, data, "mcp_servers", dict, file, locate).items():
        _check_mcp_server(state, name, raw, file, locate)
    _check_tools(state, data, file, locate, shared)
    read_toolsets(state, data, file, locate)
    _check_openapi_entries(state, data, file, locate, folder)
    if data.get("server") is not None:
        check_server(state, data["server"], file, locate)
    if data.get("search") is not None:
        check_search(state, data["search"], file, locate, folder)


def _check_header(state: LoadState, data: Any, file: str, locate: Locator) -> bool:
    """The document is a catalog of this format version, with known top-level keys;
    ``False``: it is none, and its sections are not read."""
    if data is None:
        state.add("TC005", "the file is empty; a catalog starts with 'toolcat: 1'", file, (1, 1))
        return False
    if isinstance(data, dict) and "toolcat" not in data and not any(k in data for k in _TOP_KEYS):
        keys = ", ".join(list(map(str, data))[:5])
        state.add(
            "TC005",
            f"this is not a toolcat catalog: no 'toolcat: 1' and none of its keys "
            f"(found: {keys}); add 'toolcat: 1' or leave the file out",
            file,
            locate(()),
        )
        return False
    if not isinstance(data, dict):
        state.add(
            "TC004",
            f"a catalog file is a mapping that starts with 'toolcat: 1', not {describe(data)}",
            file,
            locate(()),
        )
        return False
    version = data.get("toolcat")
    misspelt = any(k not in _TOP_KEYS and closest(str(k), _TOP_KEYS) == "toolcat" for k in data)
    if "toolcat" not in data and not misspelt:  # 'Toolcat: 1' gets TC003 "did you mean" only
        state.add(
            "TC005",
            "missing 'toolcat: 1' (the format version); add it at the top",
            file,
            locate(()),
        )
    elif "toolcat" in data and (type(version) is not int or version != 1):
        hint = (
            "write the version as a number: 'toolcat: 1'"
            if str(version).strip() == "1"
            else "this toolcat reads 'toolcat: 1'"
        )
        shown = (
            repr(version)
            if isinstance(version, str | int | float) and not isinstance(version, bool)
            else describe(version)
        )
        state.add(
            "TC006",
            f"unsupported format version {shown}; {hint}",
            file,
            locate(("toolcat",)),
            ("toolcat",),
        )
        return False
    for key in data:
        if key not in _TOP_KEYS and not key.startswith("x-"):
            near = closest(key, _TOP_KEYS)
            advice = f"did you mean '{near}'?" if near else "valid keys: " + ", ".join(_TOP_KEYS)
            state.add("TC003", f"unknown key '{key}'; {advice}", file, locate((key,), True), (key,))
    return True


def _check_services(state: LoadState, data: Any, file: str, locate: Locator) -> None:
    services = section(state, data, "services", dict, file, locate)
    for name, raw in services.items():
        base = ("services", name)
        body, extensions = split_extensions(raw)
        doc = validate_item(
            ServiceDoc,
            body,
            base=base,
            label=f"service '{name}'",
            file=file,
            locate=locate,
            out=state.ctx.diagnostics,
        )
        if doc is None:
            state.broken_services.add(name)  # tools naming it are not "unknown service"
            continue
        service = compile_service(name, doc, ctx=state.ctx, file=file, base=base, locate=locate)
        if extensions:
            service = dataclasses.replace(service, extensions=freeze(extensions))
        add_service(state, service, file, locate(base, True))


def _check_tools(
    state: LoadState, data: Any, file: str, locate: Locator, shared: SharedDefinitions | None
) -> None:
    for i, raw in enumerate(section(state, data, "tools", list, file, locate)):
        base = ("tools", i)
        body, extensions = split_extensions(raw)
        raw_name = body.get("name") if isinstance(body, dict) else None
        label = f"tool '{raw_name}'" if isinstance(raw_name, str) else f"tools[{i}]"
        model: type[ToolDoc | McpToolDoc] = ToolDoc
        if isinstance(body, dict) and "mcp" in body:  # a tool of an upstream MCP server
            model = McpToolDoc
            body = without_http_keys(body, label, file, base, locate, state.ctx.diagnostics)
        rescued: list[ToolDoc | McpToolDoc] = []
        tool = validate_item(
            model,
            body,
            base=base,
            label=label,
            file=file,
            locate=locate,
            out=state.ctx.diagnostics,
            salvaged=rescued,
        )
        add_tool(
            state,
            tool or (rescued[0] if rescued else None),
            intended_name(body),
            file,
            base,
            locate,
            broken=tool is None,
            shared=shared,
            extensions=extensions,
        )


def _check_openapi_entries(
    state: LoadState, data: Any, file: str, locate: Locator, folder: Path
) -> None:
    """``openapi:`` entries, kept to import once every file is read."""
    for i, body in enumerate(section(state, data, "openapi", list, file, locate)):
        base = ("openapi", i)
        entry = validate_item(
            OpenApiEntryDoc,
            body,
            base=base,
            label=f"openapi[{i}]",
            file=file,
            locate=locate,
            out=state.ctx.diagnostics,
        )
        if entry is not None:
            spec = _tidy(folder / entry.spec)
            state.imports.append((entry, spec, file, base, locate))


def _tidy(path: Path) -> Path:
    """``path`` without ``.`` and ``..`` steps, as findings name it (``catalog/../specs/x.json``
    is ``specs/x.json``), unless a symlinked folder makes the two name different files."""
    tidy = Path(os.path.normpath(path))
    if tidy == path or not path.exists():
        return tidy
    return tidy if tidy.exists() and os.path.samefile(tidy, path) else path


def _shared_definitions(
    state: LoadState, data: dict[str, Any], file: str, locate: Locator
) -> SharedDefinitions | None:
    """The file's ``definitions:`` section, when it has one (names and shapes checked)."""
    if "definitions" not in data:
        return None
    found: dict[str, Any] = {}
    for name, schema in section(state, data, "definitions", dict, file, locate).items():
        where = ("definitions", name)
        if not isinstance(name, str) or not DEF_NAME.match(name):
            state.add(
                "TC052",
                f"definition name {str(name)!r} cannot be referred to as '#/$defs/NAME': "
                "use 1-200 letters, digits, '.', '_' or '-'",
                file,
                locate(where, True),
                where,
            )
            continue
        if not isinstance(schema, dict | bool):
            state.add(
                "TC004",
                f"definition '{name}' must be a JSON Schema (a mapping or true/false), "
                f"not {describe(schema)}",
                file,
                locate(where),
                where,
            )
            continue
        found[name] = schema
    shared = SharedDefinitions(found, file, locate)
    shared.check_loops(state.ctx)
    return shared


def _check_mcp_server(state: LoadState, name: str, raw: Any, file: str, locate: Locator) -> None:
    """One ``mcp_servers:`` entry: its shape, compiled; TC097 for a name already defined."""
    base = ("mcp_servers", name)
    body, extensions = split_extensions(raw)
    label = f"mcp server '{name}'"
    doc = validate_item(
        McpServerDoc,
        body,
        base=base,
        label=label,
        file=file,
        locate=locate,
        out=state.ctx.diagnostics,
    )
    upstream = None
    if doc is not None:
        upstream = compile_mcp_server(name, doc, ctx=state.ctx, file=file, base=base, locate=locate)
    where = locate(base, True)
    other = state.mcp_servers.get(name)
    if other is not None:
        state.add(
            "TC097",
            f"mcp server '{name}' is already defined at {other[1]}:{other[2][0]}:{other[2][1]}; "
            "rename or remove one",
            file,
            where,
            base,
        )
    elif upstream is None:
        state.broken_mcp_servers.add(name)  # tools naming it are not "unknown server"
    else:
        if extensions:
            upstream = dataclasses.replace(upstream, extensions=freeze(extensions))
        state.mcp_servers[name] = (upstream, file, where)


def add_tool(
    state: LoadState,
    doc: ToolDoc | McpToolDoc | None,
    name: str | None,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
    *,
    trusted: bool = False,
    broken: bool = False,
    shared: SharedDefinitions | None = None,
    extensions: dict[str, Any] | None = None,
) -> None:
    """Record a tool and compile it now, so that its document goes with its file.

    Compiling needs nothing from other files: the tool names its service, and the
    checks that look that service up run once every file is read (:mod:`._load_finish`).
    A second tool of a name is not compiled (the first one stands). ``broken``: a
    document salvaged from a failed shape check, compiled for its errors only. What
    compiling finds waits in the record, so that it is reported after the service
    checks, as it always came.
    """
    tool = ToolRecord(name, file, base, locate)
    state.tools.append(tool)
    if name is None:
        return
    tool.earlier = state.first.get(name)
    if tool.earlier is not None:
        return
    state.first[name] = tool
    if doc is None:
        return
    ctx = dataclasses.replace(state.ctx, diagnostics=[])  # the same caches, its own findings
    compiled: ToolDefinition | None
    if isinstance(doc, McpToolDoc):
        tool.server = doc.mcp.server
        compiled = compile_mcp_tool(
            doc, ctx=ctx, file=file, base=base, locate=locate, errors_only=broken, shared=shared
        )
    else:
        tool.service, tool.base_url = doc.service, doc.base_url
        tool.auth_type = getattr(doc.auth, "type", None)
        compiled = compile_tool(
            doc,
            ctx=ctx,
            file=file,
            base=base,
            locate=locate,
            trusted=trusted,
            errors_only=broken,
            shared=shared,
        )
    tool.found = tuple(ctx.diagnostics)
    if compiled is not None and not broken:
        if extensions:
            compiled = dataclasses.replace(compiled, extensions=freeze(extensions))
        tool.compiled = compiled
