"""The runtime core: tool calls in, validated HTTP requests out, results back to the model.

It reads only the IR (``toolcat.catalog``); importing it loads no loader, pydantic or YAML.
One call through the pipeline (module names)::

    ToolCall (_calls) ─> Executor (_executor): resolve the tool by exact name
      ─> plan, compiled once per tool (_plan)
      ─> parse and validate the arguments (_arguments; fast path: catalog's compile_check)
      ─> render the request (_render: path/query/header/cookie by _styles, body by _templates)
      ─> auth (_auth) and outbound policy (_policy), secrets tracked for redaction (_redact)
      ─> dispatch with httpx: timeouts, retries, redirects, capped bodies (_dispatch)
      ─> shape the result for the model (_results) ─> ToolResult; spans and metrics (_telemetry)

Consumers of the core, each in its own subpackage: ``toolcat.executor.agent`` (the
feedback loop and its model clients) and ``toolcat.executor.mcp_server`` (the MCP server).
"""

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
