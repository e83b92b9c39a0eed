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
from ._results import error_result
from ._retry import backoff_delay, retry_after

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
    "backoff_delay",
    "error_result",
    "format_result",
    "parse_arguments",
    "parse_calls",
    "retry_after",
]
