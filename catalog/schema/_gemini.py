"""Gemini: rewrite a JSON Schema into the OpenAPI-subset ``Schema`` of ``functionDeclarations``.

Gemini's ``FunctionDeclaration.parameters`` takes a select subset of an OpenAPI
3.0 schema object: ``type`` (one name), ``format``, ``title``, ``description``,
``nullable``, ``enum`` (strings), ``properties``, ``required``,
``propertyOrdering``, ``items``, ``minItems``/``maxItems``,
``minProperties``/``maxProperties``, ``minLength``/``maxLength``, ``pattern``,
``minimum``/``maximum``, ``default``, ``example`` and ``anyOf``. The conversion:

- inlines every ``$ref`` (``$defs``/``definitions``); a recursive reference is
  expanded :data:`RECURSION_DEPTH` times, then replaced by a described
  ``{"type": "object"}``;
- turns ``"type": [T, "null"]`` and ``anyOf``/``oneOf`` members ``{"type": "null"}``
  into ``nullable: true``; ``oneOf`` becomes ``anyOf``; ``allOf`` is merged;
- turns ``const`` into a one-value ``enum``, and ``examples`` into ``example``;
- keeps ``format`` only where Gemini knows it (``date-time``, ``enum``,
  ``int32``/``int64``, ``float``/``double``);
- moves constraints it cannot express (``exclusiveMinimum``, ``multipleOf``,
  ``uniqueItems``, other formats, non-string enums, an open
  ``additionalProperties``, ...) into the node's description as text, and
  drops the rest (``additionalProperties: false``, ``$schema``, ``readOnly``, ...).

Every keyword dropped or moved, and every cut-off recursion, is reported as a
note ``(pointer, what)`` (translations that keep the meaning, such as
``nullable`` or inlined refs, are not); the exporter hands the
notes back with the declarations, and ``toolcat schema`` prints them on stderr.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._schema_walk import def_name, merge_lists, merge_part, refinements, short, split_defs

__all__ = ["GeminiResult", "to_gemini_schema"]

RECURSION_DEPTH = 2
GEMINI_KEYWORDS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems",
        "minItems", "properties", "required", "minProperties", "maxProperties",
        "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
        "default", "items", "minimum", "maximum",
    }
)  # fmt: skip
_FORMATS = {
    "string": {"date-time", "enum"},
    "integer": {"int32", "int64"},
    "number": {"float", "double"},
}
# Dropped (with a note, but nothing in the description): they do not constrain the value
# the model writes, or Gemini's default already matches.
_DROPPED = frozenset(
    {"$schema", "$id", "$comment", "$anchor", "readOnly", "writeOnly", "deprecated",
     "contentMediaType", "contentEncoding", "discriminator", "xml", "externalDocs"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class GeminiResult:
    """The converted schema and, per JSON pointer, what changed."""

    schema: dict[str, Any]
    notes: tuple[tuple[str, str], ...] = ()


def to_gemini_schema(schema: Mapping[str, Any]) -> GeminiResult:
    """Convert a JSON Schema (2020-12) into Gemini's OpenAPI-subset schema.

    >>> to_gemini_schema({"type": ["string", "null"], "const": "x"}).schema
    {'type': 'string', 'enum': ['x'], 'nullable': True}
    """
    root, defs = split_defs(schema)
    conv = _Converter(defs)
    out = conv.node(root, "", ())
    return GeminiResult(out, tuple(conv.notes))


class _Converter:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.notes: list[tuple[str, str]] = []

    def note(self, pointer: str, text: str) -> None:
        self.notes.append((pointer, text))

    def node(self, schema: Any, pointer: str, stack: tuple[str, ...]) -> dict[str, Any]:
        if schema is True or not isinstance(schema, dict):
            return {}
        s = dict(schema)
        while "$ref" in s:
            ref = s.pop("$ref")
            if stack.count(ref) >= RECURSION_DEPTH:
                desc = s.get("description") or ""
                text = (
                    f"{desc} (recursive structure {ref.rsplit('/', 1)[-1]}, not expanded further)"
                )
                self.note(pointer, f"recursion through {ref} cut off")
                return {"type": "object", "description": text.strip()}
            target = self._resolve(ref)
            if target is None:
                self.note(pointer, f"unresolved $ref {ref} dropped")
                break
            stack = (*stack, ref)
            s = {**target, **s}
        if "allOf" in s:
            s, stack = self._merge_all_of(s, pointer, stack)
        moved: list[str] = refinements(s)
        out: dict[str, Any] = {}
        nullable = _pop_type(s, out)
        out, null_member = self._unions(s, out, pointer, stack)
        null_value = self._keywords(s, out, pointer, stack, moved)
        self._finish(out, pointer, nullable or null_member or null_value, moved)
        return out

    def _unions(
        self, s: dict[str, Any], out: dict[str, Any], pointer: str, stack: tuple[str, ...]
    ) -> tuple[dict[str, Any], bool]:
        """anyOf and oneOf as Gemini's anyOf (a null member makes the schema nullable; one
        member left is inlined); returns the schema so far and whether a member was null."""
        if "oneOf" in s:
            self.note(pointer, "oneOf rewritten as anyOf")
        members = list(s.pop("anyOf", [])) + list(s.pop("oneOf", []))
        nullable = False
        non_null = []
        for m in members:
            if isinstance(m, dict) and (m.get("type") == "null" or m.get("enum") == [None]):
                nullable = True
            else:
                non_null.append(m)
        if len(non_null) == 1 and "type" not in out:
            inner = self.node(non_null[0], f"{pointer}/anyOf/0", stack)
            desc = s.get("description")
            out = {**inner, **out}
            if desc:
                out["description"] = desc
        elif non_null:
            out["anyOf"] = [
                self.node(m, f"{pointer}/anyOf/{i}", stack) for i, m in enumerate(non_null)
            ]
        return out, nullable

    def _keywords(  # noqa: C901  one branch per keyword Gemini takes, rewrites or moves
        self,
        s: dict[str, Any],
        out: dict[str, Any],
        pointer: str,
        stack: tuple[str, ...],
        moved: list[str],
    ) -> bool:
        """The other keywords into ``out``, or into ``moved`` (the description) where Gemini
        has none; returns whether an enum allowed null."""
        nullable = False
        if "const" in s:
            s["enum"] = [s.pop("const")]
        if "examples" in s:
            examples = s.pop("examples")
            if isinstance(examples, list) and examples and "example" not in s:
                s["example"] = examples[0]
        for key, value in s.items():
            if key == "properties":
                out["properties"] = {
                    name: self.node(sub, f"{pointer}/properties/{name}", stack)
                    for name, sub in value.items()
                }
            elif key == "items":
                if isinstance(value, dict):
                    out["items"] = self.node(value, f"{pointer}/items", stack)
                else:
                    moved.append("items: a tuple of schemas")
            elif key == "required":
                out["required"] = list(value)
            elif key == "enum":
                if all(isinstance(v, str) for v in value if v is not None):
                    if None in value:
                        nullable = True
                    out["enum"] = [v for v in value if v is not None]
                    out.setdefault("type", "string")
                else:
                    moved.append(f"one of {short(value)}")
            elif key == "format":
                kind = out.get("type")
                if isinstance(kind, str) and value in _FORMATS.get(kind, ()):
                    out["format"] = value
                else:
                    moved.append(f"format: {value}")
            elif key in ("description", "title"):
                out.setdefault(key, value)
            elif key in GEMINI_KEYWORDS:
                out[key] = value
            elif key in ("$defs", "definitions"):
                self.note(f"{pointer}/{key}", "nested definitions ignored (refs are inlined)")
            elif key == "additionalProperties":
                # ``false`` is dropped quietly: Gemini never invents properties anyway.
                if isinstance(value, Mapping) and value:  # a map: say what its values are
                    moved.append(f"additional properties allowed, each {short(value)}")
                elif value is not False:
                    moved.append("additional properties allowed")
            elif key in _DROPPED:
                self.note(pointer, f"{key} dropped")
            else:
                moved.append(f"{key}: {short(value)}")
        return nullable

    def _finish(self, out: dict[str, Any], pointer: str, nullable: bool, moved: list[str]) -> None:
        """A type where the keywords imply one, nullable, and what moved to the description."""
        if "type" not in out and "anyOf" not in out:
            if "properties" in out:
                out["type"] = "object"
            elif "items" in out:
                out["type"] = "array"
            else:
                self.note(pointer, "a schema without a type (any value) left untyped")
        if "required" in out and "properties" in out:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
        if nullable:
            out["nullable"] = True
        if moved:
            text = "; ".join(moved)
            desc = out.get("description")
            out["description"] = f"{desc} ({text})" if desc else f"({text})"
            self.note(pointer, f"moved to the description: {text}")

    def _resolve(self, ref: str) -> dict[str, Any] | None:
        name = def_name(ref)
        target = None if name is None else self.defs.get(name)
        return dict(target) if isinstance(target, dict) else None

    def _merge_all_of(
        self, s: dict[str, Any], pointer: str, stack: tuple[str, ...]
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        """The members of ``allOf`` merged into one schema, their refs inlined; the refs
        followed join ``stack``, so a schema that reaches itself through ``allOf`` (AWS's
        ``Expression``: ``allOf: [{$ref: Expression}, ...]``) is cut off like any other."""
        merged: dict[str, Any] = {}
        for part in s.pop("allOf"):
            if not isinstance(part, dict):
                continue
            while "$ref" in part:
                ref = part["$ref"]
                rest = {k: v for k, v in part.items() if k != "$ref"}
                if stack.count(ref) >= RECURSION_DEPTH:
                    self.note(pointer, f"recursion through {ref} cut off")
                    part = rest
                    break
                target = self._resolve(ref)
                if target is None:
                    break
                stack = (*stack, ref)
                part = {**target, **rest}
            merge_part(merged, part)
        return {**merged, **s, **merge_lists(merged, s)}, stack


def _pop_type(s: dict[str, Any], out: dict[str, Any]) -> bool:
    """``type`` into ``out`` as Gemini takes it (one name); a list of several becomes an
    anyOf of them in ``s``. Returns whether null was one of the types."""
    nullable = False
    types = s.pop("type", None)
    if isinstance(types, list):
        if "null" in types:
            nullable = True
            types = [t for t in types if t != "null"]
        if len(types) == 1:
            types = types[0]
        elif len(types) > 1:
            s.setdefault("anyOf", [{"type": t} for t in types])
            types = None
        else:
            types = None
    elif types == "null":
        nullable, types = True, None
    if isinstance(types, str):
        out["type"] = types
    return nullable
