"""A fast metaschema check: "this schema is valid 2020-12", answered only when it is sure.

Anything else falls back to jsonschema, which also writes the messages. A
typical catalog is checked without importing jsonschema at all, and large
imported schemas are checked about ten times faster. Whether a *value* conforms
to a schema (defaults, enum values) is the one fast schema path of the catalog,
``toolcat.catalog.compile_check``, which the executor uses for arguments.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from toolcat.catalog import FrozenDict, FrozenList

__all__ = ["SUBSCHEMA_LISTS", "SUBSCHEMA_MAPS", "SUBSCHEMA_ONE", "compiles", "is_simple_valid"]

_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})
_TEXT = frozenset({"description", "title", "format", "$comment"})
_NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_COUNTS = frozenset(
    {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
)
_FLAGS = frozenset({"uniqueItems", "deprecated", "readOnly", "writeOnly", "nullable"})
_ANY = frozenset({"default", "const", "example"})
_LISTS = frozenset({"enum", "examples"})
_TEXT |= {"contentMediaType", "contentEncoding"}
_COUNTS |= {"minContains", "maxContains"}
# Where 2020-12 keeps subschemas: one schema, a map of them, a list of them. The
# keyword walk of _schemas uses these too; patternProperties is walked there, but
# sends a schema to jsonschema here (its keys must be checked as regexes).
SUBSCHEMA_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
SUBSCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# OpenAPI extras: not 2020-12 keywords, so the metaschema puts no constraint on them
_FREE = frozenset({"nullable", "example", "discriminator", "xml", "externalDocs"})
_HANDLED = (
    _TEXT
    | _NUMBERS
    | _COUNTS
    | _FLAGS
    | _ANY
    | _LISTS
    | SUBSCHEMA_ONE
    | SUBSCHEMA_MAPS
    | SUBSCHEMA_LISTS
    | _FREE
    | {"type", "required", "$ref", "pattern", "multipleOf", "dependentRequired"}
)
_LOCAL_REF = re.compile(r"#[A-Za-z0-9_/~.%$-]*")
_MAX_DEPTH = 64
# imported schemas are frozen: the read-only twins are the same JSON values
_DICT: frozenset[type] = frozenset((dict, FrozenDict))
_LIST: frozenset[type] = frozenset((list, FrozenList))


def _number(v: Any) -> bool:
    return type(v) in (int, float)


def is_simple_valid(schema: Any, known: frozenset[str], depth: int = 0) -> bool:
    """True only when ``schema`` certainly passes the 2020-12 metaschema.

    ``known`` are the JSON Schema keywords: a key outside it is an unknown
    keyword, which the metaschema allows; a known keyword this fast path does
    not handle sends the schema to jsonschema.
    """
    if type(schema) is bool:
        return True
    if type(schema) not in _DICT or depth > _MAX_DEPTH:
        return False
    for key, value in schema.items():
        if key not in _HANDLED:
            if key in known:
                return False
            continue
        if key in _FREE or key in _ANY:
            continue
        if key in SUBSCHEMA_ONE:
            if not is_simple_valid(value, known, depth + 1):
                return False
        elif key in SUBSCHEMA_MAPS:
            if type(value) not in _DICT or not all(
                is_simple_valid(v, known, depth + 1) for v in value.values()
            ):
                return False
        elif key in SUBSCHEMA_LISTS:
            if (
                type(value) not in _LIST
                or not value
                or not all(is_simple_valid(v, known, depth + 1) for v in value)
            ):
                return False
        elif key == "$ref":
            if type(value) is not str or not _LOCAL_REF.fullmatch(value):
                return False  # other references: let jsonschema judge the URI
        elif key == "pattern":
            if type(value) is not str or not compiles(value):
                return False
        elif key == "multipleOf":
            if not _number(value) or value <= 0:
                return False
        elif key == "dependentRequired":
            if type(value) not in _DICT or not all(
                type(v) in _LIST and all(type(x) is str for x in v) and len(set(v)) == len(v)
                for v in value.values()
            ):
                return False
        elif key == "type":
            if type(value) is str:
                if value not in _TYPES:
                    return False
            elif type(value) in _LIST:
                if (
                    not value
                    or len(set(map(str, value))) != len(value)
                    or not all(type(t) is str and t in _TYPES for t in value)
                ):
                    return False
            else:
                return False
        elif key in _TEXT:
            if type(value) is not str:
                return False
        elif key in _NUMBERS:
            if not _number(value):
                return False
        elif key in _COUNTS:
            if type(value) is not int or value < 0:
                return False
        elif key in _FLAGS:
            if type(value) is not bool:
                return False
        elif key in _LISTS:
            if type(value) not in _LIST:
                return False
        elif key == "required":
            if (
                type(value) not in _LIST
                or not all(type(v) is str for v in value)
                or len(set(value)) != len(value)
            ):
                return False
    return True


def compiles(pattern: str) -> bool:
    # A pattern Python only warns about ("[[a-z]": FutureWarning) still compiles; the
    # warning must not escape (under -W error it would be an exception).
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except re.error:
        return False
    return True
