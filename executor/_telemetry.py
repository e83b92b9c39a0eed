"""Spans, metrics and logs per tool call (OpenTelemetry GenAI conventions), free when absent."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._identity import CallerIdentity

__all__ = ["MAX_ATTRIBUTE_CHARS", "UNKNOWN_TOOL", "Telemetry", "logger"]

logger = logging.getLogger("toolcat.executor")

#: The tool-name attribute of spans and metrics for a name not in the catalog: model-chosen
#: names must not become attribute values (unbounded cardinality, unbounded size).
UNKNOWN_TOOL = "_unknown"
#: The most characters of a caller's subject or client id put on a span.
MAX_ATTRIBUTE_CHARS = 256

try:  # guarded once: without opentelemetry-api (the ``otel`` extra) nothing is recorded
    from opentelemetry import metrics as _otel_metrics
    from opentelemetry import trace as _otel_trace
except ImportError:  # pragma: no cover - depends on the environment
    _otel_trace = None  # type: ignore[assignment]
    _otel_metrics = None  # type: ignore[assignment]


class _Recorder:
    """The span of one call; ``finish`` sets the outcome."""

    __slots__ = ("span",)

    def __init__(self, span: Any) -> None:
        self.span = span

    def finish(
        self,
        *,
        error_type: str | None,
        status: int | None,
        decision: str | None = None,
        rule: str | None = None,
    ) -> None:
        span = self.span
        if span is None:
            return
        if decision is not None:
            span.set_attribute("toolcat.decision", decision)
        if rule is not None:
            span.set_attribute("toolcat.decision.rule", rule)
        if status is not None:
            span.set_attribute("http.response.status_code", status)
        if error_type is not None:
            span.set_attribute("error.type", error_type)
            span.set_status(_otel_trace.Status(_otel_trace.StatusCode.ERROR, error_type))


_NULL = _Recorder(None)


class Telemetry:
    """Creates spans and records metrics; every method is a no-op without OpenTelemetry."""

    def __init__(
        self, enabled: bool = True, tracer_provider: Any = None, meter_provider: Any = None
    ) -> None:
        self.enabled = enabled and _otel_trace is not None
        self._explicit = tracer_provider is not None or meter_provider is not None
        if not self.enabled:
            return
        from toolcat import __version__

        self._tracer = _otel_trace.get_tracer(
            "toolcat.executor", __version__, tracer_provider=tracer_provider
        )
        meter = _otel_metrics.get_meter(
            "toolcat.executor", __version__, meter_provider=meter_provider
        )
        self._calls = meter.create_counter(
            "toolcat.tool.calls", unit="{call}", description="Tool calls executed"
        )
        self._errors = meter.create_counter(
            "toolcat.tool.errors", unit="{call}", description="Tool calls that ended in an error"
        )
        self._duration = meter.create_histogram(
            "toolcat.tool.duration", unit="s", description="Duration of tool calls"
        )
        self._nonconforming = meter.create_counter(
            "toolcat.response.nonconforming",
            unit="{response}",
            description="Responses that do not conform to the service's OpenAPI spec",
        )
        self._tool_changed = meter.create_counter(
            "toolcat.mcp.tool_changed",
            unit="{tool}",
            description="Upstream MCP tools found to differ from their pin",
        )

    # Without a configured provider the API's proxies record nothing: skip the work.
    def tracing(self) -> bool:
        """Whether spans are recorded now (a provider may be configured after start-up)."""
        if not self.enabled:
            return False
        if self._explicit:
            return True
        return not isinstance(_otel_trace.get_tracer_provider(), _otel_trace.ProxyTracerProvider)

    def _metering(self) -> bool:
        if self._explicit:
            return True
        return type(_otel_metrics.get_meter_provider()).__name__ != "_ProxyMeterProvider"

    @contextlib.contextmanager
    def span(
        self,
        name: str,
        call_id: str | None,
        service: str | None,
        identity: CallerIdentity | None = None,
    ) -> Iterator[_Recorder]:
        if not self.tracing():
            yield _NULL
            return
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
        }
        if call_id:
            attributes["gen_ai.tool.call.id"] = call_id
        if service:
            attributes["toolcat.service.name"] = service
        if identity is not None:  # the audit line's caller, as OTel names it
            attributes["toolcat.auth.method"] = identity.method
            if identity.subject is not None:
                attributes["enduser.id"] = identity.subject[:MAX_ATTRIBUTE_CHARS]
            if identity.client_id is not None:
                attributes["toolcat.client.id"] = identity.client_id[:MAX_ATTRIBUTE_CHARS]
        with self._tracer.start_as_current_span(
            f"execute_tool {name}", kind=_otel_trace.SpanKind.INTERNAL, attributes=attributes
        ) as span:
            yield _Recorder(span)

    def record(self, name: str, error_type: str | None, elapsed: float) -> None:
        if not self.enabled or not self._metering():
            return
        attributes = {"gen_ai.tool.name": name}
        self._calls.add(1, attributes)
        if error_type is not None:
            self._errors.add(1, {**attributes, "error.type": error_type})
        self._duration.record(elapsed, attributes)

    def nonconforming(self, name: str, service: str, mode: str) -> None:
        """One response that broke the spec (a service's ``validate_responses``)."""
        if not self.enabled or not self._metering():
            return
        attributes = {"gen_ai.tool.name": name, "toolcat.service.name": service, "mode": mode}
        self._nonconforming.add(1, attributes)

    def tool_changed(self, name: str, server: str, action: str) -> None:
        """An upstream MCP tool that no longer matches its pin (``action``: refused, or
        still offered under ``on_change: warn``)."""
        if not self.enabled or not self._metering():
            return
        attributes = {"gen_ai.tool.name": name, "toolcat.mcp.server": server, "action": action}
        self._tool_changed.add(1, attributes)
