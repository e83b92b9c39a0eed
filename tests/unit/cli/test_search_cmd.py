"""`toolcat search`: one query as a table or JSON, a batch of JSON lines, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolcat.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_one_query_as_a_table(catalogs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "good.yaml", "look up an order")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["SCORE", "NAME", "DESCRIPTION"]
    assert lines[1].split()[1:3] == ["get_order", "Look"]


def test_one_query_as_json(catalogs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "search", "good.yaml", "create an order", "--format", "json", "--top", "1"
    )
    doc = json.loads(out)
    assert code == 0
    assert doc["query"] == "create an order"
    assert [r["name"] for r in doc["results"]] == ["create_order"]
    assert doc["results"][0]["score"] > 0


def test_batch_one_line_per_query_in_order(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        {"id": "a", "query": "create an order for a customer"},
        {"query": "order by id"},
        {"query": ""},
    ]
    Path("q.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    code, out, _ = run(capsys, "search", "good.yaml", "--queries", "q.jsonl", "--top", "2")
    got = [json.loads(x) for x in out.splitlines()]
    assert code == 0
    assert [g.get("query") for g in got] == [x["query"] for x in lines]
    assert got[0]["id"] == "a"
    assert got[0]["results"][0]["name"] == "create_order"
    assert got[1]["results"][0]["name"] == "get_order"
    assert got[2]["results"] == []


def test_batch_bad_line_is_reported_in_place(
    catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("q.jsonl").write_text(
        '{"query": "order"}\nnot json\n[1]\n{"query": 5}\n', encoding="utf-8"
    )
    code, out, err = run(capsys, "search", "good.yaml", "--queries", "q.jsonl")
    got = [json.loads(x) for x in out.splitlines()]
    assert code == 1
    assert "results" in got[0]
    assert [g["line"] for g in got[1:]] == [2, 3, 4]
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["search", "good.yaml"], "give either QUERY or --queries FILE"),
        (["search", "good.yaml", "x", "--queries", "q"], "give either QUERY or --queries FILE"),
        (["search", "good.yaml", "x", "--top", "0"], "--top must be between 1 and 1000"),
        (["search", "good.yaml", "x", "--toolset", "nope"], "unknown toolset 'nope'"),
        (["search", "good.yaml", "--queries", "missing.jsonl"], "--queries missing.jsonl"),
    ],
)
def test_usage_errors_exit_2(
    catalogs: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_toolset_and_no_match(catalogs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "good.yaml", "create order", "--toolset", "readonly")
    assert code == 0
    assert "create_order" not in out
    code, out, err = run(capsys, "search", "good.yaml", "zzzz qqqq")
    assert (code, out) == (0, "")
    assert "no tool matches" in err
