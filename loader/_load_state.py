"""What one load gathers and gives back: the state its stages share, a record per tool.

Every stage of :mod:`._load`'s pipeline (each file's sections, the imports, the checks
across files) reads and adds to one :class:`LoadState`; :class:`LoadResult` is what a
load returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcat.catalog import Catalog, McpUpstream, Service, ToolDefinition

from ._diagnostics import Diagnostic, Severity
from ._models import SearchDoc
from ._models_openapi import OpenApiEntryDoc
from ._models_server import ServerDoc
from ._scope import CompileContext
from ._shape import Locator, describe

if TYPE_CHECKING:
    from toolcat.catalog.search import EmbeddingsSettings
    from toolcat.catalog.serving import ServerSettings

__all__ = [
    "LoadResult",
    "LoadState",
    "ToolRecord",
    "add_service",
    "second_section",
    "section",
    "split_extensions",
]


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What loading found: the catalog (``None`` on errors), every diagnostic, the files read.

    ``files`` includes the OpenAPI specs that ``openapi:`` entries import;
    ``missing`` lists the specs such entries name that could not be read (not
    found, not readable): a file there can change the result of the next load.
    """

    catalog: Catalog | None
    diagnostics: tuple[Diagnostic, ...]
    files: tuple[str, ...]
    missing: tuple[str, ...] = ()
    server: ServerSettings | None = None  # the ``server:`` section (serving over HTTP)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.WARNING)

    @property
    def ok(self) -> bool:
        return self.catalog is not None


@dataclass(slots=True)
class ToolRecord:
    """One tool as the checks across files need it, compiled as soon as its file is read.

    Its document is not kept: a file's documents go once the file is read, so a load
    holds the compiled tools (and these records), not every file's documents as well.
    """

    name: str | None
    file: str
    base: tuple[str | int, ...]
    locate: Locator
    earlier: ToolRecord | None = None  # the first tool of this name, when this one is a second
    service: str | None = None  # the service it names; None: it has no document
    server: str | None = None  # the MCP server it names (a tool of an upstream)
    base_url: str | None = None
    auth_type: str | None = None
    compiled: ToolDefinition | None = None  # None: not compiled, or it has errors
    found: tuple[Diagnostic, ...] = ()  # what compiling it found, reported after the name checks


@dataclass
class LoadState:
    """Everything gathered from all files before names are resolved."""

    ctx: CompileContext = field(default_factory=CompileContext)
    services: dict[str, tuple[Service, str, tuple[int, int]]] = field(default_factory=dict)
    broken_services: set[str] = field(default_factory=set)  # defined, but with errors
    mcp_servers: dict[str, tuple[McpUpstream, str, tuple[int, int]]] = field(default_factory=dict)
    broken_mcp_servers: set[str] = field(default_factory=set)  # defined, but with errors
    toolset_extensions: dict[str, dict[str, Any]] = field(default_factory=dict)  # x- keys
    toolset_callers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # callers:
    tools: list[ToolRecord] = field(default_factory=list)
    first: dict[str, ToolRecord] = field(default_factory=dict)  # the first tool of each name
    toolsets: dict[str, tuple[list[str], str, tuple[str | int, ...], Locator]] = field(
        default_factory=dict
    )
    specs: list[str] = field(default_factory=list)  # spec files read through openapi entries
    missing: list[str] = field(default_factory=list)  # spec files named there but unreadable
    imports: list[tuple[OpenApiEntryDoc, Path, str, tuple[str | int, ...], Locator]] = field(
        default_factory=list
    )
    parsed_specs: dict[Path, Any] = field(default_factory=dict)  # JSON specs named as PATH
    # files that could not be read at all: the names they define are unknown, so
    # "unknown service/tool" findings elsewhere would only echo their errors
    lost: list[str] = field(default_factory=list)
    ref_root: Path | None = None  # --ref-root: for openapi imports without their own
    output_schemas: bool = True  # False: imported tools get none (load_catalog's keyword)
    server: tuple[ServerSettings, str, tuple[int, int]] | None = None  # with where it is
    server_doc: tuple[ServerDoc, str, Locator] | None = None  # for the access references
    search: tuple[SearchDoc, str, Locator] | None = None  # the search: section, where it is
    # ``search.embeddings`` (semantic ranking), with where it is
    embeddings: tuple[EmbeddingsSettings, str, tuple[int, int]] | None = None

    def add(
        self,
        code: str,
        message: str,
        file: str,
        where: tuple[int, int],
        path: Sequence[str | int] = (),
    ) -> None:
        self.ctx.diagnostics.append(Diagnostic.make(code, message, file, where[0], where[1], path))


def split_extensions(body: Any) -> tuple[Any, dict[str, Any]]:
    """A tool's or service's mapping without its ``x-`` keys, and those keys (kept in the IR)."""
    if not isinstance(body, dict) or not any(
        isinstance(k, str) and k.startswith("x-") for k in body
    ):
        return body, {}
    rest = {k: v for k, v in body.items() if not (isinstance(k, str) and k.startswith("x-"))}
    return rest, {k: v for k, v in body.items() if isinstance(k, str) and k.startswith("x-")}


def section(
    state: LoadState, data: dict[str, Any], key: str, kind: type, file: str, locate: Locator
) -> Any:
    value = data.get(key)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        word = "a mapping" if kind is dict else "a list"
        state.add(
            "TC004", f"'{key}' must be {word}, not {describe(value)}", file, locate((key,)), (key,)
        )
        return kind()
    return value


def second_section(
    state: LoadState,
    code: str,
    section: str,
    first: tuple[str, tuple[int, int]] | None,
    file: str,
    locate: Locator,
) -> bool:
    """Whether this ``section`` (one for the whole catalog) is a second one: then ``code``
    says where the ``first`` is (its file and line:col), and the first one stands."""
    if first is None:
        return False
    other, (line, col) = first
    state.add(
        code,
        f"a '{section}' section is already defined at {other}:{line}:{col}; "
        "keep one for the whole catalog",
        file,
        locate((section,), True),
        (section,),
    )
    return True


def add_service(state: LoadState, service: Service, file: str, where: tuple[int, int]) -> None:
    other = state.services.get(service.name)
    if other is not None:
        state.add(
            "TC013",
            f"service '{service.name}' is already defined at {other[1]}:"
            f"{other[2][0]}:{other[2][1]}; rename or remove one",
            file,
            where,
            ("services", service.name),
        )
        return
    state.services[service.name] = (service, file, where)
