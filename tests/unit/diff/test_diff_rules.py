"""`toolcat.catalog.diff.diff_catalogs`: one table row per rule, on catalogs built in memory."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from toolcat.catalog import (
    ApiKeyAuth,
    BearerAuth,
    BodySpec,
    Catalog,
    HttpCommand,
    ParameterBinding,
    ParamLocation,
    Service,
    SourceLocation,
    ToolAnnotations,
    ToolDefinition,
)
from toolcat.catalog.common import freeze
from toolcat.catalog.diff import CHANGE_RULES, ChangeKind, ToolChange, diff_catalogs

SECRET = "sk-live-NEVER-PRINTED"
BASE_PROPS: dict[str, Any] = {
    "q": {"type": "string", "description": "Words to look for.", "minLength": 1},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "state": {"type": "string", "enum": ["open", "closed", "all"]},
}


def schema(
    props: dict[str, Any] | None = None, required: list[str] | None = None, **extra: Any
) -> Any:
    body: dict[str, Any] = {
        "type": "object",
        "properties": BASE_PROPS if props is None else props,
        "required": ["q"] if required is None else required,
        "additionalProperties": False,
        **extra,
    }
    return freeze(body)


def tool(name: str = "search", **changes: Any) -> ToolDefinition:
    command = HttpCommand(
        service="svc",
        method="GET",
        path="/items",
        parameters=(
            ParameterBinding("q", ParamLocation.QUERY, "q", required=True),
            ParameterBinding("limit", ParamLocation.QUERY, "limit"),
            ParameterBinding("state", ParamLocation.QUERY, "state"),
        ),
    )
    base = ToolDefinition(
        name=name,
        description="Search items.",
        input_schema=schema(),
        command=command,
        annotations=ToolAnnotations(title="Search", read_only=True, destructive=False),
        source=SourceLocation("new.yaml", 7, 5),
    )
    command_changes = changes.pop("command", {})
    if command_changes:
        changes["command"] = dataclasses.replace(command, **command_changes)
    return dataclasses.replace(base, **changes)


def service(**changes: Any) -> Service:
    return dataclasses.replace(
        Service("svc", "https://api.example", auth=BearerAuth(SECRET)), **changes
    )


def catalog(*tools: ToolDefinition, svc: Service | None = None) -> Catalog:
    return Catalog(tools, [svc or service()])


def found(old: Catalog, new: Catalog) -> list[tuple[str, str]]:
    return [(c.rule, c.location) for c in diff_catalogs(old, new)]


def props(**changed: Any) -> dict[str, Any]:
    """BASE_PROPS with some properties replaced (``None`` removes one)."""
    out = {k: v for k, v in BASE_PROPS.items() if changed.get(k, v) is not None}
    out.update({k: v for k, v in changed.items() if v is not None})
    return out


P = "/input_schema/properties"

# (old input schema, new input schema, the changes expected as (rule, location))
SCHEMA_CASES = [
    pytest.param(schema(), schema(props(limit=None)), [("TD102", f"{P}/limit")], id="removed"),
    pytest.param(
        schema(),
        schema(props(sort={"type": "string"})),
        [("TD303", f"{P}/sort")],
        id="optional-added",
    ),
    pytest.param(
        schema(),
        schema(props(sort={"type": "string"}), ["q", "sort"]),
        [("TD104", f"{P}/sort")],
        id="required-added",
    ),
    pytest.param(
        schema(),
        schema(required=["q", "limit"]),
        [("TD103", "/input_schema/required")],
        id="now-required",
    ),
    pytest.param(
        schema(), schema(required=[]), [("TD305", "/input_schema/required")], id="now-optional"
    ),
    pytest.param(
        schema(),
        schema(props(limit={"type": "string"})),
        [
            ("TD105", f"{P}/limit/type"),
            ("TD305", f"{P}/limit/minimum"),
            ("TD305", f"{P}/limit/maximum"),
        ],
        id="type-changed",
    ),
    pytest.param(
        schema(),
        schema(props(limit={"type": "number", "minimum": 1, "maximum": 100})),
        [("TD305", f"{P}/limit/type")],
        id="integer-to-number-widens",
    ),
    pytest.param(
        schema(props(limit={"type": "number"})),
        schema(props(limit={"type": "integer"})),
        [("TD105", f"{P}/limit/type")],
        id="number-to-integer-narrows",
    ),
    pytest.param(
        schema(props(q={"type": ["string", "null"]})),
        schema(props(q={"type": "string"})),
        [("TD105", f"{P}/q/type")],
        id="null-dropped",
    ),
    pytest.param(
        schema(props(q={})),
        schema(props(q={"type": "string"})),
        [("TD105", f"{P}/q/type")],
        id="type-added",
    ),
    pytest.param(
        schema(),
        schema(props(state={"type": "string", "enum": ["open", "closed"]})),
        [("TD106", f"{P}/state/enum")],
        id="enum-value-removed",
    ),
    pytest.param(
        schema(),
        schema(props(state={"type": "string", "enum": ["open", "closed", "all", "draft"]})),
        [("TD305", f"{P}/state/enum")],
        id="enum-value-added",
    ),
    pytest.param(
        schema(),
        schema(
            props(
                q={
                    "type": "string",
                    "description": "Words to look for.",
                    "minLength": 1,
                    "enum": ["a"],
                }
            )
        ),
        [("TD107", f"{P}/q/enum")],
        id="enum-added",
    ),
    pytest.param(
        schema(),
        schema(props(limit={"type": "integer", "minimum": 1, "maximum": 50})),
        [("TD107", f"{P}/limit/maximum")],
        id="maximum-lowered",
    ),
    pytest.param(
        schema(),
        schema(props(limit={"type": "integer", "minimum": 1, "maximum": 500})),
        [("TD305", f"{P}/limit/maximum")],
        id="maximum-raised",
    ),
    pytest.param(
        schema(),
        schema(props(limit={"type": "integer", "exclusiveMinimum": 1, "maximum": 100})),
        [("TD107", f"{P}/limit/exclusiveMinimum")],
        id="minimum-made-exclusive",
    ),
    pytest.param(
        schema(),
        schema(props(limit={"type": "integer", "exclusiveMinimum": 0, "maximum": 100})),
        [("TD305", f"{P}/limit/exclusiveMinimum")],
        id="exclusive-below-is-wider",
    ),
    pytest.param(
        schema(),
        schema(props(q={"type": "string", "description": "Words to look for.", "minLength": 3})),
        [("TD107", f"{P}/q/minLength")],
        id="minLength-raised",
    ),
    pytest.param(
        schema(),
        schema(
            props(
                q={
                    "type": "string",
                    "description": "Words to look for.",
                    "minLength": 1,
                    "maxLength": 10,
                }
            )
        ),
        [("TD107", f"{P}/q/maxLength")],
        id="maxLength-added",
    ),
    pytest.param(
        schema(props(q={"type": "string", "maxLength": 10})),
        schema(props(q={"type": "string"})),
        [("TD305", f"{P}/q/maxLength")],
        id="maxLength-removed",
    ),
    pytest.param(
        schema(),
        schema(
            props(
                q={
                    "type": "string",
                    "description": "Words to look for.",
                    "minLength": 1,
                    "pattern": "^[a-z]+$",
                }
            )
        ),
        [("TD107", f"{P}/q/pattern")],
        id="pattern-added",
    ),
    pytest.param(
        schema(props(q={"type": "string", "pattern": "^[a-z]+$"})),
        schema(props(q={"type": "string"})),
        [("TD305", f"{P}/q/pattern")],
        id="pattern-removed",
    ),
    pytest.param(
        schema(props(q={"type": "string"})),
        schema(props(q={"type": "string", "format": "email"})),
        [("TD107", f"{P}/q/format")],
        id="format-added",
    ),
    pytest.param(
        schema(props(ids={"type": "array", "items": {"type": "string"}, "maxItems": 10})),
        schema(
            props(
                ids={
                    "type": "array",
                    "items": {"type": "string"},
                    "maxItems": 5,
                    "uniqueItems": True,
                }
            )
        ),
        [("TD107", f"{P}/ids/maxItems"), ("TD107", f"{P}/ids/uniqueItems")],
        id="array-limits",
    ),
    pytest.param(
        schema(props(n={"type": "integer", "multipleOf": 2})),
        schema(props(n={"type": "integer", "multipleOf": 4})),
        [("TD107", f"{P}/n/multipleOf")],
        id="multipleOf-tighter",
    ),
    pytest.param(
        schema(props(n={"type": "integer", "multipleOf": 4})),
        schema(props(n={"type": "integer", "multipleOf": 2})),
        [("TD305", f"{P}/n/multipleOf")],
        id="multipleOf-wider",
    ),
    pytest.param(
        schema(props(o={"type": "object", "properties": {"a": {"type": "string"}}})),
        schema(
            props(
                o={
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "additionalProperties": False,
                }
            )
        ),
        [("TD107", f"{P}/o/additionalProperties")],
        id="additionalProperties-closed",
    ),
    pytest.param(
        schema(),
        freeze({**schema(), "additionalProperties": True}),
        [("TD305", "/input_schema/additionalProperties")],
        id="additionalProperties-opened",
    ),
    pytest.param(
        schema(
            props(
                o={
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                }
            )
        ),
        schema(props(o={"type": "object", "properties": {"a": {"type": "integer"}}})),
        [("TD105", f"{P}/o/properties/a/type"), ("TD102", f"{P}/o/properties/b")],
        id="nested-object",
    ),
    pytest.param(
        schema(
            props(
                lines={
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["sku"],
                        "properties": {"sku": {"type": "string"}},
                    },
                }
            )
        ),
        schema(
            props(
                lines={
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["sku", "qty"],
                        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                    },
                }
            )
        ),
        [("TD104", f"{P}/lines/items/properties/qty")],
        id="array-of-objects",
    ),
    pytest.param(
        schema(props(q={"type": "string", "description": "old words"})),
        schema(props(q={"type": "string", "description": "new words"})),
        [("TD304", f"{P}/q/description")],
        id="schema-text",
    ),
    pytest.param(
        schema(props(v={"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})),
        schema(props(v={"anyOf": [{"type": "string"}, {"type": "integer"}]})),
        [("TD105", f"{P}/v/anyOf")],
        id="alternative-removed",
    ),
    pytest.param(
        schema(props(v={"anyOf": [{"type": "string"}, {"type": "integer"}]})),
        schema(props(v={"anyOf": [{"type": "integer"}, {"type": "string"}]})),
        [],
        id="alternatives-reordered",
    ),
    pytest.param(
        schema(props(v={"anyOf": [{"type": "string"}, {"type": "integer"}]})),
        schema(props(v={"type": "string"})),
        [("TD105", f"{P}/v/type"), ("TD305", f"{P}/v/anyOf")],
        id="anyOf-replaced-by-a-type",
    ),
    pytest.param(
        schema(props(v={"type": "string", "maxLength": 5, "description": "V"})),
        schema(
            props(
                v={
                    "anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}],
                    "description": "V",
                }
            )
        ),
        [("TD305", f"{P}/v/type"), ("TD305", f"{P}/v/maxLength"), ("TD305", f"{P}/v/anyOf")],
        id="made-nullable-with-anyOf",
    ),
    pytest.param(
        schema(props(v={"type": "string"})),
        schema(props(v={"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]})),
        [("TD305", f"{P}/v/type"), ("TD105", f"{P}/v/anyOf")],
        id="anyOf-that-refuses-old-values",
    ),
    pytest.param(
        schema(props(v={"allOf": [{"type": "string"}]})),
        schema(props(v={"allOf": [{"type": "string"}, {"maxLength": 3}]})),
        [("TD107", f"{P}/v/allOf")],
        id="allOf-member-added",
    ),
    pytest.param(
        schema(props(v={"type": "string", "not": {"const": "a"}})),
        schema(props(v={"type": "string", "not": {"const": "b"}})),
        [("TD306", f"{P}/v/not")],
        id="unclassified",
    ),
    pytest.param(
        schema(props(v={"type": "string", "x-owner": "a"})),
        schema(props(v={"type": "string", "x-owner": "b", "default": "z"})),
        [("TD304", f"{P}/v/x-owner")],
        id="extension-and-default",
    ),
]


@pytest.mark.parametrize("old, new, expected", SCHEMA_CASES)
def test_schema_changes_are_classified(old: Any, new: Any, expected: list[tuple[str, str]]) -> None:
    assert found(catalog(tool(input_schema=old)), catalog(tool(input_schema=new))) == sorted(
        expected, key=lambda e: CHANGE_RULES[e[0]].kind.rank
    )


def test_a_catalog_against_itself_is_empty() -> None:
    cat = catalog(tool(), tool("other", command={"path": "/other"}))
    assert diff_catalogs(cat, cat) == ()
    # and against an equal copy built separately (no identity shortcut)
    assert diff_catalogs(cat, catalog(tool(), tool("other", command={"path": "/other"}))) == ()


def _with_defs(max_len: int, recursive: bool = True) -> Any:
    node: dict[str, Any] = {
        "type": "object",
        "properties": {"label": {"type": "string", "maxLength": max_len}},
    }
    if recursive:
        node["properties"]["children"] = {"type": "array", "items": {"$ref": "#/$defs/Node"}}
    return freeze(
        {
            "type": "object",
            "properties": {
                "root": {"$ref": "#/$defs/Node"},
                "spare": {"$ref": "#/$defs/Node"},
            },
            "additionalProperties": False,
            "$defs": {"Node": node},
        }
    )


def test_refs_are_followed_and_a_recursive_definition_is_compared_once() -> None:
    old = catalog(tool(input_schema=_with_defs(100)))
    new = catalog(tool(input_schema=_with_defs(50)))
    # reported where a caller meets it (the first argument that uses the definition)
    assert found(old, new) == [("TD107", f"{P}/root/properties/label/maxLength")]


def test_a_ref_and_the_same_schema_inline_are_equal() -> None:
    inline = freeze(
        {
            "type": "object",
            "properties": {"a": {"type": "object", "properties": {"x": {"type": "string"}}}},
        }
    )
    by_ref = freeze(
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}},
        }
    )
    assert found(catalog(tool(input_schema=inline)), catalog(tool(input_schema=by_ref))) == []


# (changes to the new tool, changes to the new service, the changes expected)
TOOL_CASES = [
    # the annotations left unstated: the method decides (POST writes)
    pytest.param({"command": {"method": "POST"}, "annotations": ToolAnnotations("Search")}, {}, [
        ("TD108", "/command/method"), ("TD202", "/command/method"),
    ], id="method"),
    # as the loader compiles it: every hint stated, each the method's answer
    pytest.param({"command": {"method": "POST"}, "annotations": ToolAnnotations(
        "Search", read_only=False, destructive=True, idempotent=False
    )}, {}, [
        ("TD108", "/command/method"), ("TD202", "/annotations/read_only"),
    ], id="method-with-derived-hints"),
    pytest.param({"command": {"path": "/things"}}, {}, [("TD109", "/command/path")], id="path"),
    pytest.param({"command": {"base_url": "https://v2.example"}}, {}, [
        ("TD111", "/command/base_url"),
    ], id="operation-base-url"),
    pytest.param({}, {"base_url": "https://api.example/v2"}, [
        ("TD111", "/service/base_url"),
    ], id="service-base-url"),
    pytest.param({}, {"auth": ApiKeyAuth("header", "X-Key", SECRET)}, [
        ("TD112", "/service/auth"),
    ], id="auth-kind"),
    pytest.param({}, {"auth": BearerAuth("${OTHER_TOKEN}")}, [
        ("TD112", "/service/auth"),
    ], id="auth-credential"),
    pytest.param({"command": {"parameters": (
        ParameterBinding("q", ParamLocation.HEADER, "X-Q", required=True),
        ParameterBinding("limit", ParamLocation.QUERY, "limit"),
        ParameterBinding("state", ParamLocation.QUERY, "state"),
    )}}, {}, [("TD113", "/command/parameters/q")], id="binding"),
    pytest.param({"command": {"body": BodySpec()}}, {}, [("TD113", "/command/body")], id="body"),
    pytest.param({"confirm": False}, {}, [("TD201", "/confirm")], id="confirm-dropped"),
    pytest.param({"annotations": ToolAnnotations(title="Search", read_only=False)}, {}, [
        ("TD202", "/annotations/read_only"),
    ], id="became-write"),
    pytest.param({"description": "Find items."}, {}, [("TD302", "/description")], id="description"),
    pytest.param({"annotations": ToolAnnotations(title="Find", read_only=True, destructive=False)},
                 {}, [("TD302", "/annotations/title")], id="title"),
    pytest.param({"tags": ("x",)}, {}, [("TD307", "/tags")], id="tags"),
    pytest.param({"output_schema": freeze({"type": "object"})}, {}, [
        ("TD306", "/output_schema"),
    ], id="output-schema"),
    pytest.param({}, {"retry": dataclasses.replace(service().retry, attempts=3)}, [
        ("TD307", "/service/retry"),
    ], id="service-retry"),
]  # fmt: skip


@pytest.mark.parametrize("tool_changes, service_changes, expected", TOOL_CASES)
def test_tool_changes_are_classified(
    tool_changes: dict[str, Any], service_changes: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    confirm = "confirm" in tool_changes  # the confirm row starts from a confirmed tool
    old = catalog(tool(confirm=confirm))
    new = catalog(tool(**{"confirm": confirm, **tool_changes}), svc=service(**service_changes))
    assert found(old, new) == expected


def test_service_renamed_is_breaking() -> None:
    old = catalog(tool())
    new = Catalog(
        [tool(command={"service": "svc2"})], [dataclasses.replace(service(), name="svc2")]
    )
    assert found(old, new) == [("TD110", "/command/service")]


def test_destructive_hint_removed_is_a_safety_regression() -> None:
    write = ToolAnnotations(read_only=False, destructive=True)
    old = catalog(tool(command={"method": "DELETE"}, annotations=write, confirm=True))
    quiet = ToolAnnotations(read_only=False, destructive=False)
    new = catalog(tool(command={"method": "DELETE"}, annotations=quiet, confirm=True))
    assert found(old, new) == [("TD203", "/annotations/destructive")]


def test_removal_addition_and_a_likely_rename() -> None:
    old = catalog(tool("search"), tool("gone", command={"path": "/gone"}))
    new = catalog(tool("find"), tool("fresh", command={"path": "/fresh"}))
    changes = diff_catalogs(old, new)
    assert [(c.rule, c.tool) for c in changes] == [
        ("TD101", "search"),
        ("TD101", "gone"),
        ("TD301", "find"),
        ("TD301", "fresh"),
    ]
    assert "likely renamed to 'find'" in changes[0].message
    assert "likely renamed from 'search'" in changes[2].message
    assert "renamed" not in changes[1].message + changes[3].message


def test_changes_come_breaking_then_safety_then_notes() -> None:
    old = catalog(tool(confirm=True))
    new = catalog(
        tool(confirm=False, description="new words", input_schema=schema(props(limit=None)))
    )
    kinds = [c.kind for c in diff_catalogs(old, new)]
    assert kinds == [ChangeKind.BREAKING, ChangeKind.SAFETY, ChangeKind.NOTE]


def test_no_message_shows_a_credential() -> None:
    old = catalog(tool())
    new = catalog(
        tool(), svc=service(auth=BearerAuth(SECRET + "-2"), base_url=f"https://u:{SECRET}@x")
    )
    changes = diff_catalogs(old, new)
    assert [c.rule for c in changes] == ["TD111", "TD112"]
    assert SECRET not in repr(changes)


def test_every_change_carries_the_new_tools_place() -> None:
    new_tool = tool(description="other", source=SourceLocation("b.yaml", 9, 3))
    (change,) = diff_catalogs(catalog(tool()), catalog(new_tool))
    assert change == ToolChange("TD302", "search", "/description", "description changed",
                                SourceLocation("b.yaml", 9, 3))  # fmt: skip
    assert (change.name, change.kind) == ("description-changed", ChangeKind.NOTE)


def test_rule_ids_are_in_their_class_block() -> None:
    blocks = {ChangeKind.BREAKING: "TD1", ChangeKind.SAFETY: "TD2", ChangeKind.NOTE: "TD3"}
    for rule in CHANGE_RULES.values():
        assert rule.id.startswith(blocks[rule.kind]), rule
    assert len({r.name for r in CHANGE_RULES.values()}) == len(CHANGE_RULES)
