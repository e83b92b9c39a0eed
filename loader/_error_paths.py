"""Where a pydantic error of the file models points: a YAML path, and the model class there.

A pydantic ``loc`` names union members and tags (``bool``, ``bearer``) that are no keys
of the document; :func:`data_path` drops them, :func:`existing_prefix` keeps the part the
document has, and :func:`model_at` finds the model whose keys a "did you mean" lists.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from toolcat.catalog import AUTH_TYPES

__all__ = ["data_path", "existing_prefix", "model_at", "model_keys"]


def data_path(data: Any, loc: Sequence[str | int]) -> tuple[str | int, ...]:
    """The YAML path of a pydantic ``loc``: union tags and member names are dropped."""
    path: list[str | int] = []
    node = data
    for seg in loc:
        if isinstance(node, dict) and seg in node:
            path.append(seg)
            node = node[seg]
        elif isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node):
            path.append(seg)
            node = node[seg]
        elif isinstance(node, dict | list):
            # a key the document lacks (missing, or a union member's tag): keep only
            # names that could be keys, never tags of the union we are inside.
            if not _is_tag(seg):
                path.append(seg)
                node = None
        else:
            break
    return tuple(path)


def existing_prefix(data: Any, path: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """The longest prefix of ``path`` that is present in ``data``."""
    node = data
    for i, seg in enumerate(path):
        if isinstance(node, dict) and seg in node:
            node = node[seg]
        elif isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node):
            node = node[seg]
        else:
            return path[:i]
    return path


# the tags of the format's unions: a timeout's two forms, and the auth types
_UNION_TAGS = frozenset({"seconds", "phases", *AUTH_TYPES})


_MEMBER_LABELS = frozenset({"bool", "int", "float", "str", "list", "dict"})


def _is_tag(seg: str | int) -> bool:
    """A union tag or a pydantic member label (``bool``, ``list[str]``): never a document key."""
    return isinstance(seg, str) and (seg in _UNION_TAGS or seg in _MEMBER_LABELS or "[" in seg)


def model_at(model: Any, loc: Sequence[str | int]) -> Any:
    """The model class that ``loc`` points into (to list its valid keys)."""
    tp = model
    for seg in loc:
        tp, consumed = _unwrap(tp, seg)
        if consumed:
            continue
        if _is_base_model(tp):
            field = _field(tp, seg)
            if field is None:
                return None
            tp = field
        else:
            origin = typing.get_origin(tp)
            args = typing.get_args(tp)
            if origin is dict and len(args) == 2:
                tp = args[1]
            elif origin is list and args:
                tp = args[0]
            else:
                return None
    tp, _ = _unwrap(tp, None)
    return tp if _is_base_model(tp) else None


def _field(model: type[BaseModel], seg: str | int) -> Any:
    for name, info in model.model_fields.items():
        if seg in (name, info.alias):
            return info.annotation
    return None


def _unwrap(tp: Any, seg: str | int | None) -> tuple[Any, bool]:
    """Strip Annotated/Optional; pick a union member by tag when ``seg`` is one.

    Returns the type and whether ``seg`` was consumed as a union tag.
    """
    consumed = False
    while True:
        if typing.get_origin(tp) is typing.Annotated:
            tp = typing.get_args(tp)[0]
            continue
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(tp) if a is not type(None)]
            picked = None
            for member in members:
                inner = member
                tags = []
                if typing.get_origin(member) is typing.Annotated:
                    inner, *meta = typing.get_args(member)
                    tags = [getattr(m, "tag", None) for m in meta]
                if (
                    seg is not None
                    and not consumed
                    and (seg in tags or _literal_type(inner) == seg)
                ):
                    picked = inner
                    consumed = True
                    break
            if picked is None:
                models = [m for m in members if _is_model(_strip(m))]
                picked = (
                    _strip(models[0])
                    if len(models) == 1
                    else (members[0] if len(members) == 1 else None)
                )
            if picked is None:
                return None, consumed
            tp = picked
            continue
        return tp, consumed


def _strip(tp: Any) -> Any:
    return typing.get_args(tp)[0] if typing.get_origin(tp) is typing.Annotated else tp


def _is_model(tp: Any) -> bool:
    return _is_base_model(tp)


def _literal_type(model: Any) -> Any:
    if not _is_model(model) or "type" not in model.model_fields:
        return None
    args = typing.get_args(model.model_fields["type"].annotation)
    return args[0] if len(args) == 1 else None


def model_keys(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _is_base_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)
