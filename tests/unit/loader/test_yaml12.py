"""One YAML reader, the YAML 1.2 core schema: the same text gives the same value in a
catalog, in an OpenAPI spec and through ``toolcat.loader.read_yaml``; TC109 lints catalogs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from toolcat.loader import CatalogError, load_catalog, read_yaml
from toolcat.loader import _yaml as reader
from toolcat.loader import _yaml_reader as limits
from toolcat.loader.openapi import _read as spec_reader
from toolcat.loader.openapi._emit import _block, _Dumper
from toolcat.loader.openapi._errors import SpecError

# (plain YAML text of one value, the value under the YAML 1.2 core schema)
SCALARS: list[tuple[str, Any]] = [
    ("[DE, FR, NO]", ["DE", "FR", "NO"]),
    ("[on, off]", ["on", "off"]),
    ("[yes, no, Yes, NO, YES, y, n, Y, N, On, OFF]", "yes no Yes NO YES y n Y N On OFF".split()),
    ("true", True),
    ("True", True),
    ("TRUE", True),
    ("false", False),
    ("FALSE", False),
    ("tRUE", "tRUE"),
    ("null", None),
    ("Null", None),
    ("NULL", None),
    ("~", None),
    ("", None),
    ("nULL", "nULL"),
    ("0", 0),
    ("-12", -12),
    ("+12", 12),
    ("010", 10),  # no YAML 1.1 octal
    ("0o17", 15),
    ("0x1F", 31),
    ("0x1f", 31),
    ("-0x1F", "-0x1F"),  # the core schema has no sign on 0x/0o
    ("0b101", "0b101"),  # YAML 1.1 only
    ("1_000", "1_000"),  # YAML 1.1 only
    ("12:30", "12:30"),  # no sexagesimal
    ("1.5", 1.5),
    (".5", 0.5),
    ("-.5", -0.5),
    ("1.", 1.0),
    ("1e5", 100000.0),
    ("1.5E-3", 0.0015),
    (".inf", math.inf),
    ("-.Inf", -math.inf),
    ("+.INF", math.inf),
    (".nan", math.nan),
    (".NaN", math.nan),
    ("1.2.3", "1.2.3"),
    ("2024-01-02", "2024-01-02"),  # timestamps stay text
    ("2024-01-02T10:00:00Z", "2024-01-02T10:00:00Z"),
    ("=", "="),
    ("'yes'", "yes"),
    ('"true"', "true"),
    ("'12'", "12"),
    ("!!str 12", "12"),
    ("!!int '7'", 7),
]


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want


def _catalog(text: str) -> Any:
    parsed = reader.parse_yaml(f"v: {text}\n", "c.yaml")
    assert [d for d in parsed.diagnostics if d.code != "TC109"] == []
    return parsed.data["v"]


def _spec(text: str, tmp_path: Path) -> Any:
    path = tmp_path / "spec.yaml"
    path.write_text(f"openapi: 3.1.0\nx-v: {text}\n", encoding="utf-8")
    return spec_reader.read_document(path)["x-v"]


@pytest.mark.parametrize(("text", "want"), SCALARS, ids=[repr(t) for t, _ in SCALARS])
def test_scalars_read_the_same_in_catalogs_specs_and_read_yaml(
    text: str, want: Any, tmp_path: Path
) -> None:
    for where, got in (
        ("catalog", _catalog(text)),
        ("spec", _spec(text, tmp_path)),
        ("read_yaml", read_yaml(f"v: {text}\n")["v"]),
    ):
        if isinstance(want, list):
            assert got == want, where
        else:
            assert _same(got, want), (where, got)


def test_specs_go_through_the_catalog_reader() -> None:
    assert vars(spec_reader)["yaml_document"] is reader.yaml_document


def test_keys_are_the_text_as_written_in_specs_too(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("openapi: 3.1.0\nx: {200: a, true: b, on: c, 0x10: d, ~: e}\n")
    assert spec_reader.read_document(path)["x"] == {
        "200": "a",
        "true": "b",
        "on": "c",
        "0x10": "d",
        "~": "e",
    }


def test_one_alias_cap_for_catalogs_and_specs(tmp_path: Path) -> None:
    # 11 ** 7 > MAX_YAML_VALUES > 11 ** 6: refused by both, with the same number in the message
    assert 11**6 < limits.MAX_YAML_VALUES < 11**7
    lines = ["openapi: 3.1.0", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 7):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 11)}]")
    text = "\n".join(lines) + "\n"
    parsed = reader.parse_yaml(text, "c.yaml")
    assert parsed.data is None and parsed.too_large
    assert f"{limits.MAX_YAML_VALUES:,}" in parsed.diagnostics[0].message
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        spec_reader.read_document(path)
    assert info.value.code == "TC207"
    assert f"{limits.MAX_YAML_VALUES:,}" in info.value.reason
    # three levels less is fine for both (under the floor of the expansion limit)
    small = "\n".join(lines[:-3]) + "\n"
    assert reader.parse_yaml(small, "c.yaml").diagnostics == ()
    path.write_text(small)
    assert len(spec_reader.read_document(path)["a3"]) == 11


def test_read_yaml_raises_catalog_error_with_a_position() -> None:
    with pytest.raises(CatalogError) as info:
        read_yaml("a: [1, 2\nb: !custom 3\n", "w.yaml")
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.file, diag.line) == ("TC001", "w.yaml", 1)
    with pytest.raises(CatalogError):
        read_yaml(b"a: \xff\n")
    assert read_yaml(b"\xef\xbb\xbfa: [on]\n") == {"a": ["on"]}
    assert read_yaml("a: 1\na: 2\n") == {"a": 2}  # the last duplicate wins, as safe_load
    assert read_yaml("# nothing\n") is None


@pytest.mark.parametrize(
    ("value", "column", "old"),
    [
        ("NO", 5, "the boolean false"),
        ("yes", 5, "the boolean true"),
        ("[x, y, z]", 9, "the boolean true"),
        ("{a: Off}", 9, "the boolean false"),
        ("12:30", 5, "the number 750"),
        ("1_000", 5, "the number 1000"),
        ("0b11", 5, "the number 3"),
        ("010", 5, "the number 8"),
        ("[-0755]", 6, "the number -493"),
    ],
)
def test_yaml11_values_are_linted_with_their_position(value: str, column: int, old: str) -> None:
    parsed = reader.parse_yaml(f"a: 1\nbb: {value}\n", "c.yaml")
    (diag,) = reader.yaml11_warnings(parsed)
    assert (diag.code, diag.file, diag.line, diag.column) == ("TC109", "c.yaml", 2, column)
    assert diag.severity == "warning"
    assert old in diag.message and "quote it" in diag.message


@pytest.mark.parametrize(
    "value",
    ["'NO'", '"yes"', "true", "null", "12", "1.5", "2024-01-02", "nein", "=", "|\n  no", "07", "0"],
)
def test_no_lint_where_yaml11_reads_the_same(value: str) -> None:
    assert reader.yaml11_warnings(reader.parse_yaml(f"a: {value}\n", "c.yaml")) == []


def test_keys_are_not_linted() -> None:
    # a key is text in every toolcat version; only values changed meaning
    assert reader.yaml11_warnings(reader.parse_yaml("on: 1\nno: 2\n", "c.yaml")) == []


def test_catalog_load_reports_tc109_and_keeps_the_text(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "toolcat: 1\nservices: {svc: {base_url: 'http://127.0.0.1:1'}}\ntools:\n"
        "  - name: t\n    description: T.\n    service: svc\n    method: GET\n    path: /t\n"
        "    parameters:\n      c: {type: string, description: C., enum: [DE, FR, NO]}\n"
    )
    result = load_catalog([path], progress=False)
    assert [(d.code, d.line, d.column) for d in result.diagnostics] == [("TC109", 10, 57)]
    assert result.catalog is not None
    schema = result.catalog["t"].input_schema
    assert list(schema["properties"]["c"]["enum"]) == ["DE", "FR", "NO"]


def test_specs_are_not_linted_for_yaml11(tmp_path: Path) -> None:
    from toolcat.loader.openapi import import_openapi

    path = tmp_path / "spec.yaml"
    path.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"
        "servers: [{url: 'https://x.example.com'}]\npaths:\n  /t:\n    get:\n"
        "      operationId: t\n      parameters:\n        - {name: c, in: query, "
        "schema: {type: string, enum: [DE, NO]}}\n      responses: {}\n"
    )
    result = import_openapi(path, progress=False)
    assert [d.code for d in result.diagnostics] == []
    assert "NO" in str(result.tools[0])


TRICKY = ["1e5", "1.0e5", "0o17", "0x1F", ".5", "yes", "NO", "on", "12:30", "1_000", "~", "", "="]


def test_written_catalogs_read_back_as_text() -> None:
    # the importer's writers quote what either YAML 1.1 or 1.2 would not read as text
    assert read_yaml(yaml.dump(TRICKY, Dumper=_Dumper)) == TRICKY
    lines: list[str] = []
    _block({"v": TRICKY}, 0, lines)
    assert read_yaml("\n".join(lines)) == {"v": TRICKY}
    assert yaml.safe_load("\n".join(lines)) == {"v": TRICKY}


def test_a_leading_zero_is_decimal_and_linted_as_octal_in_yaml11(tmp_path: Path) -> None:
    """`010` is ten (YAML 1.2), as in catalogs, specs and read_yaml alike; a YAML 1.1
    tool reads eight, so lint says both and how to write either."""
    parsed = reader.parse_yaml("mode: 0755\nzip: '01234'\ncount: -010\n", "c.yaml")
    assert parsed.data == {"mode": 755, "zip": "01234", "count": -10}
    assert read_yaml("a: [010, 0o10, 08]\n") == {"a": [10, 8, 8]}
    first, second = reader.yaml11_warnings(parsed)
    assert (first.line, first.column, second.line) == (1, 7, 3)
    assert first.message == (
        "0755 is the number 755 in YAML 1.2, but the number 493 in YAML 1.1 tools, which "
        'read a leading 0 as octal; quote it ("0755") to keep the text, or write 755 (or '
        "493) without the leading 0"
    )
