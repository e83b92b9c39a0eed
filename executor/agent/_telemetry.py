"""Spans of the feedback loop (OpenTelemetry GenAI): invoke_agent and chat; free when absent."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ._common import ModelError, ModelTurn

__all__ = ["LoopTelemetry"]

try:  # the ``otel`` extra; without it every method is a no-op
    from opentelemetry import trace as _trace
except ImportError:  # pragma: no cover - depends on the environment
    _trace = None  # type: ignore[assignment]


class LoopTelemetry:
    """An ``invoke_agent`` span per run with a ``chat {model}`` span per model request.

    The executor's ``execute_tool`` spans start inside the run's context, so a
    trace shows the whole conversation as one tree.
    """

    def __init__(self, provider: str, model: str | None, tracer_provider: Any = None) -> None:
        self.provider = provider
        self.model = model
        self._tracer = None
        if _trace is not None:
            from toolcat import __version__

            self._tracer = _trace.get_tracer(
                "toolcat.executor.loop", __version__, tracer_provider=tracer_provider
            )

    def _attributes(self, operation: str) -> dict[str, Any]:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": self.provider,
        }
        if self.model:
            attributes["gen_ai.request.model"] = self.model
        return attributes

    def agent(self) -> contextlib.AbstractContextManager[Any]:
        return self._span("invoke_agent toolcat", "INTERNAL", "invoke_agent")

    def chat(self) -> contextlib.AbstractContextManager[Any]:
        return self._span(f"chat {self.model}" if self.model else "chat", "CLIENT", "chat")

    @contextlib.contextmanager
    def _span(self, name: str, kind: str, operation: str) -> Iterator[Any]:
        """A span of ``kind`` (a ``SpanKind`` name) that records a :class:`ModelError`."""
        if self._tracer is None:
            yield None
            return
        with self._tracer.start_as_current_span(
            name,
            kind=getattr(_trace.SpanKind, kind),
            attributes=self._attributes(operation),
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield span
            except ModelError as exc:
                _fail(span, exc)
                raise

    @staticmethod
    def record(span: Any, turn: ModelTurn) -> None:
        if span is None:
            return
        if turn.finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [turn.finish_reason])
        if turn.usage is not None:
            if turn.usage.input_tokens is not None:
                span.set_attribute("gen_ai.usage.input_tokens", turn.usage.input_tokens)
            if turn.usage.output_tokens is not None:
                span.set_attribute("gen_ai.usage.output_tokens", turn.usage.output_tokens)


def _fail(span: Any, exc: ModelError) -> None:
    span.set_attribute("error.type", type(exc).__name__)
    status = getattr(exc, "status", None)
    if status is not None:
        span.set_attribute("http.response.status_code", status)
    span.set_status(_trace.Status(_trace.StatusCode.ERROR, type(exc).__name__))
