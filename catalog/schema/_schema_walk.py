"""Schema-walking helpers shared by the strict-mode and Gemini schema rewrites."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from toolcat.catalog._frozen import thaw

__all__ = ["def_name", "merge_lists", "merge_part", "refinements", "short", "split_defs"]

_REF_PREFIXES = ("#/$defs/", "#/definitions/")
_TYPE_KEYS = frozenset({"type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"})


def split_defs(schema: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A plain copy of ``schema`` without its ``definitions``/``$defs``, and those merged."""
    root = thaw(schema)
    defs: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        if isinstance(root.get(key), dict):
            defs.update(root.pop(key))
    return root, defs


def def_name(ref: str) -> str | None:
    """The definition name a local ``$defs``/``definitions`` ref points at, unescaped."""
    for prefix in _REF_PREFIXES:
        if ref.startswith(prefix):
            return ref[len(prefix) :].replace("~1", "/").replace("~0", "~")
    return None


def merge_part(
    merged: dict[str, Any],
    part: Mapping[str, Any],
    on_conflict: Callable[[str], None] | None = None,
) -> None:
    """Merge one ``allOf`` member into ``merged``: properties and required lists are
    joined, other keywords kept from the first member that has them. ``on_conflict``
    is called with the keyword where two members disagree (``description`` aside)."""
    for key, value in part.items():
        if key == "properties":
            merged.setdefault("properties", {}).update(value)
        elif key == "required":
            merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
        elif (
            on_conflict is not None
            and key in merged
            and merged[key] != value
            and key != "description"
        ):
            on_conflict(key)
        else:
            merged.setdefault(key, value)


def merge_lists(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The ``properties`` and ``required`` of ``a`` and ``b`` joined, where both have them."""
    out: dict[str, Any] = {}
    if "properties" in a and "properties" in b:
        out["properties"] = {**a["properties"], **b["properties"]}
    if "required" in a and "required" in b:
        out["required"] = list(dict.fromkeys([*a["required"], *b["required"]]))
    return out


def refinements(s: dict[str, Any]) -> list[str]:
    """Pop ``anyOf``/``oneOf`` lists that only refine a typed schema (members with no
    type of their own, such as ``{"required": ["a"]}``); return them as description text."""
    if not (s.get("type") or "properties" in s):
        return []
    moved = []
    for key in ("anyOf", "oneOf"):
        members = s.get(key)
        if (
            isinstance(members, list)
            and members
            and all(isinstance(m, dict) and not (_TYPE_KEYS & m.keys()) for m in members)
        ):
            moved.append(f"{key}: {short(s.pop(key))}")
    return moved


def short(value: Any, limit: int = 200) -> str:
    """A value as the model reads it in a description: strings bare, the rest as JSON."""
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
