"""What an import is asked to do (options) and what it produced (result, per-operation report)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcat.loader._diagnostics import Diagnostic

from ._text import DEFAULT_DESCRIPTION_MAX
from ._version import DEFAULT_MAX_SPEC_BYTES

__all__ = [
    "NAMING_STYLES",
    "OUTPUT_SCHEMAS",
    "ImportOptions",
    "ImportResult",
    "OperationReport",
    "Selection",
]

OUTPUT_SCHEMAS = ("shared", "inline", "none")
NAMING_STYLES = ("operation_id", "snake_case")


@dataclass(frozen=True, slots=True)
class Selection:
    """Operations picked by tag, operationId, path glob (``fnmatch``) or HTTP method.

    In ``include`` every non-empty field must match (and any value of a field
    does); in ``exclude`` any matching field excludes the operation.
    """

    tags: tuple[str, ...] = ()
    operations: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tags or self.operations or self.paths or self.methods)


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """How to import one spec.

    ``service``: the service the tools call (default: from the spec's title).
    ``overrides``: per operationId, any of ``name``, ``description``, ``confirm``,
    ``return_direct``, ``tags``. ``existing_services``: services the catalog
    already defines (no service document is created for those).
    ``taken_names``: tool names used elsewhere in the catalog. ``ref_root``: refs
    may only reach files below it (default: the enclosing git repository, the nearest
    folder holding ``.git``, else the spec's own folder).
    ``spec_url``: where the spec was downloaded from, to resolve relative servers.
    ``overlays``: OpenAPI Overlay 1.0 files applied to the spec before import.
    ``rules``: settings for many operations at once (``openapi:`` entries' ``rules:``);
    ``overrides`` win over them. Overrides may set any tool field.

    How tools are written: ``output_schemas`` (``shared``: each definition once in
    the file's ``definitions:``; ``inline``: a copy per tool; ``none``: no output
    schemas); ``markdown`` (HTML descriptions become Markdown) and ``description_max``
    (the length budget of tool and argument descriptions); ``base_url_env`` (the
    service's ``base_url`` is ``${NAME_BASE_URL:-<spec server>}``); ``naming``
    (``operation_id`` as written, or ``snake_case``). Import policy:
    ``confirm_methods`` get ``confirm: true`` and the other non-safe methods
    ``confirm: false`` (default ``None``: every method that is not safe).
    """

    service: str | None = None
    include: Selection = field(default_factory=Selection)
    exclude: Selection = field(default_factory=Selection)
    prefix: str = ""
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    existing_services: Mapping[str, Any] = field(default_factory=dict)
    taken_names: frozenset[str] = frozenset()
    max_spec_bytes: int = DEFAULT_MAX_SPEC_BYTES
    ref_root: Path | None = None
    spec_url: str | None = None
    # Overlay 1.0 files applied to the spec first (in order), and rules
    # (mappings as an ``openapi:`` entry's ``rules:`` items) applied to the tools made
    overlays: tuple[Path, ...] = ()
    rules: tuple[Mapping[str, Any], ...] = ()
    output_schemas: str = "shared"
    markdown: bool = True
    description_max: int = DEFAULT_DESCRIPTION_MAX
    base_url_env: bool = True
    naming: str = "operation_id"
    confirm_methods: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class OperationReport:
    """What became of one operation: a tool name, or the reason it was left out."""

    method: str
    path: str
    operation_id: str | None
    tool: str | None = None
    skipped: str | None = None
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        op = f"{self.method} {self.path}" + (f" ({self.operation_id})" if self.operation_id else "")
        if self.tool:
            return f"imported {op} as {self.tool}"
        return f"skipped  {op}: {self.skipped}"


@dataclass(slots=True)
class ImportResult:
    """Tool and service documents in catalog format v1, with diagnostics and the report."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    services: dict[str, dict[str, Any]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    report: list[OperationReport] = field(default_factory=list)
    service: str | None = None
    version: str | None = None
    toolsets: dict[str, list[str]] = field(default_factory=dict)  # from rules
    output_schemas: str = "shared"  # how render_catalog writes definitions (ImportOptions)

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)
