"""`toolcat import --update FILE`: re-import into a written catalog, keeping hand edits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli._app import main
from toolcat.loader import load_catalog, read_yaml


def _spec(extra_op: bool = False, summary: str = "List items.") -> dict[str, Any]:
    paths: dict[str, Any] = {
        "/items": {
            "get": {
                "operationId": "listItems",
                "summary": summary,
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                    {"name": "q", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok"}},
            },
            "post": {
                "operationId": "createItem",
                "summary": "Create an item.",
                "responses": {"201": {"description": "ok"}},
            },
        },
        "/items/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {}}],
            "get": {"operationId": "getItem", "summary": "Get an item.", "responses": {}},
            "delete": {"operationId": "deleteItem", "summary": "Delete.", "responses": {}},
        },
    }
    if extra_op:
        paths["/items/{id}"]["put"] = {"operationId": "replaceItem", "responses": {}}
        del paths["/items/{id}"]["delete"]
    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": "https://shop.example.com/v1"}],
        "paths": paths,
    }


@pytest.fixture
def written(tmp_path: Path) -> Path:
    (tmp_path / "spec.json").write_text(json.dumps(_spec()))
    out = tmp_path / "shop.yaml"
    assert main(["import", "openapi", str(tmp_path / "spec.json"), "-o", str(out), "-q"]) == 0
    return out


def _tools(path: Path) -> dict[str, dict[str, Any]]:
    doc = read_yaml(path.read_text(), str(path))
    return {t["name"]: t for t in doc["tools"]}


def _edit(path: Path, change: Any) -> None:
    """Change the catalog as a person would: load the YAML, edit, write it back (the import
    record is beside it, in FILE.import-record)."""
    text = path.read_text()
    assert "# toolcat-import-record" not in text
    doc = read_yaml(text, str(path))
    change(doc)
    from toolcat.loader.openapi import render_document

    path.write_text(render_document(doc))


def _update(path: Path, capsys: Any, *extra: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["import", *extra, "--update", str(path)])
    return code, capsys.readouterr().err.splitlines()


def test_an_update_without_changes_writes_what_a_fresh_import_writes(
    written: Path, tmp_path: Path, capsys: Any
) -> None:
    before = written.read_text()
    code, err = _update(written, capsys)
    assert code == 0
    assert err == [f"updated {written}: 4 tools; 0 hand edits kept, 0 changed, 0 added, 0 removed"]
    assert written.read_text() == before


def test_hand_edits_survive_and_spec_changes_come_through(
    written: Path, tmp_path: Path, capsys: Any
) -> None:
    def change(doc: dict[str, Any]) -> None:
        tools = {t["name"]: t for t in doc["tools"]}
        tools["listItems"]["confirm"] = True  # added by hand (it used to vanish)
        tools["getItem"]["name"] = "fetch_item"  # renamed by hand
        tools["listItems"]["parameters"]["limit"]["description"] = "At most this many."
        doc["tools"].remove(tools["deleteItem"])  # not wanted... but the spec drops it anyway
        doc["tools"].append(
            {"name": "ping", "service": "shop", "method": "GET", "path": "/ping", "confirm": False}
        )

    untouched = _tools(written)["listItems"]["parameters"]["q"]
    _edit(written, change)
    (tmp_path / "spec.json").write_text(json.dumps(_spec(extra_op=True, summary="List all.")))
    code, err = _update(written, capsys)
    assert code == 0, err
    # by default the kept, changed, added and removed things, not every operation
    assert not [line for line in err if line.startswith("imported ")], err
    said = sorted(err[:-1])
    # "added by hand" or "edited by hand": whether the writer spells out confirm: false
    assert said.pop(0).startswith("added  tool replaceItem")
    # what the spec changed in a tool nobody touched there
    assert said.pop(0) == "changed tool listItems: description, annotations.title"
    assert said.pop(0) == "kept   tool fetch_item: name (edited by hand)"
    assert said.pop(0).startswith("kept   tool listItems: confirm (")
    assert said == [
        "kept   tool listItems: parameters.limit (edited by hand)",
        "kept   tool ping (added by hand)",
        # deleted by hand, and the spec dropped its operation too: said once, as removed
        "removed tool deleteItem: the spec no longer has deleteItem",
    ], err
    assert err[-1] == (
        f"updated {written}: 5 tools; 4 hand edits kept, 1 changed, 1 added, 1 removed"
    )
    assert (
        written.read_text().splitlines()[1]
        == "# 4 operations: 4 imported, 0 left out; 5 tools written, with the hand edits "
        "--update kept."
    )
    tools = _tools(written)
    assert list(tools) == ["listItems", "createItem", "fetch_item", "replaceItem", "ping"]
    assert tools["listItems"]["confirm"] is True
    assert tools["listItems"]["description"] == "List all."  # untouched: the spec's new text
    assert tools["listItems"]["parameters"]["limit"]["description"] == "At most this many."
    assert tools["listItems"]["parameters"]["q"] == untouched
    loaded = load_catalog([written], progress=False)
    assert loaded.catalog is not None, [str(d) for d in loaded.diagnostics]
    # a second update keeps the same edits and changes nothing more
    again = written.read_text()
    code, err = _update(written, capsys)
    assert code == 0 and written.read_text() == again
    assert err[-1] == (
        f"updated {written}: 5 tools; 4 hand edits kept, 0 changed, 0 added, 0 removed"
    )


def test_a_tool_deleted_by_hand_stays_deleted(written: Path, capsys: Any) -> None:
    _edit(written, lambda doc: doc["tools"].pop(0))
    code, err = _update(written, capsys)
    assert code == 0
    assert "kept   tool listItems removed by hand (the spec still has listItems)" in err
    assert "listItems" not in _tools(written)


def test_a_removed_field_stays_removed(written: Path, capsys: Any) -> None:
    _edit(written, lambda doc: doc["tools"][0].pop("annotations"))
    code, err = _update(written, capsys)
    assert code == 0
    assert "kept   tool listItems: annotations removed by hand" in err
    assert "annotations" not in _tools(written)["listItems"]


def test_services_and_sections_keep_hand_edits(written: Path, capsys: Any) -> None:
    def change(doc: dict[str, Any]) -> None:
        service = next(iter(doc["services"].values()))
        service["base_url"] = "${SHOP_URL:-https://shop.example.com/v1}"
        service["headers"] = {"X-Team": "ops"}
        doc["toolsets"] = {"reads": ["listItems", "getItem"]}

    _edit(written, change)
    code, err = _update(written, capsys)
    assert code == 0
    service = next(iter(read_yaml(written.read_text(), str(written))["services"]))
    assert sorted(err[-4:-1]) == [
        f"kept   service {service}: base_url (edited by hand)",
        f"kept   service {service}: headers (added by hand)",
        "kept   toolset reads (added by hand)",
    ], err
    doc = read_yaml(written.read_text(), str(written))
    assert doc["services"][service]["base_url"] == "${SHOP_URL:-https://shop.example.com/v1}"
    assert doc["toolsets"] == {"reads": ["listItems", "getItem"]}
    assert load_catalog([written], progress=False).catalog is not None


def test_update_with_a_new_spec_keeps_the_recorded_options(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "spec.json").write_text(json.dumps(_spec()))
    (tmp_path / "overlay.yaml").write_text(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n"
        "  - {target: \"$.paths['/items'].get\", update: {summary: From the overlay.}}\n"
    )
    out = tmp_path / "out" / "shop.yaml"
    out.parent.mkdir()
    args = ["import", "openapi", str(tmp_path / "spec.json"), "--service", "store"]
    assert main([*args, "--overlay", str(tmp_path / "overlay.yaml"), "-o", str(out), "-q"]) == 0
    record = out.with_name(out.name + ".import-record").read_text()
    assert '"argv": ["--service", "store", "--overlay", "../overlay.yaml"]' in record
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(_spec(extra_op=True)))
    capsys.readouterr()
    assert main(["import", "openapi", str(newer), "--update", str(out), "-q"]) == 0
    tools = _tools(out)
    assert "replaceItem" in tools and tools["listItems"]["service"] == "store"
    assert tools["listItems"]["description"] == "From the overlay."
    assert '"spec": "../newer.json"' in out.with_name(out.name + ".import-record").read_text()


@pytest.mark.parametrize(
    "text",
    [
        "toolcat: 1\ntools: []\n",  # written by hand
        "",  # empty
        "toolcat: 1\n# toolcat-import-record: {not json}\n",  # a broken record
        "# toolcat-import-record: "
        + json.dumps({"record": 1, "spec": "spec.json", "argv": []})
        + "\ntoolcat: 1\n",  # a record that is not at the end
    ],
)
def test_update_refuses_a_file_import_did_not_write(tmp_path: Path, capsys: Any, text: str) -> None:
    (tmp_path / "spec.json").write_text(json.dumps(_spec()))
    target = tmp_path / "mine.yaml"
    target.write_text(text)
    for extra in ((), ("openapi", str(tmp_path / "spec.json"))):
        code, err = _update(target, capsys, *extra)
        assert code == 2
        assert len(err) == 1 and "not written by 'toolcat import openapi'" in err[0], err
        assert "nothing changed" in err[0]
        assert target.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.yaml", "spec.json"]


def test_update_usage_errors(written: Path, tmp_path: Path, capsys: Any) -> None:
    code, err = _update(tmp_path / "absent.yaml", capsys)
    assert code == 2 and len(err) == 1 and "absent.yaml: no such file" in err[0]
    before = written.read_text()
    spec = str(tmp_path / "spec.json")
    capsys.readouterr()
    code = main(["import", "openapi", spec, "--update", str(written), "-o", str(written)])
    assert code == 2 and "leave out -o" in capsys.readouterr().err
    assert written.read_text() == before


def test_the_record_is_kept_beside_the_catalog_or_at_the_end_of_standard_output(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """-o FILE writes FILE (no record lines: it stays small and its diffs show only tools) and
    FILE.import-record; standard output ends with the record, and --update reads it there."""
    (tmp_path / "spec.json").write_text(json.dumps(_spec()))
    out = tmp_path / "shop.yaml"
    assert main(["import", "openapi", str(tmp_path / "spec.json"), "-o", str(out), "-q"]) == 0
    assert "# toolcat-import-record" not in out.read_text()
    beside = out.with_name("shop.yaml.import-record")
    assert "# toolcat-import-record: " in beside.read_text()
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)  # standard output's record names the spec from here
    assert main(["import", "openapi", "spec.json", "-q"]) == 0
    piped = tmp_path / "piped.yaml"
    piped.write_text(capsys.readouterr().out)
    assert "# toolcat-import-record: " in piped.read_text()
    code, err = _update(piped, capsys)
    assert code == 0, err
    assert piped.with_name("piped.yaml.import-record").is_file()
    assert "# toolcat-import-record" not in piped.read_text()


def _plain_import(tmp_path: Path, written: Path, capsys: Any, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    argv = ["import", "openapi", str(tmp_path / "spec.json"), "-o", str(written), "-q", *extra]
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "change, said",
    [
        (lambda doc: doc["tools"].pop(), "1 change: tool deleteItem removed"),
        (
            lambda doc: doc["tools"][0].update(examples=[{"name": "one", "arguments": {}}]),
            "1 change: tool listItems edited",
        ),
        (
            lambda doc: doc.update(toolsets={"reads": ["listItems"]}),
            "1 change: toolsets.reads added",
        ),
    ],
)
def test_a_plain_reimport_over_hand_edits_is_refused(
    written: Path, tmp_path: Path, capsys: Any, change: Any, said: str
) -> None:
    _edit(written, change)
    edited = written.read_text()
    code, err = _plain_import(tmp_path, written, capsys)
    assert code == 2
    assert err == (
        f"toolcat: {written} was changed by hand since it was imported ({said}); a plain "
        f"import would discard it. Re-import with --update {written} (instead of -o) to "
        "keep it, or add --force to overwrite it; nothing written\n"
    )
    assert written.read_text() == edited
    code, _ = _plain_import(tmp_path, written, capsys, "--force")
    assert code == 0 and written.read_text() != edited


def test_a_plain_reimport_over_an_untouched_or_foreign_file_writes_it(
    written: Path, tmp_path: Path, capsys: Any
) -> None:
    before = written.read_text()
    assert _plain_import(tmp_path, written, capsys)[0] == 0  # as import left it
    assert written.read_text() == before
    written.write_text("toolcat: 1\n")  # no import record: not an import's file to protect
    written.with_name(written.name + ".import-record").unlink()
    assert _plain_import(tmp_path, written, capsys)[0] == 0


def test_verbose_lists_every_operation(written: Path, capsys: Any) -> None:
    code, err = _update(written, capsys, "-v")
    assert code == 0
    assert [line for line in err if line.startswith("imported ")] == [
        "imported GET /items (listItems) as listItems",
        "imported POST /items (createItem) as createItem",
        "imported GET /items/{id} (getItem) as getItem",
        "imported DELETE /items/{id} (deleteItem) as deleteItem",
    ]


def test_the_header_counts_the_tools_written(written: Path, capsys: Any) -> None:
    _edit(written, lambda doc: doc["tools"].pop())
    code, err = _update(written, capsys)
    assert code == 0
    assert err == [
        "kept   tool deleteItem removed by hand (the spec still has deleteItem)",
        f"updated {written}: 3 tools; 1 hand edit kept, 0 changed, 0 added, 0 removed",
    ]
    assert written.read_text().splitlines()[1] == (
        "# 4 operations: 4 imported, 0 left out; 3 tools written, with the hand edits "
        "--update kept."
    )
    assert len(_tools(written)) == 3
