"""The feedback loop of an agent and its model clients, on top of the executor core.

Pipeline (module names)::

    AgentLoop (_loop) ── ModelClient (_protocols) ──> _openai / _anthropic (on _client;
        │                                               HTTP, SSE: _common)
        │  model turn with tool calls
        └──> toolcat.executor.Executor.aexecute_many ──> results back to the model
    tools offered in search mode: _selection; the steps and the result of a run: _trace;
    spans: _telemetry
"""

from ._anthropic import AnthropicClient
from ._common import (
    MAX_REPLY_BYTES,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTurn,
    Usage,
)
from ._loop import MAX_CALLS_PER_TURN, PROVIDER_TOOL_LIMITS, AgentLoop, ToolSelection
from ._openai import OpenAIChatClient, normalize_base_url
from ._protocols import ModelClient, TextCallback
from ._settings import LoopSettings
from ._trace import LoopResult, LoopStep

__all__ = [
    "AgentLoop",
    "AnthropicClient",
    "LoopResult",
    "LoopSettings",
    "LoopStep",
    "MAX_CALLS_PER_TURN",
    "MAX_REPLY_BYTES",
    "ModelClient",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelResponseError",
    "ModelTurn",
    "OpenAIChatClient",
    "PROVIDER_TOOL_LIMITS",
    "TextCallback",
    "ToolSelection",
    "Usage",
    "normalize_base_url",
]
