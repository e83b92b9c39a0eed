"""``$ref`` files come only from under one root: the enclosing git repository, else the
spec's folder, else what ``--ref-root`` / ``ref_root:`` say; symlinks are followed first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli._app import main
from toolcat.loader import load_catalog
from toolcat.loader.openapi import ImportOptions, import_openapi

SECRET = "s3cret-token-9b1d"


def _spec(ref: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Items", "version": "1"},
        "servers": [{"url": "https://127.0.0.1:8080/v1"}],
        "paths": {
            "/items": {
                "post": {
                    "operationId": "add_item",
                    "summary": "Add an item.",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": ref}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }


def _outside_any_repo(path: Path) -> None:
    if any((p / ".git").exists() for p in (path, *path.parents)):
        pytest.skip("the temporary folder is inside a git repository")


def _write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_default_root_is_the_enclosing_repository(tmp_path: Path) -> None:
    repo = tmp_path / "rest-api-specs"
    (repo / ".git").mkdir(parents=True)
    _write(
        repo / "common-types" / "types.json",
        {"Item": {"type": "object", "properties": {"id": {"type": "integer"}}}},
    )
    spec = _write(
        repo / "specification" / "items" / "stable" / "2024" / "items.json",
        _spec("../../../../common-types/types.json#/Item"),
    )
    result = import_openapi(spec)
    assert [t["name"] for t in result.tools] == ["add_item"]


def test_default_root_without_repository_is_the_spec_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _outside_any_repo(tmp_path)
    _write(tmp_path / "secret.json", {"type": "string", "const": SECRET})
    spec = _write(tmp_path / "downloads" / "items.json", _spec("../secret.json"))
    assert main(["import", "openapi", str(spec)]) == 1  # operations, but no tool
    err = capsys.readouterr().err
    assert "--ref-root" in err and "ref_root:" in err
    assert SECRET not in err
    assert main(["import", "openapi", "--ref-root", str(tmp_path), str(spec)]) == 0
    assert SECRET in capsys.readouterr().out


def test_a_symlink_out_of_the_root_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _outside_any_repo(tmp_path)
    _write(tmp_path / "elsewhere" / "secret.json", {"type": "string", "const": SECRET})
    spec = _write(tmp_path / "api" / "items.json", _spec("link.json"))
    (tmp_path / "api" / "link.json").symlink_to(tmp_path / "elsewhere" / "secret.json")
    result = import_openapi(spec)
    assert result.tools == []
    reasons = " ".join(r.skipped or "" for r in result.report)
    assert "link to a file outside the $ref root" in reasons
    assert SECRET not in reasons + " ".join(d.message for d in result.diagnostics)
    # the same through the CLI: exit 1, nothing quoted
    assert main(["import", "openapi", str(spec)]) == 1
    assert SECRET not in capsys.readouterr().err


def test_an_explicit_root_can_narrow_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _write(repo / "private" / "secret.json", {"type": "string", "const": SECRET})
    spec = _write(repo / "api" / "items.json", _spec("../private/secret.json"))
    assert [t["name"] for t in import_openapi(spec).tools] == ["add_item"]
    narrowed = import_openapi(spec, ImportOptions(ref_root=repo / "api"))
    assert narrowed.tools == []


def test_ref_root_on_an_openapi_entry_and_on_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _outside_any_repo(tmp_path)
    _write(tmp_path / "shared" / "item.json", {"type": "object", "description": "An item."})
    _write(tmp_path / "specs" / "items.json", _spec("../shared/item.json"))
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text("toolcat: 1\nopenapi:\n  - spec: specs/items.json\n", encoding="utf-8")
    refused = load_catalog([catalog], progress=False)
    assert any("ref_root:" in d.message for d in refused.diagnostics)
    assert refused.catalog is None or "add_item" not in refused.catalog
    catalog.write_text(
        "toolcat: 1\nopenapi:\n  - spec: specs/items.json\n    ref_root: .\n", encoding="utf-8"
    )
    allowed = load_catalog([catalog], progress=False)
    assert allowed.catalog is not None and "add_item" in allowed.catalog
    # a spec named as PATH: --ref-root on the command
    spec = str(tmp_path / "specs" / "items.json")
    main(["validate", spec])
    assert "--ref-root" in capsys.readouterr().out
    assert main(["validate", "--ref-root", str(tmp_path), spec]) == 0


def test_a_catalog_folder_link_to_a_file_outside_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(f"{SECRET}: [\n", encoding="utf-8")  # broken YAML that would be quoted
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "ok.yaml").write_text("toolcat: 1\n", encoding="utf-8")
    (folder / "linked.yaml").symlink_to(outside)
    assert main(["validate", str(folder)]) == 2
    captured = capsys.readouterr()
    assert "linked.yaml" in captured.err and "outside the directory" in captured.err
    assert SECRET not in captured.out + captured.err
    # a link that stays inside the folder is fine
    (folder / "linked.yaml").unlink()
    (folder / "sub").mkdir()
    (folder / "sub" / "linked.yaml").symlink_to(folder / "ok.yaml")
    assert main(["validate", str(folder)]) == 0


@pytest.mark.parametrize("command", [["import", "openapi"], ["validate"]])
def test_ref_root_must_be_a_folder(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path / "items.json", _spec("#/components/schemas/Item"))
    assert main([*command, "--ref-root", str(tmp_path / "nothere"), str(spec)]) == 2
    assert "--ref-root" in capsys.readouterr().err
