"""JSON Schema checks of parameter schemas: the 2020-12 metaschema, defaults, enums, keywords.

Catalogs repeat the same small schemas thousands of times (``{type: string}``),
so every check is cached by the schema's canonical JSON: each distinct schema
is checked once per process.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from toolcat.catalog import (
    compile_check,
    linear_regex,
    pattern_problem,
    record,
    sealed_registry,
)

from ._shape import closest
from ._simple_schema import (
    SUBSCHEMA_LISTS,
    SUBSCHEMA_MAPS,
    SUBSCHEMA_ONE,
    compiles,
    is_simple_valid,
)

__all__ = ["SchemaChecker", "SchemaIssue", "example_validator", "ref_loops"]

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
_SCHEMA_MAPS = SUBSCHEMA_MAPS | {"patternProperties"}


@functools.cache
def _meta_validator() -> Any:
    # jsonschema is imported only for schemas the fast path cannot vouch for
    from jsonschema import Draft202012Validator, FormatChecker

    # the metaschema's own formats (uri-reference for $ref and $id, regex for pattern):
    # the ones checked before jsonschema's format extra was declared, so that a spec's
    # odd but working $ref (a space in a name) is not refused now
    return Draft202012Validator(
        Draft202012Validator.META_SCHEMA, format_checker=FormatChecker(formats=_META_FORMATS)
    )


_META_FORMATS = (
    "date", "email", "idn-email", "idn-hostname", "ipv4", "ipv6", "regex", "time", "uuid"
)  # fmt: skip


def _validator(schema: Any) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema, registry=sealed_registry())  # reads no URL, no file


def example_validator(schema: Any) -> Any:
    """A validator of a tool's arguments against its input schema (examples, TC065)."""
    return _validator(schema)


_REF_KEYWORDS = ("$ref", "$dynamicRef")


def _walk_refs(schema: Any, path: tuple[str | int, ...]) -> Iterator[SchemaIssue]:
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
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                stack.extend((sub, (*where, key, name)) for name, sub in value.items())
            elif key in SUBSCHEMA_ONE:
                stack.append((value, (*where, key)))
            elif key in SUBSCHEMA_LISTS and isinstance(value, list):
                stack.extend((sub, (*where, key, i)) for i, sub in enumerate(value))


@record
class SchemaIssue:
    """One finding inside a schema; ``path`` is relative to the schema checked."""

    code: str
    path: tuple[str | int, ...]
    message: str
    key: bool = False  # the finding is about a key (place it on the key, not the value)


_PROSE = ("description", "title")


def _canonical(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), default=str)


def _shape_key(schema: Any) -> str:
    """The cache key: canonical JSON without top-level prose, which no check depends on
    (as long as it is a string), so ``{type: string, description: ...}`` is checked once."""
    if isinstance(schema, dict) and any(isinstance(schema.get(k), str) for k in _PROSE):
        schema = {k: v for k, v in schema.items() if not (k in _PROSE and isinstance(v, str))}
    return _canonical(schema)


_TYPE_ALIASES = {
    "int": "integer",
    "str": "string",
    "bool": "boolean",
    "float": "number",
    "double": "number",
    "dict": "object",
    "list": "array",
    "none": "null",
    "long": "integer",
    "text": "string",
    "map": "object",
}


def _meta_message(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    last = error.absolute_path[-1] if error.absolute_path else None
    if last == "type":
        alias = (
            _TYPE_ALIASES.get(str(error.instance).lower())
            if isinstance(error.instance, str)
            else None
        )
        hint = f"did you mean '{alias}'? JSON Schema types are" if alias else "use one of"
        return (
            f"'type' {error.instance!r} is not a JSON Schema type; {hint} array, "
            "boolean, integer, null, number, object, string"
        )
    if last == "required" and isinstance(error.instance, bool):
        return (
            f"'{where}': inside a schema, 'required' lists the object's required "
            "property names (required: [a, b]); 'required: true/false' works only on a "
            "parameter itself"
        )
    if error.validator == "format" and error.validator_value == "regex":
        return f"'{where}': {error.instance!r} is not a valid regular expression"
    prefix = f"'{where}': " if where else ""
    return f"{prefix}{error.message}"


#: The keys of a parameter declaration that say where and how it is sent (the rest of it
#: is JSON Schema). One list for the format's model, the schema checks and the writer.
PLACEMENT_KEYS = frozenset(
    {"in", "name", "required", "style", "explode", "allow_reserved", "content_type", "file"}
    | {"from", "sensitive"}
)


def _walk_keywords(schema: Any, path: tuple[str | int, ...]) -> Iterator[SchemaIssue]:
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
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _walk_keywords(sub, (*path, key, name))
        elif key in SUBSCHEMA_ONE:
            yield from _walk_keywords(value, (*path, key))
        elif key in SUBSCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from _walk_keywords(sub, (*path, key, i))


_VALUE_KEYS = frozenset({"enum", "const", "default", "examples", "example"})  # data, not schemas


def _walk_patterns(schema: Any) -> Iterator[SchemaIssue]:
    """TC110 for each ``pattern``/``patternProperties`` regex RE2 cannot run (not checked).

    Iterative (a stack, no recursion): a schema nested to the nesting limit is walked too.
    A pattern Python cannot compile either is TC022 already (the metaschema's format: regex).
    """
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(node))))
            continue
        if not isinstance(node, dict):
            continue
        pattern = node.get("pattern")
        if type(pattern) is str and (why := _unchecked_problem(pattern)) is not None:
            yield _unchecked(path, "pattern", pattern, why)
        props = node.get("patternProperties")
        if isinstance(props, dict):
            for name in props:
                if type(name) is str and (why := _unchecked_problem(name)) is not None:
                    yield _unchecked((*path, "patternProperties"), name, name, why)
        for key, value in reversed(list(node.items())):
            if key not in _VALUE_KEYS and isinstance(value, dict | list):
                stack.append(((*path, key), value))


def ref_and_pattern_keys(schema: Any) -> tuple[bool, bool]:
    """(whether any object in ``schema`` has a ``$ref`` key, whether any has a ``pattern``
    or ``patternProperties`` key), in one walk: what :meth:`SchemaChecker.check` of an
    imported schema needs to know (``patterns=``) and whether its key is worth building.

    Iterative, each container once; stops when both are found. Where orjson writes the
    schema, its compact text tells instead (about ten times faster): there a key's
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


def _may_have_patterns(schema: Any) -> bool:
    """Whether any object in ``schema`` has a ``pattern`` or ``patternProperties`` key.

    A cheap scan ahead of :func:`_walk_patterns` (no paths built; value keywords are
    not told apart, so it may say yes where the walk finds nothing, never the other
    way round): most imported parameter schemas have no pattern at all, and for them
    it takes about a third of the walk's time.
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


def _unchecked_problem(pattern: str) -> str | None:
    why = pattern_problem(pattern)
    return why if why is not None and compiles(pattern) else None


def _unchecked(path: tuple[str | int, ...], key: str, pattern: str, why: str) -> SchemaIssue:
    shown = pattern if len(pattern) <= 80 else pattern[:79] + "…"
    return SchemaIssue(
        "TC110",
        (*path, key),
        f"pattern {shown!r} is not checked: the linear-time regex engine (RE2) cannot run it "
        f"({why}); lookaround and backreferences are not supported, rewrite it without them",
        key=key != "pattern",
    )


class SchemaChecker:
    """Checks schemas once per distinct schema; safe to share across a whole load."""

    def __init__(self) -> None:
        self._meta: dict[str, tuple[SchemaIssue, ...]] = {}
        self._values: dict[tuple[str, str], tuple[SchemaIssue, ...]] = {}
        self._unchecked: dict[str, tuple[SchemaIssue, ...]] = {}

    @staticmethod
    def key(schema: Any) -> str:
        """The cache key of a schema (canonical JSON without top-level prose)."""
        return _shape_key(schema)

    def check(
        self,
        schema: Any,
        *,
        trusted: bool = False,
        defs: Mapping[str, Any] | None = None,
        key: str | None = None,
        patterns: bool = True,
    ) -> tuple[SchemaIssue, ...]:
        """Metaschema errors (TC022), refs that leave the schema (TC045), unknown keywords
        (TC106), bad default/enum (TC023/TC024).

        ``trusted`` skips the metaschema and keyword checks (imported OpenAPI
        schemas) but keeps the default/enum checks. ``defs`` are the tool's
        shared definitions, for schemas that refer to ``#/$defs/...``. ``key``
        is :meth:`key` of the schema when the caller has it already. ``patterns=False``:
        the caller knows that no object in the schema has a ``pattern`` or
        ``patternProperties`` key (:func:`ref_and_pattern_keys`), so none is looked for.
        """
        unchecked = self._patterns(schema, key) if patterns else ()
        if trusted and not (isinstance(schema, dict) and ("default" in schema or "enum" in schema)):
            return unchecked
        if key is None:
            key = _shape_key(schema)
        meta = self._meta.get(key) if not trusted else ()
        if meta is None:
            issues = []
            if not is_simple_valid(schema, KNOWN_KEYWORDS):
                with linear_regex():
                    issues = [
                        SchemaIssue("TC022", tuple(e.absolute_path), _meta_message(e))
                        for e in _meta_validator().iter_errors(schema)
                    ]
            issues.extend(_walk_keywords(schema, ()))
            if '"$ref"' in key or '"$dynamicRef"' in key:
                issues.extend(_walk_refs(schema, ()))
            meta = self._meta[key] = tuple(issues)
        meta += unchecked
        if any(i.code in ("TC022", "TC045") for i in meta):
            return meta
        if defs and '"$ref"' in key:
            full = dict(schema, **{"$defs": defs})
            vkey = (key, _canonical(defs))
        else:
            full, vkey = schema, (key, "")
        values = self._values.get(vkey)
        if values is None:
            values = self._values[vkey] = tuple(self._check_values(full))
        return meta + values if values else meta

    def _patterns(self, schema: Any, key: str | None) -> tuple[SchemaIssue, ...]:
        if key is None:
            return tuple(_walk_patterns(schema)) if _may_have_patterns(schema) else ()
        if '"pattern' not in key:
            return ()
        found = self._unchecked.get(key)
        if found is None:
            found = self._unchecked[key] = tuple(_walk_patterns(schema))
        return found

    @staticmethod
    def _fast_ok(schema: dict[str, Any], rest: dict[str, Any]) -> bool:
        """The default and the enum values are valid, as far as the fast path knows for sure."""
        if "default" in schema:
            check = compile_check(schema)
            if check is None or not check(schema["default"]):
                return False
        enum = schema.get("enum")
        if isinstance(enum, list):
            check = compile_check(rest)
            if check is None or not all(check(v) for v in enum):
                return False
        return True

    def _check_values(self, schema: Any) -> Iterator[SchemaIssue]:
        if not isinstance(schema, dict) or ("default" not in schema and "enum" not in schema):
            return
        rest = {k: v for k, v in schema.items() if k not in ("enum", "default")}
        if is_simple_valid(schema, KNOWN_KEYWORDS) and self._fast_ok(schema, rest):
            return  # the fast path vouches for every value
        with linear_regex():  # a spec's pattern against its own default/enum: RE2 too
            yield from self._value_issues(schema, rest)

    @staticmethod
    def _value_issues(schema: dict[str, Any], rest: dict[str, Any]) -> Iterator[SchemaIssue]:
        try:
            if "default" in schema:
                validator = _validator(schema)
                for error in validator.iter_errors(schema["default"]):
                    yield SchemaIssue(
                        "TC023",
                        ("default",),
                        f"default {schema['default']!r} breaks the schema: "
                        f"{error.message}; change the default or the schema",
                    )
            if isinstance(schema.get("enum"), list):
                validator = _validator(rest)
                for i, value in enumerate(schema["enum"]):
                    for error in validator.iter_errors(value):
                        yield SchemaIssue(
                            "TC024",
                            ("enum", i),
                            f"enum value {value!r} breaks the schema: "
                            f"{error.message}; remove it or fix the schema",
                        )
        except Exception as exc:  # an unresolvable $ref and the like: report, never crash
            yield SchemaIssue("TC022", (), f"cannot check this schema: {exc}")


_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONE = ("not", "if", "then", "else")
_LOCAL_DEF = ("#/$defs/", "#/definitions/")


def ref_loops(defs: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Definitions whose ``$ref``s come back to them with no schema in between.

    ``A: {$ref: '#/$defs/B'}``, ``B: {$ref: '#/$defs/A'}`` (also through
    ``allOf``/``anyOf``/``oneOf``/``not``/``if``/``then``/``else``) apply to the
    same value forever: validating any argument would recurse until it
    crashed. Recursion through ``properties`` or ``items`` is fine (each step
    checks a part of the value). Returns ``(name, "A -> B -> A")`` per loop found.
    """

    def edges(node: Any) -> list[str]:
        out: list[str] = []
        todo = [node]
        while todo:
            n = todo.pop()
            if not isinstance(n, dict):
                continue
            ref = n.get("$ref")
            if isinstance(ref, str):
                for prefix in _LOCAL_DEF:
                    if ref.startswith(prefix) and ref[len(prefix) :] in defs:
                        out.append(ref[len(prefix) :])
            for k in _SAME_VALUE_LISTS:
                v = n.get(k)
                if isinstance(v, list):
                    todo.extend(v)
            todo.extend(n[k] for k in _SAME_VALUE_ONE if k in n)
        return out

    done: set[str] = set()
    loops: list[tuple[str, str]] = []
    for start in defs:
        if start in done:
            continue
        stack = [(start, iter(edges(defs[start])))]
        on_path = [start]
        while stack:
            name, nxt_names = stack[-1]
            nxt = next(nxt_names, None)
            if nxt is None:
                stack.pop()
                on_path.pop()
                done.add(name)
            elif nxt in on_path:
                loop = on_path[on_path.index(nxt) :]
                loops.append((nxt, " -> ".join([*loop, nxt])))
                done.update(on_path)  # one report per loop is enough
                break
            elif nxt not in done:
                stack.append((nxt, iter(edges(defs[nxt]))))
                on_path.append(nxt)
    return loops
