"""The HTTP transport: how an ``HttpCommand`` tool runs (render, auth, dispatch, shape)."""

from ._transport import HttpTransport, PreparedRequest

__all__ = ["HttpTransport", "PreparedRequest"]
