"""toolcat schema's options for the providers' own tool search: --defer, --no-defer,
--namespaces, --input-examples, and the default above the stated tool count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolcat.catalog.common import DEFER_ABOVE_TOOLS
from toolcat.cli import main

CATALOG = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "code-callers.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def test_defer_and_input_examples_for_anthropic(capsys: pytest.CaptureFixture[str]) -> None:
    code, tools, _ = run(
        capsys, "schema", str(CATALOG), "--provider", "anthropic", "--defer", "--input-examples"
    )
    assert code == 0 and isinstance(tools, list)
    assert tools[0]["name"] == "tool_search_tool_bm25"
    by_name = {t["name"]: t for t in tools}
    assert "defer_loading" not in by_name["list_orders"]  # search.pinned
    assert by_name["get_order"]["defer_loading"] is True
    assert by_name["get_order"]["input_examples"] == [{"order_id": "42"}, {"order_id": "7"}]
    assert by_name["get_order"]["allowed_callers"] == ["direct", "code_execution_20260120"]


def test_namespaces_come_from_the_catalog_or_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    _, tools, _ = run(capsys, "schema", str(CATALOG), "--provider", "openai-responses")
    assert isinstance(tools, list)
    assert [t["type"] for t in tools] == ["namespace", "namespace"]  # search.namespaces
    _, tools, _ = run(
        capsys, "schema", str(CATALOG), "--provider", "openai-responses", "--namespaces", "none"
    )
    assert isinstance(tools, list) and {t["type"] for t in tools} == {"function"}


@pytest.mark.parametrize(
    ("flag", "provider"),
    [("--defer", "openai"), ("--input-examples", "openai-responses"), ("--namespaces=service",
     "anthropic")],
)  # fmt: skip
def test_a_flag_the_provider_lacks_is_one_line(
    capsys: pytest.CaptureFixture[str], flag: str, provider: str
) -> None:
    code, tools, err = run(capsys, "schema", str(CATALOG), "--provider", provider, flag)
    assert (code, tools) == (2, None)
    assert err.count("\n") == 1 and f"{flag.split('=')[0]} applies to" in err


def test_deferral_is_the_default_above_the_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = "".join(
        f"  - {{name: t{i}, description: Tool {i}., service: s, method: GET, path: /t{i}}}\n"
        for i in range(DEFER_ABOVE_TOOLS + 1)
    )
    path = tmp_path / "big.yaml"
    path.write_text(
        "toolcat: 1\nservices:\n  s: {base_url: 'http://127.0.0.1:9'}\ntools:\n" + tools,
        encoding="utf-8",
    )
    code, out, err = run(capsys, "schema", str(path), "--provider", "openai-responses")
    assert code == 0 and isinstance(out, list) and out[0] == {"type": "tool_search"}
    assert "at most 128" not in err  # the count warning is for requests that carry them all
    code, out, err = run(
        capsys, "schema", str(path), "--provider", "openai-responses", "--no-defer"
    )
    assert isinstance(out, list) and len(out) == DEFER_ABOVE_TOOLS + 1 and "at most 128" in err


def test_an_oversized_namespace_is_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    big = CATALOG.parent / "broken" / "tc148-namespace-too-large.yaml"
    code, tools, err = run(capsys, "schema", str(big), "--provider", "openai-responses")
    assert code == 0 and isinstance(tools, list)
    assert [(t["name"], len(t["tools"])) for t in tools] == [("big", 10), ("rest", 1)]
    assert (
        "toolcat: note: openai-responses: namespace 'big' holds 10 functions; OpenAI advises "
        "fewer than 10 per namespace\n"
    ) in err
