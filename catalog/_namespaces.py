"""Tools grouped into namespaces by toolset or by service: what an OpenAI Responses export
sends as ``namespace`` tools, and what lint measures against the advised size."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ._limits import NAMESPACE_LIMITS
from ._model import ToolDefinition

__all__ = ["NAMESPACE_KINDS", "Namespace", "NamespaceKind", "namespace_groups"]

NamespaceKind = Literal["toolset", "service"]
#: How tools may be grouped.
NAMESPACE_KINDS: tuple[NamespaceKind, ...] = ("toolset", "service")


@dataclass(frozen=True, slots=True)
class Namespace:
    """One group: its name as sent, where it comes from (a toolset or service name), and
    its tools' names in catalog order."""

    name: str
    source: str
    tools: tuple[str, ...]


def namespace_groups(
    tools: Sequence[ToolDefinition],
    by: NamespaceKind,
    toolsets: Mapping[str, Iterable[str]] | None = None,
) -> tuple[list[Namespace], list[str]]:
    """The namespaces of ``tools`` and the names of the tools left in none.

    ``by="toolset"``: a tool goes to the first toolset (in ``toolsets`` order) that holds
    it; ``by="service"``: to its service (an MCP tool: its server). A name the API does
    not take is made one (other characters become ``_``, cut to the limit, a number added
    where two meet or a tool has the name). Past the most namespaces a request holds,
    the smallest groups' tools stay outside any.

    >>> [n.name for n in namespace_groups([], "service")[0]]
    []
    """
    limits = NAMESPACE_LIMITS
    order: dict[str, list[str]] = {}
    alone: list[str] = []
    if by == "toolset":
        home: dict[str, str] = {}
        for set_name, members in (toolsets or {}).items():
            for member in members:
                home.setdefault(member, set_name)
        for tool in tools:
            if tool.name in home:
                order.setdefault(home[tool.name], []).append(tool.name)
            else:
                alone.append(tool.name)
    else:
        for tool in tools:
            owner = getattr(tool.command, "service", None) or getattr(tool.command, "server", "")
            order.setdefault(str(owner), []).append(tool.name)
    if len(order) > limits.max_namespaces:
        kept = sorted(order, key=lambda k: -len(order[k]))[: limits.max_namespaces]
        for source in [k for k in order if k not in kept]:
            alone += order.pop(source)
    taken = {t.name for t in tools}
    groups = []
    for source, members in order.items():
        name = _valid_name(source, taken)
        taken.add(name)
        groups.append(Namespace(name, source, tuple(members)))
    return groups, alone


def _valid_name(source: str, taken: set[str]) -> str:
    """``source`` as a namespace name the API takes, unlike every name in ``taken``."""
    limits = NAMESPACE_LIMITS
    base = re.sub(r"[^a-zA-Z0-9_-]", "_", source)[: limits.max_name_chars] or "tools"
    name, n = base, 1
    while name in taken:
        n += 1
        suffix = f"_{n}"
        name = base[: limits.max_name_chars - len(suffix)] + suffix
    return name
