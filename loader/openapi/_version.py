"""A spec's OpenAPI version and the default size cap: what an import needs before any YAML.

Apart from :mod:`._read` (which imports PyYAML for YAML specs), so that importing a
JSON spec someone already parsed (``toolcat schema spec.json``) loads no YAML reader.
"""

from __future__ import annotations

from typing import Any

from toolcat.loader._files import MAX_FILE_BYTES

from ._errors import SpecError

__all__ = ["DEFAULT_MAX_SPEC_BYTES", "detect_version"]

DEFAULT_MAX_SPEC_BYTES = MAX_FILE_BYTES  # the loader's one file cap (loader/_files.py)


def detect_version(doc: Any, path: str) -> str:
    """``"2.0"``, ``"3.0"``, ``"3.1"`` or ``"3.2"``, else :class:`SpecError` (TC201/TC202)."""
    if not isinstance(doc, dict):
        raise SpecError("TC201", path, "the top level is not a mapping, so this is no OpenAPI spec")
    if "swagger" in doc:
        version = str(doc["swagger"]).strip()
        if version in ("2.0", "2"):
            return "2.0"
        raise SpecError("TC202", path, f"Swagger version {version!r} is not supported (only 2.0)")
    if "openapi" in doc:
        version = str(doc["openapi"]).strip()
        for major_minor in ("3.0", "3.1", "3.2"):
            if version == major_minor or version.startswith(major_minor + "."):
                return major_minor
        raise SpecError(
            "TC202",
            path,
            f"OpenAPI version {version!r} is not supported (3.0, 3.1, 3.2 and Swagger 2.0 are)",
        )
    raise SpecError("TC202", path, "no 'openapi:' or 'swagger:' key at the top level")
