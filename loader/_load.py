"""The loading pipeline: read files, check each document's shape, resolve names, compile.

Every stage collects diagnostics instead of stopping, so one run reports every
problem of a catalog. The catalog is built only when no error was found.

Stages (module names)::

    find and read files (here, _files) -> each file's sections (_load_file, _load_sections)
        -> openapi: entries imported (_load_imports) -> names across files, the catalog
        (_load_finish); what they share: _load_state
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from toolcat.catalog import Catalog
from toolcat.catalog.common import loads_json, recursion_headroom

from ._diagnostics import CatalogError
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
from ._load_file import check_file
from ._load_finish import finish
from ._load_state import LoadResult, LoadState
from ._models_openapi import OpenApiEntryDoc
from ._shape import FixedLocator

__all__ = ["load", "load_catalog", "load_documents"]


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
    state = LoadState()
    state.ref_root = Path(ref_root) if ref_root is not None else None
    state.output_schemas = output_schemas
    meter = Progress(len(files), progress)
    read: list[str] = []
    try:
        for done, source in enumerate(files, 1):
            _read_file(state, source, read)
            meter.step(done)
        meter.close()
        return finish(state, tuple(read), progress)
    finally:
        meter.close()


def load_documents(documents: Sequence[tuple[str, Any]]) -> LoadResult:
    """Check and compile documents that are already parsed: ``(file name, value)`` pairs.

    Positions are unknown, so every diagnostic points at line 1 of its file.
    Used to check generated catalogs (``toolcat import openapi``) before writing them.
    """
    state = LoadState()
    for name, data in documents:
        check_file(state, data, name, FixedLocator(), Path(name).parent)
    return finish(state, tuple(name for name, _ in documents), False)


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


def _read_file(state: LoadState, source: SourceFile, read: list[str]) -> None:
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
    check_file(state, parsed.data, display, parsed.positions, source.path.parent)


def _is_overlay(data: Any) -> bool:
    return isinstance(data, dict) and "overlay" in data and "toolcat" not in data
