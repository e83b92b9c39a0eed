"""OpenAI strict mode: rewrite a JSON Schema into the Structured Outputs subset, and check it.

The rules follow OpenAI's Structured Outputs guide ("Supported schemas"):

- the root is an object, never ``anyOf``;
- every object lists all its properties in ``required`` and sets
  ``additionalProperties: false``; an optional property becomes nullable
  (``"type": [T, "null"]``, or ``anyOf`` with ``{"type": "null"}`` for ``$ref``,
  ``anyOf`` and untyped ``enum``/``const`` schemas), so the model sends
  ``null`` where it would have left the argument out;
- kept keywords: ``type``, ``properties``, ``required``,
  ``additionalProperties``, ``items``, ``enum``, ``anyOf``, ``$ref``, ``$defs``,
  ``description``, ``title``; strings ``pattern`` and ``format`` (date-time,
  time, date, duration, email, hostname, ipv4, ipv6, uuid); numbers
  ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``,
  ``multipleOf``; arrays ``minItems``, ``maxItems``;
- every other keyword (``default``, ``examples``, ``minLength``, ``maxLength``,
  ``uniqueItems``, other formats, ``minProperties``, ...) is moved into the
  node's description as text, so the model still reads the constraint;
- ``oneOf`` becomes ``anyOf``, ``allOf`` is merged, ``const`` becomes a
  one-value ``enum``, ``definitions`` become ``$defs``, and a ``$ref`` with
  sibling keywords is inlined (strict mode rejects siblings of ``$ref``);
  recursion through ``$ref`` stays as it is.

A model answering a strict tool sends ``null`` for every optional argument it
leaves out; :func:`strip_strict_nulls` turns those back into absent arguments
before the arguments are checked against the tool's own input schema.

A schema that cannot be made strict without changing what arguments it accepts
(a free-form object such as ``{"type": "object"}`` or one with an
``additionalProperties`` schema, a schema without any type) raises
:class:`NotStrictable`; the exporter then sends that tool with ``strict: false``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolcat._errors import ToolcatError

from ._schema_walk import def_name, merge_lists, merge_part, refinements, short, split_defs

__all__ = [
    "NotStrictable",
    "StrictResult",
    "check_strict_schema",
    "to_strict_schema",
]

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# Keywords that strict mode accepts (format is checked against STRICT_FORMATS as well).
STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum",
        "anyOf", "$ref", "$defs", "description", "title", "pattern", "format",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minItems", "maxItems",
    }
)  # fmt: skip
# Structural keywords handled by the rewrite itself (never moved to the description).
_STRUCTURAL = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "anyOf", "oneOf",
     "allOf", "$ref", "$defs", "definitions", "description", "const", "enum", "$schema",
     "$id", "$comment", "title"}
)  # fmt: skip
# Annotations that do not constrain the value: dropped without a word.
_DROPPED_SILENTLY = frozenset(
    {"$schema", "$id", "$comment", "$anchor", "readOnly", "writeOnly", "discriminator",
     "xml", "externalDocs"}
)  # fmt: skip
_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
MAX_NESTING = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000
MAX_NAME_CHARS = 120_000  # property names, definition names, enum and const values together


class NotStrictable(ToolcatError, ValueError):
    """A schema that strict mode cannot express; ``pointer`` says where."""

    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(f"{pointer or '/'}: {reason}")
        self.pointer = pointer
        self.reason = reason


@dataclass(frozen=True, slots=True)
class StrictResult:
    """The strict schema and, per JSON pointer, what was changed to get there."""

    schema: dict[str, Any]
    notes: tuple[tuple[str, str], ...] = ()


def to_strict_schema(schema: Mapping[str, Any]) -> StrictResult:
    """Rewrite ``schema`` (an input schema, type object) for OpenAI strict mode.

    >>> to_strict_schema({"type": "object", "properties": {"q": {"type": "string"}}}).schema
    {'type': 'object', 'properties': {'q': {'type': ['string', 'null']}}, 'required': ['q'], \
'additionalProperties': False}

    Raises :class:`NotStrictable` when the schema holds a free-form object or an
    untyped value.
    """
    root, defs = split_defs(schema)
    conv = _Converter(defs)
    try:
        out = conv.node(root, "")
        if "$ref" in out or "anyOf" in out or out.get("type") != "object":
            raise NotStrictable("", "the root must be a plain object schema")
        if defs:
            out["$defs"] = {name: conv.node(d, f"/$defs/{name}") for name, d in defs.items()}
    except _Recursive as exc:
        raise NotStrictable("", f"a recursive $ref {exc.ref!r} with sibling keywords") from exc
    except RecursionError as exc:
        raise NotStrictable("", "the schema nests too deeply") from exc
    # Limits the rewrite itself does not enforce (nesting depth, property and enum counts).
    problems = check_strict_schema(out)
    if problems:
        where, _, why = problems[0].partition(": ")
        raise NotStrictable("" if where == "/" else where, why)
    return StrictResult(out, tuple(conv.notes))


# Sibling keywords of a $ref that only annotate: dropped when the $ref recurses.
_ANNOTATIONS = frozenset(
    {"description", "title", "examples", "example", "default", "deprecated", "readOnly",
     "writeOnly", "$comment"}
)  # fmt: skip


class _Converter:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.notes: list[tuple[str, str]] = []
        self.inlining: set[str] = set()  # definitions being inlined on the current path
        self.properties = 0  # so far; past the limit the result could never be strict

    def resolve(self, ref: str, pointer: str, inlined: list[str] | None = None) -> dict[str, Any]:
        name = def_name(ref)
        if name is not None and isinstance(self.defs.get(name), dict):
            if inlined is not None:
                if name in self.inlining:
                    raise _Recursive(ref)
                self.inlining.add(name)
                inlined.append(name)
            return dict(self.defs[name])
        raise NotStrictable(pointer, f"$ref {ref!r} does not point into $defs")

    def node(self, schema: Any, pointer: str) -> dict[str, Any]:
        inlined: list[str] = []
        try:
            return self._node(schema, pointer, inlined)
        except _Recursive as exc:
            # Inlining a $ref (to drop its sibling keywords) reached the same definition
            # again: keep the bare $ref when the siblings only annotate, else give up.
            if inlined or not isinstance(schema, dict):
                raise
            ref, extra = _lone_ref(schema)
            if ref != exc.ref or not extra <= _ANNOTATIONS:
                why = f"a recursive $ref {exc.ref!r} with sibling keywords"
                raise NotStrictable(pointer, why) from exc
            dropped = ", ".join(sorted(extra))
            self.notes.append((pointer, f"dropped beside a recursive $ref: {dropped}"))
            return {"$ref": ref.replace("#/definitions/", "#/$defs/", 1)}
        finally:
            self.inlining.difference_update(inlined)

    def _node(self, schema: Any, pointer: str, inlined: list[str]) -> dict[str, Any]:
        if schema is True or schema == {}:
            raise NotStrictable(pointer, "a schema that accepts any value")
        if not isinstance(schema, dict):
            raise NotStrictable(pointer, f"not a schema object: {schema!r}")
        s = dict(schema)
        for key in _DROPPED_SILENTLY & s.keys():
            del s[key]
        if s.pop("nullable", False) is True:  # OpenAPI 3.0 spelling of a null type
            return _nullable(self.node(s, pointer))
        if "allOf" in s:
            s = self.merge_all_of(s, pointer, inlined)
        s = self._inline_refs(s, pointer, inlined)
        if "$ref" in s:
            return s  # a lone $ref
        refined = refinements(s)
        if "oneOf" in s:
            s.setdefault("anyOf", [])
            s["anyOf"] = list(s["anyOf"]) + list(s.pop("oneOf"))
            self.notes.append((pointer, "oneOf rewritten as anyOf"))
        if "const" in s:
            s["enum"] = [s.pop("const")]
        moved: list[str] = refined
        out = _keywords(s, pointer, moved)
        self._subschemas(s, out, pointer)
        if moved:
            text = "; ".join(moved)
            desc = out.get("description")
            out["description"] = f"{desc} ({text})" if desc else f"({text})"
            self.notes.append((pointer, f"moved to the description: {text}"))
        return out

    def _inline_refs(self, s: dict[str, Any], pointer: str, inlined: list[str]) -> dict[str, Any]:
        """``s`` with its ``$ref`` inlined where keywords stand beside it (strict mode refuses
        them there); a lone ``$ref`` is kept, its target checked."""
        hops = 0
        while "$ref" in s:
            ref = s["$ref"]
            if isinstance(ref, str) and ref.startswith("#/definitions/"):
                s["$ref"] = ref = "#/$defs/" + ref[len("#/definitions/") :]
            if len(s) == 1:
                if ref != "#":
                    self.resolve(ref, pointer)  # a dangling ref is an error, not a strict schema
                return s
            hops += 1
            if ref == "#" or hops > 32:
                raise NotStrictable(pointer, f"'$ref': {ref!r} with sibling keywords")
            del s["$ref"]
            s = {**self.resolve(ref, pointer, inlined), **s}
            if "allOf" in s:
                s = self.merge_all_of(s, pointer, inlined)
        return s

    def _subschemas(self, s: dict[str, Any], out: dict[str, Any], pointer: str) -> None:
        """anyOf, items and properties rewritten into ``out``; a schema strict mode cannot
        take (no type, an array without items) refused."""
        if "anyOf" in s:
            out["anyOf"] = [
                self.node(item, f"{pointer}/anyOf/{i}") for i, item in enumerate(s["anyOf"])
            ]
        types = _types(s)
        if "items" in s and ("array" in types or not types):
            if isinstance(s["items"], list):
                raise NotStrictable(pointer, "tuple-style 'items' (a list of schemas)")
            out["items"] = self.node(s["items"], f"{pointer}/items")
        if "object" in types or "properties" in s:
            self.object(s, out, pointer)
            if not types:
                out["type"] = "object"
        if not ({"type", "anyOf", "$ref", "enum"} & out.keys()):
            raise NotStrictable(pointer, "a schema without a type")
        if "array" in _types(out) and "items" not in out:
            raise NotStrictable(pointer, "an array without 'items'")

    def object(self, s: dict[str, Any], out: dict[str, Any], pointer: str) -> None:
        props = s.get("properties") or {}
        extra = s.get("additionalProperties", None)
        if not props and extra is None and pointer == "":
            extra = False  # a tool without arguments
        if not props and extra is not False:
            raise NotStrictable(pointer, "a free-form object (no properties)")
        if extra not in (None, False):
            raise NotStrictable(pointer, "an object with an additionalProperties schema")
        required = set(s.get("required") or ())
        self.properties += len(props)
        if self.properties > MAX_PROPERTIES:
            raise NotStrictable(pointer, f"over {MAX_PROPERTIES} properties in all")
        new_props: dict[str, Any] = {}
        for name, sub in props.items():
            child = self.node(sub, f"{pointer}/properties/{_escape(name)}")
            if name not in required:
                child = _nullable(child)
            new_props[name] = child
        out["properties"] = new_props
        out["required"] = list(props)
        out["additionalProperties"] = False

    def merge_all_of(self, s: dict[str, Any], pointer: str, inlined: list[str]) -> dict[str, Any]:
        parts = s.pop("allOf")
        merged: dict[str, Any] = {}
        for i, part in enumerate(parts):
            if isinstance(part, dict) and "$ref" in part and len(part) == 1:
                if len(parts) == 1:
                    merged = dict(part)
                    continue
                part = self.resolve(part["$ref"], f"{pointer}/allOf/{i}", inlined)
            if not isinstance(part, dict):
                raise NotStrictable(f"{pointer}/allOf/{i}", "not a schema object")
            merge_part(merged, part, lambda key: _disagree(pointer, key))
        return {**merged, **s, **merge_lists(merged, s)}


def _disagree(pointer: str, key: str) -> None:
    raise NotStrictable(pointer, f"allOf members disagree on {key!r}")


class _Recursive(ToolcatError):
    """Inlining ``ref`` reached a definition already being inlined on this path."""

    def __init__(self, ref: str) -> None:
        super().__init__(ref)
        self.ref = ref


def _lone_ref(s: dict[str, Any]) -> tuple[str | None, set[str]]:
    """The one $ref of ``s`` (beside it, or alone in an ``allOf`` of annotation-only
    parts) and the other keywords; ``(None, ...)`` when there is no single one."""
    if isinstance(s.get("$ref"), str):
        return s["$ref"], set(s) - {"$ref"}
    parts = s.get("allOf")
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        return None, set()
    refs = [p["$ref"] for p in parts if isinstance(p.get("$ref"), str) and len(p) == 1]
    if len(refs) != 1:
        return None, set()
    extra = set(s) - {"allOf"}
    for p in parts:
        if "$ref" not in p:
            extra.update(p)
    return refs[0], extra


def _types(s: Mapping[str, Any]) -> list[str]:
    t = s.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    return []


def _keywords(s: Mapping[str, Any], pointer: str, moved: list[str]) -> dict[str, Any]:
    """The keywords strict mode keeps, other than the subschemas; the rest go to ``moved``."""
    out: dict[str, Any] = {}
    for key, value in s.items():
        if key in ("properties", "required", "additionalProperties", "items", "anyOf"):
            continue
        if key in _STRUCTURAL and key not in ("definitions", "$defs"):
            out[key] = value
        elif key in STRICT_KEYWORDS and key != "format":
            out[key] = value
        elif key == "format" and value in STRICT_FORMATS:
            out[key] = value
        elif key in ("definitions", "$defs"):
            raise NotStrictable(pointer, f"nested {key} (only the root may hold $defs)")
        else:
            moved.append(f"{key}: {short(value)}")
    return out


def _nullable(child: dict[str, Any]) -> dict[str, Any]:
    """The same schema, also accepting ``null``."""
    types = child.get("type")
    if "$ref" in child or "anyOf" in child or types is None:
        if "anyOf" in child and "$ref" not in child:
            if not any(m.get("type") == "null" for m in child["anyOf"]):
                child["anyOf"] = [*child["anyOf"], {"type": "null"}]
            return child
        desc: dict[str, Any] = {k: child.pop(k) for k in ("description", "title") if k in child}
        return {"anyOf": [child, {"type": "null"}], **desc}
    if isinstance(types, str):
        types = [types]
    if "null" not in types:
        child["type"] = [*types, "null"]
        if "enum" in child and None not in child["enum"]:
            child["enum"] = [*child["enum"], None]
    return child


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


# -- the checker ----------------------------------------------------------------


def check_strict_schema(schema: Mapping[str, Any]) -> list[str]:  # noqa: C901, PLR0915  strict mode's rules as one walk, with its nested visit; a branch per rule
    """Every rule of strict mode that ``schema`` breaks, as ``pointer: problem`` lines.

    An empty list means OpenAI accepts the schema with ``strict: true``.
    """
    problems: list[str] = []
    if not isinstance(schema, Mapping):
        return ["/: the schema is not an object"]
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("/: the root must have type 'object' and no anyOf")
    defs = schema.get("$defs") or {}
    counter = {"properties": 0, "enum": 0, "chars": sum(len(str(n)) for n in defs)}

    def visit(node: Any, pointer: str, depth: int) -> None:  # noqa: C901  a branch per rule of strict mode, over one schema object
        where = pointer or "/"
        if not isinstance(node, Mapping):
            problems.append(f"{where}: not a schema object")
            return
        if depth > MAX_NESTING:
            problems.append(f"{where}: nested deeper than {MAX_NESTING} levels")
        for key in node:
            if key not in STRICT_KEYWORDS:
                problems.append(f"{where}: keyword {key!r} is not supported in strict mode")
        if "$defs" in node and pointer:
            problems.append(f"{where}: $defs only at the root")
        if "format" in node and node["format"] not in STRICT_FORMATS:
            problems.append(f"{where}: format {node['format']!r} is not supported")
        if "$ref" in node:
            ref = node["$ref"]
            if len(node) > 1:
                problems.append(f"{where}: $ref must stand alone")
            if ref != "#" and not (
                isinstance(ref, str)
                and ref.startswith("#/$defs/")
                and ref[len("#/$defs/") :] in defs
            ):
                problems.append(f"{where}: $ref {ref!r} does not resolve into $defs")
            return
        if not ({"type", "anyOf", "enum"} & node.keys()):
            problems.append(f"{where}: no type")
        types = node.get("type")
        type_list = [types] if isinstance(types, str) else list(types or [])
        unknown = [x for x in type_list if x not in _JSON_TYPES]
        if unknown:
            problems.append(f"{where}: unknown type {unknown[0]!r}")
        if "enum" in node:
            counter["enum"] += len(node["enum"])
            counter["chars"] += sum(len(str(v)) for v in node["enum"])
        if "object" in type_list or "properties" in node:
            props = node.get("properties")
            if not isinstance(props, Mapping):
                problems.append(f"{where}: object without properties")
                props = {}
            if node.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties must be false")
            if sorted(node.get("required") or []) != sorted(props):
                problems.append(f"{where}: required must list every property")
            counter["properties"] += len(props)
            counter["chars"] += sum(len(n) for n in props)
            for name, sub in props.items():
                visit(sub, f"{pointer}/properties/{_escape(name)}", depth + 1)
        if "array" in type_list:
            if "items" not in node:
                problems.append(f"{where}: array without items")
        if "items" in node:
            visit(node["items"], f"{pointer}/items", depth + 1)
        for i, member in enumerate(node.get("anyOf") or []):
            visit(member, f"{pointer}/anyOf/{i}", depth + 1)

    visit(schema, "", 1)
    for name, sub in defs.items():
        visit(sub, f"/$defs/{_escape(name)}", 1)
    if counter["properties"] > MAX_PROPERTIES:
        problems.append(f"/: {counter['properties']} properties (at most {MAX_PROPERTIES})")
    if counter["enum"] > MAX_ENUM_VALUES:
        problems.append(f"/: {counter['enum']} enum values (at most {MAX_ENUM_VALUES})")
    if counter["chars"] > MAX_NAME_CHARS:
        problems.append(
            f"/: {counter['chars']} characters of names and enum values (at most {MAX_NAME_CHARS})"
        )
    return problems
