"""``import_openapi``: a spec becomes tool documents; an operation that cannot is skipped."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from toolcat.catalog.common import MAX_DESCRIPTION_CHARS
from toolcat.loader._diagnostics import Diagnostic
from toolcat.loader._files import FileReadError, read_regular_file

from ._errors import SpecError
from ._importer import Importer
from ._operations import import_operations
from ._options import ImportOptions, ImportResult
from ._responses import MAX_OUTPUT_DEFINITIONS
from ._version import detect_version

__all__ = ["MAX_DESCRIPTION", "MAX_OUTPUT_DEFINITIONS", "import_openapi"]

MAX_DESCRIPTION = MAX_DESCRIPTION_CHARS


def read_document(path: Path, max_bytes: int) -> Any:
    """:func:`._read.read_document`, imported when a spec is read here: PyYAML (a slow
    import) stays out of a command whose JSON spec the loader parsed already."""
    from ._read import read_document as read

    return read(path, max_bytes)


def import_openapi(
    spec_path: str | os.PathLike[str],
    options: ImportOptions | None = None,
    *,
    progress: bool | None = None,
    document: Any = None,
) -> ImportResult:
    """Import every selected operation of an OpenAPI 3.x or Swagger 2.0 spec.

    Never raises for a bad spec: a spec that cannot be read at all gives one
    TC201/TC202/TC207 diagnostic and no tools; an operation that cannot be
    imported is skipped with a TC203/TC204 diagnostic naming it.

    >>> result = import_openapi("petstore.yaml", ImportOptions(service="pets"))  # doctest: +SKIP
    >>> [t["name"] for t in result.tools]  # doctest: +SKIP
    ['listPets', 'createPets', 'showPetById']

    ``document`` is the spec already parsed (a caller that parsed the file to
    recognise it passes it here, so a 13 MB spec is not parsed twice); refs into
    other files still resolve relative to ``spec_path``.
    """
    options = options or ImportOptions()
    path = Path(spec_path)
    result = ImportResult()
    try:
        doc = document if document is not None else read_document(path, options.max_spec_bytes)
        result.version = detect_version(doc, str(path))
    except SpecError as exc:
        result.diagnostics.append(
            Diagnostic.make(exc.code, exc.reason, str(path), exc.line, exc.column)
        )
        return result
    if options.overlays:
        doc = _overlaid(doc, options, result)
    result.output_schemas = options.output_schemas
    importer = Importer(path, doc, result.version, options, result)
    import_operations(importer, _want_progress(progress))
    _locate(result, path, options.max_spec_bytes)
    from ._rules import apply_rules  # rules, overrides, the spec's x-toolcat-confirm

    apply_rules(result, doc, options.rules, options.overrides, str(path))
    return result


def _overlaid(doc: Any, options: ImportOptions, result: ImportResult) -> Any:
    """The spec with ``options.overlays`` applied; an overlay that cannot be read is left out
    (its TC060-TC062 error stays in the result)."""
    from ._overlay import apply_overlays, read_overlay

    overlays = []
    for i, file in enumerate(options.overlays):
        found: list[Diagnostic] = []
        overlay = read_overlay(Path(file), options.max_spec_bytes, found)
        for d in found:  # an unreadable file is placed at the entry's overlays[i]
            if d.path == ("overlays",):
                d = dataclasses.replace(d, path=("overlays", i))
            result.diagnostics.append(d)
        if overlay is not None:
            overlays.append(overlay)
    return apply_overlays(doc, overlays, result.diagnostics)


# Findings about an operation are made on plain values; where they were written
# is found by reading the spec's text again as nodes, once, when there is one to
# place. That reading is slow and grows with the spec's size, so the findings of a spec
# past the cap below keep line 1 and say where by their path (`paths./a.get`).
_LOCATE_MAX_BYTES = 2 * 1024 * 1024
_LOCATED_CODES = frozenset({"TC203", "TC204", "TC205", "TC209"})


def _locate(result: ImportResult, path: Path, max_bytes: int) -> None:
    """Give the spec's findings the line and column of the operation they name."""
    shown = str(path)
    pending = [
        i
        for i, d in enumerate(result.diagnostics)
        if d.code in _LOCATED_CODES and d.path and d.file == shown and (d.line, d.column) == (1, 1)
    ]
    if not pending:
        return
    try:
        data = read_regular_file(path, min(max_bytes, _LOCATE_MAX_BYTES))
    except FileReadError:
        return  # too large to read again: the path still says where
    # here: a JSON spec without findings to place loads no YAML reader
    import yaml
    from toolcat.loader._yaml import yaml_document

    try:
        parsed = yaml_document(data, shown, cycles=True)
    except (yaml.YAMLError, ValueError):
        return  # not readable: the path still says where
    if parsed is None:
        return
    positions = parsed.positions
    for i in pending:
        d = result.diagnostics[i]
        if positions.exact(d.path[:2]):
            line, column = positions.key(d.path)
            result.diagnostics[i] = dataclasses.replace(d, line=line, column=column)


def _want_progress(progress: bool | None) -> TextIO | None:
    if progress is None:
        progress = sys.stderr.isatty() and not os.environ.get("CI")
    return sys.stderr if progress else None
