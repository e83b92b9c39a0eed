"""The ``search:`` section's ``pinned`` list: checked against the catalog's tools and toolsets.

``pinned`` is a list (for every run) or a mapping of toolset name (``'*'``: every
run) to a list; each item is a tool name or a glob (``*``, ``?``, ``[...]``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from toolcat.catalog.common import OPENAI_MAX_TOOLS

from ._diagnostics import Diagnostic
from ._lint import pin_matches_nothing, pinned_tool_outside_toolset, too_many_pinned_tools
from ._shape import Locator, closest

__all__ = ["GLOB_CHARS", "PIN_LIMIT", "check_pins", "pin_entries"]

GLOB_CHARS = "*?["
#: The most pinned tools a search-mode request over OpenAI can carry: its limit of
#: tools in one request, less ``search_tools``.
PIN_LIMIT = OPENAI_MAX_TOOLS - 1


def pin_entries(pinned: Any) -> dict[str, list[str]]:
    """``pinned`` as toolset (``'*'``) to items, whichever form it was written in."""
    if pinned is None:
        return {}
    if isinstance(pinned, list):
        return {"*": list(pinned)}
    return {str(k): list(v) for k, v in pinned.items()}


def check_pins(
    pinned: Any,
    *,
    tools: Sequence[str],
    toolsets: Mapping[str, Collection[str]],
    file: str,
    locate: Locator,
    out: list[Diagnostic],
    names_known: bool = True,
) -> dict[str, list[str]]:
    """Diagnostics for ``search.pinned``; the entries to keep (unknown toolsets left out).

    ``names_known`` is false when some file could not be read: an unknown name may
    be defined there, so it is not reported.
    """
    entries = pin_entries(pinned)
    as_list = isinstance(pinned, list)
    known = set(tools)
    kept: dict[str, list[str]] = {}

    def add(code: str, message: str, path: tuple[str | int, ...], key: bool = False) -> None:
        line, col = locate(path, key)
        out.append(Diagnostic.make(code, message, file, line, col, path))

    for toolset, items in entries.items():
        base: tuple[str | int, ...] = (
            ("search", "pinned") if as_list else ("search", "pinned", toolset)
        )
        if toolset != "*" and toolset not in toolsets:
            if names_known:
                hint = closest(toolset, list(toolsets))
                advice = f"did you mean '{hint}'?" if hint else "use '*' for every run"
                add(
                    "TC090",
                    f"search.pinned names unknown toolset '{toolset}'; {advice}",
                    base,
                    True,
                )
            continue
        scope = tools if toolset == "*" else list(toolsets[toolset])
        members = set(scope)
        resolved: dict[str, None] = {}
        for i, item in enumerate(items):
            where = (*base, i)
            if any(c in item for c in GLOB_CHARS):
                matched = [n for n in scope if fnmatchcase(n, item)]
                if names_known:
                    for f in pin_matches_nothing(item, matched):
                        add(f.code, f.message, where)
                resolved.update(dict.fromkeys(matched))
                continue
            if item not in known:
                if names_known:
                    hint = closest(item, tools)
                    advice = f"did you mean '{hint}'?" if hint else "name a tool of the catalog"
                    add("TC089", f"search.pinned names unknown tool '{item}'; {advice}", where)
                continue
            for f in pinned_tool_outside_toolset(item, toolset, item in members):
                add(f.code, f.message, where)
            resolved[item] = None
        kept[toolset] = items
        total = len(resolved) + (0 if toolset == "*" else len(_star(entries, tools, members)))
        for f in too_many_pinned_tools(total, toolset, PIN_LIMIT):
            add(f.code, f.message, base, f.key)
    return kept


def _star(entries: Mapping[str, list[str]], tools: Sequence[str], members: set[str]) -> set[str]:
    """What the ``'*'`` entries pin in a run over a toolset with ``members``."""
    out: set[str] = set()
    known = set(tools)
    for item in entries.get("*", ()):
        if any(c in item for c in GLOB_CHARS):
            out.update(n for n in members if fnmatchcase(n, item))
        elif item in known:
            out.add(item)
    return out
