"""An MCP server over a catalog: tools/list from the IR, tools/call through the executor core.

Pipeline (module names)::

    PATHs ──> loader (toolcat.loader.load_catalog, or the one given) ──> LoadResult
          ──> McpServer (_server; the catalog served: _served)
                   ├─ tools/list ──> provider "mcp" (the handlers: _handlers)
                   ├─ tools/call ──> toolcat.executor.Executor (caller: CallerIdentity)
                   ├─ --watch: LoadResult.files polled against a snapshot (_watch),
                   │    reloaded and announced to clients (_reload)
                   ├─ confirm: true: the user asked mid-call (2025 era) or through an
                   │    InputRequiredResult with sealed, one-use state (2026-07-28) (_confirm)
                   └─ HTTP (_http): HostGuard (_hosts) answers only allowed Host and Origin values,
                            then AuthMiddleware (_auth) ─ Authenticator (_verify: API keys,
                            JWT with JwksCache (_jwks), RFC 7662 introspection; answers
                            read bounded by _idp); bounded by _limits (header timeout,
                            connections, sessions in all and per caller)
"""

from ._auth import METADATA_PATH, AuthMiddleware, identity_of, metadata_url
from ._hosts import HostGuard, HostPolicy
from ._limits import ServeLimits
from ._served import CatalogLoadFailed
from ._server import McpServer
from ._settings import McpServerSettings
from ._verify import MAX_TOKEN_BYTES, AuthConfigError, Authenticator, hash_api_key

__all__ = [
    "AuthConfigError",
    "AuthMiddleware",
    "Authenticator",
    "CatalogLoadFailed",
    "HostGuard",
    "HostPolicy",
    "MAX_TOKEN_BYTES",
    "METADATA_PATH",
    "McpServer",
    "McpServerSettings",
    "ServeLimits",
    "hash_api_key",
    "identity_of",
    "metadata_url",
]
