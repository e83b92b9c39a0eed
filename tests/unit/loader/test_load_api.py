"""The public loading API: load_catalog, load, LoadResult, CatalogInputError."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolcat.catalog import ParamLocation
from toolcat.loader import CatalogError, CatalogInputError, load, load_catalog
from toolcat.tests.support import http_command

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "catalog.yaml"


def test_example_catalog_is_clean_and_compiles() -> None:
    result = load_catalog([EXAMPLE])
    assert result.diagnostics == ()
    assert result.catalog is not None
    assert {t.name for t in result.catalog} >= {
        "get_order",
        "list_orders",
        "create_order",
        "cancel_order",
    }
    assert result.files == (str(EXAMPLE),)


def test_missing_path_raises_catalog_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(CatalogInputError) as info:
        load_catalog([missing])
    assert info.value.path == str(missing)
    assert "\n" not in str(info.value)
    assert str(missing) in str(info.value)


def test_directory_without_yaml_raises(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(CatalogInputError, match="no \\*.yaml"):
        load_catalog([tmp_path])


def test_load_raises_catalog_error_with_every_diagnostic(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "toolcat: 1\ntools:\n  - name: x\n    service: nowhere\n    method: GET\n"
        "    path: /x/{id}\n"
    )
    with pytest.raises(CatalogError) as info:
        load([bad])
    codes = {d.code for d in info.value.diagnostics}
    assert {"TC012", "TC020"} <= codes


def test_load_returns_catalog(tmp_path: Path) -> None:
    catalog = load([EXAMPLE])
    tool = catalog["get_order"]
    assert http_command(tool).bindings(ParamLocation.PATH)[0].argument == "order_id"
