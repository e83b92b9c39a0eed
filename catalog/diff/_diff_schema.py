"""How one JSON Schema changed into another, for callers: narrower, wider, or only reworded.

The walk compares two input schemas keyword by keyword, following local ``$ref``s
(``#/$defs/...``) on both sides and recursing into properties, items and the
alternatives of ``anyOf``/``oneOf``/``allOf``. Each difference is handed to an
``emit(rule, pointer, message)`` callback with the rule id of :mod:`._diff`;
a definition reached twice (or recursively) through the same pair of ``$ref``s
is compared once.

A change is *narrower* when some value the old schema accepted is refused by the
new one (breaking for a caller that sent it); *wider* when the reverse holds
(a note). A change neither of those can be told (``not``, ``if``) is a note too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._schema_parts import (
    TEXT_KEYS,
    as_mapping,
    as_seq,
    bound_of,
    canonical,
    core_of,
    covered,
    divides,
    has_ref,
    is_number,
    is_tighter,
    item_name,
    lookup,
    member,
    open_schema,
    pointer,
    short_text,
    show_bound,
    strings_in,
    types_of,
    values_by_text,
)

__all__ = ["SchemaDiff"]

Emit = Callable[[str, str, str], None]

# keywords this walk classifies itself (everything else that differs is a plain note)
_HANDLED = frozenset(
    {"type", "nullable", "enum", "const", "properties", "required", "items", "prefixItems"}
    | {"additionalProperties", "anyOf", "oneOf", "allOf", "pattern", "format", "multipleOf"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "uniqueItems"}
    | {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
    | {"$defs", "definitions", "$schema", "$id"}  # a $ref left here did not resolve: compared
)
_LOWER_COUNTS = ("minLength", "minItems", "minProperties")  # a larger value refuses more
_UPPER_COUNTS = ("maxLength", "maxItems", "maxProperties")  # a smaller value refuses more
_MAX_REF_HOPS = 64  # a chain of $ref to $ref longer than this is left unresolved


class SchemaDiff:
    """One comparison of an old and a new schema root (a tool's input schema).

    ``emit(rule, pointer, message)`` receives each finding; ``base`` is the pointer of
    the roots within the tool (``/input_schema``).
    """

    def __init__(self, old_root: Any, new_root: Any, emit: Emit, base: str) -> None:
        self._old_root = old_root
        self._new_root = new_root
        self._emit = emit
        self._base = base
        self._seen: set[tuple[str | None, str | None]] = set()
        # identical definitions on both sides: an equal subtree then means no change
        self._same_defs = all(
            member(old_root, k) == member(new_root, k) for k in ("$defs", "definitions")
        )

    def run(self) -> None:
        self._compare(self._old_root, self._new_root, (), ())

    # -- plumbing ----------------------------------------------------------------------

    def _resolve(self, node: Any, root: Any) -> tuple[Any, str | None]:
        first: str | None = None
        for _ in range(_MAX_REF_HOPS):
            if not isinstance(node, Mapping) or not isinstance(node.get("$ref"), str):
                break
            ref = node["$ref"]
            target = lookup(root, ref)
            if target is None:
                break
            first = first or ref
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if siblings and isinstance(target, Mapping) else target
        return node, first

    def _say(self, rule: str, at: tuple[str | int, ...], message: str) -> None:
        self._emit(rule, self._base + pointer(*at), message)

    @staticmethod
    def _name(names: tuple[str, ...]) -> str:
        if not names:
            return "the arguments"
        what = "argument" if len(names) == 1 else "property"
        return f"{what} '{'.'.join(names)}'"

    # -- the walk ----------------------------------------------------------------------

    def _compare(
        self, old: Any, new: Any, at: tuple[str | int, ...], names: tuple[str, ...]
    ) -> None:
        if old == new and (self._same_defs or not has_ref(old)):
            return  # equal, and no definition inside that could differ
        old, old_ref = self._resolve(old, self._old_root)
        new, new_ref = self._resolve(new, self._new_root)
        if old_ref is not None and new_ref is not None:  # a definition pair: compared once
            if (old_ref, new_ref) in self._seen:
                return
            self._seen.add((old_ref, new_ref))
        if isinstance(old, bool) or isinstance(new, bool) or old is None or new is None:
            self._compare_booleans(old, new, at, names)
            return
        if not isinstance(old, Mapping) or not isinstance(new, Mapping):
            if old != new:
                self._say("TD306", at, f"{self._name(names)}: schema changed")
            return
        self._compare_type(old, new, at, names)
        self._compare_enum(old, new, at, names)
        self._compare_bounds(old, new, at, names)
        self._compare_counts(old, new, at, names)
        self._compare_text_constraints(old, new, at, names)
        self._compare_properties(old, new, at, names)
        self._compare_items(old, new, at, names)
        self._compare_alternatives(old, new, at, names)
        self._compare_rest(old, new, at, names)

    def _compare_booleans(
        self, old: Any, new: Any, at: tuple[str | int, ...], names: tuple[str, ...]
    ) -> None:
        # ``true``/``{}`` accept anything, ``false`` nothing; anything else is a constraint
        old_open = old is True or old == {} or old is None
        new_open = new is True or new == {} or new is None
        if old == new or (old_open and new_open):
            return
        if new is False:
            self._say("TD105", at, f"{self._name(names)}: no value is accepted any more")
        elif old is False or new_open:
            self._say("TD305", at, f"{self._name(names)}: accepts any value now")
        else:  # open before, constrained now: compare against an empty schema
            self._compare({}, new, at, names)

    def _compare_type(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        before, after = types_of(old), types_of(new)
        if before == after:
            return
        where = (*at, "type")
        if after is None:
            self._say("TD305", where, f"{self._name(names)}: any type is accepted now")
            return
        shown_after = "|".join(sorted(after))
        if before is None:
            self._say("TD105", where, f"{self._name(names)}: type restricted to {shown_after}")
            return
        lost = sorted(t for t in before if not covered(t, after))
        shown_before = "|".join(sorted(before))
        if lost:
            self._say(
                "TD105",
                where,
                f"{self._name(names)}: type changed from {shown_before} to {shown_after}",
            )
        else:
            self._say(
                "TD305",
                where,
                f"{self._name(names)}: type widened from {shown_before} to {shown_after}",
            )

    def _compare_enum(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        for key in ("enum", "const"):
            if canonical(old.get(key)) == canonical(new.get(key)):
                continue
            where = (*at, key)
            name = self._name(names)
            if key not in new:
                self._say("TD305", where, f"{name}: {key} removed")
            elif key not in old:
                self._say("TD107", where, f"{name}: now limited to {key} {short_text(new[key])}")
            elif key == "const":
                self._say("TD107", where, f"{name}: const changed to {short_text(new[key])}")
            else:
                before = values_by_text(old[key])
                after = values_by_text(new[key])
                removed = [v for c, v in before.items() if c not in after]
                added = [v for c, v in after.items() if c not in before]
                if removed:
                    values = ", ".join(short_text(v, 40) for v in removed)
                    self._say("TD106", where, f"{name}: enum value removed: {values}")
                if added:
                    values = ", ".join(short_text(v, 40) for v in added)
                    self._say("TD305", where, f"{name}: enum value added: {values}")

    def _compare_bounds(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        for side, inclusive, exclusive in (
            ("lower", "minimum", "exclusiveMinimum"),
            ("upper", "maximum", "exclusiveMaximum"),
        ):
            before = bound_of(old, inclusive, exclusive, side)
            after = bound_of(new, inclusive, exclusive, side)
            if before == after:
                continue
            where = (*at, (after or before or (0, False, inclusive))[2])
            name = self._name(names)
            shown_before, shown_after = show_bound(before, side), show_bound(after, side)
            shown = f"{side} bound {shown_before} -> {shown_after}"
            if after is not None and (before is None or is_tighter(after, before, side)):
                self._say("TD107", where, f"{name}: {shown} (tightened)")
            else:
                self._say("TD305", where, f"{name}: {shown} (relaxed)")
        if old.get("multipleOf") != new.get("multipleOf"):
            before, after = old.get("multipleOf"), new.get("multipleOf")
            where = (*at, "multipleOf")
            name = self._name(names)
            if after is None or (is_number(before) and divides(after, before)):
                self._say("TD305", where, f"{name}: multipleOf {before} -> {after}")
            else:
                self._say("TD107", where, f"{name}: multipleOf {before} -> {after}")

    def _compare_counts(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        for keys, tighter in ((_LOWER_COUNTS, True), (_UPPER_COUNTS, False)):
            for key in keys:
                before: Any = old.get(key)
                after: Any = new.get(key)
                if before == after:
                    continue
                if not is_number(after):
                    narrower = False
                elif not is_number(before):
                    narrower = after > 0 if tighter else True
                else:
                    narrower = after > before if tighter else after < before
                rule = "TD107" if narrower else "TD305"
                shown = f"{key} {short_text(before)} -> {short_text(after)}"
                self._say(rule, (*at, key), f"{self._name(names)}: {shown}")
        if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
            rule = "TD107" if new.get("uniqueItems") else "TD305"
            verb = "now must" if new.get("uniqueItems") else "need no longer"
            self._say(rule, (*at, "uniqueItems"), f"{self._name(names)}: items {verb} be unique")

    def _compare_text_constraints(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        for key in ("pattern", "format"):
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            name = self._name(names)
            if after is None:
                self._say("TD305", (*at, key), f"{name}: {key} {short_text(before)} removed")
            elif before is None:
                self._say("TD107", (*at, key), f"{name}: {key} {short_text(after)} added")
            else:
                shown = f"{short_text(before)} -> {short_text(after)}"
                self._say("TD107", (*at, key), f"{name}: {key} changed {shown}")

    def _compare_properties(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        old_props = as_mapping(old.get("properties"))
        new_props = as_mapping(new.get("properties"))
        old_req = strings_in(old.get("required"))
        new_req = strings_in(new.get("required"))
        for prop in old_props:
            here = (*names, prop)
            where = (*at, "properties", prop)
            if prop not in new_props:
                self._say("TD102", where, f"{self._name(here)} removed")
                continue
            if prop in new_req and prop not in old_req:
                self._say("TD103", (*at, "required"), f"{self._name(here)} is now required")
            elif prop in old_req and prop not in new_req:
                self._say("TD305", (*at, "required"), f"{self._name(here)} is no longer required")
            self._compare(old_props[prop], new_props[prop], where, here)
        for prop in new_props:
            if prop in old_props:
                continue
            here = (*names, prop)
            where = (*at, "properties", prop)
            if prop in new_req:
                self._say("TD104", where, f"required {self._name(here)} added")
            else:
                self._say("TD303", where, f"optional {self._name(here)} added")
        # required names that no ``properties`` entry declares on either side
        for prop in new_req - old_req - set(old_props) - set(new_props):
            self._say("TD103", (*at, "required"), f"{self._name((*names, prop))} is now required")
        for prop in old_req - new_req - set(old_props) - set(new_props):
            self._say(
                "TD305", (*at, "required"), f"{self._name((*names, prop))} is no longer required"
            )
        before = open_schema(old.get("additionalProperties"))
        after = open_schema(new.get("additionalProperties"))
        where = (*at, "additionalProperties")
        if after is False and before is not False:
            what = "unknown arguments" if not names else f"{self._name(names)}: other properties"
            self._say("TD107", where, f"{what} no longer allowed")
        elif before is False and after is not False:
            what = "unknown arguments" if not names else f"{self._name(names)}: other properties"
            self._say("TD305", where, f"{what} now allowed")
        else:
            self._compare(before, after, where, (*names, "*"))

    def _compare_items(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        before, after = old.get("items"), new.get("items")
        if isinstance(before, list) or isinstance(after, list):  # draft 4 tuple form
            self._compare_tuple(as_seq(before), as_seq(after), (*at, "items"), names)
        else:
            self._compare(
                open_schema(before),
                open_schema(after),
                (*at, "items"),
                (*names[:-1], item_name(names)),
            )
        if "prefixItems" in old or "prefixItems" in new:
            self._compare_tuple(
                as_seq(old.get("prefixItems")),
                as_seq(new.get("prefixItems")),
                (*at, "prefixItems"),
                names,
            )

    def _compare_tuple(
        self, old: Sequence[Any], new: Sequence[Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        for index in range(max(len(old), len(new))):
            before = old[index] if index < len(old) else {}
            after = new[index] if index < len(new) else {}
            self._compare(before, after, (*at, index), (*names[:-1], f"{item_name(names)}{index}"))

    def _compare_alternatives(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        for key in ("anyOf", "oneOf", "allOf"):
            before, after = as_seq(old.get(key)), as_seq(new.get(key))
            if before == after and self._same_defs:
                continue
            name = self._name(names)
            if {canonical(x) for x in before} == {canonical(x) for x in after} and self._same_defs:
                continue  # the same alternatives, reordered
            if len(before) == len(after):
                for index, (b, a) in enumerate(zip(before, after, strict=True)):
                    self._compare(b, a, (*at, key, index), names)
                continue
            old_set = {canonical(x) for x in before}
            new_set = {canonical(x) for x in after}
            gone = len(old_set - new_set)
            came = len(new_set - old_set)
            if key == "allOf":  # every member must hold: more members refuse more
                narrower, wider = came, gone
            else:
                narrower, wider = (gone if after else 0), (came if before else 0)
                if not before:  # a choice where there was none: narrower, unless one of
                    # the new alternatives is the old schema itself (made nullable, say)
                    narrower = 0 if self._offers(old, after, key) else len(after)
                    wider = 1 - min(narrower, 1)
                if not after:
                    wider = len(before)  # no choice left to make: any value passes it
            if narrower:
                rule = "TD107" if key == "allOf" else "TD105"  # a constraint, or a choice gone
                self._say(rule, (*at, key), f"{name}: {key} now accepts less")
            if wider:
                self._say("TD305", (*at, key), f"{name}: {key} now accepts more")
            if not narrower and not wider:
                self._say("TD306", (*at, key), f"{name}: {key} changed")

    def _offers(self, old: Mapping[str, Any], alternatives: Sequence[Any], key: str) -> bool:
        """Whether one of ``alternatives`` (new) accepts what the old schema did by itself."""
        core = canonical(core_of(old, key))
        return any(
            canonical(core_of(self._resolve(alt, self._new_root)[0], key)) == core
            for alt in alternatives
        )

    def _compare_rest(
        self, old: Mapping[str, Any], new: Mapping[str, Any], at: tuple[str | int, ...], names: Any
    ) -> None:
        changed_text = []
        for key in dict.fromkeys([*old, *new]):
            if key in _HANDLED or canonical(old.get(key)) == canonical(new.get(key)):
                continue
            if key in TEXT_KEYS or key.startswith("x-"):
                changed_text.append(key)
            else:
                self._say("TD306", (*at, key), f"{self._name(names)}: {key} changed")
        if changed_text:
            keys = ", ".join(changed_text)
            self._say("TD304", (*at, changed_text[0]), f"{self._name(names)}: {keys} changed")
