"""What each provider's API refuses: too many tools in one request, names it does not take.

A provider states its :class:`ProviderLimits` as its ``limits`` attribute (the built-in
ones take theirs from :data:`toolcat.catalog.common.PROVIDER_LIMITS`, where every limit lives;
a provider from outside may have none: nothing is checked then); :func:`limit_warnings` turns a
tool list that passes them into one line each, for ``toolcat schema`` and
``toolcat chat`` to print before a request fails at the provider.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolcat.catalog.common import ProviderLimits

__all__ = ["MAX_NAME_WARNINGS", "ProviderLimits", "limit_warnings", "limits", "too_many_tools"]

MAX_NAME_WARNINGS = 20  # names listed one a line; the rest are counted in one more line


def limits(provider: str) -> ProviderLimits:
    """The limits the provider registered under ``provider`` states (none: no limits)."""
    from ._registry import get

    found = getattr(get(provider), "limits", None)
    return found if isinstance(found, ProviderLimits) else ProviderLimits()


def limit_warnings(provider: str, names: Sequence[str], *, count: bool = True) -> list[str]:
    """One line per limit ``names`` (the tools of one request) passes, for stderr;
    ``count=False`` checks the names only (a caller that sends fewer tools).

    >>> limit_warnings("mcp", ["ok", "not ok"])  # doctest: +ELLIPSIS
    ["mcp: tool name 'not ok' is not one the API takes (letters, digits, ...)"]
    """
    stated = limits(provider)
    out = []
    over = too_many_tools(stated, len(names)) if count else None
    if over is not None:
        out.append(
            f"{provider}: {over} (pick fewer with --toolset, or let the "
            "model search them: toolcat chat --tool-selection search)"
        )
    bad = [n for n in names if not stated.name_ok(n)]
    for name in bad[:MAX_NAME_WARNINGS]:
        out.append(f"{provider}: tool name {name!r} is not one the API takes ({stated.name_rule})")
    if len(bad) > MAX_NAME_WARNINGS:
        out.append(f"{provider}: and {len(bad) - MAX_NAME_WARNINGS} more tool names like these")
    return out


def too_many_tools(stated: ProviderLimits, count: int) -> str | None:
    """What is wrong with a request of ``count`` tools under ``stated``, or ``None``.

    >>> too_many_tools(ProviderLimits(max_tools=128), 130)
    '130 tools, and the API takes at most 128 in one request'
    """
    if stated.max_tools is None or count <= stated.max_tools:
        return None
    return f"{count:,} tools, and the API takes at most {stated.max_tools} in one request"
