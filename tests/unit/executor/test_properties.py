"""Property tests: arguments generated from tool schemas always render; invalid ones never send."""

from __future__ import annotations

import importlib.util
import sys
import unicodedata
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote

import httpx
import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolcat.catalog import BodySpec
from toolcat.catalog.common import thaw
from toolcat.executor import Executor, ExecutorSettings, PreparedRequest, ToolCall


def _strategies() -> Any:
    name = "toolcat_executor_test_strategies"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).with_name("strategies.py")
        )
        assert spec is not None and spec.loader is not None
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


JSON = _strategies().JSON
from_schema = _strategies().from_schema

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _tools(f: Any) -> Any:
    return f.catalog(
        f.tool(
            "lookup",
            path="/things/{id}/{kind}",
            params=(
                f.p("id", "path", {"type": "string"}, required=True),
                f.p("kind", "path", {"type": "string", "enum": ["a", "b c", "d/e"]}, required=True),
                f.p("tags", "query", {"type": "array", "items": {"type": "string"}, "maxItems": 4}),
                f.p("limit", "query", {"type": "integer", "minimum": 1, "maximum": 100}),
                f.p("flag", "query", {"type": "boolean"}),
                f.p("trace", "header", {"type": "string", "maxLength": 40}, wire="X-Trace"),
            ),
        ),
        f.tool(
            "create",
            method="POST",
            path="/things",
            params=(
                f.p("name", "body", {"type": "string", "minLength": 1}, required=True),
                f.p("qty", "body", {"type": "integer", "minimum": 1}, required=True),
                f.p(
                    "meta",
                    "body",
                    {
                        "type": "object",
                        "properties": {"k": {"type": "string"}},
                        "additionalProperties": False,
                    },
                ),
                f.p(
                    "lines",
                    "body",
                    {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["sku"],
                            "properties": {"sku": {"type": "string"}, "n": {"type": "number"}},
                        },
                    },
                ),
            ),
            body=BodySpec(),
        ),
    )


def _refusal_expected(args: dict[str, Any]) -> str | None:
    """The documented refusals: empty path values (invalid_arguments); path values that
    hold '/' or a dot segment once decoded, control characters in headers (policy)."""
    for name in ("id", "kind"):
        if args.get(name) == "":
            return "invalid_arguments"
    for name in ("id", "kind"):
        value = args.get(name)
        if isinstance(value, str):
            decoded = value
            for _ in range(8):
                decoded, before = unquote(decoded), decoded
                if decoded == before:
                    break
            decoded = unicodedata.normalize("NFKC", decoded)
            segments = decoded.replace("\\", "/").split("/")
            if "/" in decoded or any(
                s.split(";")[0].strip() and not s.split(";")[0].strip().strip(".") for s in segments
            ):
                return "refused_by_policy"
    trace = args.get("trace")
    if isinstance(trace, str) and any(ord(c) < 32 and c != "\t" or ord(c) == 127 for c in trace):
        return "refused_by_policy"
    return None


@SETTINGS
@given(data=st.data())
def test_valid_lookup_arguments_render_and_round_trip(f: Any, data: Any) -> None:
    catalog = _tools(f)
    tool = catalog["lookup"]
    args = data.draw(from_schema(thaw(tool.input_schema)))
    with Executor(catalog, ExecutorSettings(client=f.Recorder(f.forbid).client(), env={})) as ex:
        prepared = ex.prepare(ToolCall("lookup", args))
    refusal = _refusal_expected(args)
    if refusal is not None:
        assert not isinstance(prepared, PreparedRequest) and prepared.error is not None
        assert prepared.error.type == refusal, prepared.content
        return
    assert isinstance(prepared, PreparedRequest), prepared.content
    url = httpx.URL(prepared.url)
    assert url.host == "api.test" and url.scheme == "http"
    segments = url.raw_path.decode().split("?")[0].split("/")
    assert segments[:3] == ["", "v1", "things"] and len(segments) == 5
    assert unquote(segments[3]) == args["id"] and unquote(segments[4]) == args["kind"]
    query = parse_qs(url.query.decode(), keep_blank_values=True)
    if args.get("tags"):
        assert query["tags"] == args["tags"]
    if "limit" in args:
        assert query["limit"] == [str(args["limit"])]
    if "trace" in args:
        assert prepared.headers["X-Trace"] == args["trace"]


@SETTINGS
@given(data=st.data())
def test_valid_bodies_are_sent_as_given(f: Any, data: Any) -> None:
    catalog = _tools(f)
    args = data.draw(from_schema(thaw(catalog["create"].input_schema)))
    rec = f.Recorder()
    with Executor(catalog, ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(ToolCall("create", args))
    assert result.ok, result.content
    assert f.body_json(rec.last) == args


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["lookup", "create"]))
def test_invalid_arguments_never_send(f: Any, data: Any, name: str) -> None:
    catalog = _tools(f)
    schema = thaw(catalog[name].input_schema)
    args = data.draw(
        st.dictionaries(st.sampled_from([*schema["properties"], "extra"]), JSON, max_size=6).filter(
            lambda a: not jsonschema.Draft202012Validator(schema).is_valid(a)
        )
    )
    with Executor(catalog, ExecutorSettings(client=f.Recorder(f.forbid).client(), env={})) as ex:
        result = ex.execute(ToolCall(name, args))
    assert result.error is not None
    assert not result.ok and result.error.type == "invalid_arguments"
    assert all(e.type == "invalid_arguments" for e in result.errors)


@settings(max_examples=40, deadline=None)
@given(raw=st.text(max_size=20))
def test_any_string_is_a_result_never_an_exception(raw: str) -> None:
    from toolcat.catalog import Catalog

    result = Executor(Catalog([], []), ExecutorSettings(env={})).execute(ToolCall("nothing", raw))
    assert result.error is not None
    assert not result.ok and result.error.type == "unknown_tool"


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_imported_operations_render(corpus_dir: Any, data: Any) -> None:
    """Operations of a real spec: generated arguments render, or are refused for a stated reason."""
    from toolcat.loader import load

    catalog = _imported(corpus_dir)
    tool = data.draw(st.sampled_from(sorted(catalog.tools)))
    schema = thaw(catalog[tool].input_schema)
    args = data.draw(from_schema(schema))
    with Executor(catalog, ExecutorSettings(env={})) as ex:
        prepared = ex.prepare(ToolCall(tool, args))
    if not isinstance(prepared, PreparedRequest):
        assert prepared.error is not None
        error = prepared.error
        # the model's to fix, as invalid_arguments: an empty path value, and what JSON
        # cannot carry (the generator draws infinities and lone surrogates)
        unsendable = ("path argument", "not a JSON number", "lone UTF-16 surrogate")
        fixable = error.type == "invalid_arguments" and any(m in error.msg for m in unsendable)
        assert error.type == "refused_by_policy" or fixable, prepared.content
        return
    assert httpx.URL(prepared.url).host == "httpbin.org"
    _ = load


_CACHE: dict[str, Any] = {}


def _imported(corpus_dir: Any) -> Any:
    if "httpbin" not in _CACHE:
        from toolcat.loader import load

        _CACHE["httpbin"] = load([corpus_dir / "httpbin-swagger2.json"])
    return _CACHE["httpbin"]


SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": 0, "maximum": 5},
            "b": {"type": "string", "maxLength": 3, "pattern": "^x"},
            "c": {"type": "array", "items": {"type": "number"}, "maxItems": 2},
            "d": {"enum": [1, "1", True, None]},
            "e": {"type": ["string", "null"]},
            "f": {"type": "object", "additionalProperties": {"type": "boolean"}},
            "g": {"const": [1, {"k": False}]},
            "h": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        },
        "required": ["a"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "additionalProperties": {"type": "string"},
    },
    {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "format": "int32"},
            "b": {"type": "number", "format": "int64"},
        },
    },
    {
        "type": "object",
        "$defs": {"Name": {"type": "string", "pattern": "^[xy]+$", "format": "date"}},
        "properties": {
            "a": {"$ref": "#/$defs/Name"},
            "b": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 1}]},
            "c": {"anyOf": [{"$ref": "#/$defs/Name"}, {"type": "array", "uniqueItems": True}]},
            "d": {"not": {"type": "boolean"}},
            "e": {"type": "string", "format": "email"},
        },
        "patternProperties": {"^z": {"type": "null"}},
        "unevaluatedProperties": False,
    },
]


SMALL = st.one_of(
    st.booleans(),
    st.integers(-2, 7),
    st.floats(-1, 2, allow_nan=False),
    st.text("xy", max_size=4),
    st.none(),
    st.lists(st.integers(0, 2) | st.booleans() | st.floats(0, 1), max_size=3),
    st.dictionaries(st.text("k", max_size=1), st.booleans() | st.integers(0, 1), max_size=2),
    st.just([1, {"k": False}]),
    st.sampled_from([2**31 - 1, 2**31, -(2**31) - 1, 2**63, 1e19]),
    st.just([1, {"k": 0}]),
)


def _reference(schema: dict[str, Any]) -> Any:
    """jsonschema with the formats the executor asserts: its 2020-12 checkers (those whose
    libraries are installed) and OpenAPI's integer formats."""
    from toolcat.executor._arguments import INTEGER_FORMATS

    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    for fmt, (low, high) in INTEGER_FORMATS.items():
        checker.checks(fmt)(
            lambda v, low=low, high=high: (
                isinstance(v, bool) or not isinstance(v, int | float) or low <= v <= high
            )
        )
    return jsonschema.Draft202012Validator(schema, format_checker=checker)


@settings(max_examples=400, deadline=None)
@given(
    index=st.sampled_from(range(len(SCHEMAS))),
    value=st.fixed_dictionaries({}, optional={k: SMALL for k in [*"abcdefghx", "zz"]}),
)
def test_the_argument_validator_agrees_with_jsonschema(index: int, value: Any) -> None:
    from toolcat.executor._arguments import sealed_validator

    schema = SCHEMAS[index]
    assert sealed_validator(schema, formats=True).is_valid(value) == _reference(schema).is_valid(
        value
    )
