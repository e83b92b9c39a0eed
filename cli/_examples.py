"""Running a catalog's examples offline (`toolcat test`).

Each example's arguments go through the real :class:`~toolcat.executor.Executor`
(argument check, rendering, auth, result shaping) on an ``httpx.MockTransport``
(an MCP tool's: on the MCP transport with the recorded answer, see ``_examples_mcp``)
that records the request and answers with the example's recorded response: no
socket is opened. The request and the result are compared with what the example
expects; a difference is a diagnostic (TC066 request, TC067 result, TC069 not
run) whose message carries a unified diff.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from toolcat.catalog import HttpCommand

if TYPE_CHECKING:
    import httpx
    from toolcat.catalog import Catalog, ToolDefinition, ToolExample
    from toolcat.loader import Diagnostic

__all__ = ["ExampleOutcome", "Findings", "TOKEN_REPLY", "fake_env", "run_examples", "token_urls"]

# ${NAME} without a default (``${NAME:-x}`` keeps its default in a test run)
_BARE_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
TOKEN_REPLY = {"access_token": "test-access-token", "token_type": "Bearer", "expires_in": 3600}


@dataclass(frozen=True, slots=True)
class ExampleOutcome:
    """One example's run: passed, or the diagnostics that say how it differs."""

    tool: str
    label: str
    file: str
    line: int
    column: int
    diagnostics: tuple[Diagnostic, ...] = ()
    diff: str = ""

    @property
    def passed(self) -> bool:
        return not self.diagnostics


def example_label(example: ToolExample, index: int) -> str:
    return example.name if example.name else f"example {index + 1}"


class Findings:
    """How one example's run differs, as it is found (HTTP and MCP tools alike): each
    finding a diagnostic at the example (else at its tool) with its diff beside it."""

    def __init__(self, tool: ToolDefinition, example: ToolExample, index: int) -> None:
        self.tool = tool.name
        self.label = example_label(example, index)
        src = example.source or tool.source
        self.file, self.line, self.column = (
            (src.file, src.line, src.column) if src else ("<catalog>", 1, 1)
        )
        self._found: list[Diagnostic] = []
        self._diffs: list[str] = []

    def add(self, code: str, message: str, diff: str = "") -> None:
        from toolcat.loader import Diagnostic

        text = f"tool '{self.tool}': example {self.label!r}: {message}"
        text += f"\n{diff}" if diff else ""
        where = ("tools", self.tool)
        self._found.append(Diagnostic.make(code, text, self.file, self.line, self.column, where))
        self._diffs.append(diff)

    def compare_result(self, expected: Any, content: str) -> None:
        """TC067 when the result the model reads is not the one the example records."""
        want, got = _result_views(expected, content)
        if want != got:
            self.add("TC067", "the result differs", unified(want, got, "result"))

    def outcome(self) -> ExampleOutcome:
        diff = "\n".join(d for d in self._diffs if d)
        return ExampleOutcome(
            self.tool, self.label, self.file, self.line, self.column, tuple(self._found), diff
        )


# -- the test environment -------------------------------------------------------------


def _raw_strings(catalog: Catalog) -> list[tuple[str, bool]]:
    """Every string that may hold ``${VAR}``, and whether it is a base URL."""
    out: list[tuple[str, bool]] = []

    def auth_strings(auth: Any) -> None:
        for name in ("token", "username", "password", "value", "token_url", "client_id"):
            value = getattr(auth, name, None)
            if isinstance(value, str):
                out.append((value, False))
        secret = getattr(auth, "client_secret", None)
        if isinstance(secret, str):
            out.append((secret, False))

    for service in catalog.services.values():
        out.append((service.base_url, True))
        out.extend((v, False) for v in service.headers.values())
        auth_strings(service.auth)
    for tool in catalog:
        command = tool.command
        if not isinstance(command, HttpCommand):
            continue
        if command.base_url:
            out.append((command.base_url, True))
        out.extend((v, False) for v in command.headers.values())
        if command.auth is not None:
            auth_strings(command.auth)
    return out


def fake_env(catalog: Catalog, given: Mapping[str, str]) -> dict[str, str]:
    """``given``, plus a fake value for every ``${VAR}`` (without a default) it lacks.

    A variable at the start of a base URL gets ``https://<name>.test``, any other
    ``test-<NAME>``, so that examples can state the headers they render
    (``Authorization: Bearer test-API_TOKEN``) without a real secret.
    """
    env = dict(given)
    for text, is_url in _raw_strings(catalog):
        for m in _BARE_REF.finditer(text):
            name = m.group(1)
            if name in env:
                continue
            if is_url and m.start() == 0:
                env[name] = f"https://{name.lower().replace('_', '-')}.test"
            else:
                env[name] = f"test-{name}"
    return env


# -- comparing ----------------------------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _norm_path(path: str) -> str:
    return _PERCENT.sub(lambda m: m.group().upper(), path)


def _thaw(value: Any) -> Any:
    from toolcat.catalog.common import thaw

    return thaw(value)


def _body_of(request: httpx.Request) -> Any:
    """The request body as the example states it: JSON, a form as a mapping, or text."""
    content = request.content
    if not content:
        return None
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    text = content.decode("utf-8", errors="replace")
    if ctype == "application/json" or ctype.endswith("+json"):
        try:
            return json.loads(text)
        except ValueError:
            return text
    if ctype == "application/x-www-form-urlencoded":
        form: dict[str, Any] = {}
        for k, v in parse_qsl(text, keep_blank_values=True):
            if k in form:
                form[k] = [*form[k], v] if isinstance(form[k], list) else [form[k], v]
            else:
                form[k] = v
        return form
    return text


def _form_text(value: Any) -> Any:
    """Scalars of an expected form body as the text that is sent."""
    if isinstance(value, dict):
        return {k: _form_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_form_text(v) for v in value]
    return _text(value) if value is not None else ""


def _request_views(
    expected: Mapping[str, Any], request: httpx.Request | None, base_path: str, skip: set[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The expected request and the actual one, over the keys the example states."""
    want: dict[str, Any] = {}
    got: dict[str, Any] = {}
    if request is None:
        return {k: _thaw(v) for k, v in expected.items()}, {"request": "none was sent"}
    if "method" in expected:
        want["method"] = str(expected["method"]).upper()
        got["method"] = request.method.upper()
    if "path" in expected:
        full = request.url.raw_path.decode("ascii", errors="replace").split("?", 1)[0]
        relative = full[len(base_path) :] if base_path and full.startswith(base_path) else full
        stated = str(expected["path"])
        want["path"] = stated
        # the path below the base URL, or the whole URL path: either may be stated
        matched = _norm_path(stated) in (_norm_path(relative), _norm_path(full))
        # a mismatch is shown in the form the example uses (with the base path or without)
        with_base = bool(base_path) and stated.startswith(base_path + "/")
        got["path"] = stated if matched else full if with_base else relative
    if "query" in expected:
        stated_q = {
            k: [_text(x) for x in v] if isinstance(v, list | tuple) else [_text(v)]
            for k, v in expected["query"].items()
        }
        actual_q: dict[str, list[str]] = {}
        for k, v in request.url.params.multi_items():
            if k in skip and k not in stated_q:
                continue  # the API key in the query: stated only when the example names it
            actual_q.setdefault(k, []).append(v)
        want["query"] = {k: v[0] if len(v) == 1 else v for k, v in sorted(stated_q.items())}
        got["query"] = {k: v[0] if len(v) == 1 else v for k, v in sorted(actual_q.items())}
    if "headers" in expected:
        want["headers"] = {}
        got["headers"] = {}
        for k, v in expected["headers"].items():
            want["headers"][k] = _text(v)
            values = request.headers.get_list(k)
            got["headers"][k] = ", ".join(values) if values else None
    if "body" in expected:
        stated_body = _thaw(expected["body"])
        actual_body = _body_of(request)
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/x-www-form-urlencoded" and isinstance(stated_body, dict):
            stated_body = _form_text(stated_body)
        if isinstance(stated_body, str) and not isinstance(actual_body, str):
            actual_body = request.content.decode("utf-8", errors="replace") or None
            if actual_body is not None:
                stated_body, actual_body = _text_views(stated_body, actual_body)
        want["body"] = stated_body
        got["body"] = actual_body
    return want, got


def _as_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


_NOT_JSON: Any = object()


def _text_views(stated: str, actual: str) -> tuple[Any, Any]:
    """Two texts; JSON texts that differ only in spacing or key order are the same value."""
    if stated != actual:
        a, b = _as_json(stated), _as_json(actual)
        if a is not _NOT_JSON and b is not _NOT_JSON and a == b:
            return a, b
    return stated, actual


def _result_views(expected: Any, content: str) -> tuple[Any, Any]:
    stated = _thaw(expected)
    if isinstance(stated, str):
        return _text_views(stated, content)
    parsed = _as_json(content)
    return stated, content if parsed is _NOT_JSON else parsed


def _dump(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.splitlines() or [""]
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str).splitlines()


def unified(expected: Any, actual: Any, what: str) -> str:
    """A unified diff of two values (JSON, keys sorted), ``--- expected`` / ``+++ actual``."""
    lines = difflib.unified_diff(
        _dump(expected),
        _dump(actual),
        fromfile=f"expected {what}",
        tofile=f"actual {what}",
        lineterm="",
        n=3,
    )
    return "\n".join(lines)


# -- running ------------------------------------------------------------------------------


@dataclass
class _Exchange:
    """What the mock transport saw and how it answers (one example at a time)."""

    token_urls: set[str]
    response: Mapping[str, Any] | None = None
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        import httpx

        url = str(request.url.copy_with(query=None))
        if url in self.token_urls:  # OAuth2 client credentials: a fake token
            return httpx.Response(200, json=TOKEN_REPLY)
        self.requests.append(request)
        return _response(self.response)


def _response(recorded: Mapping[str, Any] | None) -> httpx.Response:
    import httpx

    if recorded is None:
        return httpx.Response(200)
    headers = {k: _text(v) for k, v in (recorded.get("headers") or {}).items()}
    lowered = {k.lower() for k in headers}
    body = _thaw(recorded.get("body"))
    content = b""
    if isinstance(body, str):
        content = body.encode("utf-8")
        if "content-type" not in lowered:
            headers["Content-Type"] = "text/plain; charset=utf-8"
    elif body is not None:
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        if "content-type" not in lowered:
            headers["Content-Type"] = "application/json"
    return httpx.Response(int(recorded.get("status", 200)), headers=headers, content=content)


def token_urls(catalog: Catalog, env: Mapping[str, str]) -> set[str]:
    from toolcat.catalog.common import interpolate

    urls: set[str] = set()
    auths = [s.auth for s in catalog.services.values()]
    auths += [
        t.command.auth
        for t in catalog
        if isinstance(t.command, HttpCommand) and t.command.auth is not None
    ]
    for auth in auths:
        token_url = getattr(auth, "token_url", None)
        if isinstance(token_url, str):
            try:
                urls.add(interpolate(token_url, env))
            except Exception:  # an unset variable: the call reports it
                continue
    return urls


def _api_key_names(tool: ToolDefinition, catalog: Catalog) -> set[str]:
    if not isinstance(tool.command, HttpCommand):
        return set()
    auth = tool.command.auth or catalog.service_for(tool).auth
    if getattr(auth, "location", None) == "query":
        return {str(getattr(auth, "name", ""))}
    return set()


def _base_path(tool: ToolDefinition, catalog: Catalog, env: Mapping[str, str]) -> str:
    from toolcat.catalog.common import interpolate

    if not isinstance(tool.command, HttpCommand):
        return ""
    raw = tool.command.base_url or catalog.service_for(tool).base_url
    try:
        return urlsplit(interpolate(raw, env)).path.rstrip("/")
    except Exception:
        return ""


def run_examples(
    catalog: Catalog, env: Mapping[str, str], tools: Sequence[str] = ()
) -> list[ExampleOutcome]:
    """Run every example of the catalog (or of ``tools``), in catalog order."""
    import httpx
    from toolcat.catalog import McpCommand
    from toolcat.executor import Executor, ExecutorSettings, ToolCall

    from ._examples_mcp import RecordedMcpTransport, run_mcp_example

    recorded = RecordedMcpTransport()  # MCP tools: the upstream's answer is the example's
    exchange = _Exchange(token_urls(catalog, env))
    client = httpx.Client(transport=httpx.MockTransport(exchange), follow_redirects=False)
    outcomes: list[ExampleOutcome] = []
    with (
        client,
        Executor(
            catalog,
            ExecutorSettings(
                env=env,
                client=client,
                confirm=lambda call, tool: True,
                sleep=lambda seconds: None,
                telemetry=False,
                transports={McpCommand: recorded},
            ),
        ) as executor,
    ):
        for tool in catalog:
            if tools and tool.name not in tools:
                continue
            if not isinstance(tool.command, HttpCommand):
                for i, example in enumerate(tool.examples):
                    outcomes.append(run_mcp_example(executor, recorded, tool, example, i))
                continue
            for i, example in enumerate(tool.examples):
                exchange.response = example.response
                exchange.requests = []
                call = ToolCall(tool.name, _thaw(example.arguments), id=f"example-{i + 1}")
                result = executor.execute(call)
                outcomes.append(_judge(catalog, tool, example, i, result, exchange.requests, env))
    return outcomes


def _judge(
    catalog: Catalog,
    tool: ToolDefinition,
    example: ToolExample,
    index: int,
    result: Any,
    sent: list[httpx.Request],
    env: Mapping[str, str],
) -> ExampleOutcome:
    findings = Findings(tool, example, index)
    add = findings.add
    request = sent[-1] if sent else None

    if request is None and example.request is None and example.result is None:
        if not result.ok:
            error = result.error
            add("TC069", f"the call failed before sending a request: {error.type}: {error.msg}", "")
    if example.request is not None:
        want, got = _request_views(
            example.request, request, _base_path(tool, catalog, env), _api_key_names(tool, catalog)
        )
        if want != got:
            why = "the request differs"
            if request is None and result.error is not None:
                why = f"no request was sent ({result.error.type}: {result.error.msg})"
            add("TC066", why, unified(want, got, "request"))
    if example.result is not None:
        findings.compare_result(example.result, result.content)
    return findings.outcome()
