"""Arguments: parse the model's JSON, validate it against the tool's schema, apply defaults."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolcat.catalog import (
    INTEGER_FORMATS,
    MAX_NESTING_DEPTH,
    compile_check,
    integer_format_check,
    linear_regex,
    recursion_headroom,
    sealed_registry,
)

from ._calls import ToolError

__all__ = [
    "ArgumentChecker",
    "format_loc",
    "parse_arguments",
    "sealed_validator",
]

if TYPE_CHECKING:
    from jsonschema import FormatChecker
    from jsonschema.exceptions import ValidationError

# jsonschema is imported on the first call the fast check cannot decide (a violation to
# describe, a keyword it does not know), not with the executor: with its format checkers
# it is a third of `from toolcat.executor import Executor` (about 90 ms).


@functools.cache
def _format_checker() -> FormatChecker:
    """JSON Schema 2020-12's formats as jsonschema checks them with its format-nongpl extra
    (date-time, uri, hostname, duration, ... need it: declared in pyproject), plus OpenAPI's
    int32/int64. docs/executor.md lists exactly these (a test compares the two)."""
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(formats=())
    checker.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)  # a copy
    for fmt in INTEGER_FORMATS:
        checker.checks(fmt)(integer_format_check(fmt))
    return checker


def __getattr__(name: str) -> Any:
    if name == "FORMAT_CHECKER":  # built on first use (so not in __all__)
        return _format_checker()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The formats the fast path treats as asserted: it checks int32/int64 itself and leaves a
# schema with any other of them to jsonschema. Written out, so that building a checker
# imports no jsonschema: every format jsonschema can check for 2020-12 (iri and
# iri-reference only with rfc3987, which is not installed: then jsonschema decides, and
# skips them, as the fast path would). A test holds it to a superset of FORMAT_CHECKER's;
# a format missing here would be skipped by the fast path while jsonschema checks it.
_ASSERTED = frozenset(
    {
        "date",
        "date-time",
        "duration",
        "email",
        "hostname",
        "idn-email",
        "idn-hostname",
        "int32",
        "int64",
        "ipv4",
        "ipv6",
        "iri",
        "iri-reference",
        "json-pointer",
        "regex",
        "relative-json-pointer",
        "time",
        "uri",
        "uri-reference",
        "uri-template",
        "uuid",
    }
)


def sealed_validator(schema: Any, **kwargs: Any) -> Any:
    """A validator for ``schema`` (its ``$schema`` dialect, default 2020-12) that never
    retrieves a ``$ref`` target from outside the schema.

    Its regexes run on RE2 (linear time) inside ``toolcat.catalog.linear_regex()``:
    wrap ``iter_errors``/``is_valid`` in it when the instance is untrusted."""
    from jsonschema import Draft202012Validator, validators

    cls = validators.validator_for(schema, default=Draft202012Validator)
    return cls(schema, registry=sealed_registry(), **kwargs)


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
    per node: the arguments are already in memory, so the walk is linear in them.
    """
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), args)]
    while stack:
        loc, value = stack.pop()
        if isinstance(value, float):
            if not math.isfinite(value):
                what = "NaN" if math.isnan(value) else "an infinite number"
                return ToolError(
                    "invalid_arguments",
                    f"{what} is not a JSON number: send a finite number or a string",
                    loc,
                )
        elif isinstance(value, str):
            if _SURROGATE.search(value):
                return ToolError(
                    "invalid_arguments",
                    "a string holds a lone UTF-16 surrogate (such as \\ud800): "
                    "send valid Unicode text",
                    loc,
                )
        elif isinstance(value, Mapping | list | tuple) and len(loc) >= MAX_NESTING_DEPTH:
            return _too_deep()
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return ToolError(
                        "invalid_arguments",
                        "a property name holds a lone UTF-16 surrogate (such as \\ud800): "
                        "send valid Unicode text",
                        loc,
                    )
                stack.append(((*loc, key), item))
        elif isinstance(value, list | tuple):
            stack.extend(((*loc, i), item) for i, item in enumerate(value))
    return None


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
    """A tool's compiled validator and top-level defaults; build once per tool."""

    __slots__ = ("_schema", "_validator", "_fast", "_defaults", "_properties")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = schema
        self._validator: Any = None  # jsonschema's, built when the fast check cannot decide
        self._fast = compile_check(schema, formats=_ASSERTED)  # None: jsonschema decides
        props = schema.get("properties") or {}
        self._properties = frozenset(props)
        self._defaults = tuple(
            (name, sub["default"])
            for name, sub in props.items()
            if isinstance(sub, Mapping) and "default" in sub
        )

    def check(self, args: dict[str, Any]) -> tuple[ToolError, ...]:
        """Every violation, most relevant first; applies defaults when there are none.

        ``args`` is the caller's fresh dict (from :func:`parse_arguments`): defaults
        are added to it in place, never to the caller's own mapping.
        """
        with recursion_headroom():  # a schema and arguments up to the nesting limit
            fast = self._fast
            errors = () if fast is not None and fast(args) else tuple(self._errors(args))
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
        from toolcat.catalog import strip_strict_nulls

        stripped = strip_strict_nulls(self._schema, args)
        if stripped == args:
            return errors
        fast = self._fast
        remaining = () if fast is not None and fast(stripped) else tuple(self._errors(stripped))
        if not remaining:
            args.clear()
            args.update(stripped)
        return remaining

    def _errors(self, args: dict[str, Any]) -> list[ToolError]:
        from jsonschema.exceptions import relevance
        from referencing.exceptions import Unresolvable

        if self._validator is None:
            from jsonschema import Draft202012Validator

            self._validator = Draft202012Validator(
                self._schema, format_checker=_format_checker(), registry=sealed_registry()
            )
        try:
            with linear_regex():  # pattern/patternProperties on RE2: linear in the arguments
                found = sorted(self._validator.iter_errors(args), key=relevance)
        except Unresolvable as exc:  # a $ref to a URL or a file: never fetched
            ref = getattr(exc, "ref", None) or str(exc)
            return [
                ToolError(
                    "refused_by_policy",
                    f"the tool's schema refers to {str(ref)[:_MAX_MSG]!r} outside itself; "
                    "toolcat never fetches a schema from a URL or a file (fix the catalog)",
                )
            ]
        out: list[ToolError] = []
        seen: set[tuple[tuple[str | int, ...], str]] = set()
        for err in found:
            for error in _describe(err):
                if (error.loc, error.msg) not in seen:  # one per property, not per keyword
                    seen.add((error.loc, error.msg))
                    out.append(error)
            if len(out) >= _MAX_ERRORS:
                out = out[:_MAX_ERRORS]
                out.append(ToolError("invalid_arguments", "more violations not shown"))
                break
        return out


def _describe(err: ValidationError) -> list[ToolError]:
    loc = tuple(err.absolute_path)
    if err.validator == "required" and isinstance(err.instance, Mapping):
        required: Any = err.validator_value
        missing = [p for p in required if p not in err.instance]
        return [
            ToolError("invalid_arguments", "required argument is missing", (*loc, p))
            for p in missing
        ]
    if err.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(
        err.instance, Mapping
    ):
        schema = err.schema if isinstance(err.schema, Mapping) else {}
        known = set(schema.get("properties") or {})
        patterns = schema.get("patternProperties") or {}
        extras = [k for k in err.instance if k not in known and not patterns]
        if extras:
            hint = f"; allowed: {', '.join(sorted(known))}" if known else ""
            return [
                ToolError("invalid_arguments", f"unexpected argument{hint}", (*loc, k))
                for k in extras
            ]
    message = err.message
    if len(message) > _MAX_MSG:
        message = message[: _MAX_MSG - 1] + "…"
    return [ToolError("invalid_arguments", message, loc)]


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
