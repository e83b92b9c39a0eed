"""Issue 9 part 3 on real specs, through the real commands: import -> hand edit -> `--update`
keeps the edit; an overlay changes descriptions and confirmation.

The big specs are imported with a selection (recorded in the file, so `--update` reuses
it): parsing a whole written GitHub or Kubernetes catalog back takes 25 s to minutes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli._app import main
from toolcat.loader import load_catalog, read_yaml
from toolcat.loader.openapi import render_document

# spec file, the selection, one operation to edit by hand, one to change by overlay
CASES = {
    "train-travel": ("train-travel-openapi3.1.yaml", [], "get-stations", "delete-booking"),
    "stripe": (
        "stripe-spec3.json",
        ["--include-path", "/v1/customers*"],
        "GetCustomers",
        "DeleteCustomersCustomer",
    ),
    "github": (
        "github-api.github.com.json",
        ["--include-tag", "gists"],
        "gists/list",
        "gists/delete",
    ),
    "kubernetes": (
        "kubernetes-swagger2.json",
        ["--include-tag", "core_v1", "--include-path", "/api/v1/namespaces/{namespace}/pods*"],
        "listCoreV1NamespacedPod",
        "deleteCoreV1NamespacedPod",
    ),
}


def _operation(spec: Path, op_id: str) -> tuple[str, str]:
    text = spec.read_text(encoding="utf-8")
    doc = json.loads(text) if spec.suffix == ".json" else read_yaml(text, str(spec))
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if isinstance(op, dict) and op.get("operationId") == op_id:
                return path, method
    raise AssertionError(f"{op_id} not in {spec.name}")


def _tool_of(doc: dict[str, Any], op_tool: str) -> dict[str, Any]:
    return next(t for t in doc["tools"] if t["name"] == op_tool)


def _names(capsys: Any, out: Path) -> dict[str, str]:
    """operationId -> tool name, from the import record's tool lines."""
    names = {}
    for line in out.with_name(out.name + ".import-record").read_text().splitlines():
        if line.startswith("# toolcat-import-tool: "):
            item = json.loads(line.split(": ", 1)[1])
            names[item["op"]] = item["name"]
    return names


@pytest.mark.parametrize("case", sorted(CASES))
def test_import_hand_edit_update_keeps_the_edit(
    corpus_dir: Path, tmp_path: Path, capsys: Any, case: str
) -> None:
    name, selection, edited, _ = CASES[case]
    spec = corpus_dir / name
    out = tmp_path / f"{case}.yaml"
    assert main(["import", "openapi", str(spec), *selection, "-o", str(out), "-q"]) == 0
    tool_name = _names(capsys, out)[edited]
    text = out.read_text()
    doc = read_yaml(text, str(out))
    tool = _tool_of(doc, tool_name)
    tool["confirm"] = True
    tool["description"] = "Reviewed by the team: " + str(tool.get("description", ""))
    out.write_text(render_document(doc))  # the import record stays beside it
    capsys.readouterr()
    assert main(["import", "--update", str(out), "-q"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"kept   tool {tool_name}: description (edited by hand)" in err, err
    assert any(line.startswith(f"kept   tool {tool_name}: confirm (") for line in err), err
    count = len(read_yaml(out.read_text(), str(out))["tools"])
    assert err[-1] == (
        f"updated {out}: {count} tools; 2 hand edits kept, 0 changed, 0 added, 0 removed"
    )
    again = _tool_of(read_yaml(out.read_text(), str(out)), tool_name)
    assert again["confirm"] is True
    assert again["description"].startswith("Reviewed by the team: ")
    loaded = load_catalog([out], progress=False)
    assert loaded.catalog is not None, [str(d) for d in loaded.errors][:3]
    assert loaded.catalog[tool_name].confirm


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_overlay_changes_descriptions_and_confirmation(
    corpus_dir: Path, tmp_path: Path, capsys: Any, case: str
) -> None:
    name, selection, _, changed = CASES[case]
    spec = corpus_dir / name
    path, method = _operation(spec, changed)
    overlay = tmp_path / "team.yaml"
    overlay.write_text(
        "overlay: 1.0.0\n"
        "info: {title: Team changes, version: '1'}\n"
        "actions:\n"
        f"  - target: {json.dumps(f'$.paths[{json.dumps(path)}].{method}')}\n"
        "    update:\n"
        "      summary: Delete it for good (asks first).\n"
        "      description: Delete it for good (asks first).\n"
        "      x-toolcat-confirm: true\n"
        "  - target: $.paths.*[?@.operationId == 'no-such-operation']\n"
        "    update: {summary: never}\n"
    )
    out = tmp_path / f"{case}.yaml"
    args = ["import", "openapi", str(spec), *selection, "--overlay", str(overlay)]
    capsys.readouterr()
    assert main([*args, "-o", str(out), "-q"]) == 0
    err = capsys.readouterr().err
    assert f"{overlay}:9:13: warning TC220" in err  # the second action selects nothing
    loaded = load_catalog([out], progress=False)
    assert loaded.catalog is not None, [str(d) for d in loaded.errors][:3]
    tool = loaded.catalog[_names(capsys, out)[changed]]
    assert tool.description.startswith("Delete it for good (asks first).")
    assert tool.confirm
    # the same overlay from an `openapi:` entry gives the same tool
    entry = tmp_path / "entry.yaml"
    entry.write_text(
        f"toolcat: 1\nopenapi:\n  - spec: {json.dumps(str(spec))}\n    overlays: [team.yaml]\n"
    )
    direct = load_catalog([entry], progress=False)
    assert direct.catalog is not None, [str(d) for d in direct.errors][:3]
    assert direct.catalog[tool.name].description == tool.description
    assert direct.catalog[tool.name].confirm
