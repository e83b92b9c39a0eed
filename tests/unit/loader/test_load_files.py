"""Stage 0 and the whole pipeline: files, directories, specs on the fly, progress, imports."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from toolcat.loader import CatalogInputError, load_catalog, load_documents

TOOL = """toolcat: 1
services:
  {service}: {{base_url: "http://127.0.0.1:1"}}
tools:
  - name: {name}
    description: A tool.
    service: {service}
    method: GET
    path: /x
"""

SPEC = """openapi: 3.0.3
info: {title: Pets, version: "1"}
servers: [{url: "http://127.0.0.1:2"}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets.
      responses: {"200": {description: ok}}
"""


def test_duplicate_name_across_files_names_both_places(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TOOL.format(service="one", name="same"))
    (tmp_path / "b.yaml").write_text(TOOL.format(service="two", name="same"))
    result = load_catalog([tmp_path], progress=False)
    (diag,) = result.errors
    assert diag.code == "TC011"
    assert diag.file == str(tmp_path / "b.yaml") and diag.line == 5
    assert f"{tmp_path / 'a.yaml'}:5:5" in diag.message
    assert result.catalog is None


def test_several_paths_form_one_catalog(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TOOL.format(service="one", name="first"))
    (tmp_path / "b.yaml").write_text(TOOL.format(service="two", name="second"))
    result = load_catalog([tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "a.yaml"])
    assert result.catalog is not None and len(result.catalog) == 2
    assert len(result.files) == 2  # a file named twice is read once


def test_hidden_folders_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TOOL.format(service="one", name="first"))
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.yaml").write_text("not: [a catalog")
    assert load_catalog([tmp_path]).diagnostics == ()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_in_directory_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TOOL.format(service="one", name="first"))
    locked = tmp_path / "b.yaml"
    locked.write_text("toolcat: 1\n")
    locked.chmod(0)
    try:
        result = load_catalog([tmp_path])
        assert [d.code for d in result.errors] == ["TC007"]
        with pytest.raises(CatalogInputError):
            load_catalog([locked])
    finally:
        locked.chmod(0o644)


def test_not_utf8_is_a_diagnostic(tmp_path: Path) -> None:
    bad = tmp_path / "a.yaml"
    bad.write_bytes(b"toolcat: 1\nservices:\n  caf\xe9: {base_url: x}\n")
    (diag,) = load_catalog([bad]).diagnostics
    assert (diag.code, diag.line, diag.column) == ("TC001", 3, 6)


def test_spec_named_on_the_command_line_is_imported(tmp_path: Path) -> None:
    spec = tmp_path / "pets.yaml"
    spec.write_text(SPEC)
    result = load_catalog([spec], progress=False)
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    assert [t.name for t in result.catalog] == ["listPets"]


def test_spec_inside_a_directory_is_left_to_openapi_entries(tmp_path: Path) -> None:
    (tmp_path / "pets.yaml").write_text(SPEC)
    (tmp_path / "catalog.yaml").write_text(
        "toolcat: 1\nopenapi:\n  - spec: pets.yaml\n    prefix: shop_\n"
        "    tools: {listPets: {description: Every pet in the shop.}}\n"
    )
    result = load_catalog([tmp_path], progress=False)
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    (tool,) = list(result.catalog)
    assert (tool.name, tool.description) == ("shop_listPets", "Every pet in the shop.")


def test_import_unavailable_is_one_diagnostic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolcat.loader.openapi as openapi

    monkeypatch.delattr(openapi, "import_openapi")
    (tmp_path / "pets.yaml").write_text(SPEC)
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text("toolcat: 1\nopenapi:\n  - spec: pets.yaml\n")
    (diag,) = load_catalog([catalog]).diagnostics
    assert (diag.code, diag.line) == ("TC208", 3)
    assert "not supported yet" in diag.message


def test_imported_names_clash_with_yaml_tools(tmp_path: Path) -> None:
    (tmp_path / "pets.yaml").write_text(SPEC)
    (tmp_path / "catalog.yaml").write_text(
        TOOL.format(service="one", name="listPets") + "openapi:\n  - spec: pets.yaml\n"
    )
    result = load_catalog([tmp_path], progress=False)
    assert result.catalog is not None, [str(d) for d in result.diagnostics]
    assert "listPets" in result.catalog and len(result.catalog) == 2  # the importer renamed


def test_progress_line_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(25):
        (tmp_path / f"t{i:02d}.yaml").write_text(TOOL.format(service=f"s{i}", name=f"t{i}"))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    load_catalog([tmp_path], progress=True)
    assert "25/25 files" in err.getvalue()
    err.truncate(0)
    load_catalog([tmp_path])  # stderr is not a TTY here: silent
    load_catalog([tmp_path], progress=False)
    assert err.getvalue().strip("\x00") == ""


def test_load_documents_checks_parsed_values() -> None:
    doc: dict[str, Any] = {
        "toolcat": 1,
        "services": {"s": {"base_url": "http://x"}},
        "tools": [
            {
                "name": "t",
                "description": "d",
                "service": "s",
                "method": "GET",
                "path": "/x",
                "timout": 1,
            }
        ],
    }
    result = load_documents([("generated.yaml", doc)])
    (diag,) = result.diagnostics
    assert (diag.code, diag.file, diag.line) == ("TC003", "generated.yaml", 1)
    del doc["tools"][0]["timout"]
    assert load_documents([("generated.yaml", doc)]).catalog is not None


def test_spec_sniffing(tmp_path: Path) -> None:
    from toolcat.loader._files import looks_like_spec

    cases = {
        "openapi: 3.1.0\ninfo: {}\n": True,
        '---\n  swagger: "2.0"\n  info: {}\n': True,
        '{"info": {}, "openapi": "3.0.0"}': True,
        "toolcat: 1\nopenapi:\n  - spec: x.yaml\n": False,
        "toolcat: 1\n": False,
        '{"toolcat": 1}': False,
    }
    for text, expected in cases.items():
        assert looks_like_spec(text, tmp_path / "x.yaml") is expected, text


def test_files_lists_catalogs_and_the_specs_they_import(tmp_path: Path) -> None:
    (tmp_path / "pets.yaml").write_text(SPEC)
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text("toolcat: 1\nopenapi:\n  - spec: pets.yaml\n")
    result = load_catalog([catalog], progress=False)
    assert result.files == (str(catalog), str(tmp_path / "pets.yaml"))
