"""Each provider's exact tool shape, on a small hand-built catalog."""

from __future__ import annotations

import json

import pytest
from toolcat.catalog import Catalog, UnknownToolsetError
from toolcat.executor.providers import PROVIDERS, export_catalog

GET_ORDER_PARAMS = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "description": "The order id"},
        "expand": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["order_id"],
    "additionalProperties": False,
}


def test_openai_chat_completions_shape(catalog: Catalog) -> None:
    tools = export_catalog(catalog, "openai").tools
    assert [t["function"]["name"] for t in tools] == ["get_order", "create_order", "ping"]
    assert tools[0] == {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look up one order by id.",
            "parameters": GET_ORDER_PARAMS,
        },
    }


def test_openai_strict_flag_present_only_when_asked(catalog: Catalog) -> None:
    assert all("strict" not in t["function"] for t in export_catalog(catalog, "openai").tools)
    strict = export_catalog(catalog, "openai", strict=True).tools
    assert [t["function"]["strict"] for t in strict] == [True, True, True]


def test_openai_responses_shape_is_flat_and_always_states_strict(catalog: Catalog) -> None:
    tools = export_catalog(catalog, "openai-responses").tools
    assert tools[0] == {
        "type": "function",
        "name": "get_order",
        "description": "Look up one order by id.",
        "parameters": GET_ORDER_PARAMS,
        "strict": False,
    }
    assert all(
        t["strict"] is True for t in export_catalog(catalog, "openai-responses", strict=True).tools
    )


def test_anthropic_shape(catalog: Catalog) -> None:
    tools = export_catalog(catalog, "anthropic").tools
    assert tools[0] == {
        "name": "get_order",
        "description": "Look up one order by id.",
        "input_schema": GET_ORDER_PARAMS,
    }
    assert set(tools[1]) == {"name", "description", "input_schema"}


def test_gemini_shape_is_one_tool_with_function_declarations(catalog: Catalog) -> None:
    tools = export_catalog(catalog, "gemini").tools
    assert len(tools) == 1 and list(tools[0]) == ["functionDeclarations"]
    decls = tools[0]["functionDeclarations"]
    assert decls[0] == {
        "name": "get_order",
        "description": "Look up one order by id.",
        "parameters": {
            "type": "object",
            "properties": {
                "order_id": {"type": "string", "description": "The order id"},
                "expand": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["order_id"],
        },
    }
    # a tool without arguments has no parameters (Gemini rejects empty object properties)
    assert decls[2] == {"name": "ping", "description": "Is the service up?"}


def test_gemini_of_no_tools_is_an_empty_list() -> None:
    assert export_catalog(Catalog([], []), "gemini").tools == []


def test_mcp_shape(catalog: Catalog) -> None:
    tools = export_catalog(catalog, "mcp").tools
    assert tools[0] == {
        "name": "get_order",
        "description": "Look up one order by id.",
        "inputSchema": GET_ORDER_PARAMS,
        "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        "annotations": {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": True,
        },
    }
    assert "outputSchema" not in tools[1]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_toolset_selects_and_orders_tools(catalog: Catalog, provider: str) -> None:
    text = json.dumps(export_catalog(catalog, provider, toolset="readonly").tools)
    assert "get_order" in text and "ping" in text and "create_order" not in text


def test_unknown_toolset_raises_with_the_known_ones(catalog: Catalog) -> None:
    with pytest.raises(UnknownToolsetError, match="readonly"):
        export_catalog(catalog, "openai", toolset="nope")


def test_unknown_provider_and_strict_elsewhere_are_value_errors(catalog: Catalog) -> None:
    with pytest.raises(ValueError, match="unknown provider"):
        export_catalog(catalog, "cohere")
    with pytest.raises(ValueError, match="strict"):
        export_catalog(catalog, "anthropic", strict=True)


def test_a_list_of_tools_exports_without_a_catalog(catalog: Catalog) -> None:
    only = [catalog["ping"]]
    assert export_catalog(only, "anthropic").tools[0]["name"] == "ping"
    with pytest.raises(ValueError, match="toolset"):
        export_catalog(only, "anthropic", toolset="readonly")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_exports_are_plain_json_and_do_not_alias_the_ir(catalog: Catalog, provider: str) -> None:
    result = export_catalog(catalog, provider)
    text = json.dumps(result.tools)
    json.loads(text)
    # mutating the export must not touch the frozen IR
    first = result.tools[0]
    first.clear()
    assert catalog["get_order"].input_schema["required"] == ["order_id"]
