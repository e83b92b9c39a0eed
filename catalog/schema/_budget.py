"""The per-tool schema budget: shrink a tool's input schema for a model, keep its meaning.

A model reads every tool's schema on every turn, and an imported tool's can be far
larger than a model should read (benchmarks/README.md has the sizes of the largest
specs we know). :func:`fit_schema` keeps
a schema within ``budget`` characters of compact JSON by collapsing *optional*
branches, deepest first (the largest first at one depth), into a stub that keeps the
branch's ``type`` and says in its description that it was collapsed:

    {"type": "object", "description": "Billing address. (collapsed to fit ...)"}

Required properties are never collapsed (their optional parts may be). A stub only
widens what the schema accepts: the branches walked are ``properties``,
``additionalProperties``, ``items``, ``prefixItems``, ``anyOf``, ``allOf`` and the
definitions; never ``oneOf``, ``not`` or ``if`` (where widening a part narrows the
whole). Definitions no longer referenced are dropped. The executor keeps checking
calls against the tool's full schema, so what the model was not shown is still
checked.

When collapsing every optional branch is not enough, the schema goes out as small as
collapsing made it, with a note that it is still over budget.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from toolcat.catalog._frozen import FrozenDict, FrozenList, freeze, thaw

if TYPE_CHECKING:
    from toolcat.catalog._model import ToolDefinition

__all__ = [
    "DEFAULT_SCHEMA_BUDGET",
    "BudgetResult",
    "budget_tool",
    "fit_schema",
    "schema_size",
]

DEFAULT_SCHEMA_BUDGET = 8_000
"""Characters of compact JSON per tool input schema (about 2,000 tokens); 0 = no budget."""

_STUB_NOTE = "(collapsed to fit the schema budget; send it as the API documents it)"
_SUMMARY_CHARS = 120  # of the branch's own description, kept in the stub
_NAMED_IN_NOTE = 5  # collapsed branches named in the tool's description


def schema_size(schema: Any) -> int:
    """The size the budget counts: characters of the schema as compact JSON."""
    text = _orjson_text(schema)
    return len(text.decode() if text is not None else _dumps(schema))


@dataclass(frozen=True, slots=True)
class BudgetResult:
    """A schema within budget (or as close as collapsing gets it) and what changed.

    ``collapsed`` holds the JSON pointers of the collapsed branches (outermost only),
    ``left_out`` those of them that are not in the schema at all (with ``omit``, or when
    even their stubs did not fit), ``size_before``/``size_after`` the
    :func:`schema_size` of each.
    """

    schema: Any
    size_before: int
    size_after: int
    collapsed: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()  # of ``collapsed``: those left out altogether
    annotations_dropped: int = 0  # examples and descriptions taken off required parts

    @property
    def over(self) -> bool:
        """Whether the schema was shrunk."""
        return bool(self.collapsed or self.annotations_dropped)


def fit_schema(schema: Mapping[str, Any], budget: int, *, omit: bool = False) -> BudgetResult:  # noqa: C901, PLR0915  passes over one working copy that share its running size: collapse, bare stubs, leave out
    """``schema`` within ``budget`` characters, collapsing optional branches deepest first.

    >>> a = {"type": "string", "description": "x" * 200}
    >>> s = {"type": "object", "required": ["id"], "properties": {
    ...     "id": {"type": "string"},
    ...     "extra": {"type": "object", "properties": {"a": a}}}}
    >>> r = fit_schema(s, 200)
    >>> r.collapsed, r.schema["properties"]["extra"]["type"], r.size_after <= 200
    (('/properties/extra',), 'object', True)

    A ``budget`` of 0 (or less) means no budget: the schema comes back unchanged.
    With ``omit``, optional properties are left out instead of collapsed (for OpenAI
    strict mode, where a collapsed free-form object is not allowed): the result then
    accepts less than the full schema, and everything it accepts the full one does.
    """
    exact = _orjson_text(schema)  # orjson's text where it is json.dumps' (no floats)
    size = len(exact.decode() if exact is not None else _dumps(schema))
    if budget <= 0 or size <= budget:
        return BudgetResult(schema, size, size)
    # what follows writes parts of this schema and stubs of strings: orjson's text stays
    # json.dumps' for every part of it
    dumps = _dumps if exact is None else _orjson_dumps
    work = thaw(schema) if exact is None else _orjson_loads(exact)
    candidates: list[_Candidate] = []
    _walk(work, "", 0, candidates, set(), _measure(exact))
    # deepest first; at one depth the largest first
    candidates.sort(key=lambda c: (-c[0], -c[1]))
    done: dict[str, _Candidate] = {}
    total = size
    level = candidates[0][0] if candidates else 0
    stale = False  # a collapsed branch held a $ref: definitions may have no user left
    for candidate in candidates:
        depth, _, pointer, parent, key, _owner = candidate
        if depth != level:  # a level done: drop the definitions nothing uses, count again
            level = depth
            if stale:
                total, stale = _prune_defs(work, dumps), False
        if total <= budget:
            break
        node = parent.get(key)
        if not isinstance(node, dict) or not _still_there(work, pointer):
            continue
        text = dumps(node)
        has_refs = '"$ref":' in text
        if omit:
            if not pointer.endswith(f"/properties/{_escape(key)}"):
                continue  # an additionalProperties schema: strict mode has none to leave out
            saved = _member_size(parent, key, len(text))
            del parent[key]
        else:
            stub = _stub(node)
            saved = len(text) - len(dumps(stub))
            if saved <= 0 and not has_refs:
                continue
            parent[key] = stub
        total -= saved
        stale = stale or has_refs
        done[pointer] = candidate
    if stale:
        total = _prune_defs(work, dumps)
    live = _outermost([p for p in done if _still_there(work, p)])
    left_out: list[str] = list(live) if omit else []
    if total > budget and not omit:
        # still over: the stubs lose their descriptions (the tool's description names
        # them), then, deepest first, they are left out (the full schema checks them)
        order = sorted(live, key=lambda p: -done[p][0])
        for pointer in order:
            _, _, _, parent, key, _owner = done[pointer]
            stub = parent[key]
            bare = {"type": stub["type"]} if "type" in stub else {}
            total -= len(dumps(stub)) - len(dumps(bare))
            parent[key] = bare
        for pointer in order:
            if total <= budget:
                break
            _, _, _, parent, key, owner = done[pointer]
            total -= _member_size(parent, key, len(dumps(parent[key])))
            del parent[key]
            left_out.append(pointer)
            for closed in ("additionalProperties", "unevaluatedProperties"):
                if owner.get(closed) is False:  # still accept the property left out
                    total -= _member_size(owner, closed, 5)
                    del owner[closed]
        total = len(dumps(work))
    dropped = 0
    if total > budget:
        # the required parts alone are over: their examples, then their descriptions
        # go, deepest first (the structure, and so what is accepted, stays)
        total, dropped = _drop_annotations(work, budget, total, dumps)
    if not live and not dropped:
        return BudgetResult(schema, size, size)
    return BudgetResult(
        _refreeze(work, schema), size, total, tuple(sorted(live)), tuple(sorted(left_out)), dropped
    )


def _refreeze(value: Any, like: Any) -> Any:
    """:func:`freeze` of ``value``, a changed copy of the frozen ``like``: the parts left
    as they were are ``like``'s own (compared in C, not walked and copied in Python)."""
    if isinstance(value, dict):
        if type(like) is FrozenDict:
            if value == like:
                return like
            return FrozenDict({k: _refreeze(v, like.get(k)) for k, v in value.items()})
        return freeze(value)
    if isinstance(value, list):
        if type(like) is FrozenList and value == like:
            return like
        return freeze(value)
    return value


def _measure(exact: bytes | None) -> Callable[[Any], int]:
    """:func:`schema_size` of parts of a schema whose orjson text is ``exact`` (None: none)."""
    if exact is None:
        return lambda value: len(_dumps(value))
    import orjson

    if exact.isascii():  # no part writes a character in more than one byte
        return lambda value: len(orjson.dumps(value))
    return lambda value: len(orjson.dumps(value).decode())


_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_VALUES = frozenset({"enum", "const", "default", "examples", "example", "required"})


def _drop_annotations(
    root: dict[str, Any], budget: int, total: int, dumps: Callable[[Any], str]
) -> tuple[int, int]:
    """Drop ``examples``/``example``, then ``description``/``title``, from the nested
    schemas of ``root``, deepest first, until it fits; returns (size, how many dropped)."""
    nodes: list[tuple[int, dict[str, Any]]] = []
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        nodes.append((depth, node))
        for key, value in node.items():
            if key in _VALUES:
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                stack.extend((sub, depth + 1) for sub in value.values())
            elif isinstance(value, dict):
                stack.append((value, depth + 1))
            elif isinstance(value, list):
                stack.extend((sub, depth + 1) for sub in value)
    nodes.sort(key=lambda n: -n[0])
    dropped = 0
    for keys in (("examples", "example"), ("description", "title")):
        for depth, node in nodes:
            if total <= budget:
                return len(dumps(root)), dropped
            if depth == 0:
                continue
            for key in keys:
                if key in node:
                    total -= _member_size(node, key, len(dumps(node[key])))
                    del node[key]
                    dropped += 1
    return len(dumps(root)), dropped


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# orjson (Rust; a core dependency) writes a JSON value's compact text faster than
# json.dumps, and the same text, except floats (1e-07 as 1e-7) and NaN and
# the infinities (as null): a schema whose text holds a float or a null is written by
# json.dumps, and so is one orjson refuses (a non-string key, an integer past 64 bits, a
# lone surrogate, nesting past 255, a non-JSON type). Every float orjson writes has a "."
# or an "e" right after a digit: _DIGITS finds candidates fast; where there is one (or
# a "null"), _VALUE looks for a float or a null where a value stands, strings taken out.
_DIGITS = bytes.maketrans(b"123456789eE", b"000000000..")  # then a digit-dot is b"0."
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_VALUE = re.compile(rb"[:\[,](?:null|-?[0-9]+[.eE])")


def _orjson_text(value: Any) -> bytes | None:
    """orjson's compact text of ``value`` where it is ``json.dumps``' text, else None."""
    if not isinstance(value, dict | list):
        return None
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        text = orjson.dumps(value)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return None
    # taking the strings out joins no new match (a string stands between no ":" and its
    # value), so a text _VALUE finds nothing in has no float or null: the usual case
    if (
        (b"null" in text or b"0." in text.translate(_DIGITS))
        and _VALUE.search(text)
        and _VALUE.search(_STRING.sub(b"", text))
    ):
        return None
    return text


def _orjson_dumps(value: Any) -> str:
    """Compact JSON of a part of a schema :func:`_orjson_text` accepted."""
    import orjson

    return orjson.dumps(value).decode()


def _orjson_loads(text: bytes) -> Any:
    """:func:`thaw` of the value ``text`` was written from (no Python walk)."""
    import orjson

    return orjson.loads(text)


def _member_size(parent: Mapping[str, Any], key: str, value_size: int) -> int:
    """What leaving ``key`` out of ``parent`` saves: ``"key":value`` and a comma."""
    return len(json.dumps(key, ensure_ascii=False)) + 1 + value_size + (len(parent) > 1)


def _outermost(pointers: list[str]) -> list[str]:
    """The pointers no other one of the list is a prefix of."""
    chosen = set(pointers)
    out = []
    for pointer in pointers:
        parts = pointer.split("/")
        if not any("/".join(parts[:i]) in chosen for i in range(1, len(parts))):
            out.append(pointer)
    return out


def budget_tool(
    tool: ToolDefinition, budget: int, *, omit: bool = False
) -> tuple[ToolDefinition, str | None]:
    """``tool`` with its input schema within ``budget``, and a note on what changed.

    The tool's description gains one sentence naming the collapsed (with ``omit``:
    left out) branches; the returned note (``None`` when nothing changed) is for
    the export's notes.
    """
    key = (id(tool), budget, omit)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is tool:  # the same object, not a recycled id
        _CACHE.move_to_end(key)
        return cached[1], cached[2]
    out = _budget_tool(tool, budget, omit)
    _CACHE[key] = (tool, *out)
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return out


# budget_tool's results by tool object: the agent loop exports its tools on every turn,
# and shrinking a large schema is slow (benchmarks/README.md)
_CACHE_SIZE = 1024  # entries; each holds a tool (the catalog holds it anyway) and its copy
_CACHE: OrderedDict[tuple[int, int, bool], tuple[ToolDefinition, ToolDefinition, str | None]] = (
    OrderedDict()
)


def _budget_tool(
    tool: ToolDefinition, budget: int, omit: bool
) -> tuple[ToolDefinition, str | None]:
    result = fit_schema(tool.input_schema, budget, omit=omit)
    if not result.over:
        return tool, None
    names = [_dotted(p) for p in result.collapsed]
    shown = ", ".join(names[:_NAMED_IN_NOTE])
    more = len(names) - _NAMED_IN_NOTE
    if more > 0:
        shown += f" and {more} more"
    done = "left out" if omit else "collapsed or left out" if result.left_out else "collapsed"
    parts = [f"optional parts {done} ({shown})"] if names else []
    if result.annotations_dropped:
        parts.append("descriptions of nested parts dropped")
    sentence = (
        f"[Schema shortened to fit a size budget: {'; '.join(parts)}; "
        "the full schema still checks every call.]"
    )
    description = f"{tool.description}\n\n{sentence}" if tool.description else sentence
    over = "" if result.size_after <= budget else f"; still over the {budget:,}-character budget"
    what = (
        [f"{len(names)} optional branch{'es' if len(names) != 1 else ''} {done}"] if names else []
    )
    if result.annotations_dropped:
        what.append(f"{result.annotations_dropped} examples/descriptions dropped")
    note = (
        f"schema {result.size_before:,} -> {result.size_after:,} characters: "
        f"{', '.join(what)}{over}"
    )
    return replace(tool, input_schema=result.schema, description=description), note


# an optional branch: (depth, size, pointer, the mapping holding it, its key there, the
# schema whose properties or additionalProperties it is)
_Candidate = tuple[int, int, str, dict[str, Any], str, dict[str, Any]]


def _walk(  # noqa: C901  one walk over the keywords that hold optional branches, a branch per keyword
    node: dict[str, Any],
    pointer: str,
    depth: int,
    out: list[_Candidate],
    seen: set[int],
    size: Callable[[Any], int],
) -> None:
    """Collect the optional branches below ``node`` (``size`` measures one)."""
    if id(node) in seen:  # a shared object (thaw copies, but be safe against cycles)
        return
    seen.add(id(node))
    props = node.get("properties")
    if isinstance(props, dict):
        required = node.get("required")
        required_names = set(required) if isinstance(required, list) else set()
        for name, sub in props.items():
            if not isinstance(sub, dict):
                continue
            where = f"{pointer}/properties/{_escape(name)}"
            if name not in required_names:
                out.append((depth + 1, size(sub), where, props, name, node))
            _walk(sub, where, depth + 1, out, seen, size)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        where = f"{pointer}/additionalProperties"
        out.append((depth + 1, size(extra), where, node, "additionalProperties", node))
        _walk(extra, where, depth + 1, out, seen, size)
    items = node.get("items")
    if isinstance(items, dict):
        _walk(items, f"{pointer}/items", depth + 1, out, seen, size)
    for key in ("prefixItems", "anyOf", "allOf"):
        members = node.get(key)
        if isinstance(members, list):
            for i, sub in enumerate(members):
                if isinstance(sub, dict):
                    _walk(sub, f"{pointer}/{key}/{i}", depth + 1, out, seen, size)
    if pointer:
        return
    for key in ("$defs", "definitions"):  # the root's definitions only
        defs = node.get(key)
        if isinstance(defs, dict):
            for name, sub in defs.items():
                if isinstance(sub, dict):
                    _walk(sub, f"/{key}/{_escape(name)}", 1, out, seen, size)


def _stub(node: Mapping[str, Any]) -> dict[str, Any]:
    """What a collapsed branch becomes: its type (if it names one) and a description."""
    stub: dict[str, Any] = {}
    kind = node.get("type")
    if isinstance(kind, str) or (
        isinstance(kind, list) and kind and all(isinstance(k, str) for k in kind)
    ):
        stub["type"] = kind
    summary = node.get("description")
    text = summary.strip() if isinstance(summary, str) else ""
    if len(text) > _SUMMARY_CHARS:
        text = text[: _SUMMARY_CHARS - 1].rstrip() + "…"
    stub["description"] = f"{text} {_STUB_NOTE}" if text else _STUB_NOTE
    return stub


def _prune_defs(root: dict[str, Any], dumps: Callable[[Any], str]) -> int:
    """Drop root definitions nothing references any more; returns the new size."""
    sections = [k for k in ("$defs", "definitions") if isinstance(root.get(k), dict)]
    if not sections:
        return len(dumps(root))
    texts: dict[str, list[str]] = {}
    for key in sections:
        for name, sub in root[key].items():
            texts.setdefault(name, []).append(dumps(sub))
    body = dumps({k: v for k, v in root.items() if k not in sections})
    reached: set[str] = set()
    todo = _refs(body)
    while todo:
        name = todo.pop()
        if name in reached or name not in texts:
            continue
        reached.add(name)
        for text in texts[name]:
            todo.extend(_refs(text))
    for key in sections:
        defs = root[key]
        if any(n not in reached for n in defs):
            kept = {k: v for k, v in defs.items() if k in reached}
            if kept:
                root[key] = kept
            else:
                del root[key]
    return len(dumps(root))


_REF_TEXT = re.compile(r'"\$ref":"#/(?:\$defs|definitions)/([^"/]*)')


def _refs(text: str) -> list[str]:
    """The definition names the local ``$ref``s in a schema's compact JSON point at."""
    return [
        json.loads(f'"{m}"').replace("~1", "/").replace("~0", "~")
        if "\\" in m
        else m.replace("~1", "/").replace("~0", "~")
        for m in _REF_TEXT.findall(text)
    ]


def _still_there(root: dict[str, Any], pointer: str) -> bool:
    """Whether a collapsed branch's definition (if it is in one) was kept."""
    parts = pointer.split("/")
    if len(parts) > 2 and parts[1] in ("$defs", "definitions"):
        defs = root.get(parts[1])
        return isinstance(defs, dict) and parts[2].replace("~1", "/").replace("~0", "~") in defs
    return True


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _dotted(pointer: str) -> str:
    """``/properties/a/items/properties/b`` as ``a[].b``, for a sentence a model reads."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    out = ""
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == "properties" and i + 1 < len(parts):
            out += ("." if out else "") + parts[i + 1]
            i += 2
            continue
        if part == "items":
            out += "[]"
        elif part in ("$defs", "definitions") and i + 1 < len(parts):
            out += ("." if out else "") + parts[i + 1]
            i += 2
            continue
        elif part == "additionalProperties":
            out += ".*"
        i += 1
    return out or pointer
