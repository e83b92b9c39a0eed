"""Everything about one tool that does not depend on a call, compiled once and cached."""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolcat.catalog import (
    AuthSpec,
    BodySpec,
    HttpCommand,
    ParameterBinding,
    ParamLocation,
    ResponseSpec,
    RetryPolicy,
    Service,
    Timeouts,
    ToolDefinition,
    method_semantics,
)

from ._arguments import ArgumentChecker
from ._secrets import SecretShape, secret_shape
from ._templates import BodyTemplate, Selector

__all__ = ["ToolPlan", "compile_plan"]

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True, slots=True)
class ToolPlan:
    """A tool ready to run: validator, bindings by location, templates, limits."""

    tool: ToolDefinition
    service: Service
    method: str
    checker: ArgumentChecker
    # path template split into literals (str) and bindings, alternating
    path_parts: tuple[str | ParameterBinding, ...]
    path_literal_dots: bool  # the template itself has "." or ".." segments
    query: tuple[ParameterBinding, ...]
    headers: tuple[ParameterBinding, ...]
    cookies: tuple[ParameterBinding, ...]
    body_bindings: tuple[ParameterBinding, ...]
    body: BodySpec | None
    body_template: BodyTemplate | None
    base_url: str  # raw, may hold ${VAR}
    const_headers: tuple[tuple[str, str], ...]  # raw, service then tool
    auth: AuthSpec
    timeouts: Timeouts
    retry: RetryPolicy
    may_retry: bool
    selector: Selector | None
    max_chars: int
    max_bytes: int
    response: ResponseSpec
    secrets: SecretShape | None  # where the arguments hold secrets (masked everywhere)

    @property
    def safe(self) -> bool:
        """The method changes nothing on the service (GET, HEAD, OPTIONS, ...)."""
        return method_semantics(self.method).safe

    @property
    def command(self) -> HttpCommand:
        """The tool's HTTP command (a plan is compiled for HTTP tools only)."""
        command = self.tool.command
        assert isinstance(command, HttpCommand), "compile_plan takes HTTP tools only"
        return command

    @property
    def target(self) -> str:
        """The service's name (quotas per service, spans)."""
        return self.tool.target


def _merge_timeouts(service: Timeouts, tool: Timeouts | None) -> Timeouts:
    if tool is None:
        return service
    return Timeouts(
        connect=tool.connect if tool.connect is not None else service.connect,
        read=tool.read if tool.read is not None else service.read,
        total=tool.total if tool.total is not None else service.total,
    )


def compile_plan(tool: ToolDefinition, service: Service) -> ToolPlan:
    """Compile ``tool`` once; every call of it reuses the result."""
    command = tool.command
    if not isinstance(command, HttpCommand):
        raise TypeError(f"tool {tool.name!r} is not an HTTP tool")
    by_wire = {b.wire_name: b for b in command.bindings(ParamLocation.PATH)}
    by_arg = {b.argument: b for b in command.bindings(ParamLocation.PATH)}
    parts: list[str | ParameterBinding] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(command.path):
        parts.append(command.path[pos : m.start()])
        name = m.group(1)
        binding = by_wire.get(name) or by_arg.get(name)
        if binding is None:
            # A placeholder without an argument: keep it literally (the loader reports it).
            parts.append(m.group(0))
        else:
            parts.append(binding)
        pos = m.end()
    parts.append(command.path[pos:])
    literal_dots = any(seg in (".", "..") for seg in command.path.split("/"))

    headers = dict(service.headers)
    lowered = {k.lower(): k for k in headers}
    for name, value in command.headers.items():
        old = lowered.pop(name.lower(), None)
        if old is not None:
            del headers[old]
        headers[name] = value

    body = command.body
    template = None
    if body is not None and body.template is not None:
        properties = tool.input_schema.get("properties") or {}
        template = BodyTemplate(body.template, set(properties))

    retry = command.retry or service.retry
    response = command.response
    return ToolPlan(
        tool=tool,
        service=service,
        method=command.method.upper(),
        checker=ArgumentChecker(tool.input_schema),
        path_parts=tuple(parts),
        path_literal_dots=literal_dots,
        query=command.bindings(ParamLocation.QUERY),
        headers=command.bindings(ParamLocation.HEADER),
        cookies=command.bindings(ParamLocation.COOKIE),
        body_bindings=command.bindings(ParamLocation.BODY),
        body=body,
        body_template=template,
        base_url=command.base_url or service.base_url,
        const_headers=tuple(headers.items()),
        auth=command.auth if command.auth is not None else service.auth,
        timeouts=_merge_timeouts(service.timeouts, command.timeouts),
        retry=retry,
        may_retry=retry.attempts > 1
        and (method_semantics(command.method).retryable or command.retry_unsafe),
        selector=Selector(response.select) if response.select else None,
        max_chars=response.max_chars or service.max_response_chars,
        max_bytes=service.max_response_bytes,
        response=response,
        secrets=secret_shape(tool.input_schema, tool.sensitive_arguments),
    )
