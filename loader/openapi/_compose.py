"""Schema keywords that need more than a copy: allOf merged, discriminator variants, nullable."""

from __future__ import annotations

from typing import Any

from toolcat.catalog.common import freeze

from ._refs import Resolver

__all__ = ["merge_all_of", "nullable_schema", "tag_variants"]


def nullable_schema(out: dict[str, Any]) -> dict[str, Any]:
    t = out.get("type")
    if isinstance(t, str):
        out["type"] = [t, "null"] if t != "null" else t
    elif isinstance(t, list):
        if "null" not in t:
            out["type"] = [*t, "null"]
    elif out:
        outer: dict[str, Any] = {
            k: out.pop(k) for k in ("title", "description", "default") if k in out
        }
        return {"anyOf": [out, {"type": "null"}], **outer}
    else:
        return out
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def tag_variants(out: dict[str, Any], node: dict[str, Any], resolver: Resolver, file: str) -> None:
    """Give each variant of a discriminated oneOf/anyOf a ``const`` for the tag property."""
    disc = node["discriminator"]
    prop = (
        disc
        if isinstance(disc, str)
        else disc.get("propertyName")
        if isinstance(disc, dict)
        else None
    )
    if not isinstance(prop, str):
        return
    mapping = disc.get("mapping") if isinstance(disc, dict) else None
    by_ref: dict[str, str] = {}
    if isinstance(mapping, dict):
        for value, ref in mapping.items():
            if isinstance(ref, str):
                by_ref[ref if ("/" in ref or "." in ref) else f"#/components/schemas/{ref}"] = str(
                    value
                )
    for kw in ("oneOf", "anyOf"):
        raw, converted = node.get(kw), out.get(kw)
        if (
            not isinstance(raw, list)
            or not isinstance(converted, list)
            or len(raw) != len(converted)
        ):
            continue
        tagged = []
        for r, c in zip(raw, converted, strict=True):
            ref = r.get("$ref") if isinstance(r, dict) else None
            props = c.get("properties") if isinstance(c, dict) else None
            if not isinstance(ref, str) or "$ref" in c or not isinstance(props, dict):
                tagged.append(c)
                continue
            value = by_ref.get(ref) or ref.rsplit("/", 1)[-1]
            current = props.get(prop)
            base = dict(current) if isinstance(current, dict) else {"type": "string"}
            base.pop("enum", None)
            base["const"] = value
            req = list(c.get("required", ()))
            if prop not in req:
                req.append(prop)
            tagged.append(freeze({**c, "properties": {**props, prop: base}, "required": req}))
        out[kw] = tagged
    note = f"The '{prop}' property says which variant this is."
    out["description"] = f"{out['description']} {note}" if out.get("description") else note


_FIRST_WINS = frozenset({"description", "title", "examples", "default", "$comment", "deprecated"})


def merge_all_of(out: dict[str, Any]) -> dict[str, Any]:
    """Fold ``allOf`` parts into one object schema when they do not conflict; else keep allOf."""
    parts = out["allOf"]
    if not all(isinstance(p, dict) and "$ref" not in p and "allOf" not in p for p in parts):
        return out
    merged: dict[str, Any] = {k: v for k, v in out.items() if k != "allOf"}
    for part in parts:
        for k, v in part.items():
            if k not in merged:
                merged[k] = v
            elif k == "properties":
                props = dict(merged[k])
                for name, s in v.items():
                    if name in props and props[name] != s:
                        props[name] = {"allOf": [props[name], s]}
                    else:
                        props[name] = s
                merged[k] = props
            elif k == "required":
                merged[k] = list(dict.fromkeys([*merged[k], *v]))
            elif merged[k] == v or k in _FIRST_WINS:
                continue
            elif k == "type":
                a = {merged[k]} if isinstance(merged[k], str) else set(merged[k])
                b = {v} if isinstance(v, str) else set(v)
                common = sorted(a & b)
                if not common:
                    return out
                merged[k] = common[0] if len(common) == 1 else common
            else:
                return out
    return merged
