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

from toolcat.catalog.common import linear_validator, sealed_registry

from ._schema_walks import (
    SchemaIssue,
    may_have_patterns,
    ref_and_pattern_keys,
    walk_keywords,
    walk_patterns,
    walk_refs,
)

__all__ = ["SchemaChecker", "ValueCheck", "ref_loops"]


@functools.cache
def _meta_validator() -> Any:
    from jsonschema import Draft202012Validator, FormatChecker

    # the metaschema's own formats (uri-reference for $ref and $id, regex for pattern):
    # the ones checked before jsonschema's format extra was declared, so that a spec's
    # odd but working $ref (a space in a name) is not refused now
    return Draft202012Validator(
        Draft202012Validator.META_SCHEMA, format_checker=FormatChecker(formats=_META_FORMATS)
    )


@functools.cache
def _meta_with_formats() -> Any:
    """jsonschema-rs's 2020-12 metaschema check that asserts formats: ``regex`` on the
    engine that runs the patterns at call time."""
    import jsonschema_rs

    return jsonschema_rs.validator_for({"$ref": _META_URI}, validate_formats=True)


_META_URI = "https://json-schema.org/draft/2020-12/schema"


def _surely_meta_valid(schema: Any, key: str) -> bool:
    """jsonschema-rs finds ``schema`` valid against the 2020-12 metaschema (in Rust, without
    importing jsonschema: a catalog of valid schemas is checked in a few milliseconds).

    A schema with a ``pattern`` (the one format a valid schema can break: ``regex``) is
    checked with formats asserted, its patterns compiled by the engine that runs them at
    call time; whatever that check refuses (and a schema with a ``$schema``: jsonschema-rs
    would check it against that dialect's metaschema, and fetch an unknown one) is left to
    jsonschema, which words the diagnostics.
    """
    if '"$schema"' in key:
        return False
    import jsonschema_rs

    try:
        if '"pattern' in key:
            return bool(_meta_with_formats().is_valid(schema))
        return jsonschema_rs.meta.is_valid(schema)
    except (ValueError, jsonschema_rs.ReferencingError):  # a type JSON has not; a bad $schema
        return False


def _meta_issues(schema: Any) -> list[SchemaIssue]:
    """TC022 for each error jsonschema finds against the 2020-12 metaschema, located."""
    return [
        SchemaIssue("TC022", tuple(e.absolute_path), _meta_message(e))
        for e in _meta_validator().iter_errors(schema)
    ]


_META_FORMATS = (
    "date", "email", "idn-email", "idn-hostname", "ipv4", "ipv6", "regex", "time", "uuid"
)  # fmt: skip


class ValueCheck:
    """Checks values the author wrote (defaults, enum values, examples' arguments) against
    a schema: where and why each breaks it, located in the value.

    jsonschema-rs decides, as the executor does for calls (linear-time patterns, nothing
    retrieved; formats are annotations here). jsonschema words the errors of a value it
    refuses, as it always has, except in a schema with a ``pattern`` or
    ``patternProperties``: jsonschema would run those on Python's backtracking ``re``, so
    there jsonschema-rs's words are used. A schema jsonschema-rs cannot compile is left to
    jsonschema, unless it has patterns (then its values are not checked).
    """

    def __init__(self, schema: Any) -> None:
        import jsonschema_rs

        self._schema = schema
        self._patterns = ref_and_pattern_keys(schema)[1]
        self._words: Any = None  # jsonschema's validator, built for a value that is refused
        try:
            self._fast: jsonschema_rs.Validator | None = linear_validator(schema)
        except jsonschema_rs.ValidationError:
            self._fast = None

    def conforms(self, value: Any) -> bool:
        return not self.errors(value)

    def errors(self, value: Any) -> list[tuple[tuple[str | int, ...], str]]:
        fast = self._fast
        if fast is not None:
            if fast.is_valid(value):
                return []
            if self._patterns:
                return [(tuple(e.instance_path), e.message) for e in fast.iter_errors(value)]
        elif self._patterns:
            return []
        if self._words is None:
            from jsonschema import Draft202012Validator

            self._words = Draft202012Validator(self._schema, registry=sealed_registry())
        return [(tuple(e.absolute_path), e.message) for e in self._words.iter_errors(value)]


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
            issues = [] if _surely_meta_valid(schema, key) else _meta_issues(schema)
            issues.extend(walk_keywords(schema, ()))
            if '"$ref"' in key or '"$dynamicRef"' in key:
                issues.extend(walk_refs(schema, ()))
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
            return tuple(walk_patterns(schema)) if may_have_patterns(schema) else ()
        if '"pattern' not in key:
            return ()
        found = self._unchecked.get(key)
        if found is None:
            found = self._unchecked[key] = tuple(walk_patterns(schema))
        return found

    @staticmethod
    def _check_values(schema: Any) -> Iterator[SchemaIssue]:
        if not isinstance(schema, dict) or ("default" not in schema and "enum" not in schema):
            return
        try:
            if "default" in schema:
                for _, message in ValueCheck(schema).errors(schema["default"]):
                    yield SchemaIssue(
                        "TC023",
                        ("default",),
                        f"default {schema['default']!r} breaks the schema: "
                        f"{message}; change the default or the schema",
                    )
            if isinstance(schema.get("enum"), list):
                rest = ValueCheck({k: v for k, v in schema.items() if k not in ("enum", "default")})
                for i, value in enumerate(schema["enum"]):
                    for _, message in rest.errors(value):
                        yield SchemaIssue(
                            "TC024",
                            ("enum", i),
                            f"enum value {value!r} breaks the schema: "
                            f"{message}; remove it or fix the schema",
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
