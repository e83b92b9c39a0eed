"""OpenAPI/Swagger schema objects to JSON Schema 2020-12, memoised per (file, pointer).

Input schemas inline every ref that is not part of a cycle; refs on a cycle
become ``{"$ref": "#/$defs/Name"}`` and the tool carries those definitions.
Output schemas keep every named schema as a definition (they are documentation
for the caller, and inlining response trees makes them huge). Converted
schemas are frozen and shared between tools, never copied.
"""

from __future__ import annotations

import functools
import json
import re
import warnings
from collections.abc import Iterable
from typing import Any

from toolcat.catalog import FrozenDict, FrozenList
from toolcat.catalog.common import freeze

from ._compose import merge_all_of, nullable_schema, tag_variants
from ._errors import RefError
from ._refs import RefKey, Resolver

__all__ = ["IN", "INLINE_LIMIT", "OUT", "SchemaConverter", "spec_text"]

IN = "in"
OUT = "out"
INLINE_LIMIT = 80  # schema objects; larger named schemas below the top become $defs

_SUB_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_SUB_ONE = frozenset(
    {
        "additionalProperties",
        "not",
        "contains",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_SUB_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_NONNEG_INT = frozenset(
    {
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "maxProperties",
        "minProperties",
        "maxContains",
        "minContains",
    }
)
_NUMBER = frozenset({"minimum", "maximum", "multipleOf"})
_BOOL = frozenset({"uniqueItems", "deprecated", "readOnly", "writeOnly"})
_TEXT = frozenset(
    {"pattern", "format", "title", "description", "$comment", "contentMediaType", "contentEncoding"}
)
_ANY = frozenset({"const", "default"})
_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_DEF_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_RAW_REF = re.compile(r'"\$ref":"([^"\\]+)"')  # in spec_text's compact text

(
    _K_TEXT,
    _K_MAP,
    _K_TYPE,
    _K_ITEMS,
    _K_ONE,
    _K_LIST,
    _K_ANY,
    _K_ENUM,
    _K_REQUIRED,
    _K_INT,
    _K_NUMBER,
    _K_EXCLUSIVE,
    _K_BOOL,
    _K_EXAMPLE,
    _K_NULLABLE,
    _K_DEPENDENT,
) = range(16)
_KIND: dict[str, int] = {
    **dict.fromkeys(_TEXT, _K_TEXT),
    **dict.fromkeys(_SUB_MAPS, _K_MAP),
    "type": _K_TYPE,
    "items": _K_ITEMS,
    **dict.fromkeys(_SUB_ONE, _K_ONE),
    **dict.fromkeys(_SUB_LISTS, _K_LIST),
    **dict.fromkeys(_ANY, _K_ANY),
    "enum": _K_ENUM,
    "examples": _K_ENUM,
    "dependentRequired": _K_DEPENDENT,
    "required": _K_REQUIRED,
    **dict.fromkeys(_NONNEG_INT, _K_INT),
    **dict.fromkeys(_NUMBER, _K_NUMBER),
    "exclusiveMinimum": _K_EXCLUSIVE,
    "exclusiveMaximum": _K_EXCLUSIVE,
    **dict.fromkeys(_BOOL, _K_BOOL),
    "example": _K_EXAMPLE,
    "nullable": _K_NULLABLE,
    "x-nullable": _K_NULLABLE,
}


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and v.is_integer()
    )


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


class SchemaConverter:
    """Converts the schemas of one spec (and the files it refers to)."""

    def __init__(self, resolver: Resolver, version: str) -> None:
        self._resolver = resolver
        self._swagger = version == "2.0"
        self._memo: dict[tuple[RefKey, str], tuple[Any, frozenset[tuple[RefKey, str]], int]] = {}
        self._count = 0  # schema objects converted or reused, to size named schemas
        self._level = 0  # nesting below the schema passed to convert()
        self._defs: dict[tuple[RefKey, str], tuple[Any, frozenset[tuple[RefKey, str]]]] = {}
        self._stack: set[tuple[RefKey, str]] = set()
        self._recursive: set[tuple[RefKey, str]] = set()
        self._deps: list[set[tuple[RefKey, str]]] = []
        self._names: dict[RefKey, str] = {}
        self._taken: set[str] = set()
        self._direct: dict[RefKey, tuple[RefKey, ...]] = {}
        self._exceeds: dict[tuple[RefKey, int], bool] = {}
        self._loop_free: set[RefKey] = set()  # refs checked by _check_loop
        self._refs_met = 0  # $refs converted so far
        # (id, file, mode) of a schema object with no $ref -> (the object, its conversion)
        self._plain: dict[tuple[int, str, str], tuple[Any, Any]] = {}

    # -- public ------------------------------------------------------------------

    def convert(self, schema: Any, file: str, mode: str = IN) -> tuple[Any, dict[str, Any]]:
        """A converted schema and the definitions it needs (``{name: schema}``, sorted by name).

        Raises :class:`RefError` when a ref it needs cannot be resolved.

        A schema object met again (a parameter that many operations share through a
        ``$ref``, with its schema written inline) is converted once: one that holds no
        ``$ref`` converts to the same value whenever it is met, so the first result is
        kept (with the object, so that its id stays its own).
        """
        seen = self._plain.get((id(schema), file, mode))
        if seen is not None:
            return seen[1], {}
        refs = self._refs_met
        self._deps.append(set())
        try:
            result = self._convert(schema, file, mode)
        finally:
            deps = self._deps.pop()
        if self._refs_met == refs and isinstance(schema, dict):
            self._plain[(id(schema), file, mode)] = (schema, result)
        return result, self.definitions(deps)

    def definitions(self, deps: Iterable[tuple[RefKey, str]]) -> dict[str, Any]:
        todo = list(deps)
        seen: set[tuple[RefKey, str]] = set()
        while todo:
            mk = todo.pop()
            if mk in seen:
                continue
            seen.add(mk)
            todo.extend(self._defs[mk][1])
        return {
            self._names[mk[0]]: self._defs[mk][0]
            for mk in sorted(seen, key=lambda m: self._names[m[0]])
        }

    # -- refs ----------------------------------------------------------------------

    def _def_ref(self, key: RefKey) -> FrozenDict:
        name = self._names.get(key)
        if name is None:
            file, pointer = key
            last = (
                pointer.rsplit("/", 1)[-1] if pointer else file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            )
            base = (
                _DEF_NAME.sub("_", last.replace("~1", "_").replace("~0", "_")).strip("_")
                or "Schema"
            )
            name, n = base, 1
            while name in self._taken:
                n += 1
                name = f"{base}_{n}"
            self._taken.add(name)
            self._names[key] = name
        return FrozenDict({"$ref": f"#/$defs/{name}"})

    def _ref(self, node: dict[str, Any], file: str, mode: str) -> Any:
        self._refs_met += 1
        target, key = self._resolver.resolve(node["$ref"], file)
        if key not in self._loop_free:
            self._check_loop(key, target, str(node["$ref"]), file)
        mk = (key, mode)
        deps = self._deps[-1]
        if mode == OUT or mk in self._recursive:
            if mk not in self._defs and mk not in self._stack:
                self._stack.add(mk)
                self._deps.append(set())
                try:
                    body = self._convert(target, key[0], mode)
                finally:
                    inner = self._deps.pop()
                    self._stack.discard(mk)
                self._defs[mk] = (body, frozenset(inner - {mk}))
            deps.add(mk)
            return self._with_siblings(self._def_ref(key), node, file, mode)
        memo = self._memo.get(mk)
        if memo is None:
            if mk in self._stack:
                self._recursive.add(mk)
                deps.add(mk)
                self._count += 1
                return self._def_ref(key)
            self._stack.add(mk)
            self._deps.append(set())
            before = self._count
            try:
                body = self._convert(target, key[0], mode)
            finally:
                inner = self._deps.pop()
                self._stack.discard(mk)
            if mk in self._recursive:
                self._defs[mk] = (body, frozenset(inner - {mk}))
                deps.add(mk)
                return self._with_siblings(self._def_ref(key), node, file, mode)
            memo = self._memo[mk] = (body, frozenset(inner), self._count - before)
        else:
            self._count += memo[2]
        body, reached, size = memo
        if size > INLINE_LIMIT and self._level > 1:
            # A large named schema below the top is shared as a definition, not copied
            # into every place that uses it (Kubernetes' ObjectMeta, PodSpec, ...).
            if mk not in self._defs:
                self._defs[mk] = (body, reached)
            deps.add(mk)
            return self._with_siblings(self._def_ref(key), node, file, mode)
        deps.update(reached)
        return self._with_siblings(body, node, file, mode)

    def _check_loop(self, start: RefKey, target: Any, ref: str, file: str) -> None:
        """Refuse refs that reach themselves with no schema content in between.

        ``A: {$ref: B}``, ``B: {$ref: A}`` (or the same through ``allOf``,
        ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``) apply to the
        same value forever: every call would recurse until it crashed. A
        recursive schema through ``properties`` or ``items`` steps into a part
        of the value each time, so it ends, and stays allowed.
        """
        stack = [(start, iter(_same_value_refs(target)))]
        on_path = [start]
        while stack:
            key, refs = stack[-1]
            nxt = next(refs, None)
            if nxt is None:
                stack.pop()
                on_path.pop()
                self._loop_free.add(key)
                continue
            value, nkey = self._resolver.resolve(nxt, key[0])
            if nkey in on_path:
                chain = " -> ".join(_ref_label(k) for k in [*on_path[on_path.index(nkey) :], nkey])
                raise RefError(
                    ref,
                    file,
                    f"its $refs loop with no schema in between ({chain}), so no value "
                    "could ever be checked against it",
                )
            if nkey not in self._loop_free:
                stack.append((nkey, iter(_same_value_refs(value))))
                on_path.append(nkey)

    def _with_siblings(self, body: Any, node: dict[str, Any], file: str, mode: str) -> Any:
        if len(node) == 1:
            return body
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        extra = self._convert(siblings, file, mode)
        if not extra:
            return body
        if not isinstance(body, dict):
            return freeze({"allOf": [body], **extra})
        if "$ref" in body:
            return FrozenDict({**body, **extra})
        return freeze(merge_all_of({"allOf": [extra, body]}))

    # -- schema objects ------------------------------------------------------------

    def _convert(self, node: Any, file: str, mode: str) -> Any:
        if type(node) is not dict:
            if isinstance(node, bool):
                return node
            return (
                FrozenDict()
                if not isinstance(node, dict)
                else self._convert(dict(node), file, mode)
            )
        self._count += 1
        self._level += 1
        try:
            return self._object(node, file, mode)
        finally:
            self._level -= 1

    def _object(self, node: dict[str, Any], file: str, mode: str) -> Any:  # noqa: C901, PLR0915  one conversion of a schema object, keyword by keyword, to 2020-12
        if "$ref" in node:
            return self._ref(node, file, mode)
        out: dict[str, Any] = {}
        nullable = False
        convert = self._convert
        for k, v in node.items():
            kind = _KIND.get(k)
            if kind is None:
                continue  # x-*, xml, externalDocs, discriminator, nested $defs: not JSON Schema
            if kind == _K_TEXT:
                if type(v) is str and (k != "pattern" or _compiles(v)):
                    out[k] = v
            elif kind == _K_MAP:
                if type(v) is dict:
                    out[k] = FrozenDict({str(n): convert(sub, file, mode) for n, sub in v.items()})
            elif kind == _K_TYPE:
                if type(v) is str:
                    if v in _TYPES:
                        out[k] = v
                    elif v == "file":
                        out["type"], out["format"] = "string", "binary"
                elif type(v) is list:
                    kept = list(dict.fromkeys(t for t in v if type(t) is str and t in _TYPES))
                    if kept:
                        out[k] = FrozenList(kept) if len(kept) > 1 else kept[0]
            elif kind == _K_ITEMS:
                if type(v) is list:  # draft-4 tuple form
                    if v:
                        out["prefixItems"] = FrozenList(convert(sub, file, mode) for sub in v)
                elif isinstance(v, dict | bool):
                    out["items"] = convert(v, file, mode)
            elif kind == _K_ONE:
                if isinstance(v, dict | bool):
                    out[k] = convert(v, file, mode)
            elif kind == _K_LIST:
                if type(v) is list and v:
                    if k == "allOf":  # parts of this object: always inlined, so they merge
                        level, self._level = self._level, 0
                        try:
                            out[k] = FrozenList(convert(sub, file, mode) for sub in v)
                        finally:
                            self._level = level
                    else:
                        out[k] = FrozenList(convert(sub, file, mode) for sub in v)
            elif kind == _K_ANY:
                out[k] = _frozen_value(v)
            elif kind == _K_ENUM:
                if type(v) is list and v:
                    out[k] = _frozen_value(v)
            elif kind == _K_REQUIRED:
                if type(v) is list:
                    names = list(dict.fromkeys(x for x in v if type(x) is str))
                    if names:
                        out[k] = FrozenList(names)
            elif kind == _K_INT:
                if _is_int(v) and v >= 0:
                    out[k] = int(v)
            elif kind == _K_NUMBER:
                if _is_number(v) and (k != "multipleOf" or v > 0):
                    out[k] = v
            elif kind == _K_EXCLUSIVE:
                if _is_number(v):
                    out[k] = v
                elif v is True:
                    bound = node.get("minimum" if k == "exclusiveMinimum" else "maximum")
                    if _is_number(bound):
                        out[k] = bound
            elif kind == _K_BOOL:
                if type(v) is bool:
                    out[k] = v
            elif kind == _K_EXAMPLE:
                if "examples" not in node:
                    out["examples"] = _frozen_value([v])
            elif kind == _K_NULLABLE:
                nullable = v is True
            elif kind == _K_DEPENDENT:
                if type(v) is dict:
                    deps = {
                        str(n): list(dict.fromkeys(x for x in req if type(x) is str))
                        for n, req in v.items()
                        if type(req) is list
                    }
                    if deps:
                        out[k] = freeze(deps)
        for k in ("exclusiveMinimum", "exclusiveMaximum"):
            if node.get(k) is True and k in out:
                out.pop("minimum" if k == "exclusiveMinimum" else "maximum", None)
        if "discriminator" in node and ("oneOf" in out or "anyOf" in out):
            tag_variants(out, node, self._resolver, file)
        if "allOf" in out:
            out = merge_all_of(out)
        props = out.get("properties")
        if props:
            hidden = "readOnly" if mode == IN else "writeOnly"
            gone = [n for n, s in props.items() if type(s) is FrozenDict and s.get(hidden) is True]
            if gone:
                out["properties"] = FrozenDict({n: s for n, s in props.items() if n not in gone})
                if "required" in out:
                    req = [r for r in out["required"] if r not in gone]
                    if req:
                        out["required"] = FrozenList(req)
                    else:
                        del out["required"]
        if nullable:
            out = nullable_schema(out)
        return FrozenDict(out) if _PLAIN.isdisjoint(map(type, out.values())) else freeze(out)

    def raw_closure_exceeds(self, schema: Any, file: str, limit: int) -> bool:
        """Whether the raw schema reaches over ``limit`` named schemas (cheap: no conversion)."""
        if type(schema) is dict and len(schema) == 1 and type(schema.get("$ref")) is str:
            try:
                root = self._resolver.key(schema["$ref"], file)
            except RefError:
                return False  # the conversion reports it
            known = self._exceeds.get((root, limit))
            if known is None:
                known = self._exceeds[(root, limit)] = self._walk_exceeds([root], limit)
            return known
        return self._walk_exceeds(list(self._raw_refs(schema, file)), limit)

    def _walk_exceeds(self, todo: list[RefKey], limit: int) -> bool:
        seen: set[RefKey] = set()
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            if self._exceeds.get((key, limit)):  # what it reaches is over: and so is this
                return True
            seen.add(key)
            if len(seen) > limit:
                return True
            direct = self._direct.get(key)
            if direct is None:
                target, _ = self._resolver.resolve("#" + key[1], key[0])
                direct = self._direct[key] = self._raw_refs(target, key[0])
            todo.extend(direct)
        return False

    def _raw_refs(self, value: Any, file: str) -> tuple[RefKey, ...]:
        text = spec_text(value)
        keys = []
        for ref in dict.fromkeys(_RAW_REF.findall(text)):
            try:
                keys.append(self._resolver.key(ref, file))
            except RefError:
                continue  # reported when the conversion meets it
        return tuple(keys)


def spec_text(value: Any) -> str:
    """A spec value's compact JSON text, for finding its ``$ref``s with a regex:
    ``json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)``'s text
    but for floats, written by orjson (Rust, and faster) where it takes the
    value. Both escape the same characters in strings (quote, backslash, controls)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        pass
    else:
        try:
            return orjson.dumps(value, default=str, option=_PASSTHROUGH).decode()
        except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
            pass  # a non-string key, an integer past 64 bits, nesting past 254
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


_PASSTHROUGH = 2048 | 512
"""``orjson.OPT_PASSTHROUGH_DATACLASS | OPT_PASSTHROUGH_DATETIME``: a YAML date or a
dataclass goes to ``default=str``, as ``json.dumps`` sends it."""


@functools.lru_cache(maxsize=4096)
def _compiles(pattern: str) -> bool:
    """Whether Python can use a ``pattern`` (validators would fail on it otherwise)."""
    try:
        with warnings.catch_warnings():
            # "Possible nested set" and friends: the pattern works; say nothing on stderr.
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


# The exact types a value must not have to be kept as it is: plain (mutable) containers.
# ``_PLAIN.isdisjoint(map(type, values))`` runs in C: a fifth of the conversion's time was
# the generator of ``all(type(v) is not dict and ... for v in values)`` it replaces.
_PLAIN = frozenset({dict, list})


def _frozen_value(v: Any) -> Any:
    t = type(v)
    if t is list and _PLAIN.isdisjoint(map(type, v)):
        return FrozenList(v)  # the common case: an enum of scalars
    if t is dict or t is list:
        return freeze(v)
    return v


_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONE = ("not", "if", "then", "else")


def _same_value_refs(node: Any) -> list[str]:
    """The ``$ref``s a schema applies to the very value it checks (not to a part of it)."""
    out: list[str] = []
    todo = [node]
    while todo:
        n = todo.pop()
        if type(n) is not dict:
            continue
        ref = n.get("$ref")
        if isinstance(ref, str):
            out.append(ref)
        for k in _SAME_VALUE_LISTS:
            v = n.get(k)
            if type(v) is list:
                todo.extend(v)
        todo.extend(n[k] for k in _SAME_VALUE_ONE if k in n)
    return out


def _ref_label(key: RefKey) -> str:
    """``B`` for ``#/components/schemas/B``; the file name for a whole file."""
    file, pointer = key
    return pointer.rsplit("/", 1)[-1] if pointer else file.rsplit("/", 1)[-1]
