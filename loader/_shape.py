"""Shape check: validate documents with the file models, turning pydantic errors into diagnostics.

Each pydantic error becomes one diagnostic placed on the key or value it is
about (through the YAML position index), with a message that says what to
change: the closest valid key for an unknown key, the expected type, the
allowed values.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError
from toolcat.catalog import AUTH_TYPES
from toolcat.catalog.common import TOOL_NAME

from ._diagnostics import Diagnostic
from ._error_paths import data_path, existing_prefix, model_at, model_keys

__all__ = ["FixedLocator", "Locator", "closest", "describe", "intended_name", "validate_item"]

M = TypeVar("M", bound=BaseModel)


class Locator(Protocol):
    """Where a YAML path's key (or value, or a character of its string) was written."""

    def __call__(self, path: Sequence[str | int], key: bool = False) -> tuple[int, int]: ...

    def string(self, path: Sequence[str | int], offset: int) -> tuple[int, int]: ...


class FixedLocator:
    """One position for every path: documents without YAML (imported operations)."""

    __slots__ = ("line", "column")

    def __init__(self, line: int = 1, column: int = 1) -> None:
        self.line, self.column = line, column

    def __call__(self, path: Sequence[str | int], key: bool = False) -> tuple[int, int]:
        return self.line, self.column

    def string(self, path: Sequence[str | int], offset: int) -> tuple[int, int]:
        return self.line, self.column


_TYPE_WORDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
}


def intended_name(body: Any) -> str | None:
    """The name a tool whose ``name`` is broken was meant to have (``name: 5``, ``nme: x``).

    Toolsets that list it then do not get a second, echoing "unknown tool" finding.
    """
    if not isinstance(body, dict):
        return None
    raw = body.get("name")
    if isinstance(raw, str):
        return raw
    candidates = [str(raw)] if isinstance(raw, int | float) and not isinstance(raw, bool) else []
    if raw is None:
        candidates += [
            v
            for k, v in body.items()
            if isinstance(k, str)
            and isinstance(v, str)
            and k != "name"
            and closest(k, ["name"], cutoff=0.7)
        ]
    return next((c for c in candidates if TOOL_NAME.match(c)), None)


def describe(value: Any) -> str:
    """A YAML reader's word for a value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        short = value if len(value) <= 40 else value[:37] + "..."
        return f"string {short!r}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def closest(
    word: str, choices: Sequence[str] | set[str] | frozenset[str], cutoff: float = 0.6
) -> str | None:
    """The valid choice most like ``word`` (for "did you mean ...?")."""
    import difflib  # here: only a near miss needs it

    found = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=cutoff)
    return found[0] if found else None


def validate_item(
    model: type[M],
    data: Any,
    *,
    base: tuple[str | int, ...],
    label: str,
    file: str,
    locate: Locator,
    out: list[Diagnostic],
    salvaged: list[M] | None = None,
) -> M | None:
    """Validate one document with ``model``; on failure append diagnostics and return ``None``.

    ``base`` is the document's YAML path in its file and ``label`` names it in
    messages ("tool 'get_order'"). When ``salvaged`` is given and the document
    fails, the document without its offending optional keys is validated
    again and appended there when it passes: the later checks can then run on
    it, so one pass reports a typo and the tool's other mistakes together.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        typos = {
            (tuple(e["loc"][:-1]), str(e["loc"][-1]))
            for e in errors
            if e["type"] == "extra_forbidden" and e["loc"]
        }
        # a value that fits no member of a union gets one error per member: merge them
        kinds: dict[tuple[str | int, ...], list[str]] = {}
        for error in errors:
            if error["type"] in _TYPE_WORDS:
                where = existing_prefix(data, data_path(data, error["loc"]))
                kinds.setdefault(where, []).append(_TYPE_WORDS[error["type"]])
        # a member that fits the value's shape and fails deeper inside (a list with one bad
        # item) says more than the members that do not fit at all: report only the deeper one
        shallow = {w for w in kinds for d in kinds if len(d) > len(w) and d[: len(w)] == w}
        if shallow:
            errors = [
                e
                for e in errors
                if e["type"] not in _TYPE_WORDS
                or existing_prefix(data, data_path(data, e["loc"])) not in shallow
            ]
        reported: set[tuple[str | int, ...]] = set()
        if _schema_style_parameters(data):
            # OpenAI's function format pasted in: one finding that says how to convert it
            line, col = locate((*base, "parameters"), True)
            prefix = f"{label}: " if label else ""
            out.append(
                Diagnostic.make(
                    "TC004",
                    f"{prefix}'parameters' is written as one JSON Schema object (type, "
                    "properties, required); toolcat maps argument names to their schemas: move the "
                    "entries of 'properties' up under 'parameters' (each is required unless it "
                    "says "
                    "'required: false')",
                    file,
                    line,
                    col,
                    (*base, "parameters"),
                )
            )
            errors = [e for e in errors if tuple(e["loc"][:1]) != ("parameters",)]
        for error in errors:
            if error["type"] == "missing" and _is_typo(error["loc"], typos):
                continue  # "unknown key 'tokn'; did you mean 'token'?" says it all
            expected: list[str] = []
            if error["type"] in _TYPE_WORDS:
                where = existing_prefix(data, data_path(data, error["loc"]))
                if where in reported:
                    continue
                reported.add(where)
                expected = kinds[where]
            out.append(_diagnostic(model, data, error, base, label, file, locate, expected))
        if salvaged is not None:
            rescued = _salvage(model, data, errors)
            if rescued is not None:
                salvaged.append(rescued)
        return None


def _schema_style_parameters(data: Any) -> bool:
    """``parameters: {type: object, properties: {...}}``: a JSON Schema where names belong."""
    params = data.get("parameters") if isinstance(data, dict) else None
    return (
        isinstance(params, dict)
        and params.get("type") == "object"
        and isinstance(params.get("properties"), dict)
    )


# Removing these (or a key that looks like them) would make later checks report
# consequences of the mistake rather than new mistakes.
_NO_SALVAGE = ("name", "service", "method", "path", "parameters", "definitions")


def _salvage(model: type[M], data: Any, errors: Sequence[Any]) -> M | None:
    """``data`` without the optional keys that fail, when that is valid; else ``None``."""
    if not isinstance(data, dict):
        return None
    pruned = copy.deepcopy(data)
    for error in errors:
        if error["type"] in ("missing", "union_tag_not_found"):
            return None
        target = data_path(data, error["loc"])
        while target and isinstance(target[-1], int):
            target = target[:-1]  # a bad list item: drop the whole list
        if not target or (len(target) <= 2 and target[0] in ("parameters", "definitions")):
            return None
        if len(target) == 1 and closest(str(target[0]), _NO_SALVAGE, cutoff=0.75):
            return None
        parent: Any = pruned
        for seg in target[:-1]:
            parent = parent.get(seg) if isinstance(parent, dict) else None
        if isinstance(parent, dict):
            parent.pop(target[-1], None)
    try:
        return model.model_validate(pruned)
    except ValidationError:
        return None


def _is_typo(loc: Sequence[str | int], typos: set[tuple[tuple[str | int, ...], str]]) -> bool:
    parent, key = tuple(loc[:-1]), str(loc[-1])
    return any(p == parent and closest(t, [key]) == key for p, t in typos)


_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


def _dotted(path: Sequence[str | int]) -> str:
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else str(seg))
    return out


def _either(words: Sequence[str]) -> str:
    unique = list(dict.fromkeys(words))
    return unique[0] if len(unique) == 1 else ", ".join(unique[:-1]) + " or " + unique[-1]


def _diagnostic(
    model: Any,
    data: Any,
    error: Any,
    base: tuple[str | int, ...],
    label: str,
    file: str,
    locate: Locator,
    expected: Sequence[str] = (),
) -> Diagnostic:
    kind: str = error["type"]
    loc: tuple[str | int, ...] = tuple(error["loc"])
    rel = data_path(data, loc)
    if kind not in ("missing", "union_tag_not_found", "extra_forbidden"):
        rel = existing_prefix(data, rel)  # the bad value is in the document: drop member labels
    where = f"{label}: " if label else ""
    if kind == "extra_forbidden":
        return _unknown_key(model, data, loc, rel, where, file, locate, base)
    if kind in ("missing", "union_tag_not_found"):
        return _missing_key(error, rel, where, file, locate, base)
    return _bad_value(error, rel, where, label, file, locate, base, expected)


def _unknown_key(
    model: Any,
    data: Any,
    loc: tuple[str | int, ...],
    rel: tuple[str | int, ...],
    where: str,
    file: str,
    locate: Locator,
    base: tuple[str | int, ...],
) -> Diagnostic:
    """TC003: a key the model does not have, with the closest valid one."""
    key = str(rel[-1]) if rel else "?"
    owner = model_at(model, loc[:-1])
    valid = model_keys(owner) if owner is not None else []
    hint = closest(key, valid)
    holder = data
    for seg in rel[:-1]:
        try:
            holder = holder[seg]
        except (KeyError, IndexError, TypeError):
            holder = None
            break
    if (
        not hint
        and isinstance(holder, dict)
        and "parameters" in holder
        and holder["parameters"] is None
        and isinstance(holder.get(key), dict)
    ):
        advice = "is it a parameter? indent it under 'parameters:'"
    elif hint:
        advice = f"did you mean '{hint}'?"
    elif valid:
        advice = "valid keys: " + ", ".join(valid)
    else:
        advice = "remove it"
    inside = f" in {_dotted(rel[:-1])}" if len(rel) > 1 else ""
    line, col = locate(base + rel, True)
    return Diagnostic.make(
        "TC003", f"{where}unknown key '{key}'{inside}; {advice}", file, line, col, base + rel
    )


def _missing_key(
    error: Any,
    rel: tuple[str | int, ...],
    where: str,
    file: str,
    locate: Locator,
    base: tuple[str | int, ...],
) -> Diagnostic:
    """TC005: a required key (or a union's ``type:``) the document lacks."""
    if error["type"] == "union_tag_not_found":
        key = "type"
        rel = rel + ("type",)
        choices = error.get("ctx", {}).get("expected_tags") or ", ".join(AUTH_TYPES)
        advice = f"add 'type:' ({choices})"
    else:
        key = str(rel[-1]) if rel else "?"
        advice = f"add '{key}:'"
    parent = rel[:-1]
    inside = f" in {_dotted(parent)}" if parent else ""
    line, col = locate(base + parent, False)
    return Diagnostic.make(
        "TC005",
        f"{where}missing required key '{key}'{inside}; {advice}",
        file,
        line,
        col,
        base + rel,
    )


def _bad_value(
    error: Any,
    rel: tuple[str | int, ...],
    where: str,
    label: str,
    file: str,
    locate: Locator,
    base: tuple[str | int, ...],
    expected: Sequence[str],
) -> Diagnostic:
    """TC004 (a value of the wrong type) or TC008 (a value the key does not take)."""
    kind: str = error["type"]
    value = error.get("input")
    line, col = locate(base + rel, False)
    field = _dotted(rel) or "value"
    if kind in _TYPE_WORDS:
        wanted = _TYPE_WORDS[kind] if not expected else _either(expected)
        if rel and rel[-1] == "timeout":
            wanted = "a number of seconds or a mapping {connect, read, total}"
        message = (
            f"{where}'{field}' must be {wanted}, not {describe(value)}"
            if rel or not label
            else f"{label} must be {wanted}, not {describe(value)}"
        )
        if len(rel) == 2 and rel[0] == "parameters" and isinstance(value, str):
            message += (
                f"; write {{type: {value}}}"
                if value in _JSON_TYPES
                else ("; write a JSON Schema such as {type: string}")
            )
        return Diagnostic.make("TC004", message, file, line, col, base + rel)
    if kind == "union_tag_invalid":
        choices = error.get("ctx", {}).get("expected_tags", "")
        tag = str(error.get("ctx", {}).get("tag", ""))
        hint = closest(tag, [c.strip(" '") for c in choices.split(",")])
        extra = f"; did you mean '{hint}'?" if hint else ""
        line, col = locate(base + rel + ("type",), False)
        message = f"{where}'{field}.type' {tag!r} is not one of {choices}{extra}"
        return Diagnostic.make("TC008", message, file, line, col, base + rel + ("type",))
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        message = f"{where}'{field}' is {describe(value)}; use one of {expected}"
        return Diagnostic.make("TC008", message, file, line, col, base + rel)
    msg = str(error.get("msg", "invalid value"))
    msg = msg[0].lower() + msg[1:] if msg else msg
    message = f"{where}'{field}' is {describe(value)}: {msg}"
    return Diagnostic.make("TC008", message, file, line, col, base + rel)
