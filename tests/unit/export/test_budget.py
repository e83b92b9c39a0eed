"""The per-tool schema budget: optional branches collapse deepest first, the rest is kept."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from toolcat.catalog import BearerAuth, Catalog, Service, ToolDefinition
from toolcat.catalog.common import freeze, thaw
from toolcat.catalog.schema import (
    DEFAULT_SCHEMA_BUDGET,
    check_strict_schema,
    fit_schema,
    schema_size,
)
from toolcat.executor import Executor, ToolCall, ToolResult
from toolcat.executor.providers import PROVIDERS, export_catalog, get

from .conftest import make_tool

LONG = "A long description that a model would read on every turn. " * 8


def _object(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "description": LONG,
        "properties": props,
        "required": required or [],
        "additionalProperties": False,
    }


def _deep() -> dict[str, Any]:
    """id (required), a shallow optional object, and a required object whose own
    optional part is two levels down."""
    return _object(
        {
            "id": {"type": "string", "description": "The id."},
            "shallow": _object({"x": {"type": "string", "description": LONG}}),
            "body": _object(
                {
                    "name": {"type": "string"},
                    "meta": _object(
                        {
                            "deep": _object(
                                {"a": {"type": "integer", "description": LONG}},
                                ["a"],
                            )
                        }
                    ),
                },
                ["name"],
            ),
        },
        ["id", "body"],
    )


def test_a_schema_within_budget_is_returned_unchanged() -> None:
    schema = freeze(_deep())
    result = fit_schema(schema, schema_size(schema))
    assert result.schema is schema and result.collapsed == () and not result.over
    assert fit_schema(schema, 0).schema is schema  # 0: no budget


def test_the_deepest_optional_branch_goes_first() -> None:
    schema = _deep()
    size = schema_size(schema)
    meta = schema["properties"]["body"]["properties"]["meta"]
    deep_size = schema_size(meta["properties"]["deep"])
    result = fit_schema(schema, size - deep_size + 300)
    assert result.collapsed == ("/properties/body/properties/meta/properties/deep",)
    assert result.size_after == schema_size(result.schema) <= size - deep_size + 300
    meta = result.schema["properties"]["body"]["properties"]["meta"]
    stub = meta["properties"]["deep"]
    assert stub["type"] == "object" and "collapsed to fit the schema budget" in stub["description"]
    assert "properties" not in stub
    assert "properties" in result.schema["properties"]["shallow"]  # not needed: kept


def test_required_parts_are_never_collapsed() -> None:
    schema = _deep()
    result = fit_schema(schema, 1400)  # every optional branch has to go
    props = result.schema["properties"]
    assert props["id"] == {"type": "string", "description": "The id."}
    assert props["body"]["properties"]["name"] == {"type": "string"}  # required, kept
    assert "properties" not in props["body"]["properties"]["meta"]  # optional: collapsed
    assert "properties" not in props["shallow"]
    # outermost branches only are named
    assert result.collapsed == ("/properties/body/properties/meta", "/properties/shallow")
    assert result.left_out == ()


def test_stubs_that_do_not_fit_lose_their_text_then_are_left_out() -> None:
    schema = _deep()
    result = fit_schema(schema, 10)  # nothing fits: the required skeleton stays
    props = result.schema["properties"]
    assert set(props) == {"id", "body"}
    assert props["body"]["properties"]["name"] == {"type": "string"}
    assert set(result.left_out) == {"/properties/body/properties/meta", "/properties/shallow"}
    # an object that allowed no other property now does: what was left out is still valid
    assert "additionalProperties" not in result.schema
    assert result.size_after == schema_size(result.schema) > 10  # still over


VALID = [
    {"id": "1", "body": {"name": "n"}},
    {"id": "1", "shallow": {"x": "y"}, "body": {"name": "n", "meta": {"deep": {"a": 3}}}},
]
INVALID_IN_BRANCH = {"id": "1", "body": {"name": "n", "meta": {"deep": {"a": "three"}}}}


@pytest.mark.parametrize("budget", [10, 1500, 2500])
def test_a_collapsed_schema_accepts_what_the_full_one_accepts(budget: int) -> None:
    full = _deep()
    small = fit_schema(full, budget).schema
    for value in VALID:
        jsonschema.validate(value, full)
        jsonschema.validate(value, small)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"body": {"name": "n"}}, small)  # the required id is still required


def test_one_of_members_are_not_collapsed() -> None:
    """Widening a oneOf member can make two members match: oneOf is never walked."""
    member = _object({"big": _object({"x": {"type": "string", "description": LONG}})})
    schema = _object({"choice": {"oneOf": [member, {"type": "string"}]}}, ["choice"])
    result = fit_schema(schema, 10)
    assert result.collapsed == ()  # only descriptions go (they do not change what matches)
    kept = result.schema["properties"]["choice"]["oneOf"][0]
    assert kept["properties"]["big"]["properties"] == {"x": {"type": "string"}}
    assert thaw(member)["properties"]["big"]["properties"]["x"]["description"] == LONG


def test_definitions_nothing_references_any_more_are_dropped() -> None:
    schema = _object(
        {"id": {"type": "string"}, "extra": {"$ref": "#/$defs/Big"}, "keep": {"$ref": "#/$defs/K"}},
        ["id", "keep"],
    )
    schema["$defs"] = {
        "Big": _object({"x": {"type": "string", "description": LONG}}),
        "K": {"type": "string"},
    }
    result = fit_schema(schema, 1000)
    assert result.collapsed == ("/properties/extra",)
    assert set(result.schema["$defs"]) == {"K"}
    assert result.size_after == schema_size(result.schema) <= 1000


def test_omit_leaves_optional_branches_out() -> None:
    schema = _deep()
    result = fit_schema(schema, 1500, omit=True)
    body = result.schema["properties"]["body"]
    assert "meta" not in body["properties"] and body["required"] == ["name"]
    assert result.size_after == schema_size(result.schema) <= 1500


# -- export -------------------------------------------------------------------------


def _big_tool(name: str = "big") -> ToolDefinition:
    schema = _deep()
    return make_tool(
        name,
        "POST",
        schema["properties"],
        required=schema["required"],
        description="Create a thing.",
    )


def _catalog() -> Catalog:
    service = Service(name="orders", base_url="https://orders.example/api", auth=BearerAuth("t"))
    return Catalog([_big_tool(), make_tool("small", "GET", {"q": {"type": "string"}})], [service])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_keeps_each_tool_within_the_budget(provider: str) -> None:
    catalog = _catalog()
    result = export_catalog(catalog, provider, budget=1500)
    text = json.dumps(result.tools)
    assert "schema shortened to fit a size budget" in text.lower()
    assert [n.tool for n in result.notes if "characters" in n.message] == ["big"]
    unbudgeted = export_catalog(catalog, provider, budget=0)
    assert "shortened" not in json.dumps(unbudgeted.tools)
    assert len(json.dumps(unbudgeted.tools)) > len(text)


def test_the_export_note_and_the_description_say_what_was_collapsed() -> None:
    result = export_catalog(_catalog(), "openai", budget=1500)
    fn = result.tools[0]["function"]
    assert fn["description"].startswith("Create a thing.\n\n[Schema shortened")
    assert "body.meta" in fn["description"] or "body.meta.deep" in fn["description"]
    assert schema_size(fn["parameters"]) <= 1500
    (note,) = result.notes
    assert note.tool == "big" and "optional branch" in note.message
    assert result.tools[1]["function"]["description"] == "Does a thing."  # small: untouched


def test_the_default_budget_applies_without_asking() -> None:
    huge = {f"p{i}": _object({"x": {"type": "string", "description": LONG}}) for i in range(30)}
    tool = make_tool("huge", "POST", {"id": {"type": "string"}, **huge}, required=["id"])
    assert schema_size(tool.input_schema) > DEFAULT_SCHEMA_BUDGET
    for provider in PROVIDERS:
        exported = json.dumps(get(provider).tools([tool]).tools)
        assert "shortened" in exported, provider
    params = get("openai").tools([tool]).tools[0]["function"]["parameters"]
    assert schema_size(params) <= DEFAULT_SCHEMA_BUDGET


def test_strict_exports_stay_strict_within_the_budget() -> None:
    result = export_catalog(_catalog(), "openai", strict=True, budget=1500)
    fn = result.tools[0]["function"]
    assert fn["strict"] is True
    assert check_strict_schema(fn["parameters"]) == []
    assert "left out" in fn["description"]
    assert "meta" not in json.dumps(fn["parameters"])


def _prepare(catalog: Catalog, arguments: dict[str, Any]) -> Any:
    with Executor(catalog) as executor:
        return executor.prepare(ToolCall("big", arguments))


def test_the_full_schema_still_checks_the_call() -> None:
    catalog = _catalog()
    exported = export_catalog(catalog, "anthropic", budget=1500).tools[0]["input_schema"]
    # the model was shown a stub: a wrong type deep inside it passes the exported schema
    jsonschema.validate(INVALID_IN_BRANCH, thaw(exported))
    refused = _prepare(catalog, INVALID_IN_BRANCH)
    assert isinstance(refused, ToolResult) and not refused.ok
    assert refused.error is not None and refused.error.type == "invalid_arguments"
    accepted = _prepare(catalog, VALID[1])
    assert not isinstance(accepted, ToolResult)
    assert accepted.method == "POST" and accepted.url == "https://orders.example/api/big"


def test_the_mcp_server_lists_tools_within_the_budget(tmp_path: Any) -> None:
    from toolcat.executor.mcp_server import McpServer

    props = "".join(
        f"      p{i}: {{type: object, description: '{'long text ' * 40}', properties: "
        f"{{x: {{type: string, description: '{'more ' * 40}'}}}}}}\n"
        for i in range(12)
    )
    path = tmp_path / "c.yaml"
    path.write_text(
        "toolcat: 1\nservices:\n  s: {base_url: 'https://api.example'}\ntools:\n"
        "  - name: big\n    description: Big.\n    service: s\n    method: POST\n"
        "    path: /big\n    parameters:\n" + props
    )
    server = McpServer([str(path)])
    (listed,) = server.tools
    assert schema_size(server.catalog["big"].input_schema) > DEFAULT_SCHEMA_BUDGET
    assert schema_size(listed["inputSchema"]) <= DEFAULT_SCHEMA_BUDGET
    assert "[Schema shortened" in listed["description"]


def test_required_parts_over_the_budget_lose_nested_descriptions() -> None:
    required = {
        f"r{i}": {"type": "string", "description": LONG, "examples": ["x" * 50]} for i in range(10)
    }
    schema = _object(required, list(required))
    result = fit_schema(schema, 1500)
    assert result.collapsed == () and result.annotations_dropped > 0
    assert result.size_after == schema_size(result.schema) <= 1500
    assert set(result.schema["properties"]) == set(required)  # every required part kept
    assert result.schema["required"] == list(required)
    for value in ({k: "v" for k in required}, {"r0": 1}):  # accepts and refuses the same
        assert jsonschema.Draft202012Validator(schema).is_valid(value) == (
            jsonschema.Draft202012Validator(result.schema).is_valid(value)
        )
    tool = make_tool("req", "POST", required, required=list(required))
    exported = export_catalog([tool], "openai", budget=1500)
    assert "descriptions of nested parts dropped" in exported.tools[0]["function"]["description"]
    assert "examples/descriptions dropped" in exported.notes[0].message
