"""Arguments: parse the model's JSON, validate it against the tool's schema, apply defaults."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolcat.catalog.common import (
    MAX_NESTING_DEPTH,
    linear_validator,
    recursion_headroom,
    schema_objects,
    thaw,
)

from ._calls import ToolError

__all__ = [
    "CHECKED_FORMATS",
    "INTEGER_FORMATS",
    "ArgumentChecker",
    "format_loc",
    "parse_arguments",
    "sealed_validator",
]

if TYPE_CHECKING:
    import jsonschema_rs

# OpenAPI's integer formats, as validating servers (Prism, ajv) enforce them: int64 is held to
# the integers a JSON number keeps exactly everywhere (I-JSON, RFC 7493 §2.2), ±(2**53 - 1).
# jsonschema-rs checks formats of strings only, so these become bounds (_integer_bounds).
INTEGER_FORMATS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**53) + 1, 2**53 - 1)}

# The formats of JSON Schema 2020-12 that jsonschema-rs checks (validate_formats=True), less
# iri and iri-reference, plus the integer formats: docs/executor.md lists exactly these (a
# test compares the two). iri and iri-reference stay annotations, as before jsonschema-rs:
# a call accepted then is not refused now. Any other format is an annotation.
_UNCHECKED_FORMATS = ("iri", "iri-reference")
CHECKED_FORMATS = frozenset(
    {
        "date",
        "date-time",
        "duration",
        "email",
        "hostname",
        "idn-email",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "json-pointer",
        "regex",
        "relative-json-pointer",
        "time",
        "uri",
        "uri-reference",
        "uri-template",
        "uuid",
        *INTEGER_FORMATS,
    }
)


def _annotation(value: str) -> bool:
    return True


_FORMATS = dict.fromkeys(_UNCHECKED_FORMATS, _annotation)


def sealed_validator(schema: Any, *, formats: bool = False) -> jsonschema_rs.Validator:
    """A jsonschema-rs validator of ``schema`` that never retrieves a ``$ref`` target from
    outside the schema and runs its regexes in linear time
    (:func:`toolcat.catalog.common.linear_validator`). ``formats``: assert :data:`CHECKED_FORMATS`
    (arguments); otherwise formats are annotations (the upstream's output).

    Raises ``jsonschema_rs.ValidationError`` for a schema it cannot compile.
    """
    if not formats:
        return linear_validator(schema)
    with recursion_headroom():
        bounded = _integer_bounds(thaw(schema))
    return linear_validator(bounded, formats=_FORMATS)


def _integer_bounds(plain: Any) -> Any:
    """``plain`` with each ``format: int32``/``int64`` given its bounds beside it (``allOf``),
    in place: the same values pass (numbers in range, and every value of another type)."""
    for _, node in schema_objects(plain):
        fmt = node.get("format")
        bounds = INTEGER_FORMATS.get(fmt) if isinstance(fmt, str) else None
        alls = node.get("allOf", [])
        if bounds is not None and isinstance(alls, list):
            node["allOf"] = [*alls, {"minimum": bounds[0], "maximum": bounds[1]}]
    return plain


_MAX_MSG = 300
_MAX_ERRORS = 20


def parse_arguments(raw: str | Mapping[str, Any]) -> dict[str, Any] | ToolError:
    """The arguments as a fresh ``dict``, or an ``invalid_json`` error.

    A string must hold one JSON object; an empty string, malformed JSON or any
    other JSON value is an error (models sometimes send ``""`` for "no arguments":
    that is still an error, so the model learns to send ``{}``).
    """
    if isinstance(raw, Mapping):
        args = dict(raw)
        bad = _unsendable(args)
        return args if bad is None else bad
    if not isinstance(raw, str | bytes):
        return ToolError(
            "invalid_json", f"arguments must be a JSON object, got {type(raw).__name__}"
        )
    if not raw.strip():
        return ToolError("invalid_json", "arguments are empty: send a JSON object, e.g. {}")
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return ToolError("invalid_json", f"arguments are not valid JSON: {exc}")
    except RecursionError:
        return _too_deep()
    if not isinstance(value, dict):
        return ToolError(
            "invalid_json", f"arguments must be a JSON object, got {_json_type(value)}"
        )
    bad = _unsendable(value)
    return value if bad is None else bad


def _too_deep() -> ToolError:
    return ToolError(
        "invalid_arguments",
        f"arguments nest deeper than {MAX_NESTING_DEPTH} levels (the nesting limit)",
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _unsendable(args: dict[str, Any]) -> ToolError | None:
    """The first value JSON cannot carry: a non-finite number or a lone surrogate.

    Python's ``json`` reads ``NaN``, ``Infinity`` and ``1e999`` (as ``inf``), and a
    ``\\ud800`` escape as a lone surrogate, which no UTF-8 encoder writes; a mapping
    from a provider SDK may hold either too. Walked iteratively (no recursion), once
    per node: the arguments are already in memory, so the walk is linear in them. Each
    node carries where it is as a link to its parent's place: the location is built
    only for a value refused, and the exact types ``json`` builds are told apart first.
    """
    stack: list[tuple[Any, int, _Place]] = [(args, 0, None)]
    while stack:
        value, depth, place = stack.pop()
        kind = type(value)
        if kind in _LEAVES:
            continue
        if kind is str or isinstance(value, str):
            if _SURROGATE.search(value):
                return ToolError(
                    "invalid_arguments",
                    "a string holds a lone UTF-16 surrogate (such as \\ud800): "
                    "send valid Unicode text",
                    _loc(place),
                )
        elif kind is float or isinstance(value, float):
            if not math.isfinite(value):
                what = "NaN" if math.isnan(value) else "an infinite number"
                return ToolError(
                    "invalid_arguments",
                    f"{what} is not a JSON number: send a finite number or a string",
                    _loc(place),
                )
        elif kind is dict or isinstance(value, Mapping):
            if depth >= MAX_NESTING_DEPTH:
                return _too_deep()
            for key, item in value.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return ToolError(
                        "invalid_arguments",
                        "a property name holds a lone UTF-16 surrogate (such as \\ud800): "
                        "send valid Unicode text",
                        _loc(place),
                    )
                stack.append((item, depth + 1, (place, key)))
        elif kind is list or isinstance(value, list | tuple):
            if depth >= MAX_NESTING_DEPTH:
                return _too_deep()
            stack.extend([(item, depth + 1, (place, i)) for i, item in enumerate(value)])
    return None


#: Where a value sits: ``None`` for the arguments themselves, else (its parent's place, key).
_Place = tuple[Any, str | int] | None
# the exact types with nothing to check (a subclass takes the checks' isinstance path)
_LEAVES = frozenset({int, bool, type(None)})


def _loc(place: _Place) -> tuple[str | int, ...]:
    """The location in the arguments of the value at ``place``."""
    keys: list[str | int] = []
    while place is not None:
        place, key = place
        keys.append(key)
    return tuple(reversed(keys))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


class ArgumentChecker:
    """A tool's compiled validator and top-level defaults; build once per tool (the plan).

    The validator is jsonschema-rs's (:func:`sealed_validator` with the checked formats):
    compiled Rust, linear-time regexes, no retrieval, so a check is bounded by the size
    of the arguments and the schema and is cheap enough to run on an event loop.
    """

    __slots__ = ("_schema", "_validator", "_refusal", "_defaults")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        import jsonschema_rs

        self._schema = schema
        self._validator: jsonschema_rs.Validator | None = None
        self._refusal: ToolError | None = None  # a schema that cannot be compiled
        try:
            self._validator = sealed_validator(schema, formats=True)
        except jsonschema_rs.ValidationError as exc:
            self._refusal = _refusal(exc)
        except ValueError as exc:  # "Recursion limit reached": nested past 255 levels
            self._refusal = ToolError(
                "refused_by_policy", f"the tool's input schema cannot be compiled: {exc}"
            )
        props = schema.get("properties") or {}
        self._defaults = tuple(
            (name, sub["default"])
            for name, sub in props.items()
            if isinstance(sub, Mapping) and "default" in sub
        )

    def check(self, args: dict[str, Any]) -> tuple[ToolError, ...]:
        """Every violation, in the schema's order; applies defaults when there are none.

        ``args`` is the caller's fresh dict (from :func:`parse_arguments`): defaults
        are added to it in place, never to the caller's own mapping.
        """
        errors = self._errors(args)
        if errors:
            errors = self._retry_without_strict_nulls(args, errors)
        if not errors:
            for name, default in self._defaults:
                if name not in args:
                    args[name] = _copy_json(default)
        return errors

    def _retry_without_strict_nulls(
        self, args: dict[str, Any], errors: tuple[ToolError, ...]
    ) -> tuple[ToolError, ...]:
        """Accept ``null`` for an optional argument whose schema has no null.

        OpenAI strict mode makes every property required and optional ones
        nullable, so a model sends ``null`` for what it leaves out; models outside
        strict mode often do the same. Such a ``null`` means "absent": it is
        dropped (at any depth) and the call checked again; the errors reported are
        those that remain. Only when the call is then valid does ``args`` change.
        """
        from toolcat.catalog.schema import strip_strict_nulls

        with recursion_headroom():  # strip_strict_nulls recurses per level
            stripped = strip_strict_nulls(self._schema, args)
        if stripped == args:
            return errors
        remaining = self._errors(stripped)
        if not remaining:
            args.clear()
            args.update(stripped)
        return remaining

    def _errors(self, args: dict[str, Any]) -> tuple[ToolError, ...]:
        validator = self._validator
        if validator is None:
            assert self._refusal is not None
            return (self._refusal,)
        try:
            if validator.is_valid(args):
                return ()
            found = validator.iter_errors(args)
            out: list[ToolError] = []
            seen: set[tuple[tuple[str | int, ...], str]] = set()
            for err in found:
                for error in _describe(err, self._schema):
                    if (error.loc, error.msg) not in seen:  # one per property, not per keyword
                        seen.add((error.loc, error.msg))
                        out.append(error)
                if len(out) >= _MAX_ERRORS:
                    out = out[:_MAX_ERRORS]
                    out.append(ToolError("invalid_arguments", "more violations not shown"))
                    break
        except ValueError as exc:  # a value of a type JSON has not, from a caller's mapping
            return (ToolError("invalid_arguments", f"arguments must be JSON values: {exc}"),)
        return tuple(out)


def _refusal(exc: jsonschema_rs.ValidationError) -> ToolError:
    """The error every call of a tool gets whose schema jsonschema-rs cannot compile."""
    if exc.kind.name == "$ref":
        # "Resource 'URL' is not present in a registry and retrieving it failed: ..."
        reason = exc.message.split(" and retrieving it failed")[0]
        return ToolError(
            "refused_by_policy",
            f"the tool's schema has a $ref that does not resolve inside it "
            f"({reason[:_MAX_MSG]}); toolcat never fetches a schema from a URL or a file "
            "(fix the catalog)",
        )
    where = "/".join(str(p) for p in exc.instance_path)
    return ToolError(
        "refused_by_policy",
        f"the tool's input schema is not valid JSON Schema"
        f"{f' at {where}' if where else ''}: {exc.message[:_MAX_MSG]} (fix the catalog)",
    )


def _describe(err: jsonschema_rs.ValidationError, root: Any) -> list[ToolError]:
    loc = tuple(err.instance_path)
    kind = err.kind.as_dict()
    name = err.kind.name
    if name == "required":
        return [
            ToolError("invalid_arguments", "required argument is missing", (*loc, kind["property"]))
        ]
    if name in ("additionalProperties", "unevaluatedProperties"):
        known = _known_properties(root, err.schema_path[:-1])
        hint = f"; allowed: {', '.join(sorted(known))}" if known else ""
        return [
            ToolError("invalid_arguments", f"unexpected argument{hint}", (*loc, key))
            for key in kind["unexpected"]
        ]
    message = err.message
    if len(message) > _MAX_MSG:
        message = message[: _MAX_MSG - 1] + "…"
    return [ToolError("invalid_arguments", message, loc)]


def _known_properties(root: Any, path: list[str | int]) -> list[str]:
    """The ``properties`` of the schema object at ``path`` (jsonschema-rs's ``schema_path``
    of a keyword, resolved through ``$ref``: it names the target), or none."""
    node = root
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return []
    props = node.get("properties") if isinstance(node, Mapping) else None
    return [str(k) for k in props] if isinstance(props, Mapping) else []


def _copy_json(value: Any) -> Any:
    # Defaults come from the frozen schema: hand out plain, mutable copies.
    if isinstance(value, Mapping):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy_json(v) for v in value]
    return value


def format_loc(loc: tuple[str | int, ...]) -> str:
    """``("items", 0, "qty")`` -> ``items[0].qty`` (how the model reads a location)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
