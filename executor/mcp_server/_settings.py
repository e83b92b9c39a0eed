"""One settings object for an MCP server: whoever builds one (``toolcat serve``, an app)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._confirm import DEFAULT_CONFIRM_TIMEOUT

if TYPE_CHECKING:
    from toolcat.catalog import Catalog
    from toolcat.catalog.serving import ServerSettings
    from toolcat.executor import QuotaStore
    from toolcat.loader import LoadResult

    from ._confirm import ConfirmLedger
    from ._hosts import HostPolicy
    from ._limits import ServeLimits

__all__ = ["McpServerSettings"]


@dataclass(frozen=True, slots=True)
class McpServerSettings:
    """How an :class:`McpServer` serves its catalog; every field has a default.

    >>> McpServerSettings(toolset="read", watch=True).watch
    True

    ``toolset``: serve only those tools; ``watch`` the files (polled every
    ``poll_interval`` s, reloaded once they stay unchanged ``settle`` s); ``env``: what
    ``${VAR}`` reads; ``yes``: confirm every ``confirm: true`` call without asking;
    ``name`` of the server; ``loader`` reads the PATHs into a ``LoadResult`` (default:
    ``toolcat.loader.load_catalog``); ``tool_search``, ``pinned`` and ``catalog_pins``:
    list only the pinned tools and ``search_tools``; ``audit_log``: a path (``-``:
    standard output) over the catalog's ``server.audit`` path; ``quota_store`` and
    ``redis_url``: where shared state lives; ``confirm_timeout``, ``confirm_keys`` and
    ``confirm_ledger``: how confirmations are asked, sealed and used once.

    The HTTP transport (``run_http``) reads the rest: it listens on ``host:port`` and
    serves MCP at ``path``; ``host_policy`` says which Host and Origin values it answers
    (default: ``HostPolicy.for_bind(host)``); ``serving`` (the compiled ``server:``
    section, or one built over it) says how callers authenticate (``None``: they do
    not); ``docs`` (``build(catalog, folder)``) serves the catalog browser under
    ``/docs/``; ``drain_timeout`` is how long calls in flight get after SIGTERM;
    ``stateless`` serves 2025-era clients without sessions; ``limits`` bound slow and
    greedy clients (default: ``ServeLimits()``).
    """

    toolset: str | None = None
    watch: bool = False
    poll_interval: float = 0.5
    settle: float = 0.3
    env: Mapping[str, str] | None = None
    yes: bool = False
    name: str = "toolcat"
    loader: Callable[[Sequence[str]], LoadResult] | None = None
    tool_search: bool = False
    pinned: Sequence[str] = ()
    catalog_pins: bool = True
    audit_log: str | None = None
    quota_store: QuotaStore | None = None
    redis_url: str | None = None
    confirm_timeout: float = DEFAULT_CONFIRM_TIMEOUT
    confirm_keys: Sequence[str | bytes] | None = None
    confirm_ledger: ConfirmLedger | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    host_policy: HostPolicy | None = None
    serving: ServerSettings | None = None
    docs: Callable[[Catalog, str], None] | None = None
    drain_timeout: float = 30.0
    stateless: bool = False
    limits: ServeLimits | None = None

    def __post_init__(self) -> None:
        if not 0 < self.confirm_timeout <= 86400:
            raise ValueError("the confirmation timeout must be more than 0 and at most 86400 s")
