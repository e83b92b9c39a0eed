"""The HTTP transport: how an ``HttpCommand`` tool runs (render, auth, dispatch, shape)."""

from ._auth import TokenCache, resolve_auth
from ._transport import HttpTransport, PreparedRequest
from ._upstream import CallerTokenRefused, caller_credentials

# resolve_auth, TokenCache and caller_credentials: the MCP transport resolves an upstream's
# auth (and the caller's token, forwarded or exchanged) the same way
__all__ = [
    "CallerTokenRefused",
    "HttpTransport",
    "PreparedRequest",
    "TokenCache",
    "caller_credentials",
    "resolve_auth",
]
