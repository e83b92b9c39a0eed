"""JSON Schema to a small type model that both languages render: scalars, literals, lists,
maps, unions, and named structs and aliases (``$defs``, so recursive schemas stay finite)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Scalar = str | int | bool | None


@dataclass(frozen=True)
class Prim:
    """``str``, ``int``, ``float``, ``bool``, ``null`` or ``any``."""

    name: str


@dataclass(frozen=True)
class Lit:
    values: tuple[Scalar, ...]


@dataclass(frozen=True)
class Arr:
    item: Type


@dataclass(frozen=True)
class Map:
    value: Type


@dataclass(frozen=True)
class Union:
    items: tuple[Type, ...]


@dataclass(frozen=True)
class Named:
    name: str


Type = Prim | Lit | Arr | Map | Union | Named
ANY = Prim("any")
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "null"}


@dataclass(frozen=True)
class Field:
    key: str  # the property name on the wire
    type: Type
    required: bool
    description: str


@dataclass(frozen=True)
class Struct:
    name: str
    fields: tuple[Field, ...]
    description: str = ""


@dataclass(frozen=True)
class Alias:
    name: str
    type: Type


Declaration = Struct | Alias


@dataclass
class Converter:
    """Converts the schemas of one module; ``claim`` turns a wanted type name into a free
    one (see :class:`._names.Namer`). Declarations are collected in order of first use."""

    claim: Callable[[str], str]
    declarations: list[Declaration] = field(default_factory=list)
    _refs: dict[tuple[int, str], str] = field(default_factory=dict)

    def convert(self, schema: Any, hint: str, root: Mapping[str, Any] | None = None) -> Type:
        """The type of ``schema``; ``hint`` names the structs it needs, ``root`` holds its
        ``$defs`` (default: ``schema`` itself)."""
        return self._type(schema, hint, schema if root is None else root)

    def _type(self, s: Any, hint: str, root: Any) -> Type:
        if not isinstance(s, Mapping):
            return ANY  # true, false, or not a schema
        if isinstance(s.get("$ref"), str):
            return self._ref(s["$ref"], root)
        if "const" in s and _is_literal(s["const"]):
            return Lit((s["const"],))
        enum = s.get("enum")
        if isinstance(enum, list) and enum and all(_is_literal(v) for v in enum):
            return Lit(tuple(dict.fromkeys(enum)))
        for key in ("oneOf", "anyOf"):
            branches = s.get(key)
            if isinstance(branches, list) and branches:
                options = [self._type(b, f"{hint}{i + 1}", root) for i, b in enumerate(branches)]
                return union(options)
        if isinstance(s.get("allOf"), list):
            return self._all_of(s, hint, root)
        kinds = s.get("type")
        if isinstance(kinds, list):
            rest = {k: v for k, v in s.items() if k != "type"}
            return union([self._type({**rest, "type": k}, hint, root) for k in kinds])
        found = self._plain(s, kinds, hint, root)
        return union([found, Prim("null")]) if s.get("nullable") is True else found

    def _plain(self, s: Mapping[str, Any], kind: Any, hint: str, root: Any) -> Type:
        if kind == "object" or (kind is None and isinstance(s.get("properties"), Mapping)):
            return self._object(s, hint, root)
        if kind == "array":
            return Arr(self._type(s.get("items"), f"{hint}Item", root))
        if isinstance(kind, str) and kind in _SCALARS:
            return Prim(_SCALARS[kind])
        return ANY

    def _object(self, s: Mapping[str, Any], hint: str, root: Any, name: str | None = None) -> Type:
        """A struct of the properties (named ``name`` when the caller claimed it), or a map."""
        props = s.get("properties")
        if not isinstance(props, Mapping) or not props:
            extra = s.get("additionalProperties")
            return Map(self._type(extra, f"{hint}Value", root) if extra else ANY)
        name = name or self.claim(hint)
        required = s.get("required")
        needed = set(required) if isinstance(required, list) else set()
        fields = tuple(
            Field(
                str(key),
                self._type(value, hint + pascal(str(key)), root),
                key in needed,
                _description(value),
            )
            for key, value in props.items()
        )
        self.declarations.append(Struct(name, fields, _description(s)))
        return Named(name)

    def _all_of(self, s: Mapping[str, Any], hint: str, root: Any) -> Type:
        """One struct of every branch's properties, when the branches are objects."""
        parts = [self._resolve(b, root) for b in s["allOf"]]
        own = {k: v for k, v in s.items() if k != "allOf"}
        if own.get("properties"):
            parts.append(own)
        if len(parts) == 1:
            return self._type(parts[0], hint, root)
        if not all(
            isinstance(p, Mapping) and isinstance(p.get("properties"), Mapping) for p in parts
        ):
            return ANY
        props: dict[str, Any] = {}
        required: list[Any] = []
        for part in parts:
            props.update(part["properties"])
            required += part.get("required") or []
        merged = {"type": "object", "properties": props, "required": required}
        return self._object({**merged, "description": own.get("description", "")}, hint, root)

    def _resolve(self, s: Any, root: Any) -> Any:
        if isinstance(s, Mapping) and isinstance(s.get("$ref"), str):
            target = _target(s["$ref"], root)
            return target if target is not None else {}
        return s

    def _ref(self, ref: str, root: Any) -> Type:
        target = _target(ref, root)
        if target is None:
            return ANY
        key = (id(root), ref)
        if key in self._refs:  # seen: a recursive schema refers to the name it is declaring
            return Named(self._refs[key])
        name = self.claim(pascal(ref.rsplit("/", 1)[-1]))
        self._refs[key] = name
        if _is_struct(target):
            return self._object(target, name, root, name)
        self.declarations.append(Alias(name, self._type(target, name, root)))
        return Named(name)


def union(options: list[Type]) -> Type:
    """The union of ``options``, flattened, without repeats; ``any`` absorbs the rest."""
    flat: list[Type] = []
    for option in options:
        for item in option.items if isinstance(option, Union) else (option,):
            if item == ANY:
                return ANY
            if item not in flat:
                flat.append(item)
    if not flat:
        return ANY
    return flat[0] if len(flat) == 1 else Union(tuple(flat))


def pascal(name: str) -> str:
    """``list_pull-requests`` -> ``ListPullRequests``; characters that are not letters or
    digits split words (the caller sanitises the result)."""
    words = "".join(c if c.isalnum() else " " for c in name).split()
    return "".join(w[:1].upper() + w[1:] for w in words)


def _target(ref: str, root: Any) -> Any:
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix) and isinstance(root, Mapping):
            defs = root.get(prefix[2:-1])
            if isinstance(defs, Mapping):
                return defs.get(ref[len(prefix) :].replace("~1", "/").replace("~0", "~"))
    return None


def _is_struct(s: Any) -> bool:
    """An object schema with properties and nothing that makes it another type."""
    if not isinstance(s, Mapping) or not isinstance(s.get("properties"), Mapping):
        return False
    other = ("$ref", "const", "enum", "oneOf", "anyOf", "allOf")
    plain = not any(k in s for k in other) and s.get("nullable") is not True
    return plain and bool(s["properties"]) and s.get("type", "object") == "object"


def _is_literal(value: Any) -> bool:
    """Python's Literal takes str, int, bool and None (not float)."""
    return value is None or isinstance(value, str | int | bool)


def _description(schema: Any) -> str:
    text = schema.get("description") if isinstance(schema, Mapping) else None
    return " ".join(text.split()) if isinstance(text, str) else ""
