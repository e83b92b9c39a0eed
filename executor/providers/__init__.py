"""Providers behind one seam: each LLM API's shapes in one module, found by name.

Pipeline (module names)::

    Catalog ──> get(name).tools() ──> ExportResult: the request's "tools", a list with .notes
    model reply ──> get(name).parse_calls() ──> [ToolCall] ──> Executor
    ToolResult ──> get(name).format_result() ──> the message/part the model reads next

    _protocol (Provider, ProviderName) · _result (ExportResult) · _registry (register, get, names)
    openai · openai_responses · anthropic · gemini · mcp   (one module per provider)

Adding a provider is one module with a :class:`Provider` object named ``PROVIDER``
plus one line in ``_BUILTIN`` below (or :func:`register` from outside). The built-in
ones share ``tools()`` (``_common.BuiltinProvider``): each says how one tool looks. The CLI's
``--provider`` choices, :data:`PROVIDERS`, the model clients and
:func:`toolcat.executor.parse_calls`/``format_result`` all read the registry.

>>> get("openai").format_result  # doctest: +ELLIPSIS
<bound method OpenAIChat.format_result of ...>
"""

from ._limits import ProviderLimits, limit_warnings, limits
from ._protocol import Provider, ProviderName
from ._registry import (
    UnknownProviderError,
    export_catalog,
    get,
    names,
    provider,
    register,
    register_module,
    unregister,
)
from ._result import ExportNote, ExportResult
from .anthropic import to_anthropic_tool
from .gemini import to_gemini_declaration
from .mcp import mcp_annotations, to_mcp_tool
from .openai import to_openai_tool
from .openai_responses import to_openai_responses_tool

__all__ = [
    "ExportNote",
    "ExportResult",
    "PROVIDERS",
    "Provider",
    "ProviderLimits",
    "ProviderName",
    "UnknownProviderError",
    "export_catalog",
    "get",
    "limit_warnings",
    "limits",
    "mcp_annotations",
    "names",
    "provider",
    "register",
    "register_module",
    "to_anthropic_tool",
    "to_gemini_declaration",
    "to_mcp_tool",
    "to_openai_responses_tool",
    "to_openai_tool",
    "unregister",
]

# name -> module of this package holding its PROVIDER. The order is the order of
# PROVIDERS, of ProviderName and of the CLI's choices.
_BUILTIN = {
    "openai": "openai",
    "openai-responses": "openai_responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "mcp": "mcp",
}
for _name, _module in _BUILTIN.items():
    register_module(_name, f"{__name__}.{_module}")

#: The built-in providers' names (the registry may hold more: see :func:`names`).
PROVIDERS: tuple[str, ...] = names()
