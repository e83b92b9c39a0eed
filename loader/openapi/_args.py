"""The arguments of one tool: where each goes on the wire, and how it is written in a catalog."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import orjson
from toolcat.catalog import FrozenDict
from toolcat.loader._params import looks_secret
from toolcat.loader._schemas import ValueCheck

__all__ = ["Arg", "assign_names", "conforming", "safe_argument"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
# Ties between locations are broken in this order: the first keeps the plain name.
_PRIORITY = {"path": 0, "query": 1, "header": 2, "cookie": 3, "body": 4}


@dataclass(slots=True)
class Arg:
    """One top-level argument before it is written as a catalog parameter."""

    wire: str
    location: str
    required: bool
    schema: Any
    description: str | None = None
    style: str | None = None
    explode: bool | None = None
    allow_reserved: bool = False
    content_type: str | None = None
    file: bool = False
    argument: str = ""

    def to_doc(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"in": self.location}
        if self.argument != self.wire:
            doc["name"] = self.wire
        doc["required"] = self.required
        if self.style is not None:
            doc["style"] = self.style
        if self.explode is not None:
            doc["explode"] = self.explode
        if self.allow_reserved:
            doc["allow_reserved"] = True
        if self.content_type is not None:
            doc["content_type"] = self.content_type
        if self.file:
            doc["file"] = True
        schema = _as_object(self.schema)
        if looks_secret(self.argument, schema):  # masked in audit lines (TC133 otherwise)
            doc["sensitive"] = True
        if self.description:
            doc["description"] = self.description
        if isinstance(schema.get("required"), list):
            # `required` is both a placement key (a boolean) and a JSON Schema keyword
            # (a list). A required argument carries the list (the catalog reads a list as
            # the schema's and the argument as required, unless a `default` stands beside
            # it); an optional one, or a required one with a default, wraps its schema.
            if self.required and "default" not in schema:
                del doc["required"]
            else:
                doc["allOf"] = [schema]
                return doc
        for k, v in schema.items():
            if k == "description" and self.description:
                continue
            doc[k] = v
        return doc


def _as_object(schema: Any) -> Any:
    if schema is True or schema is None:
        return {}
    if schema is False:
        return {"not": {}}
    return schema


def safe_argument(wire: str) -> str:
    """A property name every provider accepts (``^[a-zA-Z0-9_.-]{1,64}$``)."""
    name = _UNSAFE.sub("_", wire).strip("_") or "arg"
    return name[:64]


def assign_names(args: list[Arg]) -> None:
    """Give each argument a unique name, deterministically (the IR keeps the wire name).

    The plain name goes to the first argument by location (path, query, header,
    cookie, body), then spec order; the others get ``_<location>``, then a number.
    """
    order = sorted(range(len(args)), key=lambda i: (_PRIORITY.get(args[i].location, 9), i))
    taken: set[str] = set()
    for i in order:
        arg = args[i]
        base = safe_argument(arg.wire)
        name = base
        if name in taken:
            name = f"{base[:55]}_{arg.location}"
            n = 1
            while name in taken:
                n += 1
                name = f"{base[:52]}_{arg.location}{n}"
        taken.add(name)
        arg.argument = name


def conforming(schema: Any, defs: dict[str, Any], notes: list[str], where: str) -> Any:
    """``schema`` without a ``default`` or ``enum`` values that break it (specs have them).

    The loader refuses a catalog whose parameter defaults or enum values break
    their own schema; an imported spec must not fail as a whole for that, so the
    offending values are dropped here, each with a note.
    """
    if type(schema) not in (dict, FrozenDict) or ("default" not in schema and "enum" not in schema):
        return schema
    out = dict(schema)
    rest = {k: v for k, v in out.items() if k not in ("enum", "default")}
    enum = out.get("enum")
    if isinstance(enum, list):
        kept = [v for v in enum if _conforms(v, rest, defs)]
        if len(kept) != len(enum):
            notes.append(f"{where}: enum values that break the schema were left out")
            if kept:
                out["enum"] = kept
            else:
                del out["enum"]
    if "default" in out and not _conforms(out["default"], out, defs):
        notes.append(f"{where}: the default {out['default']!r} breaks the schema; left out")
        del out["default"]
    return out


def _conforms(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    """Whether ``value`` conforms to ``schema`` (its ``$ref``s into ``defs``): decided by
    jsonschema-rs, as the loader decides it for a catalog's own defaults and enum values.

    Specs repeat the same small parameter schemas across operations (GitHub's ``per_page``
    hundreds of times), so each distinct one is compiled once, found by its canonical text.
    """
    try:
        text = orjson.dumps(schema, option=_CANONICAL)
        if defs and (b'{"$ref":' in text or b',"$ref":' in text):  # a key, as orjson writes it
            return ValueCheck({**schema, "$defs": defs}).conforms(value)
        return _value_check(text).conforms(value)
    except Exception:  # a schema jsonschema cannot use (a bad pattern...): leave the value out
        return False


_CANONICAL = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


@functools.lru_cache(maxsize=1024)
def _value_check(text: bytes) -> ValueCheck:
    return ValueCheck(orjson.loads(text))
