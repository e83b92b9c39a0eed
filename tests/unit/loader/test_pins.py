"""search.pinned: checked where it is written, and what Catalog.pinned() makes of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolcat.loader import LoadResult, load_catalog

HEAD = """\
toolcat: 1
services:
  s: {base_url: "http://127.0.0.1:1"}
tools:
  - {name: get_item, description: d, service: s, method: GET, path: /a}
  - {name: get_order, description: d, service: s, method: GET, path: /b}
  - {name: put_item, description: d, service: s, method: PUT, path: /c, confirm: true}
toolsets:
  reads: [get_item, get_order]
"""


def load(tmp_path: Path, search: str, *, head: str = HEAD) -> LoadResult:
    path = tmp_path / "catalog.yaml"
    path.write_text(head + search, encoding="utf-8")
    return load_catalog([str(path)], progress=False)


def found(result: LoadResult) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.line, d.column, d.message) for d in result.diagnostics]


def test_a_list_pins_for_every_run(tmp_path: Path) -> None:
    result = load(tmp_path, "search:\n  pinned: [put_item, 'get_*']\n")
    assert result.catalog is not None, found(result)
    assert result.catalog.pins == {"*": ("put_item", "get_*")}
    assert result.catalog.pinned() == ("put_item", "get_item", "get_order")
    # a glob matches the tools of the run's toolset only
    assert result.catalog.pinned("reads") == ("put_item", "get_item", "get_order")
    assert result.catalog.subset(["get_item"]).pinned() == ("get_item",)  # missing: skipped
    assert result.catalog.with_env({}).pinned() == result.catalog.pinned()


def test_a_mapping_pins_per_toolset(tmp_path: Path) -> None:
    result = load(tmp_path, "search:\n  pinned:\n    '*': [put_item]\n    reads: ['get_o*']\n")
    assert result.catalog is not None, found(result)
    assert result.catalog.pinned() == ("put_item",)
    assert result.catalog.pinned("reads") == ("put_item", "get_order")
    assert found(result) == []


def test_no_search_section_pins_nothing(tmp_path: Path) -> None:
    result = load(tmp_path, "")
    assert result.catalog is not None
    assert result.catalog.pins == {} and result.catalog.pinned("reads") == ()


def test_unknown_names_and_toolsets_are_errors_where_written(tmp_path: Path) -> None:
    result = load(
        tmp_path,
        "search:\n  pinned:\n    '*': [get_itme]\n    raeds: [get_item]\n"
        "    reads: [put_item, 'x*']\n",
    )
    assert result.catalog is None
    assert found(result) == [
        ("TC089", 12, 11, "search.pinned names unknown tool 'get_itme'; did you mean 'get_item'?"),
        ("TC090", 13, 5, "search.pinned names unknown toolset 'raeds'; did you mean 'reads'?"),
        (
            "TC142",
            14,
            13,
            "search.pinned: 'put_item' is not in toolset 'reads'; chat offers it with "
            "that toolset all the same, serve --toolset does not serve it",
        ),
        ("TC141", 14, 23, "search.pinned: 'x*' matches no tool; pins nothing"),
    ]


def test_a_second_search_section_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(HEAD + "search:\n  pinned: [get_item]\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("toolcat: 1\nsearch:\n  pinned: [get_order]\n")
    result = load_catalog([str(tmp_path)], progress=False)
    codes = [(d.code, d.file.endswith("b.yaml"), d.line) for d in result.diagnostics]
    assert codes == [("TC091", True, 2)]
    assert "already defined at" in result.diagnostics[0].message


@pytest.mark.parametrize(
    "search, code",
    [
        ("search:\n  pinned: [3]\n", "TC004"),
        ("search:\n  pinnd: [get_item]\n", "TC003"),
        ("search:\n  pinned: ['']\n", "TC008"),
        ("search: [get_item]\n", "TC004"),
    ],
)
def test_bad_shapes(tmp_path: Path, search: str, code: str) -> None:
    result = load(tmp_path, search)
    assert result.catalog is None
    assert code in [d.code for d in result.errors]
    assert all(d.path[0] == "search" for d in result.errors)


def test_more_pins_than_openai_takes_warn(tmp_path: Path) -> None:
    tools = "".join(
        f"  - {{name: t{i:03}, description: d, service: s, method: GET, path: /t{i}}}\n"
        for i in range(130)
    )
    head = 'toolcat: 1\nservices:\n  s: {base_url: "http://127.0.0.1:1"}\ntools:\n' + tools
    result = load(tmp_path, "search:\n  pinned: ['t*']\n", head=head)
    assert result.catalog is not None
    assert len(result.catalog.pinned()) == 130
    assert [(d.code, d.line) for d in result.warnings] == [("TC140", 136)]
    assert "pins 130 tools" in result.warnings[0].message
    fewer = load(tmp_path, "search:\n  pinned: ['t0*']\n", head=head)
    assert fewer.warnings == ()
