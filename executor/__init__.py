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
from ._loop import AgentLoop, LoopResult, LoopStep
from ._model_common import (
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTurn,
    Usage,
)
from ._models_anthropic import AnthropicClient
from ._models_openai import OpenAIChatClient
from ._protocols import ModelClient

__all__ = [
    "AgentLoop",
    "AnthropicClient",
    "ConfirmCallback",
    "ERROR_TYPES",
    "Executor",
    "LoopResult",
    "LoopStep",
    "ModelClient",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelResponseError",
    "ModelTurn",
    "OpenAIChatClient",
    "PROVIDERS",
    "PreparedRequest",
    "TokenCache",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "Usage",
    "format_result",
    "parse_arguments",
    "parse_calls",
]
