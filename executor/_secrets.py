"""Which argument values are secret (writeOnly, format: password, sensitive), and masking them.

:func:`secret_shape` reads a tool's input schema once into a :class:`SecretShape` graph;
:func:`mask_secrets` walks a call's arguments along it, returning the arguments with each
secret value replaced by ``MASK`` and the values it masked (for the call's redactor).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote

from toolcat.catalog.common import pattern_search

from ._redact import MASK

__all__ = ["MAX_SECRET_DEPTH", "SecretShape", "mask_secrets", "secret_shape"]

# Nesting of arguments walked; a value deeper than this under a secret-bearing schema
# is masked whole (no real argument comes near it; a recursive schema has no end).
MAX_SECRET_DEPTH = 64
# In-place applicators: their subschemas describe the instance itself. ``not`` does not.
_IN_PLACE = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("if", "then", "else")


def _marked(schema: Mapping[str, Any]) -> bool:
    return schema.get("writeOnly") is True or schema.get("format") == "password"


class SecretShape:
    """Where the secrets lie in the instances of one schema object.

    A node of a graph (a recursive schema makes it cyclic) with the secret-bearing
    subschemas of each keyword that reaches a part of the instance: ``properties``,
    ``patternProperties``, ``additionalProperties`` and ``unevaluatedProperties`` for
    an object's values, ``prefixItems``, ``items`` (and the older ``additionalItems``),
    ``contains`` and ``unevaluatedItems`` for an array's; ``also`` holds the schemas
    that apply to the instance itself (``allOf``/``anyOf``/``oneOf``, ``if``/``then``/
    ``else``, ``dependentSchemas``, ``$ref``). ``whole``: the instance is a secret.
    Where JSON Schema applies a keyword only sometimes (a branch that fails, a
    dependency that is absent) it is taken to apply: masking more is safe.
    """

    __slots__ = (
        "also",
        "items",
        "names",
        "others",
        "pattern_names",
        "patterns",
        "prefix",
        "properties",
        "whole",
    )

    def __init__(self) -> None:
        self.whole = False
        self.properties: dict[str, list[SecretShape]] = {}
        self.names: frozenset[str] = frozenset()  # every property, secret or not
        self.pattern_names: tuple[str, ...] = ()  # every pattern, secret or not
        self.patterns: list[tuple[str, SecretShape]] = []  # the secret ones
        self.others: list[SecretShape] = []  # values no property and no pattern names
        self.prefix: list[list[SecretShape]] = []
        self.items: list[SecretShape] = []  # items past the prefix (all: contains)
        self.also: list[SecretShape] = []

    def _children(self) -> Iterator[SecretShape]:
        for shapes in (*self.properties.values(), *self.prefix):
            yield from shapes
        yield from (shape for _, shape in self.patterns)
        yield from self.others
        yield from self.items
        yield from self.also


class _ShapeBuilder:
    """Builds the :class:`SecretShape` graph of one root schema (local ``$ref``s followed)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        # id(schema) -> its shape: a cycle ends here (every schema lies in root, alive)
        self.made: dict[int, SecretShape] = {}

    def shape(self, schema: Any, depth: int = 0) -> SecretShape | None:
        if not isinstance(schema, Mapping):
            return None
        found = self.made.get(id(schema))
        if found is not None:
            return found
        shape = self.made[id(schema)] = SecretShape()
        # a schema nested past the bound is not read: what lies below it is masked
        shape.whole = _marked(schema) or depth > MAX_SECRET_DEPTH
        if not shape.whole:
            self._fill(shape, schema, depth + 1)
        return shape

    def _fill(self, shape: SecretShape, schema: Mapping[str, Any], depth: int) -> None:
        self._fill_object(shape, schema, depth)
        self._fill_array(shape, schema, depth)
        self._fill_in_place(shape, schema, depth)

    def _add(self, into: list[SecretShape], sub: Any, depth: int) -> None:
        found = self.shape(sub, depth)
        if found is not None:
            into.append(found)

    def _fill_object(self, shape: SecretShape, schema: Mapping[str, Any], depth: int) -> None:
        """The keywords that reach an object's values."""
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            shape.names = frozenset(properties)
            for name, sub in properties.items():
                self._add(shape.properties.setdefault(name, []), sub, depth)
        patterns = schema.get("patternProperties")
        if isinstance(patterns, Mapping):
            shape.pattern_names = tuple(str(p) for p in patterns)
            for pattern, sub in patterns.items():
                found = self.shape(sub, depth)
                if found is not None:
                    shape.patterns.append((str(pattern), found))
        for key in ("additionalProperties", "unevaluatedProperties"):
            self._add(shape.others, schema.get(key), depth)

    def _fill_array(self, shape: SecretShape, schema: Mapping[str, Any], depth: int) -> None:
        """The keywords that reach an array's items."""
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(items, list | tuple):  # before 2020-12: items as a list is the prefix
            prefix, items = items, schema.get("additionalItems")
        for sub in prefix if isinstance(prefix, list | tuple) else ():
            slot: list[SecretShape] = []
            self._add(slot, sub, depth)
            shape.prefix.append(slot)
        for sub in (items, schema.get("unevaluatedItems"), schema.get("contains")):
            self._add(shape.items, sub, depth)

    def _fill_in_place(self, shape: SecretShape, schema: Mapping[str, Any], depth: int) -> None:
        """The keywords whose schemas apply to the instance itself."""
        for key in _IN_PLACE:
            for sub in schema.get(key) or ():
                self._add(shape.also, sub, depth)
        for key in _IN_PLACE_ONE:
            self._add(shape.also, schema.get(key), depth)
        for key in ("dependentSchemas", "dependencies"):
            subs = schema.get(key)
            for sub in subs.values() if isinstance(subs, Mapping) else ():
                self._add(shape.also, sub, depth)
        ref = schema.get("$ref")
        if isinstance(ref, str):  # beside other keywords (2020-12): applies in place too
            self._add(shape.also, self._target(ref), depth)

    def _target(self, ref: str) -> Any:
        """The local schema ``ref`` names (``#``, ``#/$defs/x``...), or ``None``."""
        if not ref.startswith("#"):
            return None  # a URL or a file: never fetched, the call's validation refuses it
        value: Any = self.root
        pointer = unquote(ref[1:])
        for token in pointer.split("/")[1:] if pointer else ():
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(value, Mapping) and token in value:
                value = value[token]
            elif isinstance(value, list | tuple) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                return None
        return value


def _prune(shapes: Iterable[SecretShape]) -> None:
    """Keep only the subschemas that lead to a secret (a fixpoint over the graph)."""
    every = list(shapes)
    secret = {id(s) for s in every if s.whole}
    changed = True
    while changed:
        changed = False
        for s in every:
            if id(s) not in secret and any(id(c) in secret for c in s._children()):
                secret.add(id(s))
                changed = True
    for s in every:

        def kept(found: list[SecretShape]) -> list[SecretShape]:
            return [c for c in found if id(c) in secret]

        s.properties = {k: kept(v) for k, v in s.properties.items() if kept(v)}
        s.patterns = [(p, c) for p, c in s.patterns if id(c) in secret]
        s.others, s.items, s.also = kept(s.others), kept(s.items), kept(s.also)
        s.prefix = [kept(slot) for slot in s.prefix]


def secret_shape(schema: Any, names: Iterable[str] = ()) -> SecretShape | None:
    """Where ``schema`` (a tool's input schema) marks its instances secret, or ``None``.

    ``writeOnly: true`` and ``format: password`` mark a value secret wherever the schema
    reaches it; ``names`` are arguments the catalog marks ``sensitive: true``.
    """
    builder = _ShapeBuilder(schema)
    root = builder.shape(schema) or SecretShape()
    whole = SecretShape()
    whole.whole = True
    for name in names:
        root.properties.setdefault(name, []).append(whole)
    _prune([root, whole, *builder.made.values()])
    if not root.whole and not any(True for _ in root._children()):
        return None
    return root


def _in_place(shapes: Iterable[SecretShape]) -> list[SecretShape]:
    """``shapes`` and every shape their ``also`` reaches (each once)."""
    out: list[SecretShape] = []
    seen: set[int] = set()
    stack = list(shapes)
    while stack:
        shape = stack.pop()
        if id(shape) not in seen:
            seen.add(id(shape))
            out.append(shape)
            stack.extend(shape.also)
    return out


def _value_shapes(shapes: list[SecretShape], key: str) -> list[SecretShape]:
    """The shapes of the value at ``key`` of an object whose shapes are ``shapes``."""
    found: list[SecretShape] = []
    for shape in shapes:
        found.extend(shape.properties.get(key, ()))
        found.extend(sub for pattern, sub in shape.patterns if pattern_search(pattern, key))
        if shape.others and key not in shape.names:
            if not any(pattern_search(p, key) for p in shape.pattern_names):
                found.extend(shape.others)
    return found


def _item_shapes(shapes: list[SecretShape], index: int) -> list[SecretShape]:
    found: list[SecretShape] = []
    for shape in shapes:
        found.extend(shape.prefix[index] if index < len(shape.prefix) else shape.items)
    return found


def _scalars(value: Any, out: list[str]) -> None:
    """Every string and number in ``value``, as text, into ``out``."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out.append(json.dumps(value))
    elif isinstance(value, Mapping):
        for item in value.values():
            _scalars(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            _scalars(item, out)


def _walk(value: Any, shapes: list[SecretShape], depth: int, found: list[str]) -> Any:
    """``value`` with its secrets masked; the secrets' texts are added to ``found``."""
    shapes = _in_place(shapes)
    if any(s.whole for s in shapes) or depth > MAX_SECRET_DEPTH:
        _scalars(value, found)
        return MASK
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            subs = _value_shapes(shapes, str(key))
            out[key] = _walk(item, subs, depth + 1, found) if subs else item
        return out
    if isinstance(value, list | tuple):
        items = []
        for index, item in enumerate(value):
            subs = _item_shapes(shapes, index)
            items.append(_walk(item, subs, depth + 1, found) if subs else item)
        return items
    return value


def mask_secrets(args: Any, shape: SecretShape | None) -> tuple[Any, list[str]]:
    """``args`` with every value ``shape`` marks secret replaced by ``***``, and the
    masked values as text (strings and numbers) for a :class:`Redactor`.

    >>> shape = secret_shape({"additionalProperties": {"format": "password"}})
    >>> mask_secrets({"db": "hunter22"}, shape)
    ({'db': '***'}, ['hunter22'])
    """
    if shape is None:
        return args, []
    found: list[str] = []
    return _walk(args, [shape], 0, found), found
