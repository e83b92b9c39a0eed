"""An MCP server over a catalog: tools/list from the IR, tools/call through the executor core.

Pipeline (module names)::

    PATHs ──> loader (toolcat.loader.load_catalog, or the one given) ──> LoadResult
          ──> McpServer (_server) ── tools/list ──> provider "mcp"
                   ├─ tools/call ──> toolcat.executor.Executor (caller: CallerIdentity)
                   ├─ HTTP: AuthMiddleware (_auth) ─ Authenticator (_verify: API keys,
                   │        JWT with JwksCache (_jwks), RFC 7662 introspection)
                   └─ --watch: LoadResult.files polled against a snapshot (_watch)
"""

from ._auth import METADATA_PATH, AuthMiddleware, identity_of, metadata_url
from ._server import CatalogLoadFailed, McpServer
from ._verify import MAX_TOKEN_BYTES, AuthConfigError, Authenticator, hash_api_key

__all__ = [
    "AuthConfigError",
    "AuthMiddleware",
    "Authenticator",
    "CatalogLoadFailed",
    "MAX_TOKEN_BYTES",
    "METADATA_PATH",
    "McpServer",
    "hash_api_key",
    "identity_of",
    "metadata_url",
]
