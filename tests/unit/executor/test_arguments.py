"""Argument parsing and validation: every violation with its location, defaults, nothing sent."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.executor import Executor, ExecutorSettings, ToolCall, ToolError, parse_arguments


@pytest.mark.parametrize(
    "raw,expected",
    [
        ('{"a": 1}', {"a": 1}),
        ({"a": 1}, {"a": 1}),
        ("", ToolError("invalid_json", "arguments are empty: send a JSON object, e.g. {}")),
        ("   ", ToolError("invalid_json", "arguments are empty: send a JSON object, e.g. {}")),
        ("[1]", ToolError("invalid_json", "arguments must be a JSON object, got array")),
        ("null", ToolError("invalid_json", "arguments must be a JSON object, got null")),
        ('"x"', ToolError("invalid_json", "arguments must be a JSON object, got string")),
        (42, ToolError("invalid_json", "arguments must be a JSON object, got int")),
    ],
)
def test_parse_arguments(raw: Any, expected: Any) -> None:
    assert parse_arguments(raw) == expected


def test_malformed_json_says_where() -> None:
    error = parse_arguments('{"a": }')
    assert isinstance(error, ToolError) and error.type == "invalid_json"
    assert "line 1 column 7" in error.msg


def test_parse_never_mutates_the_callers_mapping() -> None:
    given = {"a": 1}
    parsed = parse_arguments(given)
    assert parsed == given and parsed is not given


ITEMS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["sku", "qty"],
        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
    },
}


@pytest.fixture()
def strict(f: Any) -> Any:
    tool = f.tool(
        method="POST",
        params=(
            f.p("customer", "body", {"type": "string", "minLength": 2}, required=True),
            f.p("items", "body", ITEMS, required=True),
            f.p("when", "body", {"type": "string", "format": "date"}),
            f.p("limit", "body", {"type": "integer", "default": 20}),
            f.p("opts", "body", {"type": "object", "default": {"deep": [1]}}),
        ),
    )
    import dataclasses

    from toolcat.catalog import BodySpec

    tool = dataclasses.replace(tool, command=dataclasses.replace(tool.command, body=BodySpec()))
    return f.catalog(tool)


def test_every_violation_with_its_location(f: Any, strict: Any) -> None:
    rec = f.Recorder(f.forbid)
    with Executor(strict, ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(
            ToolCall(
                "t",
                {
                    "customer": "x",
                    "items": [{"sku": "a", "qty": 0}, {"qty": "2"}],
                    "when": "yesterday",
                    "extra": 1,
                },
            )
        )
    assert not result.ok and rec.requests == []
    found = {(e.loc, e.type) for e in result.errors}
    assert found == {
        (("customer",), "invalid_arguments"),
        (("items", 0, "qty"), "invalid_arguments"),
        (("items", 1, "sku"), "invalid_arguments"),
        (("items", 1, "qty"), "invalid_arguments"),
        (("when",), "invalid_arguments"),
        (("extra",), "invalid_arguments"),
    }
    messages = {e.loc: e.msg for e in result.errors}
    assert messages[("items", 1, "sku")] == "required argument is missing"
    assert messages[("extra",)].startswith("unexpected argument; allowed: customer, items, limit")
    assert '"loc": "items[0].qty"' in result.content


def test_missing_required_arguments(f: Any, strict: Any) -> None:
    with Executor(strict, ExecutorSettings(client=f.Recorder(f.forbid).client(), env={})) as ex:
        result = ex.execute(ToolCall("t", "{}"))
    assert [e.loc for e in result.errors] == [("customer",), ("items",)]


def test_defaults_are_applied_and_copied(f: Any, strict: Any) -> None:
    rec = f.Recorder()
    with Executor(strict, ExecutorSettings(client=rec.client(), env={})) as ex:
        ex.execute(ToolCall("t", {"customer": "cc", "items": []}))
        first = f.body_json(rec.last)
        ex.execute(ToolCall("t", {"customer": "cc", "items": [], "limit": 5}))
        second = f.body_json(rec.last)
    assert first == {"customer": "cc", "items": [], "limit": 20, "opts": {"deep": [1]}}
    assert second["limit"] == 5


def test_null_for_an_optional_argument_means_absent(f: Any, strict: Any) -> None:
    """OpenAI strict mode sends null for optional arguments; they are left out, defaults apply."""
    rec = f.Recorder()
    with Executor(strict, ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(
            ToolCall("t", {"customer": "cc", "items": [], "when": None, "limit": None})
        )
    assert result.ok, result.content
    assert f.body_json(rec.last) == {
        "customer": "cc",
        "items": [],
        "limit": 20,
        "opts": {"deep": [1]},
    }


def test_null_for_a_required_argument_is_still_an_error(f: Any, strict: Any) -> None:
    rec = f.Recorder(f.forbid)
    with Executor(strict, ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(ToolCall("t", {"customer": None, "items": [], "when": None}))
    assert not result.ok and rec.requests == []
    assert [e.loc for e in result.errors] == [("customer",)]


def test_validator_compiled_once_per_tool(f: Any, strict: Any) -> None:
    with Executor(strict, ExecutorSettings(client=f.Recorder().client(), env={})) as ex:
        ex.execute(ToolCall("t", {"customer": "cc", "items": []}))
        plan = ex.plan("t")
        ex.execute(ToolCall("t", {"customer": "cc", "items": []}))
        assert ex.plan("t") is plan


def test_refs_to_defs_are_resolved(f: Any) -> None:
    import dataclasses

    from toolcat.catalog.common import freeze

    tool = f.tool(params=(f.p("pet", "query", {"$ref": "#/$defs/Pet"}, required=True),))
    schema = dict(tool.input_schema)
    schema["$defs"] = {"Pet": {"type": "string", "enum": ["cat", "dog"]}}
    tool = dataclasses.replace(tool, input_schema=freeze(schema))
    with Executor(
        f.catalog(tool), ExecutorSettings(client=f.Recorder(f.forbid).client(), env={})
    ) as ex:
        result = ex.execute(ToolCall("t", {"pet": "cow"}))
    assert result.error is not None
    assert result.error.loc == ("pet",) and "is not one of" in result.error.msg


def test_unknown_tool_lists_closest_names(f: Any) -> None:
    cat = f.catalog(f.tool("get_order"), f.tool("get_orders"), f.tool("delete_user"))
    with Executor(cat, ExecutorSettings(client=f.Recorder(f.forbid).client(), env={})) as ex:
        result = ex.execute(ToolCall("get_ordr", {}))
    assert result.error is not None
    assert result.error.type == "unknown_tool"
    assert result.error.msg.startswith("no tool named 'get_ordr'; did you mean: get_order")
    assert "delete_user" not in result.content


@pytest.mark.parametrize(
    "value,ok", [(2**31 - 1, True), (2**31, False), (-(2**31), True), (-(2**31) - 1, False)]
)
def test_openapi_integer_formats_are_checked(f: Any, value: int, ok: bool) -> None:
    tool = f.tool(params=(f.p("n", "query", {"type": "integer", "format": "int32"}),))
    rec = f.Recorder()
    with Executor(f.catalog(tool), ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(ToolCall("t", {"n": value}))
    assert result.ok is ok and len(rec.requests) == int(ok)
    if not ok:
        assert result.error is not None
        # int32's bounds, as jsonschema-rs words them ("... greater than the maximum of ...")
        assert result.error.loc == ("n",) and str(2**31 - 1 if value > 0 else -(2**31)) in (
            result.error.msg
        )


@pytest.mark.parametrize(
    "raw,loc",
    [
        ('{"a": NaN}', ("a",)),
        ('{"a": [1, {"b": -Infinity}]}', ("a", 1, "b")),
        ('{"a": 1e999}', ("a",)),
        ('{"a": "\\ud800"}', ("a",)),
        ('{"a": {"\\udfff": 1}}', ("a",)),
        ({"a": [float("inf")]}, ("a", 0)),
        ({"a": ("x", "\udc80")}, ("a", 1)),
    ],
)
def test_values_json_cannot_carry_are_invalid_arguments(raw: Any, loc: tuple[Any, ...]) -> None:
    error = parse_arguments(raw)
    assert isinstance(error, ToolError)
    assert (error.type, error.loc) == ("invalid_arguments", loc)


def test_surrogate_pairs_and_finite_extremes_pass() -> None:
    raw = '{"a": "\\ud83d\\ude00", "b": 1.7976931348623157e308, "c": -0.0}'
    assert parse_arguments(raw) == {"a": "\U0001f600", "b": 1.7976931348623157e308, "c": -0.0}


def test_a_schema_is_validated_in_the_dialect_it_declares() -> None:
    from toolcat.executor._arguments import ArgumentChecker

    # draft-07's tuple form of items: each position has its own schema
    tuple_items = {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": tuple_items},
    }
    checker = ArgumentChecker(schema)
    assert checker.check({"pair": [1, "a"]}) == ()
    (error,) = checker.check({"pair": ["a", "a"]})
    assert error.type == "invalid_arguments" and error.loc == ("pair", 0)
