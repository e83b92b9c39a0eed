"""JSON Schema's keywords as the authoring checks walk them, and the walks over one schema.

The 2020-12 vocabularies and where they keep subschemas; the keys of a parameter that
are not JSON Schema; walks that find unknown keywords (TC106, TC003), ``$ref``s that
leave the schema (TC045) and patterns the linear-time engine cannot run (TC110), each
finding a :class:`SchemaIssue`. :mod:`._schemas` runs them, cached per distinct schema.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolcat.catalog.common import (
    SUBSCHEMA_LISTS,
    SUBSCHEMA_MAPS,
    SUBSCHEMA_ONE,
    unrunnable_patterns,
)

from ._shape import closest

__all__ = [
    "KNOWN_KEYWORDS",
    "PLACEMENT_KEYS",
    "SUBSCHEMA_LISTS",
    "SUBSCHEMA_MAPS",
    "SUBSCHEMA_ONE",
    "SchemaIssue",
    "may_have_patterns",
    "ref_and_pattern_keys",
    "walk_keywords",
    "walk_patterns",
    "walk_refs",
]

# Keywords of the 2020-12 vocabularies, plus annotations that OpenAPI and editors use.
KNOWN_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$vocabulary",
        "$comment",
        "definitions",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "prefixItems",
        "items",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "format",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "title",
        "description",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "examples",
        # OpenAPI schema-object extras that providers and editors understand
        "nullable",
        "example",
        "discriminator",
        "xml",
        "externalDocs",
    }
)


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    """One finding inside a schema; ``path`` is relative to the schema checked."""

    code: str
    path: tuple[str | int, ...]
    message: str
    key: bool = False  # the finding is about a key (place it on the key, not the value)


_REF_KEYWORDS = ("$ref", "$dynamicRef")


def walk_refs(schema: Any, path: tuple[str | int, ...]) -> Iterator[SchemaIssue]:
    """TC045 for every ``$ref``/``$dynamicRef`` that leaves the schema (a URL, a file, a
    relative name): only ``#...`` fragments resolve without retrieving anything."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(schema, path)]
    while stack:
        node, where = stack.pop()
        if not isinstance(node, dict):
            continue
        for key in _REF_KEYWORDS:
            ref = node.get(key)
            if key in node and not (isinstance(ref, str) and ref.startswith("#")):
                shown = repr(ref)[:120]
                yield SchemaIssue(
                    "TC045",
                    (*where, key),
                    f"{key} {shown} leaves the schema (a URL or a file): toolcat never "
                    "fetches one; copy the schema under definitions and refer to it as "
                    "'#/$defs/NAME'",
                )
        for key, value in node.items():
            if key in SUBSCHEMA_MAPS and isinstance(value, dict):
                stack.extend((sub, (*where, key, name)) for name, sub in value.items())
            elif key in SUBSCHEMA_ONE:
                stack.append((value, (*where, key)))
            elif key in SUBSCHEMA_LISTS and isinstance(value, list):
                stack.extend((sub, (*where, key, i)) for i, sub in enumerate(value))


#: The keys of a parameter declaration that say where and how it is sent (the rest of it
#: is JSON Schema). One list for the format's model, the schema checks and the writer.
PLACEMENT_KEYS = frozenset(
    {"in", "name", "required", "style", "explode", "allow_reserved", "content_type", "file"}
    | {"from", "sensitive"}
)


def walk_keywords(schema: Any, path: tuple[str | int, ...]) -> Iterator[SchemaIssue]:
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key not in KNOWN_KEYWORDS and not key.startswith("x-"):
            hint = closest(key, KNOWN_KEYWORDS, cutoff=0.75)
            if hint:
                advice = f"did you mean '{hint}'?"
            elif value is None and (" " in key or "." in key):
                advice = "it looks like text cut at a comma inside {...}: quote the text before it"
            else:
                advice = "validators ignore it; remove it or prefix it with 'x-'"
            placement = closest(key, PLACEMENT_KEYS, cutoff=0.75) if not path else None
            if placement:
                # a misspelt placement key silently changes where or whether the argument
                # is sent: an error, like any unknown key of the format
                yield SchemaIssue(
                    "TC003", (key,), f"unknown key '{key}'; did you mean '{placement}'?", key=True
                )
                continue
            yield SchemaIssue(
                "TC106", (*path, key), f"unknown JSON Schema keyword '{key}'; {advice}", key=True
            )
        if key in SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from walk_keywords(sub, (*path, key, name))
        elif key in SUBSCHEMA_ONE:
            yield from walk_keywords(value, (*path, key))
        elif key in SUBSCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from walk_keywords(sub, (*path, key, i))


def walk_patterns(schema: Any) -> Iterator[SchemaIssue]:
    """TC110 for each ``pattern``/``patternProperties`` regex the linear-time engine cannot
    run (not checked). A pattern Python cannot compile either is TC022 already (the
    metaschema's format: regex)."""
    for path, pattern, is_name in unrunnable_patterns(schema):
        if _compiles(pattern):
            yield _unchecked(path, pattern, is_name)


def _compiles(pattern: str) -> bool:
    # A pattern Python only warns about ("[[a-z]": FutureWarning) still compiles; the
    # warning must not escape (under -W error it would be an exception).
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except re.error:
        return False
    return True


def ref_and_pattern_keys(schema: Any) -> tuple[bool, bool]:
    """(whether any object in ``schema`` has a ``$ref`` key, whether any has a ``pattern``
    or ``patternProperties`` key), in one walk: what :meth:`SchemaChecker.check` of an
    imported schema needs to know (``patterns=``) and whether its key is worth building.

    Iterative, each container once; stops when both are found. Where orjson writes the
    schema, its compact text (written in Rust) tells instead, faster: there a key's
    opening quote always follows ``{`` or ``,``, and a quote inside a string follows a
    backslash, so ``,"$ref":`` and ``{"$ref":`` are found exactly where a key is ``$ref``.
    """
    text = _orjson_text(schema)
    if text is not None:
        return (
            b'{"$ref":' in text or b',"$ref":' in text,
            b'{"pattern":' in text
            or b',"pattern":' in text
            or b'{"patternProperties":' in text
            or b',"patternProperties":' in text,
        )
    ref = pattern = False
    stack = [schema]
    push = stack.extend
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if not ref and "$ref" in node:
                ref = True
            if not pattern and ("pattern" in node or "patternProperties" in node):
                pattern = True
            if ref and pattern:
                break
            push([v for v in node.values() if isinstance(v, _ANY_CONTAINER)])
        elif isinstance(node, list | tuple):
            push([v for v in node if isinstance(v, _ANY_CONTAINER)])
    return ref, pattern


_ANY_CONTAINER = (dict, list, tuple)


def _orjson_text(value: Any) -> bytes | None:
    """orjson's compact text of a JSON value; None where orjson refuses it (a non-string
    key, an integer past 64 bits, nesting past 255, a type JSON has not)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        return orjson.dumps(value)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return None


def may_have_patterns(schema: Any) -> bool:
    """Whether any object in ``schema`` has a ``pattern`` or ``patternProperties`` key.

    A cheap scan ahead of :func:`walk_patterns` (no paths built; value keywords are
    not told apart, so it may say yes where the walk finds nothing, never the other
    way round): most imported parameter schemas have no pattern at all, and for them
    the scan is the only walk.
    """
    stack = [schema]
    push = stack.extend
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "pattern" in node or "patternProperties" in node:
                return True
            push([v for v in node.values() if isinstance(v, _CONTAINERS)])
        elif isinstance(node, list):
            push([v for v in node if isinstance(v, _CONTAINERS)])
    return False


_CONTAINERS = (dict, list)  # a tuple: `dict | list` would build a union per call


def _unchecked(path: tuple[str | int, ...], pattern: str, is_name: bool) -> SchemaIssue:
    shown = pattern if len(pattern) <= 80 else pattern[:79] + "…"
    return SchemaIssue(
        "TC110",
        path,
        f"pattern {shown!r} is not checked: the linear-time regex engine cannot run it "
        "(lookaround, backreferences and \\Z are not supported); rewrite it without them",
        key=is_name,
    )
