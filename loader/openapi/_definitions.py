"""A written catalog's definitions: each body once under one name, repeated sub-schemas
shared (``toolcat import openapi --output-schemas shared``, the default)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from toolcat.loader._schema_walks import PLACEMENT_KEYS

__all__ = ["shared_definitions"]

_REF_PREFIX = "#/$defs/"


def shared_definitions(tools: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``tools`` (as the writer writes them) with every definition they need, their own and
    their output schemas' ``$defs``, moved to one mapping (sorted by name), and each
    repeated parameter sub-schema written there once: the tools refer to them."""
    pool = _Pool()
    tools = [pool.hoist(tool) for tool in tools]
    tools = _share_repeats(tools, pool)
    tools = _merge_duplicates(tools, pool.defs)
    return tools, dict(sorted(pool.defs.items()))


def _rename(node: Any, names: dict[str, str]) -> Any:
    """``node`` with its ``#/$defs/NAME`` refs renamed (the same object when none is)."""
    renames = {old: new for old, new in names.items() if old != new}
    # most name maps rename nothing (a tool's definitions that clash with no other's):
    # then there is nothing to walk, and a spec's large schemas are not walked per tool
    return _renamed(node, renames) if renames else node


def _renamed(node: Any, renames: dict[str, str]) -> Any:
    if isinstance(node, dict):
        changed = False
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k == "$ref" and type(v) is str and v.startswith(_REF_PREFIX):
                name, sep, rest = v[len(_REF_PREFIX) :].partition("/")
                new = renames.get(name, name)
                if new != name:
                    v, changed = f"{_REF_PREFIX}{new}{sep}{rest}", True
            elif isinstance(v, dict | list):
                nv = _renamed(v, renames)
                changed = changed or nv is not v
                v = nv
            out[k] = v
        return out if changed else node
    if isinstance(node, list):
        items = [_renamed(v, renames) if isinstance(v, dict | list) else v for v in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    return node


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _digest(text: str) -> bytes:
    """What bodies are told apart by: the SHA-256 of their canonical text. Two different
    texts with one digest would take a SHA-256 collision, which nobody has found; the
    texts themselves (tens of MB on large specs) are not kept."""
    return hashlib.sha256(text.encode("utf-8")).digest()


class _Digests:
    """The digests of schemas that do not change while it is used, kept by id: a spec's
    converted schemas are shared objects, so each is serialised once however many tools
    hold it. Each schema is kept with its digest, so that its id stays its own."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[Any, bytes, int]] = {}  # id -> (schema, digest, length)

    def of(self, node: Any) -> tuple[bytes, int]:
        """The digest of ``node`` and the length of its canonical text."""
        found = self._memo.get(id(node))
        if found is None or found[0] is not node:
            text = _canonical(node)
            found = self._memo[id(node)] = (node, _digest(text), len(text))
        return found[1], found[2]


def _ref_names(node: Any, out: set[str]) -> set[str]:
    """The definition names ``node``'s ``#/$defs/NAME`` refs name (those :func:`_renamed`
    would rename), added to ``out``."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and type(v) is str and v.startswith(_REF_PREFIX):
                out.add(v[len(_REF_PREFIX) :].partition("/")[0])
            elif isinstance(v, dict | list):
                _ref_names(v, out)
    elif isinstance(node, list):
        for v in node:
            if isinstance(v, dict | list):
                _ref_names(v, out)
    return out


class _Pool:
    """The file's shared definitions: each body once, under one name.

    A spec's converted schemas are shared objects, so what is learnt about a body (the
    names it refers to, its digest, a renamed copy) is kept by the body's id, with the
    body itself so that the id stays its own.
    """

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}
        self._keys: dict[str, bytes] = {}  # name -> digest of its body
        self._by_body: dict[bytes, str] = {}  # digest -> name
        # the names that the bodies add_all put in _by_body refer to: a body that refers to
        # any other name is none of them (the repeats shared later come after every add_all)
        self._referred: set[str] = set()
        self._refs: dict[int, tuple[Any, frozenset[str]]] = {}  # id(body) -> names it refers to
        self._digests = _Digests()
        # (id(body), the renames of names it refers to) -> the renamed copy
        self._copies: dict[tuple[int, tuple[tuple[str, str], ...]], Any] = {}
        self._next: dict[str, int] = {}  # base -> the first n whose base_n is not in defs

    def _refers(self, body: Any) -> frozenset[str]:
        found = self._refs.get(id(body))
        if found is None or found[0] is not body:
            found = self._refs[id(body)] = (body, frozenset(_ref_names(body, set())))
        return found[1]

    def _key(self, body: Any) -> bytes:
        return self._digests.of(body)[0]

    def add_all(self, local: dict[str, Any]) -> dict[str, str]:
        """Put a tool's definitions in the pool; their names there (local -> shared)."""
        names = {n: n for n in local}
        renames: dict[str, str] = {}  # the names that differ

        def name(n: str, new: str) -> None:
            names[n] = new
            if new == n:
                renames.pop(n, None)
            else:
                renames[n] = new

        for _ in range(100):  # a rename changes the bodies that refer to it: settle, then commit
            changed = False
            for n, body in local.items():
                known: str | None = None
                key: bytes | None = None  # None: no body the pool knows, so no name's body
                if all(renames.get(r, r) in self._referred for r in self._refers(body)):
                    key = self._key(self._rename(body, renames))
                    known = self._by_body.get(key)
                if known is not None:
                    if names[n] != known:
                        name(n, known)
                        changed = True
                    continue
                target = names[n]
                if self._keys.get(target, key) != key or target in _others(names, n):
                    name(n, self._free(n, set(names.values())))
                    changed = True
            if not changed:
                break
        for n, body in local.items():
            renamed = self._rename(body, renames)
            target = names[n]
            if target not in self.defs:
                key = self._key(renamed)
                self.defs[target] = renamed
                self._keys[target] = key
                self._by_body.setdefault(key, target)
                self._referred |= self._refers(renamed)
        return names

    def _rename(self, body: Any, renames: dict[str, str]) -> Any:
        """:func:`_renamed` with the ``renames`` (old -> new, each different) that apply to
        ``body``: the body itself when it refers to none of them, else one copy per body
        and renames (tools that share definitions settle on the same renames)."""
        if not renames:
            return body
        refs = self._refers(body)
        applied = tuple(sorted((old, renames[old]) for old in refs if old in renames))
        if not applied:
            return body
        copy = self._copies.get((id(body), applied))
        if copy is None:
            copy = self._copies[(id(body), applied)] = _renamed(body, dict(applied))
            self._refs[id(copy)] = (copy, frozenset(renames.get(r, r) for r in refs))
        return copy

    def _free(self, base: str, used: set[str]) -> str:
        """The first ``base_N`` (N from 2) that is neither a definition nor in ``used``."""
        i = self._next.get(base, 2)
        while f"{base}_{i}" in self.defs:  # definitions are only added while names are given
            i += 1
        self._next[base] = i
        while f"{base}_{i}" in self.defs or f"{base}_{i}" in used:
            i += 1
        return f"{base}_{i}"

    def hoist(self, tool: dict[str, Any]) -> dict[str, Any]:
        out = dict(tool)
        own = out.pop("definitions", None) or {}
        if own:
            names = self.add_all(dict(own))
            if "parameters" in out:
                out["parameters"] = _rename(out["parameters"], names)
        output = out.get("output_schema")
        if isinstance(output, dict) and isinstance(output.get("$defs"), dict):
            rest = {k: v for k, v in output.items() if k != "$defs"}
            names = self.add_all(dict(output["$defs"]))
            out["output_schema"] = _rename(rest, names)
        return out


# -- repeated schemas ----------------------------------------------------------
# Specs such as Stripe's write their request bodies inline: the same address or
# metadata schema appears in hundreds of operations. A schema written the same
# way at least twice, and not tiny, is written once under definitions instead.

SHARE_MIN_CHARS = 160  # a schema shorter than this (as JSON) stays where it is used
SHARE_MIN_ARGUMENT_CHARS = 100  # the same for an argument's whole schema
_ONE: tuple[str, ...] = ("additionalProperties", "items", "not", "contains", "if", "then")
_ONE += ("else", "propertyNames", "unevaluatedItems", "unevaluatedProperties")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SUBSCHEMA_KEYS = frozenset(_ONE + _MANY + _MAPS)
_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


_ROLE = {"items": "item", "additionalProperties": "value", "anyOf": "option", "oneOf": "option"}


def _subschemas(schema: dict[str, Any]) -> list[tuple[str | None, Any, Any]]:
    """(slot, holder, key) of each schema directly below ``schema``: the holder is
    ``schema`` itself (slot ``None``) or the list or mapping at ``schema[slot]``."""
    found: list[tuple[str | None, Any, Any]] = []
    if _SUBSCHEMA_KEYS.isdisjoint(schema):  # most schemas: a leaf
        return found
    for k in _ONE:
        if isinstance(schema.get(k), dict):
            found.append((None, schema, k))
    for k in _MANY:
        v = schema.get(k)
        if isinstance(v, list):
            found.extend((k, v, i) for i, item in enumerate(v) if isinstance(item, dict))
    for k in _MAPS:
        v = schema.get(k)
        if isinstance(v, dict):
            found.extend((k, v, n) for n, item in v.items() if isinstance(item, dict))
    return found


def _hint(owner: str, slot: str | None, key: Any) -> str:
    """The name hint of a schema below ``owner`` (a property, argument or definition
    name), at ``key`` of ``slot`` (:func:`_subschemas`): ``tags_item``, ``address``."""
    if slot is None:
        return f"{owner}_{_ROLE.get(key, key)}"
    if slot in _MAPS:
        return str(key)
    return f"{owner}_{_ROLE.get(slot, 'part')}"


class _Repeats:
    """The sub-schemas of parameters and definitions written the same way at least twice.

    :meth:`count` counts every sub-schema, by digest, once per place it is written;
    :meth:`private` then gives a schema whose holders of repeated sub-schemas are mutable
    copies (the rest stays the shared frozen original) and lists them in :attr:`sites`,
    innermost first. A spec's converted schemas are shared objects: each is serialised
    and walked once, however many tools hold it.
    """

    def __init__(self) -> None:
        self.counts: dict[bytes, int] = {}
        self.sites: list[tuple[Any, Any, str, bytes]] = []  # holder, key, hint, digest
        self._digests = _Digests()
        self._clean: dict[int, Any] = {}  # id -> a schema with no repeated one below it

    def digest(self, node: dict[str, Any]) -> bytes | None:
        """The digest of a sub-schema large enough to share; ``None`` for one that is not."""
        digest, length = self._digests.of(node)
        return digest if length >= SHARE_MIN_CHARS and "$defs" not in node else None

    def count(self, roots: list[dict[str, Any]]) -> None:
        """Count the sub-schemas of ``roots``: each distinct schema is visited once, with
        the number of places it is written (its holders' places, added up)."""
        seen: dict[int, Any] = {}
        order: list[tuple[dict[str, Any], list[Any]]] = []  # (schema, its _subschemas)
        places: dict[int, int] = {}
        for root in roots:
            if id(root) not in seen:
                _below_first(root, seen, order)
            places[id(root)] = places.get(id(root), 0) + 1
        for node, below in reversed(order):  # a holder before what it holds: its places known
            n = places[id(node)]
            for _, holder, key in below:
                sub = holder[key]
                places[id(sub)] = places.get(id(sub), 0) + n
                digest = self.digest(sub)
                if digest is not None:
                    self.counts[digest] = self.counts.get(digest, 0) + n

    def repeated(self, digest: bytes | None) -> bool:
        return digest is not None and self.counts[digest] >= 2

    def private(self, schema: dict[str, Any], owner: str) -> dict[str, Any]:
        """``schema``, or a copy of it down to the holders of its repeated sub-schemas."""
        if id(schema) in self._clean:
            return schema
        copy: dict[str, Any] | None = None
        holders: dict[str, Any] = {}  # slot -> its copy
        for slot, holder, key in _subschemas(schema):
            node = holder[key]
            hint = _hint(owner, slot, key)
            new = self.private(node, hint)
            digest = self.digest(node)
            if new is node and not self.repeated(digest):
                continue
            if copy is None:
                copy = dict(schema)
            mine: Any  # the holder's copy: this schema's, or the list or mapping at slot
            if slot is None:
                mine = copy
            elif slot in holders:
                mine = holders[slot]
            else:
                mine = holders[slot] = copy[slot] = (dict if slot in _MAPS else list)(holder)
            mine[key] = new
            if self.repeated(digest):
                assert digest is not None
                self.sites.append((mine, key, hint, digest))
        if copy is None:
            self._clean[id(schema)] = schema
            return schema
        return copy


def _below_first(
    node: dict[str, Any], seen: dict[int, Any], order: list[tuple[dict[str, Any], list[Any]]]
) -> None:
    """Add ``node`` and the schemas below it not ``seen`` yet to ``order``, each after
    the ones below it (schemas are trees that share branches, never loops)."""
    seen[id(node)] = node
    below = _subschemas(node)
    for _, holder, key in below:
        sub = holder[key]
        if id(sub) not in seen:
            _below_first(sub, seen, order)
    order.append((node, below))


def _argument_digest(param: dict[str, Any]) -> bytes | None:
    """The digest of an argument's whole schema (placement aside), when it may be shared."""
    if isinstance(param.get("required"), list) or "$ref" in param:
        return None
    text = _canonical({k: v for k, v in param.items() if k not in PLACEMENT_KEYS})
    return _digest(text) if len(text) >= SHARE_MIN_ARGUMENT_CHARS else None


def _share_repeats(tools: list[dict[str, Any]], pool: _Pool) -> list[dict[str, Any]]:
    """Tools whose repeated parameter sub-schemas refer to one shared definition each."""
    repeats = _Repeats()
    arguments: list[tuple[dict[str, Any], str, bytes | None]] = []  # param, name, digest
    for tool in tools:
        for arg, param in (tool.get("parameters") or {}).items():
            digest = _argument_digest(param)
            arguments.append((param, str(arg), digest))
            if digest is not None:
                repeats.counts[digest] = repeats.counts.get(digest, 0) + 1
    bodies = [(n, b) for n, b in pool.defs.items() if isinstance(b, dict)]
    repeats.count([a[0] for a in arguments] + [b for _, b in bodies])
    # the second pass, in the first one's order: tools' parameters, then definitions
    found = iter(arguments)
    out: list[dict[str, Any]] = []
    for tool in tools:
        if not tool.get("parameters"):
            out.append(tool)
            continue
        params: dict[str, Any] = {}
        for arg, _ in tool["parameters"].items():
            param, name, digest = next(found)
            mine = repeats.private(param, name)
            if mine is param:  # an argument's schema may be taken out of it: its own copy
                mine = dict(param)
            params[arg] = mine
            if repeats.repeated(digest):
                assert digest is not None
                repeats.sites.append((mine, None, name, digest))
        out.append({**tool, "parameters": params})
    for def_name, body in bodies:
        pool.defs[def_name] = repeats.private(body, def_name)
    _move_repeats(repeats.sites, pool)
    return out


def _move_repeats(sites: list[tuple[Any, Any, str, bytes]], pool: _Pool) -> None:
    """Each repeated schema at ``sites`` written once under definitions, referred to."""
    names: dict[bytes, str] = {}
    moved: dict[int, dict[str, Any]] = {}  # id(argument) -> the schema taken out of it
    # outermost first (the sites are listed innermost first): a repeated schema inside a
    # repeated one is shared from inside the definition, and written once there
    for holder, key, hint, digest in reversed(sites):
        holder = moved.get(id(holder), holder)
        name: str | None = names.get(digest) or pool._by_body.get(digest)
        if key is None:  # an argument: its placement stays, its schema is shared
            node = {k: v for k, v in holder.items() if k not in PLACEMENT_KEYS}
            for k in node:
                del holder[k]
            moved[id(holder)] = node
        else:
            node = holder[key]
        if name is None:
            title = node.get("title") if isinstance(node.get("title"), str) else None
            base = _NAME_CHARS.sub("_", title or hint).strip("_")[:60] or "schema"
            name = base if base not in pool.defs else pool._free(base, set())
            pool.defs[name] = node
            pool._by_body[digest] = name
        names[digest] = name
        if key is None:
            holder["$ref"] = f"{_REF_PREFIX}{name}"
        else:
            holder[key] = {"$ref": f"{_REF_PREFIX}{name}"}


def _merge_duplicates(tools: list[dict[str, Any]], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """One name per body: definitions that came out the same (once the schemas inside them
    were shared) are merged, and every ref follows (until nothing more merges)."""
    digests = _Digests()  # a body no merge renamed is the same object the next round
    while True:
        first: dict[bytes, str] = {}
        names: dict[str, str] = {}
        for name in sorted(defs):
            digest = digests.of(defs[name])[0]
            if digest in first:
                names[name] = first[digest]
            else:
                first[digest] = name
        if not names:
            return tools
        for name in names:
            del defs[name]
        for name in defs:
            defs[name] = _rename(defs[name], names)
        tools = [_rename_tool(t, names) for t in tools]


def _rename_tool(tool: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    out = dict(tool)
    for key in ("parameters", "output_schema"):
        if key in out:
            out[key] = _rename(out[key], names)
    return out


def _others(names: dict[str, str], me: str) -> set[str]:
    return {v for k, v in names.items() if k != me}
