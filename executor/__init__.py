"""The runtime: tool calls in, validated HTTP requests out, results back to the model."""

from ._arguments import parse_arguments
from ._auth import TokenCache
from ._calls import (
    ERROR_TYPES,
    PROVIDERS,
    ToolCall,
    ToolError,
    ToolResult,
    format_result,
    parse_calls,
)
from ._executor import ConfirmCallback, Executor, PreparedRequest

__all__ = [
    "ConfirmCallback",
    "ERROR_TYPES",
    "Executor",
    "PROVIDERS",
    "PreparedRequest",
    "TokenCache",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "format_result",
    "parse_arguments",
    "parse_calls",
]
