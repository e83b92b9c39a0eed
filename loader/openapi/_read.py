"""Reading spec files: JSON, or YAML through the loader's one reader; a size cap; the version.

YAML is read as the loader reads catalogs (``loader/_yaml.py``): the YAML 1.2
core schema, which OpenAPI 3.1 names and the JavaScript tools most specs are
written with follow. ``yes``/``no``/``on``/``off`` are strings (PyYAML's YAML
1.1 turned a property named ``on`` into ``True`` and ``enum: [yes, no]``
into booleans), ``12:30`` is a string (not 750), ``010`` is ten, timestamps
stay strings, and mapping keys are the text as written (``200:`` -> ``"200"``).
Unlike catalogs, a spec gets no lint about YAML 1.1 values (it is not the
user's file to edit) and may hold recursive aliases (the importer skips the
operations that reach one). A key written twice in one mapping (YAML or JSON)
is TC002 at the second one: parsers keep only the last value, so an operation
(or a parameter, a schema) would vanish without a word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from toolcat.loader._files import (
    FileReadError,
    loads_json_document,
    read_regular_file,
)
from toolcat.loader._yaml import yaml_document

from ._errors import SpecError
from ._version import DEFAULT_MAX_SPEC_BYTES, detect_version

__all__ = ["DEFAULT_MAX_SPEC_BYTES", "detect_version", "read_document"]


def read_document(path: Path, max_bytes: int = DEFAULT_MAX_SPEC_BYTES) -> Any:
    """Parse one JSON or YAML file; raise :class:`SpecError` (TC201/TC207) when it cannot be."""
    shown = str(path)
    try:
        data = read_regular_file(path, max_bytes)
    except FileReadError as exc:
        if exc.too_large:
            raise SpecError(
                "TC207", shown, f"{exc.reason} (raise it with max_spec_bytes / --max-spec-mb)"
            ) from exc
        raise SpecError("TC201", shown, f"cannot read the file: {exc.reason}") from exc
    if path.suffix.lower() == ".json" or data.lstrip()[:1] in (b"{", b"["):
        try:
            value, duplicates = loads_json_document(data)
        except (ValueError, UnicodeDecodeError) as exc:
            if path.suffix.lower() == ".json":
                raise SpecError(
                    "TC201",
                    shown,
                    f"not valid JSON: {exc}",
                    getattr(exc, "lineno", 1),
                    getattr(exc, "colno", 1),
                ) from exc
        else:
            if duplicates:
                raise _duplicate_json_key(data, shown, duplicates[0])
            return value
    try:
        parsed = yaml_document(data, shown, cycles=True)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(
            "TC201",
            shown,
            f"not valid YAML{where}: {problem}",
            mark.line + 1 if mark else 1,
            mark.column + 1 if mark else 1,
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise SpecError("TC201", shown, f"cannot decode the file: {exc}") from exc
    if parsed is None:
        return None
    if parsed.too_large:
        last = parsed.diagnostics[-1] if parsed.diagnostics else None
        raise SpecError(
            "TC207",
            shown,
            f"its YAML aliases expand to over {parsed.over} (an alias bomb, or a spec too "
            "large to import)",
            last.line if last is not None else 1,
            last.column if last is not None else 1,
        )
    for d in parsed.diagnostics:
        if d.code == "TC002":  # the first value would be silently lost (an operation, say)
            raise SpecError("TC002", shown, d.message, d.line, d.column)
        raise SpecError(
            "TC201",
            shown,
            f"not valid YAML at line {d.line}, column {d.column}: {d.message}",
            d.line,
            d.column,
        )
    return parsed.data


def _duplicate_json_key(data: bytes, shown: str, key: str) -> SpecError:
    """TC002 at the second occurrence of a duplicate key in a JSON spec.

    JSON's parser does not say where it was; the one YAML reader (JSON is YAML
    1.2) does, so the text is read again only in this rare case.
    """
    try:
        parsed = yaml_document(data, shown, cycles=True)
        found = parsed.diagnostics if parsed is not None else ()
    except (yaml.YAMLError, ValueError):
        found = ()
    for d in found:
        if d.code == "TC002":
            message = d.message.replace("YAML keeps", "JSON parsers keep")
            return SpecError("TC002", shown, message, d.line, d.column)
    return SpecError(
        "TC002",
        shown,
        f"duplicate key {key!r}; JSON parsers keep only the last one: remove or rename one",
    )
