"""Exports for the providers' own tool search: deferral, namespaces, input examples, callers."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from toolcat.catalog import Catalog, Service, ToolExample
from toolcat.catalog.common import (
    DEFER_ABOVE_TOOLS,
    INPUT_EXAMPLE_LIMITS,
    NAMESPACE_LIMITS,
    freeze,
    namespace_groups,
)
from toolcat.catalog.search import SearchSettings
from toolcat.executor.providers import ExportResult, export_catalog
from toolcat.tests.support import http_command

from .conftest import make_tool


def tools(provider: str, catalog: Any, **options: Any) -> ExportResult:
    """``provider``'s export with the built-in providers' keywords."""
    return export_catalog(catalog, provider, **options)


def _big(n: int = DEFER_ABOVE_TOOLS + 1, **search: Any) -> Catalog:
    made = [make_tool(f"t{i}") for i in range(n)]
    settings = SearchSettings(**search) if search else None
    return Catalog(made, [Service("orders", "http://127.0.0.1:9")], pins={"*": ["t3"]},
                   search=settings)  # fmt: skip


@pytest.mark.parametrize(
    ("provider", "deferred"),
    [("anthropic", True), ("openai-responses", True), ("openai", False), ("gemini", False),
     ("mcp", False)],
)  # fmt: skip
def test_deferral_defaults_on_above_the_stated_count(provider: str, deferred: bool) -> None:
    exported = tools(provider, _big())
    assert exported.deferred is deferred
    small = tools(provider, _big(DEFER_ABOVE_TOOLS))
    assert small.deferred is False
    assert not any("defer_loading" in str(item) for item in small)


def test_anthropic_defers_all_but_the_pinned_tools() -> None:
    exported = tools("anthropic", _big())
    assert exported[0] == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
    }
    assert exported[1]["name"] == "t3" and "defer_loading" not in exported[1]
    assert all(item["defer_loading"] is True for item in exported[2:])
    assert len(exported) == DEFER_ABOVE_TOOLS + 2
    assert exported.notes == ()  # no "too many tools": the search finds them


def test_responses_defers_functions_behind_tool_search() -> None:
    exported = tools("openai-responses", _big(), pinned=["t0"])
    assert exported[0] == {"type": "tool_search"}
    assert exported[1]["name"] == "t0" and "defer_loading" not in exported[1]
    assert {item["defer_loading"] for item in exported[2:]} == {True}


def test_the_catalogs_setting_and_the_keyword() -> None:
    assert tools("anthropic", _big(defer=False)).deferred is False
    assert tools("anthropic", _big(3, defer=True)).deferred is True
    assert tools("anthropic", _big(defer=False), defer=True).deferred is True
    assert tools("anthropic", _big(), defer=False).deferred is False
    # a plain list of tools is deferred only when asked
    plain = list(_big())
    assert tools("anthropic", plain).deferred is False
    regex = tools("anthropic", plain, defer="regex", pinned=[])
    assert regex[0]["type"] == "tool_search_tool_regex_20251119"
    with pytest.raises(ValueError, match="no tool search of its own"):
        tools("openai", plain, defer=True)
    with pytest.raises(ValueError, match="bm25 or regex"):
        tools("anthropic", plain, defer="fuzzy")


def test_namespaces_by_service_and_by_toolset() -> None:
    made = [make_tool(f"t{i}") for i in range(4)]
    billing = dataclasses.replace(
        made[3], command=dataclasses.replace(http_command(made[3]), service="bill ing")
    )
    catalog = Catalog([*made[:3], billing], [], {"set one": ["t0", "t1"]})
    by_service = tools("openai-responses", catalog, namespaces="service")
    assert [(i["type"], i["name"]) for i in by_service] == [
        ("namespace", "orders"), ("namespace", "bill_ing")
    ]  # fmt: skip
    assert [f["name"] for f in by_service[0]["tools"]] == ["t0", "t1", "t2"]
    assert "defer_loading" not in str(by_service)  # namespaces alone defer nothing
    assert any("'bill ing' sent as 'bill_ing'" in str(n) for n in by_service.notes)
    by_set = tools("openai-responses", catalog, namespaces="toolset", defer=True, pinned=[])
    assert [i.get("name") for i in by_set] == [None, "set_one", "t2", "t3"]
    assert by_set[1]["description"] == "The toolset set one: t0, t1"
    assert {f["defer_loading"] for f in by_set[1]["tools"]} == {True}
    with pytest.raises(ValueError, match="no namespaces"):
        tools("anthropic", catalog, namespaces="service")
    with pytest.raises(ValueError, match="needs a Catalog"):
        tools("openai-responses", made, namespaces="toolset")
    assert tools("openai-responses", catalog, namespaces="none") == tools(
        "openai-responses", catalog
    )


def test_namespace_names_stay_within_the_limits() -> None:
    long = "x" * 100
    made = [make_tool("orders"), make_tool("a")]
    made[1] = dataclasses.replace(
        made[1], command=dataclasses.replace(http_command(made[1]), service=long)
    )
    groups, alone = namespace_groups(made, "service")
    names = [g.name for g in groups]
    assert names == ["orders_2", "x" * NAMESPACE_LIMITS.max_name_chars] and alone == []


def _with_examples(*arguments: dict[str, Any]) -> Any:
    tool = make_tool("get_order", "GET", {"order_id": {"type": "string", "pattern": "^[0-9]+$"}})
    examples = tuple(ToolExample(freeze(a), name=f"e{i}") for i, a in enumerate(arguments))
    return dataclasses.replace(tool, examples=examples)


def test_input_examples_are_the_valid_arguments_within_the_limits() -> None:
    tool = _with_examples({"order_id": "1"}, {"order_id": "one"}, {"order_id": "9" * 3000})
    exported = tools("anthropic", [tool], input_examples=True)
    assert exported[0]["input_examples"] == [{"order_id": "1"}]
    notes = [str(n) for n in exported.notes]
    assert any("'e1' left out of input_examples: the input schema refuses" in n for n in notes)
    assert any("'e2' left out of input_examples: 3,015 characters" in n for n in notes)
    assert "input_examples" not in tools("anthropic", [tool])[0]  # only when asked
    many = _with_examples(*({"order_id": str(i)} for i in range(8)))
    cut = tools("anthropic", [many], input_examples=True)
    assert len(cut[0]["input_examples"]) == INPUT_EXAMPLE_LIMITS.max_examples
    secret = dataclasses.replace(
        _with_examples({"order_id": "1"}, {"order_id": "1"}), sensitive_arguments=("order_id",)
    )
    hidden = tools("anthropic", [secret], input_examples=True)
    assert "input_examples" not in hidden[0]
    assert "it sets sensitive 'order_id'" in str(hidden.notes[0])
    twice = tools(
        "anthropic", [_with_examples({"order_id": "1"}, {"order_id": "1"})], input_examples=True
    )
    assert twice[0]["input_examples"] == [{"order_id": "1"}]
    with pytest.raises(ValueError, match="takes no input examples"):
        tools("openai", [tool], input_examples=True)


def test_callers_become_allowed_callers() -> None:
    both = dataclasses.replace(make_tool("a"), callers=("model", "code"))
    code = dataclasses.replace(make_tool("b"), callers=("code",))
    plain = make_tool("c")
    anthropic = tools("anthropic", [both, code, plain])
    assert anthropic[0]["allowed_callers"] == ["direct", "code_execution_20260120"]
    assert anthropic[1]["allowed_callers"] == ["code_execution_20260120"]
    assert "allowed_callers" not in anthropic[2]
    responses = tools("openai-responses", [both, code, plain])
    assert responses[0]["allowed_callers"] == ["direct", "programmatic"]
    assert "allowed_callers" not in responses[2]
