"""Reading spec files: JSON or YAML (C loader), a size cap, and version detection."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ._errors import SpecError

__all__ = ["DEFAULT_MAX_SPEC_BYTES", "detect_version", "read_document"]

DEFAULT_MAX_SPEC_BYTES = 64 * 1024 * 1024
MAX_EXPANDED_NODES = 20_000_000

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _SpecLoader(_BaseLoader):  # type: ignore[misc]
    """Safe YAML read as a JSON data model, with YAML 1.2 core-schema scalars.

    OpenAPI 3.1 says YAML 1.2, and the JavaScript tools most specs are written
    with read them so: ``yes``/``no``/``on``/``off`` are strings (PyYAML's YAML
    1.1 turned a property named ``on`` into ``True`` and ``enum: [yes, no]``
    into booleans), ``12:30`` is a string (not 750), ``010`` is ten. Timestamps
    stay strings, and mapping keys are always strings as in JSON (``200:`` ->
    ``"200"``, ``true:`` -> ``"true"``).
    """


_BOOL, _INT, _FLOAT = (f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float"))
_SpecLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_SpecLoader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_SpecLoader.add_implicit_resolver(
    _INT, re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_SpecLoader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _timestamp_as_text(loader: Any, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))


def _core_int(loader: Any, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    return str(key)


def _mapping(loader: Any, node: yaml.MappingNode) -> Iterator[dict[str, Any]]:
    data: dict[str, Any] = {}
    yield data
    value = loader.construct_mapping(node)
    if not all(type(k) is str for k in value):
        value = {_json_key(k): v for k, v in value.items()}
    data.update(value)


_SpecLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)
_SpecLoader.add_constructor(_INT, _core_int)
_SpecLoader.add_constructor("tag:yaml.org,2002:map", _mapping)


def read_document(path: Path, max_bytes: int = DEFAULT_MAX_SPEC_BYTES) -> Any:
    """Parse one JSON or YAML file; raise :class:`SpecError` (TC201/TC207) when it cannot be."""
    shown = str(path)
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise SpecError("TC201", shown, f"cannot read the file: {exc.strerror or exc}") from exc
    if size > max_bytes:
        raise SpecError(
            "TC207",
            shown,
            f"the file is {size:,} bytes, over the limit of {max_bytes:,} bytes "
            "(raise it with max_spec_bytes / --max-spec-mb)",
        )
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SpecError("TC201", shown, f"cannot read the file: {exc.strerror or exc}") from exc
    if path.suffix.lower() == ".json" or data.lstrip()[:1] in (b"{", b"["):
        try:
            return json.loads(data)
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
        doc = yaml.load(data, Loader=_SpecLoader)  # noqa: S506 - a safe loader
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
    if b"&" in data and b"*" in data:  # YAML anchors: aliases may expand without bound
        size = _expanded_size(doc, {}, MAX_EXPANDED_NODES)
        if size > MAX_EXPANDED_NODES:
            raise SpecError(
                "TC207",
                shown,
                f"its YAML aliases expand to over {MAX_EXPANDED_NODES:,} values "
                "(an alias bomb, or a spec too large to import)",
            )
    return doc


def _expanded_size(node: Any, memo: dict[int, int], limit: int) -> int:
    """How many values ``node`` has once aliases are expanded (counting stops past ``limit``)."""
    if not isinstance(node, dict | list):
        return 1
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = 1  # a cycle through aliases counts once here (conversion stops it later)
    total = 1
    for child in node.values() if isinstance(node, dict) else node:
        total += _expanded_size(child, memo, limit)
        if total > limit:
            break
    memo[id(node)] = total
    return total


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
