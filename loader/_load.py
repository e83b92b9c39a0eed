"""The loading pipeline: read files, check each document's shape, resolve names, compile.

Every stage collects diagnostics instead of stopping, so one run reports every
problem of a catalog. The catalog is built only when no error was found.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from toolcat.catalog import Catalog, McpUpstream, Service, ToolDefinition
from toolcat.catalog.common import (
    CALLER_TOKEN_AUTH,
    credentials_may_travel,
    freeze,
    loads_json,
    recursion_headroom,
)

from ._compile import CompileContext, compile_service, compile_tool
from ._compile_mcp import compile_mcp_server, compile_mcp_tool, without_http_keys

if TYPE_CHECKING:
    from toolcat.catalog.search import EmbeddingsSettings
    from toolcat.catalog.serving import ServerSettings

from toolcat.catalog.common import TOOL_NAME

from ._definitions import DEF_NAME, SharedDefinitions
from ._diagnostics import CatalogError, Diagnostic, Severity, sort_diagnostics
from ._files import (
    CatalogInputError,
    FileReadError,
    Progress,
    SourceFile,
    find_files,
    read_regular_file,
    sniff_json_spec,
    sniff_spec,
)
from ._import import run_import
from ._lint import (
    caller_token_without_oauth_callers,
    duplicate_toolset_member,
    embeddings_key_in_file,
    response_validation_without_spec,
    toolset_too_large,
)
from ._models import (
    Callers,
    McpServerDoc,
    McpToolDoc,
    OpenApiEntryDoc,
    SearchDoc,
    ServerDoc,
    ServiceDoc,
    ToolDoc,
)
from ._shape import FixedLocator, Locator, closest, describe, intended_name, validate_item

__all__ = ["LoadResult", "load", "load_catalog", "load_documents"]

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
class _Tool:
    """One tool as the checks across files need it, compiled as soon as its file is read.

    Its document is not kept: a file's documents go once the file is read, so a load
    holds the compiled tools (and these records), not every file's documents as well.
    """

    name: str | None
    file: str
    base: tuple[str | int, ...]
    locate: Locator
    earlier: _Tool | None = None  # the first tool of this name, when this one is a second
    service: str | None = None  # the service it names; None: it has no document
    server: str | None = None  # the MCP server it names (a tool of an upstream)
    base_url: str | None = None
    auth_type: str | None = None
    compiled: ToolDefinition | None = None  # None: not compiled, or it has errors
    found: tuple[Diagnostic, ...] = ()  # what compiling it found, reported in _finish


@dataclass
class _State:
    """Everything gathered from all files before names are resolved."""

    ctx: CompileContext = field(default_factory=CompileContext)
    services: dict[str, tuple[Service, str, tuple[int, int]]] = field(default_factory=dict)
    broken_services: set[str] = field(default_factory=set)  # defined, but with errors
    mcp_servers: dict[str, tuple[McpUpstream, str, tuple[int, int]]] = field(default_factory=dict)
    broken_mcp_servers: set[str] = field(default_factory=set)  # defined, but with errors
    toolset_extensions: dict[str, dict[str, Any]] = field(default_factory=dict)  # x- keys
    toolset_callers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # callers:
    tools: list[_Tool] = field(default_factory=list)
    first: dict[str, _Tool] = field(default_factory=dict)  # the first tool of each name
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


def load_catalog(
    paths: Sequence[str | os.PathLike[str]],
    *,
    progress: bool | None = None,
    ref_root: str | os.PathLike[str] | None = None,
    exclude: Callable[[Path], bool] | None = None,
    output_schemas: bool = True,
) -> LoadResult:
    """Load and check catalogs; never raises for problems inside files.

    >>> result = load_catalog(["examples/catalog.yaml"])  # doctest: +SKIP
    >>> result.catalog["get_order"].command.method       # doctest: +SKIP
    'GET'

    Raises :class:`CatalogInputError` when a PATH is missing or unreadable, or
    a directory holds no ``*.yaml``/``*.yml`` file. ``ref_root``: the folder that
    imported specs' ``$ref`` may read under, for ``openapi:`` entries without their
    own ``ref_root:`` (default: each spec's git repository, else its folder). ``exclude``:
    files met while walking a directory PATH for which it is true are not read.
    ``output_schemas=False``: tools imported from specs get no output schema (as with
    ``output_schemas: none`` on their entries), for a caller that needs none, such as an
    export to a provider whose format has no place for one; the catalog's own tools keep
    theirs, and errors are the same either way (a response schema that cannot be
    converted only leaves its tool without one).
    """
    with recursion_headroom():  # schemas up to the nesting limit: jsonschema recurses per level
        return _load_catalog(
            paths,
            progress=progress,
            ref_root=ref_root,
            exclude=exclude,
            output_schemas=output_schemas,
        )


def _load_catalog(
    paths: Sequence[str | os.PathLike[str]],
    *,
    progress: bool | None,
    ref_root: str | os.PathLike[str] | None,
    exclude: Callable[[Path], bool] | None = None,
    output_schemas: bool = True,
) -> LoadResult:
    files = find_files(paths, exclude)
    state = _State()
    state.ref_root = Path(ref_root) if ref_root is not None else None
    state.output_schemas = output_schemas
    meter = Progress(len(files), progress)
    read: list[str] = []
    try:
        for done, source in enumerate(files, 1):
            _read_file(state, source, read)
            meter.step(done)
        meter.close()
        return _finish(state, tuple(read), progress)
    finally:
        meter.close()


def load_documents(documents: Sequence[tuple[str, Any]]) -> LoadResult:
    """Check and compile documents that are already parsed: ``(file name, value)`` pairs.

    Positions are unknown, so every diagnostic points at line 1 of its file.
    Used to check generated catalogs (``toolcat import openapi``) before writing them.
    """
    state = _State()
    for name, data in documents:
        _check_file(state, data, name, FixedLocator(), Path(name).parent)
    return _finish(state, tuple(name for name, _ in documents), False)


StrPath = str | os.PathLike[str]


def load(*paths: StrPath | Iterable[StrPath]) -> Catalog:
    """The catalog, or :class:`CatalogError` carrying every diagnostic when there are errors.

    Takes a path, several paths, or one list (any iterable) of them; each is a catalog
    file, a directory or an OpenAPI spec::

        load("catalog/")
        load("catalog/", "specs/petstore.yaml")
        load(["catalog/", "specs/petstore.yaml"])

    Raises ``TypeError`` for anything else (no path at all, a path that is neither a
    ``str`` nor an ``os.PathLike``), and :class:`CatalogInputError` for a path that is
    missing or unreadable.
    """
    result = load_catalog(_path_list(paths))
    if result.catalog is None:
        raise CatalogError(result.diagnostics)
    return result.catalog


def _path_list(given: tuple[StrPath | Iterable[StrPath], ...]) -> list[StrPath]:
    """The paths of ``load(*given)``: the arguments themselves, or the one iterable given."""
    if len(given) == 1 and not isinstance(given[0], str | os.PathLike):
        one = given[0]
        if not isinstance(one, Iterable) or isinstance(one, bytes | Mapping):
            raise TypeError(
                "load() takes catalog paths (str or os.PathLike) or one list of them, "
                f"not {type(one).__name__}"
            )
        given = tuple(one)
    if not given:
        raise TypeError("load() needs at least one catalog path")
    paths: list[StrPath] = []
    for number, path in enumerate(given, 1):
        if not isinstance(path, str | os.PathLike):
            raise TypeError(
                f"load(): path {number} has type {type(path).__name__}; give str or "
                "os.PathLike paths, or one list of them"
            )
        paths.append(path)
    return paths


def _read_file(state: _State, source: SourceFile, read: list[str]) -> None:
    display = source.display
    try:
        raw = read_regular_file(source.path)
    except FileReadError as exc:
        if source.top:
            raise CatalogInputError(display, exc.reason) from exc
        state.add("TC007", f"cannot read this file: {exc.reason}", display, (1, 1))
        state.lost.append(display)
        read.append(display)
        return
    read.append(display)
    sniffed = sniff_json_spec(raw, source.path)  # JSON: parsed once, from its bytes
    if sniffed is not None and sniffed[0]:
        is_spec, document, text = True, sniffed[1], ""  # a spec is never decoded
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            before = raw[: exc.start]
            line = before.count(b"\n") + 1
            col = exc.start - (before.rfind(b"\n") + 1) + 1
            state.add("TC001", "the file is not UTF-8 text; save it as UTF-8", display, (line, col))
            state.lost.append(display)
            return
        is_spec, document = sniffed if sniffed is not None else sniff_spec(text, source.path)
    if is_spec:
        if source.top:  # a spec named on the command line is imported on the fly
            entry = OpenApiEntryDoc.model_validate({"spec": str(source.path)})
            state.imports.append((entry, source.path, display, (), FixedLocator()))
            if document is not None:  # parsed once, here: the importer takes it as is
                state.parsed_specs[source.path] = document
        return  # inside a directory, specs are referenced by `openapi:` entries
    if source.path.suffix.lower() == ".json" and sniffed is None and document is None:
        try:  # a .json PATH that is no valid JSON: say so where JSON's parser stopped
            loads_json(text)
        except ValueError as exc:
            where = (getattr(exc, "lineno", 1), getattr(exc, "colno", 1))
            state.add("TC001", f"not valid JSON: {getattr(exc, 'msg', exc)}", display, where)
            state.lost.append(display)
            return
    from ._yaml import parse_yaml, yaml11_warnings  # PyYAML: not for a command given only JSON

    parsed = parse_yaml(text, display)
    state.ctx.diagnostics.extend(parsed.diagnostics)
    state.ctx.diagnostics.extend(yaml11_warnings(parsed))
    if parsed.diagnostics and parsed.data is None:
        state.lost.append(display)
        return
    if not source.top and _is_overlay(parsed.data):
        return  # an OpenAPI Overlay beside the catalog: `openapi:` entries name it
    _check_file(state, parsed.data, display, parsed.positions, source.path.parent)


def _is_overlay(data: Any) -> bool:
    return isinstance(data, dict) and "overlay" in data and "toolcat" not in data


def _check_file(state: _State, data: Any, file: str, locate: Locator, folder: Path) -> None:  # noqa: C901, PLR0915  one file's top-level sections checked in the file's order
    if data is None:
        state.add("TC005", "the file is empty; a catalog starts with 'toolcat: 1'", file, (1, 1))
        return
    if isinstance(data, dict) and "toolcat" not in data and not any(k in data for k in _TOP_KEYS):
        keys = ", ".join(list(map(str, data))[:5])
        state.add(
            "TC005",
            f"this is not a toolcat catalog: no 'toolcat: 1' and none of its keys "
            f"(found: {keys}); add 'toolcat: 1' or leave the file out",
            file,
            locate(()),
        )
        return
    if not isinstance(data, dict):
        state.add(
            "TC004",
            f"a catalog file is a mapping that starts with 'toolcat: 1', not {describe(data)}",
            file,
            locate(()),
        )
        return
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
        return
    for key in data:
        if key not in _TOP_KEYS and not key.startswith("x-"):
            near = closest(key, _TOP_KEYS)
            advice = f"did you mean '{near}'?" if near else "valid keys: " + ", ".join(_TOP_KEYS)
            state.add("TC003", f"unknown key '{key}'; {advice}", file, locate((key,), True), (key,))
    shared = _shared_definitions(state, data, file, locate)
    services = _section(state, data, "services", dict, file, locate)
    for name, raw in services.items():
        base = ("services", name)
        body, extensions = _split_extensions(raw)
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
        _add_service(state, service, file, locate(base, True))
    for name, raw in _section(state, data, "mcp_servers", dict, file, locate).items():
        _check_mcp_server(state, name, raw, file, locate)
    for i, raw in enumerate(_section(state, data, "tools", list, file, locate)):
        base = ("tools", i)
        body, extensions = _split_extensions(raw)
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
        _add_tool(
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
    for name, members in _section(state, data, "toolsets", dict, file, locate).items():
        base = ("toolsets", name)
        if isinstance(members, dict):  # the long form: {tools: [...], x-owner: ...}
            members, extensions = _split_extensions(members)
            callers = members.pop("callers", None)
            for key in members:
                if key != "tools":
                    state.add(
                        "TC003",
                        f"toolset '{name}': unknown key '{key}'; "
                        + (
                            "did you mean 'tools'?"
                            if closest(str(key), ["tools"])
                            else "valid keys: tools, callers, or x-NAME"
                        ),
                        file,
                        locate((*base, key), True),
                        (*base, key),
                    )
            if "tools" not in members and not members:
                state.add(
                    "TC005", f"toolset '{name}' has no 'tools' list", file, locate(base), base
                )
                continue
            if len(members) != 1 or "tools" not in members:
                continue
            if callers is not None:
                _toolset_callers(state, name, callers, file, (*base, "callers"), locate)
            members, base = members["tools"], (*base, "tools")  # type: ignore[assignment]
            if extensions:
                state.toolset_extensions[name] = extensions
        if not isinstance(members, list):
            state.add(
                "TC004",
                f"toolset '{name}' must be a list of tool names, not {describe(members)}",
                file,
                locate(base),
                base,
            )
            continue
        odd = [i for i, m in enumerate(members) if not isinstance(m, str)]
        for i in odd:  # each item a person has to change, where it is
            state.add(
                "TC004",
                f"toolset '{name}': item {i + 1} must be a tool name, not {describe(members[i])}",
                file,
                locate((*base, i)),
                (*base, i),
            )
        if odd:
            continue
        if name in state.toolsets:
            other = state.toolsets[name]
            line, col = other[3](other[2], True)
            state.add(
                "TC015",
                f"toolset '{name}' is already defined at {other[1]}:{line}:{col}; "
                "rename or merge them",
                file,
                locate(base, True),
                base,
            )
            continue
        state.toolsets[name] = (members, file, base, locate)
    for i, body in enumerate(_section(state, data, "openapi", list, file, locate)):
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
    if data.get("server") is not None:
        _check_server(state, data["server"], file, locate)
    if data.get("search") is not None:
        _check_search(state, data["search"], file, locate, folder)


def _tidy(path: Path) -> Path:
    """``path`` without ``.`` and ``..`` steps, as findings name it (``catalog/../specs/x.json``
    is ``specs/x.json``), unless a symlinked folder makes the two name different files."""
    tidy = Path(os.path.normpath(path))
    if tidy == path or not path.exists():
        return tidy
    return tidy if tidy.exists() and os.path.samefile(tidy, path) else path


def _check_search(state: _State, body: Any, file: str, locate: Locator, folder: Path) -> None:
    """The ``search:`` section, one for the whole catalog (TC091 for a second one)."""
    base = ("search",)
    first = None if state.search is None else (state.search[1], state.search[2](base, True))
    if _second_section(state, "TC091", "search", first, file, locate):
        return
    doc = validate_item(
        SearchDoc,
        body,
        base=base,
        label="search",
        file=file,
        locate=locate,
        out=state.ctx.diagnostics,
    )
    if doc is None:
        return
    state.search = (doc, file, locate)
    if doc.embeddings is not None:
        _check_embeddings(state, doc.embeddings, file, locate, folder)


def _check_embeddings(state: _State, emb: Any, file: str, locate: Locator, folder: Path) -> None:
    """``search.embeddings``: TC086 where its key would travel in clear, TC137 for a key
    written in the file."""
    from toolcat.catalog import SourceLocation
    from toolcat.catalog.common import references
    from toolcat.catalog.search import EmbeddingsSettings

    def refs(text: str) -> bool:
        return next(references(text), None) is not None

    base = ("search", "embeddings")
    where = locate(base, True)
    url_where = locate((*base, "url"))
    scheme = emb.url.split(":", 1)[0].lower() if ":" in emb.url else ""
    if not refs(emb.url) and scheme not in ("http", "https"):
        state.add(
            "TC086",
            f"search.embeddings.url {emb.url!r} must be an http(s) URL",
            file,
            url_where,
            (*base, "url"),
        )
        return
    if emb.api_key and not refs(emb.url) and not credentials_may_travel(emb.url):
        state.add(
            "TC086",
            "search.embeddings.api_key would travel in clear to "
            f"{urlsplit(emb.url).hostname or emb.url!r}: use https (http only to a loopback "
            "address)",
            file,
            url_where,
            (*base, "url"),
        )
        return
    for f in embeddings_key_in_file(emb.api_key, bool(emb.api_key and refs(emb.api_key))):
        state.add(f.code, f.message, file, locate((*base, *f.path)), (*base, *f.path))
    cache = emb.cache
    if cache is not None and not refs(cache):
        cache = str(folder / os.path.expanduser(cache))
    settings = EmbeddingsSettings(
        url=emb.url,
        model=emb.model,
        api_key=emb.api_key,
        dimensions=emb.dimensions,
        timeout=emb.timeout,
        cache=cache,
        weight=emb.weight,
        k=emb.k,
        source=SourceLocation(file, *where),
    )
    state.embeddings = (settings, file, where)


def _shared_definitions(
    state: _State, data: dict[str, Any], file: str, locate: Locator
) -> SharedDefinitions | None:
    """The file's ``definitions:`` section, when it has one (names and shapes checked)."""
    if "definitions" not in data:
        return None
    found: dict[str, Any] = {}
    for name, schema in _section(state, data, "definitions", dict, file, locate).items():
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


def _second_section(
    state: _State,
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


def _check_server(state: _State, body: Any, file: str, locate: Locator) -> None:
    base = ("server",)
    first = None if state.server is None else (state.server[1], state.server[2])
    if _second_section(state, "TC016", "server", first, file, locate):
        return
    doc = validate_item(
        ServerDoc,
        body,
        base=base,
        label="server",
        file=file,
        locate=locate,
        out=state.ctx.diagnostics,
    )
    if doc is not None:
        from ._server import compile_server  # only a catalog with a server: section

        settings = compile_server(doc, file=file, locate=locate, out=state.ctx.diagnostics)
        state.server = (settings, file, locate(base, True))
        state.server_doc = (doc, file, locate)


def _section(
    state: _State, data: dict[str, Any], key: str, kind: type, file: str, locate: Locator
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


def _check_mcp_server(state: _State, name: str, raw: Any, file: str, locate: Locator) -> None:
    """One ``mcp_servers:`` entry: its shape, compiled; TC097 for a name already defined."""
    base = ("mcp_servers", name)
    body, extensions = _split_extensions(raw)
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


def _check_server_use(state: _State, tool: _Tool, name: str, server: str) -> None:
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


def _add_service(state: _State, service: Service, file: str, where: tuple[int, int]) -> None:
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


def _run_imports(state: _State, progress: bool | None) -> None:  # noqa: C901, PLR0915  each openapi: entry read, imported and reported, with each way it fails
    for entry, spec, file, base, locate in state.imports:
        where = locate((*base, "spec"), False)
        if entry.spec.startswith(("http://", "https://")):
            state.add(
                "TC007",
                f"openapi spec {entry.spec!r} is a URL; toolcat reads specs from "
                "files only (no network): download it next to the catalog and name the "
                "file",
                file,
                where,
                (*base, "spec"),
            )
            state.lost.append(str(spec))
            continue
        if not spec.is_file():
            missing = "is not a regular file" if spec.exists() else "not found"
            state.add(
                "TC007",
                f"openapi spec {entry.spec!r} {missing} (looked at {spec})",
                file,
                where,
                (*base, "spec"),
            )
            state.lost.append(str(spec))
            state.missing.append(os.path.normpath(spec))
            continue
        if not os.access(spec, os.R_OK):
            state.add(
                "TC007",
                f"openapi spec {entry.spec!r} is not readable",
                file,
                where,
                (*base, "spec"),
            )
            state.lost.append(str(spec))
            state.missing.append(os.path.normpath(spec))
            continue
        if entry.prefix and not re.fullmatch(r"[A-Za-z0-9_-]+", entry.prefix):
            state.add(
                "TC008",
                f"prefix {entry.prefix!r} would make tool names that model "
                "providers reject; use letters, digits, '_' or '-'",
                file,
                locate((*base, "prefix"), False),
                (*base, "prefix"),
            )
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
        for name, body in outcome.services.items():
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
                _add_service(state, service, file, where)
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
            _add_tool(state, tool, tool_name, file, (), at, trusted=True)


def _in_entry(found: Diagnostic) -> bool:
    """A finding about the ``openapi:`` entry itself (its tools, rules or overlays list)."""
    if found.code in ("TC206", "TC064", "TC215", "TC216", "TC221"):
        return True
    return found.code == "TC060" and found.path[0] == "overlays"


def _add_tool(
    state: _State,
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
    checks that look that service up run in :func:`_finish`, once every file is read.
    A second tool of a name is not compiled (the first one stands). ``broken``: a
    document salvaged from a failed shape check, compiled for its errors only. What
    compiling finds waits in the record, so that :func:`_finish` reports it after the
    service checks, as it always came.
    """
    tool = _Tool(name, file, base, locate)
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


def _check_service_use(state: _State, tool: _Tool, name: str, service_name: str) -> None:
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


def _finish(state: _State, files: tuple[str, ...], progress: bool | None) -> LoadResult:
    _run_imports(state, progress)
    files += tuple(s for s in dict.fromkeys(state.specs) if s not in files)
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
    first = state.first
    toolsets = _check_toolsets(state, first)
    tools = _with_toolset_callers(state, tools, toolsets)
    for service, service_file, service_where in state.services.values():
        for f in response_validation_without_spec(service):
            state.add(
                f.code, f.message, service_file, service_where, ("services", service.name, *f.path)
            )
    if state.server_doc is not None:
        from ._server import check_access_references

        server_doc, server_file, server_locate = state.server_doc
        check_access_references(
            server_doc,
            # every tool's name (a broken one has its own finding), the compiled ones' tags
            tools=[*((name, ()) for name in first), *((t.name, t.tags) for t in tools)],
            toolsets=toolsets,
            file=server_file,
            locate=server_locate,
            out=state.ctx.diagnostics,
            # server.concurrency limits a service or an MCP server (a plan's target)
            services=[*state.services, *state.mcp_servers],
        )
        _check_caller_token_sources(state, server_doc)
    pins: dict[str, list[str]] = {}
    if state.search is not None and state.search[0].pinned is not None:
        from ._pins import check_pins

        search_doc, search_file, search_locate = state.search
        pins = check_pins(
            search_doc.pinned,
            tools=list(first),
            toolsets=toolsets,
            file=search_file,
            locate=search_locate,
            out=state.ctx.diagnostics,
            names_known=not state.lost,
        )
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


def _search_settings(state: _State) -> Any:
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


def _check_caller_token_sources(state: _State, server: ServerDoc) -> None:
    """TC131: services that need the caller's OAuth token, on a server that accepts only
    API keys (which are never forwarded): every served call to them would be refused."""
    for name, (service, file, where) in state.services.items():
        needs = service.auth.type in CALLER_TOKEN_AUTH
        for f in caller_token_without_oauth_callers(server.auth, name, service.auth.type, needs):
            state.add(f.code, f.message, file, where, ("services", name, *f.path))


def _split_extensions(body: Any) -> tuple[Any, dict[str, Any]]:
    """A tool's or service's mapping without its ``x-`` keys, and those keys (kept in the IR)."""
    if not isinstance(body, dict) or not any(
        isinstance(k, str) and k.startswith("x-") for k in body
    ):
        return body, {}
    rest = {k: v for k, v in body.items() if not (isinstance(k, str) and k.startswith("x-"))}
    return rest, {k: v for k, v in body.items() if isinstance(k, str) and k.startswith("x-")}


def _toolset_callers(
    state: _State, name: str, callers: Any, file: str, where: tuple[str | int, ...], locate: Locator
) -> None:
    """A long-form toolset's ``callers:``: who may call its tools (a tool's own wins)."""
    doc = validate_item(
        Callers,
        {"callers": callers},
        base=where[:-1],
        label=f"toolset '{name}'",
        file=file,
        locate=locate,
        out=state.ctx.diagnostics,
    )
    if doc is not None:
        state.toolset_callers[name] = tuple(doc.callers)


def _with_toolset_callers(
    state: _State, tools: list[ToolDefinition], toolsets: Mapping[str, list[str]]
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


def _check_toolsets(state: _State, known: Mapping[str, _Tool]) -> dict[str, list[str]]:
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
