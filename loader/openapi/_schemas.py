"""OpenAPI/Swagger schema objects to JSON Schema 2020-12, memoised per (file, pointer).

Input schemas inline every ref that is not part of a cycle; refs on a cycle
become ``{"$ref": "#/$defs/Name"}`` and the tool carries those definitions.
Output schemas keep every named schema as a definition (they are documentation
for the caller, and inlining response trees makes them huge). Converted
schemas are frozen and shared between tools, never copied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from toolcat.catalog import FrozenDict, freeze

from ._refs import RefKey, Resolver

__all__ = ["IN", "OUT", "SchemaConverter"]

IN = "in"
OUT = "out"

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
        self._memo: dict[tuple[RefKey, str], tuple[Any, frozenset[tuple[RefKey, str]]]] = {}
        self._defs: dict[tuple[RefKey, str], tuple[Any, frozenset[tuple[RefKey, str]]]] = {}
        self._stack: set[tuple[RefKey, str]] = set()
        self._recursive: set[tuple[RefKey, str]] = set()
        self._deps: list[set[tuple[RefKey, str]]] = []
        self._names: dict[RefKey, str] = {}
        self._taken: set[str] = set()

    # -- public ------------------------------------------------------------------

    def convert(self, schema: Any, file: str, mode: str = IN) -> tuple[Any, dict[str, Any]]:
        """A converted schema and the definitions it needs (``{name: schema}``, sorted by name).

        Raises :class:`RefError` when a ref it needs cannot be resolved.
        """
        self._deps.append(set())
        try:
            result = self._convert(schema, file, mode)
        finally:
            deps = self._deps.pop()
        return result, self.definitions(deps)

    def resolved_object(self, schema: Any, file: str) -> Any:
        """The raw schema behind refs (for looking at properties before conversion)."""
        value, _ = self._resolver.deref(schema, file)
        return value

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
        target, key = self._resolver.resolve(node["$ref"], file)
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
        if memo is not None:
            deps.update(memo[1])
            return self._with_siblings(memo[0], node, file, mode)
        if mk in self._stack:
            self._recursive.add(mk)
            deps.add(mk)
            return self._def_ref(key)
        self._stack.add(mk)
        self._deps.append(set())
        try:
            body = self._convert(target, key[0], mode)
        finally:
            inner = self._deps.pop()
            self._stack.discard(mk)
        if mk in self._recursive:
            self._defs[mk] = (body, frozenset(inner - {mk}))
            deps.add(mk)
            return self._with_siblings(self._def_ref(key), node, file, mode)
        self._memo[mk] = (body, frozenset(inner))
        deps.update(inner)
        return self._with_siblings(body, node, file, mode)

    def _with_siblings(self, body: Any, node: dict[str, Any], file: str, mode: str) -> Any:
        if len(node) == 1:
            return body
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        extra = self._convert(siblings, file, mode)
        if not extra:
            return body
        if not isinstance(body, dict):
            return FrozenDict({"allOf": [body], **extra})
        if "$ref" in body:
            return FrozenDict({**body, **extra})
        return freeze(_merge_all_of({"allOf": [extra, body]}))

    # -- schema objects ------------------------------------------------------------

    def _convert(self, node: Any, file: str, mode: str) -> Any:
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            return FrozenDict()
        if "$ref" in node:
            return self._ref(node, file, mode)
        out: dict[str, Any] = {}
        nullable = False
        for k, v in node.items():
            if k in _SUB_MAPS:
                if isinstance(v, dict):
                    out[k] = {str(name): self._convert(s, file, mode) for name, s in v.items()}
            elif k == "items":
                if isinstance(v, list):  # draft-4 tuple form
                    out["prefixItems"] = [self._convert(s, file, mode) for s in v]
                elif isinstance(v, dict | bool):
                    out["items"] = self._convert(v, file, mode)
            elif k in _SUB_ONE:
                if isinstance(v, dict | bool):
                    out[k] = self._convert(v, file, mode)
            elif k in _SUB_LISTS:
                if isinstance(v, list) and v:
                    out[k] = [self._convert(s, file, mode) for s in v]
            elif k == "type":
                if isinstance(v, str) and v in _TYPES:
                    out[k] = v
                elif v == "file":
                    out["type"], out["format"] = "string", "binary"
                elif isinstance(v, list):
                    kept = [t for t in v if t in _TYPES]
                    if kept:
                        out[k] = kept if len(kept) > 1 else kept[0]
            elif k in _TEXT:
                if isinstance(v, str):
                    out.setdefault(k, v)
            elif k in _NONNEG_INT:
                if _is_int(v) and v >= 0:
                    out[k] = int(v)
            elif k in _NUMBER:
                if _is_number(v) and (k != "multipleOf" or v > 0):
                    out[k] = v
            elif k in ("exclusiveMinimum", "exclusiveMaximum"):
                if _is_number(v):
                    out[k] = v
                elif v is True:
                    bound = node.get("minimum" if k == "exclusiveMinimum" else "maximum")
                    if _is_number(bound):
                        out[k] = bound
            elif k in _BOOL:
                if isinstance(v, bool):
                    out[k] = v
            elif k in _ANY:
                out[k] = v
            elif k == "enum":
                if isinstance(v, list) and v:
                    out[k] = v
            elif k == "required":
                if isinstance(v, list):
                    names = list(dict.fromkeys(x for x in v if isinstance(x, str)))
                    if names:
                        out[k] = names
            elif k == "examples":
                if isinstance(v, list):
                    out[k] = v
            elif k == "example":
                out.setdefault("examples", [v])
            elif k == "dependentRequired":
                if isinstance(v, dict):
                    out[k] = v
            elif k in ("nullable", "x-nullable"):
                nullable = v is True
            # everything else (x-*, xml, externalDocs, discriminator, nested $defs) is left out
        for k in ("exclusiveMinimum", "exclusiveMaximum"):
            if node.get(k) is True and k in out:
                out.pop("minimum" if k == "exclusiveMinimum" else "maximum", None)
        if "discriminator" in node and ("oneOf" in out or "anyOf" in out):
            _tag_variants(out, node, self._resolver, file)
        if "allOf" in out:
            out = _merge_all_of(out)
        props = out.get("properties")
        if props:
            hidden = "readOnly" if mode == IN else "writeOnly"
            gone = [n for n, s in props.items() if isinstance(s, dict) and s.get(hidden) is True]
            if gone:
                out["properties"] = {n: s for n, s in props.items() if n not in gone}
                if "required" in out:
                    req = [r for r in out["required"] if r not in gone]
                    if req:
                        out["required"] = req
                    else:
                        del out["required"]
        if nullable:
            out = _nullable(out)
        return freeze(out)


def _nullable(out: dict[str, Any]) -> dict[str, Any]:
    t = out.get("type")
    if isinstance(t, str):
        out["type"] = [t, "null"] if t != "null" else t
    elif isinstance(t, list):
        if "null" not in t:
            out["type"] = [*t, "null"]
    elif out:
        outer = {k: out.pop(k) for k in ("title", "description", "default") if k in out}
        return {"anyOf": [out, {"type": "null"}], **outer}
    else:
        return out
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _tag_variants(out: dict[str, Any], node: dict[str, Any], resolver: Resolver, file: str) -> None:
    """Give each variant of a discriminated oneOf/anyOf a ``const`` for the tag property."""
    disc = node["discriminator"]
    prop = (
        disc
        if isinstance(disc, str)
        else disc.get("propertyName")
        if isinstance(disc, dict)
        else None
    )
    if not isinstance(prop, str):
        return
    mapping = disc.get("mapping") if isinstance(disc, dict) else None
    by_ref: dict[str, str] = {}
    if isinstance(mapping, dict):
        for value, ref in mapping.items():
            if isinstance(ref, str):
                by_ref[ref if ("/" in ref or "." in ref) else f"#/components/schemas/{ref}"] = str(
                    value
                )
    for kw in ("oneOf", "anyOf"):
        raw, converted = node.get(kw), out.get(kw)
        if (
            not isinstance(raw, list)
            or not isinstance(converted, list)
            or len(raw) != len(converted)
        ):
            continue
        tagged = []
        for r, c in zip(raw, converted, strict=True):
            ref = r.get("$ref") if isinstance(r, dict) else None
            props = c.get("properties") if isinstance(c, dict) else None
            if not isinstance(ref, str) or "$ref" in c or not isinstance(props, dict):
                tagged.append(c)
                continue
            value = by_ref.get(ref) or ref.rsplit("/", 1)[-1]
            current = props.get(prop)
            base = dict(current) if isinstance(current, dict) else {"type": "string"}
            base.pop("enum", None)
            base["const"] = value
            req = list(c.get("required", ()))
            if prop not in req:
                req.append(prop)
            tagged.append(freeze({**c, "properties": {**props, prop: base}, "required": req}))
        out[kw] = tagged
    note = f"The '{prop}' property says which variant this is."
    out["description"] = f"{out['description']} {note}" if out.get("description") else note


_FIRST_WINS = frozenset({"description", "title", "examples", "default", "$comment", "deprecated"})


def _merge_all_of(out: dict[str, Any]) -> dict[str, Any]:
    """Fold ``allOf`` parts into one object schema when they do not conflict; else keep allOf."""
    parts = out["allOf"]
    if not all(isinstance(p, dict) and "$ref" not in p and "allOf" not in p for p in parts):
        return out
    merged: dict[str, Any] = {k: v for k, v in out.items() if k != "allOf"}
    for part in parts:
        for k, v in part.items():
            if k not in merged:
                merged[k] = v
            elif k == "properties":
                props = dict(merged[k])
                for name, s in v.items():
                    if name in props and props[name] != s:
                        props[name] = {"allOf": [props[name], s]}
                    else:
                        props[name] = s
                merged[k] = props
            elif k == "required":
                merged[k] = list(dict.fromkeys([*merged[k], *v]))
            elif merged[k] == v or k in _FIRST_WINS:
                continue
            elif k == "type":
                a = {merged[k]} if isinstance(merged[k], str) else set(merged[k])
                b = {v} if isinstance(v, str) else set(v)
                common = sorted(a & b)
                if not common:
                    return out
                merged[k] = common[0] if len(common) == 1 else common
            else:
                return out
    return merged
