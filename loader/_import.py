"""The bridge to the OpenAPI importer: options from an ``openapi:`` entry, documents back.

The importer (``toolcat.loader.openapi``) is looked up when an entry is
loaded, not when this module is imported, so catalogs without ``openapi:``
never pay for it and a missing importer is one clear diagnostic.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcat.catalog import Service

from ._diagnostics import Diagnostic
from ._models_openapi import OpenApiEntryDoc, OpenApiOverrideDoc

__all__ = ["ImportOutcome", "run_import"]


@dataclass
class ImportOutcome:
    """What one spec contributed: tool and service documents, and findings."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    services: dict[str, dict[str, Any]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    available: bool = True
    toolsets: dict[str, list[str]] = field(default_factory=dict)  # from the entry's rules


def _selection(doc: Any, factory: Any) -> Any:
    if doc is None:
        return None
    values = {k: tuple(v) for k, v in doc.model_dump(exclude_none=True).items()}
    if factory is None:
        return values
    return factory(**values)


def _override(doc: OpenApiOverrideDoc) -> dict[str, Any]:
    """The tool keys an override sets: those given and not null, and each parameter's JSON
    Schema keys as written (``exclude_none`` would drop a ``default: null`` there too)."""
    keys = doc.model_dump(exclude_none=True, by_alias=True)
    if doc.parameters is not None:  # the same place among the keys
        keys["parameters"] = {
            name: {
                **p.model_dump(exclude_none=True, by_alias=True, exclude=set(p.model_extra or ())),
                **(p.model_extra or {}),
            }
            for name, p in doc.parameters.items()
        }
    return keys


def _options(
    entry: OpenApiEntryDoc,
    existing: Mapping[str, Service],
    taken: frozenset[str],
    module: Any,
    ref_root: Path | None = None,
    folder: Path | None = None,
    output_schemas: bool = True,
) -> Any:
    options_cls = module.ImportOptions
    selection_cls = getattr(module, "Selection", None)
    overrides = {op: _override(o) for op, o in (entry.tools or {}).items()}
    rules = tuple(r.model_dump(exclude_none=True) for r in (entry.rules or ()))
    overlays = tuple((folder or Path()) / o for o in (entry.overlays or ()))
    wanted: dict[str, Any] = {
        "service": entry.service,
        "include": _selection(entry.include, selection_cls),
        "exclude": _selection(entry.exclude, selection_cls),
        "prefix": entry.prefix,
        "overrides": overrides,
        "existing_services": dict(existing),
        "taken_names": taken,
        "ref_root": ref_root,
        "overlays": overlays or None,
        "rules": rules or None,
        "output_schemas": entry.output_schemas if output_schemas else "none",
        "markdown": None if entry.descriptions is None else entry.descriptions == "markdown",
        "description_max": entry.description_max,
        "base_url_env": None if entry.base_url_style is None else entry.base_url_style == "env",
        "naming": entry.naming,
        "confirm_methods": (
            None if entry.confirm_methods is None else frozenset(entry.confirm_methods)
        ),
    }
    if dataclasses.is_dataclass(options_cls):
        accepted = {f.name for f in dataclasses.fields(options_cls)}
    else:
        accepted = set(inspect.signature(options_cls).parameters)
    kwargs = {k: v for k, v in wanted.items() if k in accepted and v is not None}
    return options_cls(**kwargs)


def run_import(
    entry: OpenApiEntryDoc,
    spec: Path,
    *,
    existing: Mapping[str, Service],
    taken: frozenset[str],
    progress: bool | None,
    document: Any = None,
    ref_root: Path | None = None,
    folder: Path | None = None,
    output_schemas: bool = True,
) -> ImportOutcome:
    """Import one spec; ``available`` is false when the importer is not installed.

    ``document``: the spec already parsed by the caller (not parsed again),
    used only when the file is within the importer's size limit. ``ref_root``: the
    folder the spec's refs may read under (the entry's ``ref_root:``, resolved).
    ``folder``: the catalog file's folder, that the entry's ``overlays:`` are relative to.
    ``output_schemas=False``: no output schemas, whatever the entry says.
    """
    try:
        from . import openapi as module
    except ImportError:
        return ImportOutcome(available=False)
    importer = getattr(module, "import_openapi", None)
    if importer is None or not hasattr(module, "ImportOptions"):
        return ImportOutcome(available=False)
    options = _options(entry, existing, taken, module, ref_root, folder, output_schemas)
    if document is not None:
        limit = getattr(options, "max_spec_bytes", None)
        try:
            within = limit is None or spec.stat().st_size <= limit
        except OSError:
            within = False
        if not within:  # the importer reads the file itself and reports its size
            document = None
    if document is not None:
        result = importer(spec, options, progress=progress, document=document)
    else:
        result = importer(spec, options, progress=progress)
    return ImportOutcome(
        tools=[dict(t) for t in result.tools],
        services={str(k): dict(v) for k, v in result.services.items()},
        diagnostics=list(result.diagnostics),
        toolsets={str(k): list(v) for k, v in getattr(result, "toolsets", {}).items()},
    )
