"""Reading spec files: JSON, or YAML through the loader's one reader; a size cap; the version.

YAML is read as the loader reads catalogs (``loader/_yaml.py``): the YAML 1.2
core schema, which OpenAPI 3.1 names and the JavaScript tools most specs are
written with follow. ``yes``/``no``/``on``/``off`` are strings (PyYAML's YAML
1.1 turned a property named ``on`` into ``True`` and ``enum: [yes, no]``
into booleans), ``12:30`` is a string (not 750), ``010`` is ten, timestamps
stay strings, and mapping keys are the text as written (``200:`` -> ``"200"``).
Unlike catalogs, a spec gets no lint about YAML 1.1 values (it is not the
user's file to edit) and may hold recursive aliases (the importer skips the
operations that reach one), and a duplicate key keeps its last value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from toolcat.catalog import loads_json
from toolcat.loader._files import FileReadError, read_regular_file
from toolcat.loader._yaml import MAX_YAML_VALUES, build_yaml, compose_yaml

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
            return loads_json(data)
        except (ValueError, UnicodeDecodeError) as exc:
            if path.suffix.lower() == ".json":
                raise SpecError(
                    "TC201",
                    shown,
                    f"not valid JSON: {exc}",
                    getattr(exc, "lineno", 1),
                    getattr(exc, "colno", 1),
                ) from exc
    try:
        root = compose_yaml(data)
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
    if root is None:
        return None
    parsed = build_yaml(root, shown, cycles=True)
    if parsed.too_large:
        raise SpecError(
            "TC207",
            shown,
            f"its YAML aliases expand to over {MAX_YAML_VALUES:,} values "
            "(an alias bomb, or a spec too large to import)",
        )
    for d in parsed.diagnostics:  # a duplicate key keeps its last value, as JSON parsers do
        if d.code != "TC002":
            raise SpecError(
                "TC201",
                shown,
                f"not valid YAML at line {d.line}, column {d.column}: {d.message}",
                d.line,
                d.column,
            )
    return parsed.data
