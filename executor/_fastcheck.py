"""A fast validity check for the common subset of JSON Schema; jsonschema explains failures.

Most tool schemas use a handful of keywords (type, properties, required, enum,
bounds, items). For those, a compiled closure answers "valid?" several times
faster than a general validator. It never says valid when jsonschema would not:
any keyword it does not know makes :func:`compile_check` return ``None``, and
the caller then uses jsonschema for every call. Failures are always re-checked
by jsonschema, which produces the messages and locations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import FormatChecker
from toolcat._errors import ToolcatError

__all__ = ["FORMAT_CHECKER", "INTEGER_FORMATS", "compile_check"]

Check = Callable[[Any], bool]

# Keywords that never affect validity.
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "$schema",
        "$id",
        "contentMediaType",
        "contentEncoding",
        "x-nullable",
        "nullable",
    }
)
_KNOWN = _ANNOTATIONS | {
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "additionalProperties",
    "multipleOf",
}


# OpenAPI's integer formats, as validating servers (Prism, ajv) enforce them: int64 is held to
# the integers a JSON number keeps exactly everywhere (I-JSON, RFC 7493 §2.2), ±(2**53 - 1).
INTEGER_FORMATS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**53) + 1, 2**53 - 1)}


def _in_range(fmt: str) -> Callable[[object], bool]:
    low, high = INTEGER_FORMATS[fmt]

    def check(value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return True
        return low <= value <= high

    return check


FORMAT_CHECKER = FormatChecker()  # jsonschema's formats plus int32/int64 (an instance copy)
for _fmt in INTEGER_FORMATS:
    FORMAT_CHECKER.checks(_fmt)(_in_range(_fmt))
_CHECKED_FORMATS = frozenset(FORMAT_CHECKER.checkers) - set(INTEGER_FORMATS)


class _Unsupported(ToolcatError):
    pass


def _is_type(kind: str) -> Check:
    if kind == "string":
        return lambda v: isinstance(v, str)
    if kind == "integer":
        return lambda v: (
            (isinstance(v, int) and not isinstance(v, bool))
            or (isinstance(v, float) and v.is_integer())
        )
    if kind == "number":
        return lambda v: isinstance(v, int | float) and not isinstance(v, bool)
    if kind == "boolean":
        return lambda v: isinstance(v, bool)
    if kind == "null":
        return lambda v: v is None
    if kind == "array":
        return lambda v: isinstance(v, list)
    if kind == "object":
        return lambda v: isinstance(v, dict)
    raise _Unsupported(kind)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _compile(schema: Any) -> Check:
    if schema is True or schema == {}:
        return lambda v: True
    if schema is False:
        return lambda v: False
    if not isinstance(schema, Mapping):
        raise _Unsupported(schema)
    for key in schema:
        if key not in _KNOWN and not (key == "format" and schema[key] not in _CHECKED_FORMATS):
            raise _Unsupported(key)  # formats jsonschema checks stay with jsonschema
    checks: list[Check] = []
    kind = schema.get("type")
    if isinstance(kind, str):
        checks.append(_is_type(kind))
    elif isinstance(kind, list):
        alts = [_is_type(k) for k in kind]
        checks.append(lambda v: any(a(v) for a in alts))
    elif kind is not None:
        raise _Unsupported(kind)
    if "enum" in schema:
        options = list(schema["enum"])
        if all(isinstance(o, str) for o in options):
            allowed = frozenset(options)
            checks.append(lambda v: isinstance(v, str) and v in allowed)
        else:
            checks.append(lambda v: any(_equal(v, o) for o in options))
    if "const" in schema:
        const = schema["const"]
        checks.append(lambda v: _equal(v, const))
    if schema.get("format") in INTEGER_FORMATS:
        checks.append(_in_range(schema["format"]))
    _numbers(schema, checks)
    _strings(schema, checks)
    _arrays(schema, checks)
    _objects(schema, checks)
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _bounded(bound: float, test: Callable[[Any, Any], bool]) -> Check:
    return lambda v: not _num(v) or test(v, bound)


def _numbers(schema: Mapping[str, Any], checks: list[Check]) -> None:
    for key, test in (
        ("minimum", lambda v, b: v >= b),
        ("maximum", lambda v, b: v <= b),
        ("exclusiveMinimum", lambda v, b: v > b),
        ("exclusiveMaximum", lambda v, b: v < b),
    ):
        if key in schema:
            bound = schema[key]
            if not _num(bound):
                raise _Unsupported(key)
            checks.append(_bounded(bound, test))
    if "multipleOf" in schema:
        raise _Unsupported("multipleOf")  # float rounding rules: leave them to jsonschema


def _lengths(
    schema: Mapping[str, Any],
    checks: list[Check],
    kind: type[str] | type[list[Any]],
    low_key: str,
    high_key: str,
) -> None:
    """``len()`` bounds (``minLength``/``maxItems``...) on the values of type ``kind``."""
    if low_key in schema:
        low = int(schema[low_key])
        checks.append(lambda v: not isinstance(v, kind) or len(v) >= low)
    if high_key in schema:
        high = int(schema[high_key])
        checks.append(lambda v: not isinstance(v, kind) or len(v) <= high)


def _strings(schema: Mapping[str, Any], checks: list[Check]) -> None:
    _lengths(schema, checks, str, "minLength", "maxLength")
    if "pattern" in schema:
        try:
            pattern = re.compile(schema["pattern"])
        except re.error as exc:
            raise _Unsupported("pattern") from exc
        checks.append(lambda v: not isinstance(v, str) or pattern.search(v) is not None)


def _arrays(schema: Mapping[str, Any], checks: list[Check]) -> None:
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(item(i) for i in v))
    _lengths(schema, checks, list, "minItems", "maxItems")


def _objects(schema: Mapping[str, Any], checks: list[Check]) -> None:
    props = {k: _compile(s) for k, s in (schema.get("properties") or {}).items()}
    required = tuple(schema.get("required") or ())
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is True else _compile(extra)
    if not props and not required and extra_check is None:
        return
    names = frozenset(props)

    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for name in required:
            if name not in v:
                return False
        for key, value in v.items():
            sub = props.get(key)
            if sub is not None:
                if not sub(value):
                    return False
            elif extra_check is not None and key not in names and not extra_check(value):
                return False
        return True

    checks.append(check)


def compile_check(schema: Mapping[str, Any]) -> Check | None:
    """A function telling whether an instance is valid, or ``None`` for schemas it cannot judge."""
    try:
        return _compile(schema)
    except (_Unsupported, TypeError, ValueError):
        return None
