"""The runtime core: tool calls in, validated HTTP requests out, results back to the model.

It reads only the IR (``toolcat.catalog``); importing it loads no loader, pydantic or YAML.
One call through the pipeline (module names)::

    ToolCall (_calls) ─> Executor (_executor, settings: _settings; one flow: _flow)
      ─> plan, compiled once per tool by the command's transport (_transport, _plan)
      ─> parse and validate the arguments (_arguments: jsonschema-rs, linear-time regexes)
      ─> guards: access, quotas, audit, confirmation, idempotency, telemetry (guards/)
      ─> transport (http/): render the request (_render, _styles; body by _templates),
         auth (_auth) and outbound policy (_policy), secrets tracked for redaction (_redact),
         dispatch with httpx: timeouts, retries, redirects, capped bodies (_dispatch)
      ─> shape the result for the model (_results) ─> ToolResult; spans and metrics (_telemetry)

The ``search_tools`` tool that large catalogs offer instead of every tool: _toolsearch.

Consumers of the core, each in its own subpackage: ``toolcat.executor.agent`` (the
feedback loop and its model clients) and ``toolcat.executor.mcp_server`` (the MCP server);
the provider shapes (export, parse calls, format results) are ``toolcat.executor.providers``.

Names load from their module on first use (PEP 562): ``toolcat.executor.providers``
(the CLI's ``--provider`` choices) then costs no httpx, jsonschema or dataclasses.
"""

import typing as _t

from toolcat._lazy import lazy_names as _lazy_names

if _t.TYPE_CHECKING:
    from ._access import AccessDecision, AccessGuard
    from ._arguments import format_loc, parse_arguments, sealed_validator
    from ._audit import AuditLog, AuditSink, RotatingFileSink, StreamSink
    from ._calls import (
        ERROR_TYPES,
        MAX_ECHOED_NAME_CHARS,
        ErrorType,
        ToolCall,
        ToolError,
        ToolResult,
        echo_name,
        format_result,
        parse_calls,
    )
    from ._embeddings import EmbeddingsFailure
    from ._executor import Executor, PreparedRequest
    from ._identity import (
        CallerIdentity,
        ToolContext,
        caller,
        current_context,
        current_identity,
        with_context,
    )
    from ._logsafe import redacted_logs
    from ._openapi import OpenApiSpec, SpecUnavailable, openapi_request
    from ._quota import Bucket, MemoryQuotaStore, QuotaDecision, QuotaGuard, QuotaStore
    from ._redact import Redactor, is_sensitive_header
    from ._results import error_result
    from ._semantic import SearchResults, SemanticSearch
    from ._settings import ConfirmCallback, ExecutorSettings
    from ._shared import (
        IdempotencyStore,
        MemoryIdempotencyStore,
        RedisIdempotencyStore,
        RedisQuotaStore,
        RedisState,
        RedisTokens,
        SharedStateError,
        connect_redis,
    )
    from ._toolsearch import (
        MAX_SEARCH_RESULTS,
        SEARCH_TOOL_NAME,
        run_search_tool,
        search_tool_definition,
    )
    from ._transport import Delivery, Transport
    from .http._auth import TokenCache
    from .http._retry import backoff_delay, retry_after
    from .providers import PROVIDERS

__all__ = [
    "AccessDecision",
    "AccessGuard",
    "AuditLog",
    "AuditSink",
    "Bucket",
    "CallerIdentity",
    "ConfirmCallback",
    "Delivery",
    "ERROR_TYPES",
    "EmbeddingsFailure",
    "ErrorType",
    "Executor",
    "ExecutorSettings",
    "IdempotencyStore",
    "MAX_ECHOED_NAME_CHARS",
    "MAX_SEARCH_RESULTS",
    "MemoryIdempotencyStore",
    "MemoryQuotaStore",
    "OpenApiSpec",
    "PROVIDERS",
    "PreparedRequest",
    "QuotaDecision",
    "QuotaGuard",
    "QuotaStore",
    "Redactor",
    "RedisIdempotencyStore",
    "RedisQuotaStore",
    "RedisState",
    "RedisTokens",
    "RotatingFileSink",
    "SEARCH_TOOL_NAME",
    "SearchResults",
    "SemanticSearch",
    "SharedStateError",
    "SpecUnavailable",
    "StreamSink",
    "TokenCache",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "Transport",
    "backoff_delay",
    "caller",
    "connect_redis",
    "current_context",
    "current_identity",
    "echo_name",
    "error_result",
    "format_loc",
    "format_result",
    "is_sensitive_header",
    "openapi_request",
    "parse_arguments",
    "parse_calls",
    "redacted_logs",
    "retry_after",
    "run_search_tool",
    "sealed_validator",
    "search_tool_definition",
    "with_context",
]

_LAZY = {
    "AccessDecision": "._access",
    "AccessGuard": "._access",
    "AuditLog": "._audit",
    "AuditSink": "._audit",
    "Bucket": "._quota",
    "MemoryQuotaStore": "._quota",
    "QuotaDecision": "._quota",
    "QuotaGuard": "._quota",
    "QuotaStore": "._quota",
    "IdempotencyStore": "._shared",
    "MemoryIdempotencyStore": "._shared",
    "RedisIdempotencyStore": "._shared",
    "RedisQuotaStore": "._shared",
    "RedisState": "._shared",
    "RedisTokens": "._shared",
    "SharedStateError": "._shared",
    "connect_redis": "._shared",
    "RotatingFileSink": "._audit",
    "StreamSink": "._audit",
    "CallerIdentity": "._identity",
    "ConfirmCallback": "._settings",
    "ERROR_TYPES": "._calls",
    "ErrorType": "._calls",
    "EmbeddingsFailure": "._embeddings",
    "SearchResults": "._semantic",
    "SemanticSearch": "._semantic",
    "Executor": "._executor",
    "ExecutorSettings": "._settings",
    "MAX_ECHOED_NAME_CHARS": "._calls",
    "MAX_SEARCH_RESULTS": "._toolsearch",
    "OpenApiSpec": "._openapi",
    "SpecUnavailable": "._openapi",
    "openapi_request": "._openapi",
    "PROVIDERS": ".providers",
    "PreparedRequest": "._executor",
    "Redactor": "._redact",
    "SEARCH_TOOL_NAME": "._toolsearch",
    "TokenCache": ".http._auth",
    "ToolCall": "._calls",
    "ToolError": "._calls",
    "ToolResult": "._calls",
    "Delivery": "._transport",  # the seam of ExecutorSettings.transports
    "Transport": "._transport",
    "backoff_delay": ".http._retry",
    "ToolContext": "._identity",
    "caller": "._identity",
    "current_context": "._identity",
    "current_identity": "._identity",
    "with_context": "._identity",
    "echo_name": "._calls",
    "error_result": "._results",
    "format_loc": "._arguments",
    "format_result": "._calls",
    "is_sensitive_header": "._redact",
    "parse_arguments": "._arguments",
    "parse_calls": "._calls",
    "redacted_logs": "._logsafe",
    "retry_after": ".http._retry",
    "run_search_tool": "._toolsearch",
    "sealed_validator": "._arguments",
    "search_tool_definition": "._toolsearch",
}


__getattr__, __dir__ = _lazy_names(__name__, _LAZY, __all__)
