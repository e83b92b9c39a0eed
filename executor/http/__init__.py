"""The HTTP transport: how an ``HttpCommand`` tool runs (render, auth, dispatch, shape)."""

from ._auth import TokenCache, resolve_auth
from ._transport import HttpTransport, PreparedRequest

# resolve_auth and TokenCache: the MCP transport resolves an upstream's auth the same way
__all__ = ["HttpTransport", "PreparedRequest", "TokenCache", "resolve_auth"]
