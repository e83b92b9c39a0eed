"""OpenAPI Overlay 1.0: change a spec without editing it.

An overlay (https://spec.openapis.org/overlay/v1.0.0.html) is a YAML or JSON
document with ordered actions, each a JSONPath ``target`` (RFC 9535, evaluated
by ``jsonpath-rfc9535``) with an ``update`` to merge into every node it selects
or ``remove: true`` to delete them. Overlays apply to the parsed spec before
import, in order, and never change the caller's document: containers on the way
to a changed node are copied (the rest is shared), so a 13 MB spec is not
copied for a one-line change.

Merging (``update``): into an object, an object's members replace those of the
same name, nested objects merge recursively, any other value replaces; into an
array, an array's items are appended, any other value is appended as one item.
A target that selects nothing is a warning (TC220), as the standard advises.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcat.loader._diagnostics import Diagnostic
from toolcat.loader._files import FileReadError, read_regular_file

__all__ = ["Overlay", "apply_overlays", "read_overlay"]

_VERSION = re.compile(r"1\.0\.\d+\Z")
_TOP_KEYS = frozenset({"overlay", "info", "extends", "actions"})
_ACTION_KEYS = frozenset({"target", "description", "update", "remove"})
MAX_ACTIONS = 10_000  # actions per overlay file; each is one JSONPath query over the spec


@dataclass(frozen=True, slots=True)
class _Action:
    target: str
    query: Any  # a compiled JSONPath query
    update: Any
    remove: bool
    where: tuple[int, int]  # the action's `target` in the overlay file
    index: int


@dataclass(frozen=True, slots=True)
class Overlay:
    """One overlay file, checked: its actions, ready to apply."""

    file: str
    title: str
    actions: tuple[_Action, ...]


def _diag(
    code: str, message: str, file: str, where: tuple[int, int], path: Sequence[Any] = ()
) -> Diagnostic:
    return Diagnostic.make(code, message, file, where[0], where[1], path)


def read_overlay(path: Path, max_bytes: int, out: list[Diagnostic]) -> Overlay | None:
    """Read and check one overlay file; findings (TC060-TC062) go to ``out``.

    Returns ``None`` when the file cannot be used at all (nothing of it applies).
    """
    from toolcat.loader._yaml import parse_yaml

    shown = str(path)
    try:
        data = read_regular_file(path, max_bytes)
    except FileReadError as exc:
        message = f"overlay {shown} cannot be read: {exc}"
        out.append(_diag("TC060", message, shown, (1, 1), ("overlays",)))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        out.append(_diag("TC060", f"overlay {shown} is not UTF-8 text", shown, (1, 1)))
        return None
    parsed = parse_yaml(text, shown)
    errors = [d for d in parsed.diagnostics if d.severity == "error"]
    if errors or parsed.data is None:
        first = errors[0] if errors else None
        reason = first.message if first else "the file is empty"
        where = (first.line, first.column) if first else (1, 1)
        out.append(_diag("TC060", f"overlay {shown} is not YAML or JSON: {reason}", shown, where))
        return None
    doc, at = parsed.data, parsed.positions
    before = len(out)
    if not isinstance(doc, dict):
        out.append(
            _diag("TC061", "an overlay is a mapping with overlay, info and actions", shown, at(()))
        )
        return None
    for key in doc:
        if key not in _TOP_KEYS and not str(key).startswith("x-"):
            out.append(
                _diag(
                    "TC061",
                    f"unknown key {key!r} in an overlay "
                    "(use overlay, info, extends, actions, or x- keys)",
                    shown,
                    at((key,), True),
                    (key,),
                )
            )
    version = doc.get("overlay")
    if not isinstance(version, str) or not _VERSION.match(version):
        shown_version = "missing" if version is None else repr(version)
        out.append(
            _diag(
                "TC061",
                f"overlay version {shown_version}: toolcat applies Overlay 1.0 documents "
                "(write overlay: 1.0.0)",
                shown,
                at(("overlay",)),
                ("overlay",),
            )
        )
    info = doc.get("info")
    if (
        not isinstance(info, dict)
        or not isinstance(info.get("title"), str)
        or not isinstance(info.get("version"), str)
    ):
        out.append(
            _diag(
                "TC061",
                "an overlay needs info with a title and a version (strings)",
                shown,
                at(("info",)),
                ("info",),
            )
        )
    actions = doc.get("actions")
    if not isinstance(actions, list) or not actions:
        out.append(
            _diag(
                "TC061",
                "an overlay needs a non-empty list of actions",
                shown,
                at(("actions",)),
                ("actions",),
            )
        )
        actions = []
    if len(actions) > MAX_ACTIONS:
        out.append(
            _diag(
                "TC061",
                f"{len(actions)} actions: at most {MAX_ACTIONS} per overlay file; split it",
                shown,
                at(("actions",)),
                ("actions",),
            )
        )
        actions = []
    checked = [
        a for i, raw in enumerate(actions) if (a := _action(raw, i, shown, at, out)) is not None
    ]
    if len(out) > before:
        return None
    title = info["title"] if isinstance(info, dict) else ""
    return Overlay(shown, str(title), tuple(checked))


def _action(raw: Any, i: int, shown: str, at: Any, out: list[Diagnostic]) -> _Action | None:
    import jsonpath_rfc9535 as jsonpath

    base = ("actions", i)
    if not isinstance(raw, dict):
        out.append(
            _diag("TC061", f"action {i + 1} must be a mapping with a target", shown, at(base), base)
        )
        return None
    bad = [k for k in raw if k not in _ACTION_KEYS and not str(k).startswith("x-")]
    for key in bad:
        out.append(
            _diag(
                "TC061",
                f"unknown key {key!r} in action {i + 1} "
                "(use target, description, update, remove, or x- keys)",
                shown,
                at((*base, key), True),
                (*base, key),
            )
        )
    target = raw.get("target")
    remove = raw.get("remove", False)
    if not isinstance(remove, bool):
        out.append(
            _diag(
                "TC061",
                f"action {i + 1}: remove must be true or false",
                shown,
                at((*base, "remove")),
                (*base, "remove"),
            )
        )
        return None
    if not remove and "update" not in raw:
        out.append(
            _diag(
                "TC061",
                f"action {i + 1} neither updates nor removes: add update: {{...}} or remove: true",
                shown,
                at(base),
                base,
            )
        )
        return None
    if not isinstance(target, str) or not target.startswith("$"):
        out.append(
            _diag(
                "TC061",
                f"action {i + 1} needs a target: a JSONPath starting with $ (RFC 9535)",
                shown,
                at((*base, "target") if "target" in raw else base),
                (*base, "target"),
            )
        )
        return None
    where = at((*base, "target"))
    try:
        query = jsonpath.compile(target)
    except jsonpath.JSONPathError as exc:
        token = getattr(exc, "token", None)
        offset = getattr(token, "index", 0) if token is not None else 0
        line, col = at.string((*base, "target"), int(offset or 0))
        message = str(exc).split(", line ")[0]
        out.append(
            _diag(
                "TC062",
                f"action {i + 1}: target {target!r} is not RFC 9535 JSONPath: {message}",
                shown,
                (line, col),
                (*base, "target"),
            )
        )
        return None
    if bad:
        return None
    return _Action(target, query, raw.get("update"), remove, where, i)


def apply_overlays(doc: Any, overlays: Sequence[Overlay], out: list[Diagnostic]) -> Any:
    """The spec with every overlay applied in order; ``doc`` itself is not changed.

    A target that selects nothing is TC220 (warning); an update that cannot apply
    (a scalar target, an object merged into an array item of another kind) or
    removing the whole document is TC063, and that action changes nothing.
    """
    state = _Copies(doc)
    for overlay in overlays:
        for action in overlay.actions:
            nodes = list(action.query.find(state.root))
            if not nodes:
                out.append(
                    _diag(
                        "TC220",
                        f"action {action.index + 1}: target {action.target} selects nothing "
                        "in the spec",
                        overlay.file,
                        action.where,
                        ("actions", action.index, "target"),
                    )
                )
                continue
            if action.remove:
                _remove(state, [tuple(n.location) for n in nodes], overlay, action, out)
            else:
                _update(state, [tuple(n.location) for n in nodes], overlay, action, out)
    return state.root


class _Copies:
    """The changed document: containers on a changed path are copies, the rest is shared."""

    def __init__(self, doc: Any) -> None:
        self.root = copy.copy(doc) if isinstance(doc, dict | list) else doc
        self._own: dict[int, Any] = {id(self.root): self.root}  # keeps them alive

    def owned(self, location: Sequence[str | int]) -> Any:
        """The container at ``location``, copied (with its ancestors) if not yet."""
        node: Any = self.root
        for seg in location:
            child = node[seg]
            if id(child) not in self._own:
                child = copy.copy(child)
                self._own[id(child)] = child
                node[seg] = child
            node = child
        return node


def _fail(overlay: Overlay, action: _Action, message: str, out: list[Diagnostic]) -> None:
    out.append(
        _diag(
            "TC063",
            f"action {action.index + 1} (target {action.target}): {message}",
            overlay.file,
            action.where,
            ("actions", action.index, "target"),
        )
    )


def _remove(
    state: _Copies,
    locations: list[tuple[str | int, ...]],
    overlay: Overlay,
    action: _Action,
    out: list[Diagnostic],
) -> None:
    if any(not loc for loc in locations):
        _fail(overlay, action, "cannot remove the whole document", out)
        return
    # deepest first, and higher array indexes first, so earlier removals move nothing
    for loc in sorted(locations, key=lambda loc: (-len(loc), _order(loc)), reverse=False):
        parent = state.owned(loc[:-1])
        try:
            del parent[loc[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # already gone with an ancestor's or a sibling's removal


def _order(loc: tuple[str | int, ...]) -> tuple[Any, ...]:
    # within one depth: array indexes descending (as negative numbers), keys in any order
    return tuple((0, -seg) if isinstance(seg, int) else (1, seg) for seg in loc)


def _update(
    state: _Copies,
    locations: list[tuple[str | int, ...]],
    overlay: Overlay,
    action: _Action,
    out: list[Diagnostic],
) -> None:
    update = action.update
    for loc in locations:
        target = state.owned(loc)
        if isinstance(target, dict):
            if not isinstance(update, dict):
                _fail(overlay, action, "the target is an object: update must be an object too", out)
                return
            _merge(target, update)
        elif isinstance(target, list):
            if isinstance(update, list):
                target.extend(copy.deepcopy(update))
            else:
                target.append(copy.deepcopy(update))
        else:
            _fail(
                overlay,
                action,
                "the target is a single value; target its parent object and update the member",
                out,
            )
            return


def _merge(target: dict[str, Any], update: dict[str, Any]) -> None:
    """Merge ``update`` into ``target`` (an owned copy): objects recursively, the rest replaced."""
    for key, value in update.items():
        old = target.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            mine = dict(old)
            _merge(mine, value)
            target[key] = mine
        else:
            target[key] = copy.deepcopy(value)
