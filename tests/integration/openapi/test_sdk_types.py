"""Every export validates against the request types of the providers' own SDKs.

There is no network here, so the official ``anthropic`` and ``openai`` Python SDKs' tool
parameter types (TypedDicts, checked by pydantic's ``TypeAdapter`` with unknown keys
forbidden), Google's ``google-genai`` ``Tool`` model (unknown keys forbidden; an unknown
``type`` is only a warning there, turned into a failure here) and the MCP SDK's ``Tool``
model are the closest check to the real APIs. Each
mode runs on the demo, specs/ and every spec of the corpus (skipped without it),
deferral, namespaces, input examples and callers included.
"""

from __future__ import annotations

import os
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import ConfigDict, TypeAdapter, ValidationError
from toolcat.catalog import Catalog
from toolcat.executor.providers import export_catalog
from toolcat.loader import load_catalog

anthropic_types = pytest.importorskip("anthropic.types")
responses_types = pytest.importorskip("openai.types.responses")
chat_types = pytest.importorskip("openai.types.chat")
mcp_types = pytest.importorskip("mcp.types")
genai_types = pytest.importorskip("google.genai.types")

REPO = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("TOOLCAT_CORPUS", REPO.parent / "shared" / "corpus"))
FORBID = ConfigDict(extra="forbid")

# provider, export keywords -> the SDK type of one item of the request's tools
MODES: list[tuple[str, dict[str, Any]]] = [
    ("openai", {}),
    ("openai", {"strict": True}),
    ("openai-responses", {}),
    ("openai-responses", {"strict": True}),
    ("openai-responses", {"defer": True}),
    ("openai-responses", {"defer": True, "namespaces": "service"}),
    ("openai-responses", {"namespaces": "toolset"}),
    ("anthropic", {}),
    ("anthropic", {"defer": True, "input_examples": True}),
    ("anthropic", {"defer": "regex"}),
    ("gemini", {}),
    ("mcp", {}),
]


@cache
def _adapter(provider: str) -> TypeAdapter[Any]:
    if provider == "openai":
        return TypeAdapter(chat_types.ChatCompletionToolUnionParam, config=FORBID)
    if provider == "openai-responses":
        return TypeAdapter(responses_types.ToolParam, config=FORBID)
    if provider == "anthropic":
        return TypeAdapter(anthropic_types.ToolUnionParam, config=FORBID)
    if provider == "gemini":
        return TypeAdapter(genai_types.Tool)
    return TypeAdapter(mcp_types.Tool)


def _validate(provider: str, item: Any) -> None:
    """``item`` through the SDK type; google-genai's warning of an unknown enum value fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _adapter(provider).validate_python(item)


def _sources() -> list[Path]:
    found = [REPO / "examples" / "demo", *sorted((REPO / "specs").glob("*.yaml"))]
    found.append(REPO / "tests" / "data" / "catalogs" / "code-callers.yaml")
    if CORPUS.is_dir():
        found += sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))
    return found


@cache
def _catalog(path: Path) -> Catalog | None:
    try:
        result = load_catalog([path], progress=False)
    except Exception:  # a corpus file that is no spec
        return None
    return result.catalog


def _check(path: Path) -> list[str]:
    catalog = _catalog(path)
    if catalog is None or not len(catalog):
        pytest.skip(f"{path.name} does not load as a catalog with tools")
    wrong: list[str] = []
    for provider, options in MODES:
        if options.get("namespaces") == "toolset" and not catalog.toolsets:
            continue
        exported = export_catalog(catalog, provider, **options)
        for i, item in enumerate(exported):
            try:
                _validate(provider, item)
            except ValidationError as exc:
                first = exc.errors()[0]
                wrong.append(f"{provider} {options} tools[{i}]: {first['loc']} {first['msg']}")
                break
            except UserWarning as exc:
                wrong.append(f"{provider} {options} tools[{i}]: {exc}")
                break
    return wrong


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.name)
def test_every_export_is_what_the_sdk_types_take(path: Path) -> None:
    assert _check(path) == []


def test_the_new_fields_are_exported_and_checked() -> None:
    """The catalog of code callers carries every new field, so the checks above see them."""
    catalog = _catalog(REPO / "tests" / "data" / "catalogs" / "code-callers.yaml")
    assert catalog is not None
    anthropic = export_catalog(catalog, "anthropic", defer=True, input_examples=True)
    keys = {k for item in anthropic for k in item}
    assert {"defer_loading", "input_examples", "allowed_callers"} <= keys
    responses = export_catalog(catalog, "openai-responses", defer=True, namespaces="toolset")
    kinds = [item["type"] for item in responses]
    assert kinds[0] == "tool_search" and "namespace" in kinds


def test_a_wrong_field_fails_the_check() -> None:
    """The check can fail: a misspelt or mistyped field is refused by the SDK types."""
    adapter = _adapter("anthropic")
    good = {"name": "a", "description": "d", "input_schema": {"type": "object"}}
    adapter.validate_python(good)
    with pytest.raises(ValidationError):
        adapter.validate_python({**good, "defer_loadin": True})
    with pytest.raises(ValidationError):
        adapter.validate_python({**good, "allowed_callers": ["code"]})
    with pytest.raises(ValidationError):
        _adapter("openai-responses").validate_python(
            {"type": "namespace", "name": "n", "tools": []}  # no description
        )
    gemini = {"name": "a", "parameters": {"type": "object", "properties": {"x": {}}}}
    _validate("gemini", {"functionDeclarations": [gemini]})
    with pytest.raises(ValidationError):  # a JSON Schema keyword Gemini's subset lacks
        _validate("gemini", {"functionDeclarations": [{**gemini, "parameters": {"const": 1}}]})
    with pytest.raises(UserWarning):
        _validate(
            "gemini", {"functionDeclarations": [{"name": "a", "parameters": {"type": "obj"}}]}
        )
