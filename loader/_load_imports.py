"""The ``openapi:`` entries of a load, imported once every file is read.

Each entry's spec is checked (a file, readable, never a URL), imported through
:mod:`._import`, and its findings, toolsets, services and tools join the load's as
a catalog file's would.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any

from ._compile_service import compile_service
from ._diagnostics import Diagnostic
from ._import import ImportOutcome, run_import
from ._load_file import add_tool
from ._load_state import LoadState, add_service
from ._models_openapi import OpenApiEntryDoc
from ._models_services import ServiceDoc
from ._models_tools import ToolDoc
from ._shape import FixedLocator, Locator, validate_item

__all__ = ["run_imports"]


def run_imports(state: LoadState, progress: bool | None) -> None:
    """Each entry (and each spec named as a PATH) imported, in the order they were met."""
    for entry, spec, file, base, locate in state.imports:
        where = locate((*base, "spec"), False)
        if not _importable(state, entry, spec, file, base, locate, where):
            continue
        taken = frozenset(t.name for t in state.tools if t.name)
        existing = {name: s for name, (s, _, _) in state.services.items()}
        outcome = run_import(
            entry,
            spec,
            existing=existing,
            taken=taken,
            progress=progress,
            document=state.parsed_specs.pop(spec, None) if not base else None,
            ref_root=(Path(file).parent / entry.ref_root) if entry.ref_root else state.ref_root,
            folder=Path(file).parent,
            output_schemas=state.output_schemas,
        )
        if outcome.available and base:  # a spec named as PATH is listed already
            state.specs.append(os.path.normpath(spec))
            state.specs.extend(
                os.path.normpath(Path(file).parent / o) for o in entry.overlays or ()
            )
        if not outcome.available:
            state.add(
                "TC208",
                "openapi import is not supported yet in this build; write the "
                "tools out in YAML for now",
                file,
                where,
                base,
            )
            continue
        _take(state, entry, spec, outcome, file, base, locate, where)


def _importable(
    state: LoadState,
    entry: OpenApiEntryDoc,
    spec: Path,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
    where: tuple[int, int],
) -> bool:
    """The entry names a readable spec file (never a URL) and a usable prefix; else it is
    reported, and its names are unknown (not missing) to the checks across files."""
    is_url = entry.spec.startswith(("http://", "https://"))
    if is_url:
        problem = (
            "is a URL; toolcat reads specs from files only (no network): download it next "
            "to the catalog and name the file"
        )
    elif not spec.is_file():
        missing = "is not a regular file" if spec.exists() else "not found"
        problem = f"{missing} (looked at {spec})"
    elif not os.access(spec, os.R_OK):
        problem = "is not readable"
    else:
        problem = None
    if problem is not None:
        state.add("TC007", f"openapi spec {entry.spec!r} {problem}", file, where, (*base, "spec"))
        state.lost.append(str(spec))
        if not is_url:  # a file there can change the next load; a URL never will
            state.missing.append(os.path.normpath(spec))
        return False
    if entry.prefix and not re.fullmatch(r"[A-Za-z0-9_-]+", entry.prefix):
        state.add(
            "TC008",
            f"prefix {entry.prefix!r} would make tool names that model "
            "providers reject; use letters, digits, '_' or '-'",
            file,
            locate((*base, "prefix"), False),
            (*base, "prefix"),
        )
        return False
    return True


def _take(
    state: LoadState,
    entry: OpenApiEntryDoc,
    spec: Path,
    outcome: ImportOutcome,
    file: str,
    base: tuple[str | int, ...],
    locate: Locator,
    where: tuple[int, int],
) -> None:
    """An import's findings (placed on the entry where they are about it), toolsets,
    services and tools, joined to the load's."""
    if any(d.code in ("TC201", "TC202", "TC207") for d in outcome.diagnostics):
        state.lost.append(str(spec))  # its operations are unknown, not missing
    for found in outcome.diagnostics:
        if base and found.path and _in_entry(found):  # fixed in the catalog's entry
            line, col = locate((*base, *found.path), True)
            found = dataclasses.replace(
                found, file=file, line=line, column=col, path=(*base, *found.path)
            )
        state.ctx.diagnostics.append(found)
    at = FixedLocator(*where)
    for name, joined in outcome.toolsets.items():  # toolsets: of the entry's rules
        if name in state.toolsets:
            members = state.toolsets[name][0]
            members.extend(m for m in joined if m not in members)
        else:
            state.toolsets[name] = (list(joined), file, (*base, "rules"), locate)
    _take_services(state, outcome.services, spec, file, where)
    named = state.services.get(entry.service or "")
    if named is not None and named[0].spec is None:  # the first spec imported into it
        state.services[named[0].name] = (
            dataclasses.replace(named[0], spec=os.path.normpath(spec)),
            *named[1:],
        )
    for body in outcome.tools:
        raw_name = body.get("name")
        label = f"imported tool '{raw_name}'"
        tool = validate_item(
            ToolDoc, body, base=(), label=label, file=file, locate=at, out=state.ctx.diagnostics
        )
        tool_name = raw_name if isinstance(raw_name, str) else None
        add_tool(state, tool, tool_name, file, (), at, trusted=True)


def _take_services(
    state: LoadState,
    services: dict[str, dict[str, Any]],
    spec: Path,
    file: str,
    where: tuple[int, int],
) -> None:
    """The services the spec defines that the catalog does not, each tied to the spec."""
    at = FixedLocator(*where)
    for name, body in services.items():
        if name in state.services:
            continue
        doc = validate_item(
            ServiceDoc,
            body,
            base=(),
            label=f"imported service '{name}'",
            file=file,
            locate=at,
            out=state.ctx.diagnostics,
        )
        if doc is not None:
            service = compile_service(
                name, doc, ctx=state.ctx, file=file, base=(), locate=at, trusted=True
            )
            # the spec it came from: what `validate_responses` checks responses against
            service = dataclasses.replace(service, spec=os.path.normpath(spec))
            add_service(state, service, file, where)


def _in_entry(found: Diagnostic) -> bool:
    """A finding about the ``openapi:`` entry itself (its tools, rules or overlays list)."""
    if found.code in ("TC206", "TC064", "TC215", "TC216", "TC221"):
        return True
    return found.code == "TC060" and found.path[0] == "overlays"
