"""The compiled catalog: tools by exact name, services and toolsets."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError

from ._frozen import FrozenDict, freeze
from ._mcp import McpUpstream
from ._model import HttpCommand, Service, ToolDefinition

if TYPE_CHECKING:
    from .search import SearchHit, SearchIndex, SearchSettings

__all__ = ["Catalog", "UnknownToolError", "UnknownToolsetError"]


@dataclass(eq=False)
class UnknownToolError(ToolcatError, LookupError):
    """A tool name that the catalog does not hold."""

    name: str
    closest: tuple[str, ...] = ()

    def __str__(self) -> str:
        hint = f"; closest: {', '.join(self.closest)}" if self.closest else ""
        return f"unknown tool {self.name!r}{hint}"


@dataclass(eq=False)
class UnknownToolsetError(ToolcatError, LookupError):
    name: str
    known: tuple[str, ...] = ()

    def __str__(self) -> str:
        known = ", ".join(self.known) or "none"
        return f"unknown toolset {self.name!r}; the catalog has: {known}"


class Catalog:
    """An immutable set of tools, looked up by exact name.

    >>> catalog = Catalog(tools=[], services=[])
    >>> len(catalog)
    0
    """

    __slots__ = (
        "_tools",
        "_services",
        "_toolsets",
        "_env",
        "_search_index",
        "_toolset_extensions",
        "_pins",
        "_search_settings",
        "_mcp_servers",
    )

    def __init__(
        self,
        tools: Iterable[ToolDefinition],
        services: Iterable[Service],
        toolsets: Mapping[str, Iterable[str]] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        toolset_extensions: Mapping[str, Mapping[str, Any]] | None = None,
        pins: Mapping[str, Iterable[str]] | None = None,
        search: SearchSettings | None = None,
        mcp_servers: Iterable[McpUpstream] = (),
    ) -> None:
        tool_map: dict[str, ToolDefinition] = {}
        for tool in tools:
            if tool.name in tool_map:
                raise ValueError(f"duplicate tool name {tool.name!r}")
            tool_map[tool.name] = tool
        self._tools = MappingProxyType(tool_map)
        self._services = MappingProxyType({s.name: s for s in services})
        sets = {name: tuple(members) for name, members in (toolsets or {}).items()}
        for name, members in sets.items():
            missing = [m for m in members if m not in tool_map]
            if missing:
                raise ValueError(f"toolset {name!r} names unknown tools: {', '.join(missing)}")
        self._toolsets = MappingProxyType(sets)
        # each toolset's x- keys as written (the long form {tools: [...], x-owner: ...})
        self._toolset_extensions = MappingProxyType(
            {n: freeze(dict(x)) for n, x in (toolset_extensions or {}).items() if n in sets}
        )
        self._env = None if env is None else MappingProxyType(dict(env))
        self._search_index: SearchIndex | None = None
        # search.pinned: '*' (every run) or a toolset name to tool names and globs
        self._pins = MappingProxyType({k: tuple(v) for k, v in (pins or {}).items()})
        self._search_settings = search
        self._mcp_servers = MappingProxyType({s.name: s for s in mcp_servers})

    # -- tools ---------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> ToolDefinition:
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name, self.closest(name)) from None

    def get(self, name: str) -> ToolDefinition | None:
        return self._tools.get(name)

    @property
    def tools(self) -> Mapping[str, ToolDefinition]:
        return self._tools

    def closest(self, name: str, n: int = 3) -> tuple[str, ...]:
        """The tool names most like ``name``, best first (for error messages)."""
        import difflib  # here: only a near miss needs it

        return tuple(difflib.get_close_matches(name, self._tools.keys(), n=n, cutoff=0.5))

    # -- search --------------------------------------------------------------

    @property
    def search_index(self) -> SearchIndex:
        """The lexical index over every tool, built on first use (then kept)."""
        if self._search_index is None:
            from .search import SearchIndex

            self._search_index = SearchIndex.build(self._tools.values())
        return self._search_index

    @property
    def search_settings(self) -> SearchSettings | None:
        """The catalog's ``search:`` section (``None`` without one).

        ``search_settings.embeddings`` configures semantic ranking, which needs the
        network: ``toolcat.executor.SemanticSearch`` runs it; :meth:`search` stays
        lexical.
        """
        return self._search_settings

    def search(self, query: str, top: int = 10, *, toolset: str | None = None) -> list[SearchHit]:
        """The ``top`` tools that best match a free-text ``query``, best first.

        Ranking is BM25F over names, descriptions, parameters, tags and service
        (see ``toolcat.catalog.search.SearchIndex``); ``toolset`` limits the answer to
        its tools. Any string is a valid query; one without a match gives ``[]``.

        >>> Catalog(tools=[], services=[]).search("list open issues")
        []
        """
        only = None if toolset is None else [t.name for t in self.toolset(toolset)]
        return self.search_index.search(query, top, only=only)

    # -- services ------------------------------------------------------------

    @property
    def services(self) -> Mapping[str, Service]:
        return self._services

    def service_for(self, tool: ToolDefinition) -> Service:
        """The service an HTTP tool calls. A tool of an MCP server has none: a
        ``TypeError`` says so (:meth:`upstream_for` is its counterpart)."""
        command = tool.command
        if not isinstance(command, HttpCommand):
            raise TypeError(
                f"tool {tool.name!r} calls MCP server {command.server!r}, not a service"
            )
        return self._services[command.service]

    @property
    def mcp_servers(self) -> Mapping[str, McpUpstream]:
        """The upstream MCP servers of the ``mcp_servers:`` section, by name."""
        return self._mcp_servers

    def upstream_for(self, tool: ToolDefinition) -> McpUpstream:
        """The MCP server a tool of an upstream calls. An HTTP tool has none: a
        ``TypeError`` says so (:meth:`service_for` is its counterpart)."""
        command = tool.command
        if isinstance(command, HttpCommand):
            raise TypeError(
                f"tool {tool.name!r} calls service {command.service!r}, not an MCP server"
            )
        return self._mcp_servers[command.server]

    # -- environment -----------------------------------------------------------

    @property
    def env(self) -> Mapping[str, str] | None:
        """What ``${VAR}`` reads when the tools run; ``None`` means ``os.environ`` then."""
        return self._env

    def with_env(self, env: Mapping[str, str] | None) -> Catalog:
        """The same tools, with ``env`` as what ``${VAR}`` reads when they run."""
        return Catalog(
            self._tools.values(),
            self._services.values(),
            self._toolsets,
            env=env,
            toolset_extensions=self._toolset_extensions,
            pins=self._pins,
            search=self._search_settings,
            mcp_servers=self._mcp_servers.values(),
        )

    # -- toolsets ------------------------------------------------------------

    @property
    def toolsets(self) -> Mapping[str, tuple[str, ...]]:
        return self._toolsets

    @property
    def toolset_extensions(self) -> Mapping[str, FrozenDict]:
        """Each toolset's ``x-`` keys (only toolsets written with some), as written."""
        return self._toolset_extensions

    def toolset(self, name: str | None) -> tuple[ToolDefinition, ...]:
        """The tools of one toolset, in its order; ``None`` means every tool."""
        if name is None:
            return tuple(self._tools.values())
        try:
            members = self._toolsets[name]
        except KeyError:
            raise UnknownToolsetError(name, tuple(self._toolsets)) from None
        return tuple(self._tools[m] for m in members)

    def subset(self, names: Iterable[str]) -> Catalog:
        """A catalog holding only the named tools (and every service)."""
        keep = [self[n] for n in names]
        kept = {t.name for t in keep}
        sets = {k: [m for m in v if m in kept] for k, v in self._toolsets.items()}
        return Catalog(
            keep,
            self._services.values(),
            sets,
            env=self._env,
            toolset_extensions=self._toolset_extensions,
            pins=self._pins,
            search=self._search_settings,
            mcp_servers=self._mcp_servers.values(),
        )

    # -- pinned tools (search.pinned) ------------------------------------------

    @property
    def pins(self) -> Mapping[str, tuple[str, ...]]:
        """``search.pinned`` as written: ``'*'`` or a toolset name to tool names and globs."""
        return self._pins

    def pinned(self, toolset: str | None = None) -> tuple[str, ...]:
        """The tools a model always gets in search mode, for a run over ``toolset``.

        The ``'*'`` entries and those of ``toolset`` (when one is given): a name is
        itself (a name this catalog lacks is skipped), a glob (``*``, ``?``, ``[``)
        is every tool of the toolset (or of the catalog) it matches, in that order.

        >>> Catalog(tools=[], services=[]).pinned()
        ()
        """
        patterns = list(self._pins.get("*", ()))
        if toolset is not None:
            patterns += self._pins.get(toolset, ())
        if not patterns:
            return ()
        from fnmatch import fnmatchcase

        scope: tuple[ToolDefinition, ...] | None = None
        out: dict[str, None] = {}
        for pattern in patterns:
            if not any(c in pattern for c in "*?["):
                if pattern in self._tools:
                    out[pattern] = None
                continue
            if scope is None:
                scope = self.toolset(toolset if toolset in self._toolsets else None)
            out.update((t.name, None) for t in scope if fnmatchcase(t.name, pattern))
        return tuple(out)

    def __repr__(self) -> str:
        return f"<Catalog tools={len(self._tools)} services={len(self._services)}>"
