"""Stage 1: YAML with positions, duplicate keys, syntax errors."""

from __future__ import annotations

import pytest
from toolcat.loader._yaml import parse_yaml, yaml_document


def test_values_and_positions() -> None:
    text = "a: 1\nb:\n  - x\n  - {k: 'v'}\nc: true\nd: ~\ne: 2024-01-02\n"
    parsed = parse_yaml(text, "f.yaml")
    assert parsed.diagnostics == ()
    assert parsed.data == {"a": 1, "b": ["x", {"k": "v"}], "c": True, "d": None, "e": "2024-01-02"}
    pos = parsed.positions
    assert pos.value(("b", 1, "k")) == (4, 9)
    assert pos.key(("b", 1, "k")) == (4, 6)
    assert pos.key(("c",)) == (5, 1)
    assert pos.value(("c",)) == (5, 4)
    # a path that is not there resolves to its deepest ancestor
    assert pos.value(("b", 1, "missing")) == (4, 5)
    assert not pos.exact(("b", 1, "missing")) and pos.exact(("b", 0))


def test_string_column_points_inside_quoted_and_plain_strings() -> None:
    parsed = parse_yaml('a: "x ${BAD"\nb: y ${BAD\n', "f.yaml")
    assert parsed.positions.string(("a",), 2) == (1, 7)
    assert parsed.positions.string(("b",), 2) == (2, 6)


def test_duplicate_keys_are_reported_with_both_places() -> None:
    parsed = parse_yaml("a: 1\nb: 2\na: 3\n", "f.yaml")
    (diag,) = parsed.diagnostics
    assert (diag.code, diag.line, diag.column) == ("TC002", 3, 1)
    assert "line 1" in diag.message
    assert parsed.data == {"a": 3, "b": 2}  # as PyYAML: the last one wins


def test_merge_keys_and_aliases() -> None:
    parsed = parse_yaml("base: &b {x: 1, y: 2}\nuse: {<<: *b, y: 3}\n", "f.yaml")
    assert parsed.diagnostics == ()
    assert parsed.data["use"] == {"x": 1, "y": 3}
    assert parsed.positions.value(("use", "x")) == (1, 14)  # found through the merge


def test_positions_are_plain_data() -> None:
    """A load holds every file's positions to its end: they are plain tuples, never the
    nodes and marks of a tree, which every run of the cycle collector would walk again
    (a million objects for 5,000 tools)."""
    parsed = yaml_document("base: &b {x: 1}\nuse: {<<: *b, y: [2, 'z']}\n200: ok\n", "f.yaml")
    assert parsed is not None
    positions = parsed.positions
    kinds: set[type] = set()
    todo: list[object] = list(positions._nodes)
    while todo:
        item = todo.pop()
        kinds.add(type(item))
        todo.extend(item if isinstance(item, tuple) else ())
        todo.extend(item.values() if isinstance(item, dict) else ())
    assert kinds <= {tuple, dict, int, str, type(None)}, kinds
    assert positions.key(("use", "x")) == (1, 11)  # through the merge, where it was written
    assert positions.value(("use", "y", 1)) == (2, 22)
    assert positions.key(("use", "y", 1)) == (2, 22)  # a sequence item: the item itself
    assert positions.key((200,)) == (3, 1)  # a key matches the path segment's text
    assert positions.string(("use", "y", 1), 0) == (2, 23)  # inside the quotes
    assert positions.value(("use", "nope", 3)) == (2, 6)


def test_non_string_keys_keep_their_text() -> None:
    parsed = parse_yaml("200: ok\ntrue: false\n~: 1\n", "f.yaml")
    assert parsed.data == {"200": "ok", "true": False, "~": 1}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("a: [1, 2\n", 1, "bracket is never closed"),  # where it opened, not past the end
        ("a: 1\n---\nb: 2\n", 2, "one YAML document"),
        ("a:\n\t- 1\n", 2, "tab"),
        ("a: 'x\n", 1, "quote is never closed"),
        ("a: !custom 1\n", 1, "unsupported YAML tag"),
        ("? [a]\n: 1\n", 1, "plain scalar"),
    ],
)
def test_errors_are_tc001_with_a_position(text: str, line: int, words: str) -> None:
    diags = parse_yaml(text, "f.yaml").diagnostics
    assert diags, text
    assert diags[0].line == line
    assert words in diags[0].message
    assert diags[0].code in ("TC001", "TC004")


def test_alias_bomb_is_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    parsed = parse_yaml("\n".join(lines) + "\n", "bomb.yaml")
    assert parsed.data is None
    assert "too many values" in parsed.diagnostics[0].message


def test_empty_document() -> None:
    parsed = parse_yaml("# only a comment\n", "f.yaml")
    assert parsed.data is None and parsed.diagnostics == ()
