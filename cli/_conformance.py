"""`toolcat test --conformance`: do the requests a tool renders conform to its source spec?

For each tool whose operation is in an OpenAPI 3.x spec (the spec its service was
imported from, or one named by ``--spec``), arguments are generated from the tool's
input schema (a seeded generator, a bounded number of cases),
rendered by the real executor on a recording transport (nothing is sent), and each
request is checked with openapi-core's request validator against the spec. The
first request that does not conform is reported per tool (TC068).

openapi-core comes with the ``conformance`` extra; without it the command says so
in one line (exit 2).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from toolcat.catalog import HttpCommand

from ._app import CliError

if TYPE_CHECKING:
    import httpx
    from toolcat.catalog import Catalog, ToolDefinition
    from toolcat.loader import Diagnostic

__all__ = ["ConformanceOutcome", "SpecIndex", "check_conformance"]

MAX_CASES = 1000  # --cases above this is refused: a run must stay bounded


@dataclass(frozen=True, slots=True)
class ConformanceOutcome:
    """One tool's check: passed, or the first non-conforming request (a diagnostic)."""

    tool: str
    label: str
    file: str
    line: int
    column: int
    diagnostics: tuple[Diagnostic, ...] = ()
    checked: int = 0  # requests validated

    @property
    def passed(self) -> bool:
        return not self.diagnostics


def _need() -> None:
    missing = []
    for module in ("openapi_core",):
        try:
            __import__(module)
        except ImportError:
            missing.append(module.replace("_", "-"))
    if missing:
        raise CliError(
            f"--conformance needs {', '.join(missing)}: pip install 'toolcat[conformance]'"
        )


# -- specs --------------------------------------------------------------------------------


class SpecIndex:
    """Specs read once; which one holds a tool's operation."""

    def __init__(self) -> None:
        self._specs: dict[str, Any] = {}  # path -> OpenApiSpec, or the reason it is unusable

    def load(self, path: str) -> str | None:
        """Read ``path``; the reason it cannot be checked, or ``None``."""
        from toolcat.executor import OpenApiSpec, SpecUnavailable

        if path not in self._specs:
            try:
                self._specs[path] = OpenApiSpec.read(path)
            except SpecUnavailable as exc:
                self._specs[path] = str(exc)
        found = self._specs[path]
        return found if isinstance(found, str) else None

    def find(self, paths: Sequence[str], method: str, template: str) -> Any:
        """The first spec of ``paths`` with the operation ``method template``, or ``None``."""
        for path in paths:
            if self.load(path) is None and self._specs[path].has(method, template):
                return self._specs[path]
        return None


# -- generating arguments ----------------------------------------------------------------

_MAX_DEPTH = 6  # below this, objects get only their required properties and arrays none
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"


class _Generator:
    """Values of a JSON Schema from a seeded ``random.Random``: the same seed, the same values.

    Case 0 gives each object only its required properties, case 1 every property,
    the others a random mix. Strings follow ``format``, ``enum``, ``const`` and the
    length bounds; a ``pattern`` is left to the executor's check (a value it refuses
    is not sent, so not checked). Written here rather than taken from
    hypothesis-jsonschema, whose last release (0.23.1) fails on objects under current
    hypothesis releases.
    """

    def __init__(self, root: Mapping[str, Any], seed: int) -> None:
        import random

        self.root = root
        self.random = random.Random(seed)
        self.case = 0

    def value(self, schema: Any, depth: int = 0) -> Any:
        rnd = self.random
        if schema is True or not isinstance(schema, Mapping):
            return rnd.choice(["x", 1, True])
        schema = self._resolved(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list | tuple) and schema["enum"]:
            return rnd.choice(list(schema["enum"]))
        if isinstance(schema.get("allOf"), list | tuple):
            return self.value(_merged_all_of(schema), depth)
        for key in ("oneOf", "anyOf"):
            options = schema.get(key)
            if isinstance(options, list | tuple) and options:
                rest = {k: v for k, v in schema.items() if k != key}
                pick = rnd.choice(list(options))
                return self.value({**rest, **pick} if isinstance(pick, Mapping) else pick, depth)
        kind = schema.get("type")
        if isinstance(kind, list | tuple):
            kinds = [k for k in kind if k != "null"] or ["null"]
            kind = rnd.choice(kinds)
        if kind is None:
            kind = (
                "object" if "properties" in schema else "array" if "items" in schema else "string"
            )
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            low = int(schema.get("minItems", 0))
            high = int(schema.get("maxItems", low + 3))
            size = low if depth >= _MAX_DEPTH else rnd.randint(low, max(low, min(high, low + 3)))
            return [self.value(schema.get("items", {}), depth + 1) for _ in range(size)]
        if kind == "integer":
            return self._number(schema, integer=True)
        if kind == "number":
            return self._number(schema, integer=False)
        if kind == "boolean":
            return rnd.choice([True, False])
        if kind == "null":
            return None
        return self._string(schema)

    def _resolved(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        """``schema`` with its local ``$ref`` followed (up to 8 hops), siblings kept."""
        for _ in range(8):
            ref = schema.get("$ref")
            if not isinstance(ref, str) or not ref.startswith("#/"):
                break
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target.get(part.replace("~1", "/").replace("~0", "~"), {})
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return schema

    def _object(self, schema: Mapping[str, Any], depth: int) -> dict[str, Any]:
        props = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        out: dict[str, Any] = {}
        for name, sub in props.items():
            wanted = name in required or (
                depth < _MAX_DEPTH
                and (self.case == 1 or (self.case > 1 and self.random.random() < 0.5))
            )
            if wanted:
                out[name] = self.value(sub, depth + 1)
        return out

    def _number(self, schema: Mapping[str, Any], *, integer: bool) -> Any:
        low = schema.get("minimum", schema.get("exclusiveMinimum", -5))
        high = schema.get("maximum", schema.get("exclusiveMaximum", 1000))
        low = low if isinstance(low, int | float) and not isinstance(low, bool) else -5
        high = high if isinstance(high, int | float) and not isinstance(high, bool) else 1000
        if isinstance(schema.get("exclusiveMinimum"), int | float):
            low += 1 if integer else 0.5
        if isinstance(schema.get("exclusiveMaximum"), int | float):
            high -= 1 if integer else 0.5
        low, high = min(low, high), max(low, high)
        step = schema.get("multipleOf")
        if integer:
            value: Any = self.random.randint(int(low), int(high))
        else:
            value = round(self.random.uniform(float(low), float(high)), 2)
        if isinstance(step, int | float) and step > 0:
            value = type(value)(step * round(value / step))
        return value

    def _string(self, schema: Mapping[str, Any]) -> str:
        rnd = self.random
        fmt = schema.get("format")
        fixed = {
            "date-time": "2024-05-17T10:30:00Z",
            "date": "2024-05-17",
            "time": "10:30:00Z",
            "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
            "email": "someone@example.com",
            "uri": "https://example.com/a",
            "url": "https://example.com/a",
            "ipv4": "192.0.2.1",
            "ipv6": "2001:db8::1",
            "hostname": "example.com",
        }
        if fmt in fixed:
            return fixed[str(fmt)]
        low = int(schema.get("minLength", 1))
        high = int(schema.get("maxLength", low + 8))
        size = rnd.randint(low, max(low, min(high, low + 8)))
        return "".join(rnd.choice(_ALNUM) for _ in range(size))


def _generated(schema: Mapping[str, Any], cases: int, seed: int) -> Iterator[dict[str, Any]]:
    """``cases`` argument objects for ``schema``, the same ones for the same seed."""
    from toolcat.catalog.common import thaw

    plain = thaw(schema)
    generator = _Generator(plain, seed)
    for case in range(cases):
        generator.case = case
        value = generator.value(plain)
        if isinstance(value, dict):
            yield value


# -- the check ---------------------------------------------------------------------------


def check_conformance(
    catalog: Catalog,
    specs: Sequence[str],
    env: Mapping[str, str],
    *,
    tools: Sequence[str] = (),
    cases: int = 25,
    seed: int = 0,
    read: Sequence[str] = (),
) -> list[ConformanceOutcome]:
    """One outcome per tool found in a spec: ``specs``, else its service's ``spec``, else
    any spec among the files the load ``read``."""
    _need()
    if cases > MAX_CASES:
        raise CliError(f"--cases {cases}: at most {MAX_CASES}")
    for spec in specs:
        if not Path(spec).is_file():
            raise CliError(f"--spec {spec}: not a file")
    index = SpecIndex()
    for spec in specs:
        why = index.load(spec)
        if why is not None:
            raise CliError(f"--spec {why}")
    out: list[ConformanceOutcome] = []
    for tool in catalog:
        if tools and tool.name not in tools:
            continue
        command = tool.command
        if not isinstance(command, HttpCommand):
            continue  # a tool of an MCP server: no spec operation to conform to
        service = catalog.service_for(tool)
        candidates = list(specs) or ([service.spec] if service.spec else [])
        if not specs:
            candidates += [f for f in read if f.endswith((".json", ".yaml", ".yml"))]
        found = index.find(candidates, command.method, command.path)
        if found is None:
            continue  # not an operation of a spec: nothing to conform to
        out.append(_check_tool(catalog, tool, command, found, env, cases, seed))
    return out


def _check_tool(
    catalog: Catalog,
    tool: ToolDefinition,
    command: HttpCommand,
    spec: Any,
    env: Mapping[str, str],
    cases: int,
    seed: int,
) -> ConformanceOutcome:
    import httpx
    from toolcat.catalog.common import interpolate
    from toolcat.executor import (
        Executor,
        ExecutorSettings,
        SpecUnavailable,
        ToolCall,
        openapi_request,
    )
    from toolcat.loader import Diagnostic

    src = tool.source
    file, line, column = (src.file, src.line, src.column) if src else ("<catalog>", 1, 1)
    label = f"conformance ({command.method} {command.path})"
    try:
        raw_base = command.base_url or catalog.service_for(tool).base_url
        base_path = urlsplit(interpolate(raw_base, env)).path.rstrip("/")
    except Exception:
        base_path = ""
    sent: list[httpx.Request] = []

    from ._examples import TOKEN_REPLY, token_urls

    tokens = token_urls(catalog, env)

    def record(request: httpx.Request) -> httpx.Response:
        if str(request.url.copy_with(query=None)) in tokens:  # OAuth2: a fake token
            return httpx.Response(200, json=TOKEN_REPLY)
        sent.append(request)
        return httpx.Response(200)

    checked = 0
    try:
        arguments = list(_generated(tool.input_schema, cases, seed))
    except Exception as exc:  # a schema the generator cannot draw from: say so, do not fail
        note = f"no arguments could be generated ({type(exc).__name__}); not checked"
        return ConformanceOutcome(tool.name, f"{label}: {note}", file, line, column)
    client = httpx.Client(transport=httpx.MockTransport(record))
    with (
        client,
        Executor(
            catalog,
            ExecutorSettings(
                env=env,
                client=client,
                confirm=lambda call, t: True,
                telemetry=False,
                sleep=lambda s: None,
            ),
        ) as executor,
    ):
        for args in arguments:
            sent.clear()
            executor.execute(ToolCall(tool.name, args, id="conformance"))
            if not sent:
                continue  # refused before sending (the executor's own checks): not a request
            request = sent[-1]
            try:
                problem = spec.request_problem(openapi_request(request, base_path))
            except SpecUnavailable as exc:
                note = f"{checked} requests conform; then not checked: {exc}"
                return ConformanceOutcome(tool.name, f"{label}: {note}", file, line, column)
            if problem is not None:
                shown = json.dumps(args, ensure_ascii=False, default=str)[:500]
                url = str(request.url)[:300]
                message = (
                    f"tool '{tool.name}': the request does not conform to the spec's "
                    f"{command.method} {command.path}: {problem}\n"
                    f"arguments: {shown}\nrequest: {request.method} {url}"
                )
                diag = Diagnostic.make("TC068", message, file, line, column, ("tools", tool.name))
                return ConformanceOutcome(tool.name, label, file, line, column, (diag,), checked)
            checked += 1
    return ConformanceOutcome(
        tool.name, f"{label}: {checked} requests", file, line, column, (), checked
    )


def _merged_all_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    """One schema of ``schema`` and its ``allOf`` parts: properties and required joined."""
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema["allOf"]:
        if isinstance(part, Mapping):
            for k, v in part.items():
                if k == "properties" and isinstance(v, Mapping):
                    merged["properties"] = {**merged.get("properties", {}), **v}
                elif k == "required" and isinstance(v, list | tuple):
                    merged["required"] = [*merged.get("required", []), *v]
                else:
                    merged.setdefault(k, v)
    return merged
