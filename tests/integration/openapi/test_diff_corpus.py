"""`toolcat diff` between two revisions of a real spec, edited by a script: exactly the plan.

Each edit below is made to a copy of a corpus spec (GitHub's OpenAPI 3.0, Kubernetes'
Swagger 2.0); the test runs the real command on the original and the edited copy and
expects exactly the planned changes, no more.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import toolcat
from toolcat.cli import main
from toolcat.tests.support import http_command

Change = tuple[str, str, str]  # rule, tool, location


def _diff(
    capsys: pytest.CaptureFixture[str], old: Path, new: Path, *more: str
) -> tuple[int, list[Change], dict[str, Any]]:
    code = main(["diff", str(old), str(new), "--format", "json", *more])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    doc: dict[str, Any] = json.loads(out)
    return code, [(c["rule"], c["tool"], c["location"]) for c in doc["findings"]], doc


def _write(spec: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _name(catalog: toolcat.Catalog, method: str, path: str) -> str:
    (name,) = [
        t.name for t in catalog if (http_command(t).method, http_command(t).path) == (method, path)
    ]
    return name


# -- GitHub (OpenAPI 3.0.3) ----------------------------------------------------------------


@pytest.fixture(scope="module")
def github(corpus_dir: Path) -> Path:
    return corpus_dir / "github-api.github.com.json"


def test_github_revision_gives_exactly_the_planned_changes(
    github: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = json.loads(github.read_text(encoding="utf-8"))
    old = toolcat.load(github)
    paths = spec["paths"]
    issues = "/repos/{owner}/{repo}/issues"
    listing, creating = paths[issues]["get"], paths[issues]["post"]
    # 1. meta/root renamed: a removal and an addition, with the rename hint
    paths["/"]["get"]["operationId"] = "meta/api-root"
    # 2. an enum value removed (state: all)
    for param in listing["parameters"]:
        if param.get("name") == "state":
            param["schema"]["enum"].remove("all")
    # 3. a constraint tightened, for this operation only: per_page (a shared $ref) inlined
    #    with a maximum
    for index, param in enumerate(listing["parameters"]):
        if param.get("$ref", "").endswith("/per-page"):
            inline = copy.deepcopy(spec["components"]["parameters"]["per-page"])
            inline["schema"]["maximum"] = 50
            listing["parameters"][index] = inline
    # 4. a body property removed and 5. another made required
    body = creating["requestBody"]["content"]["application/json"]["schema"]
    del body["properties"]["assignee"]
    body["required"].append("body")
    # 6. a description reworded
    paths["/repos/{owner}/{repo}"]["get"]["description"] += " Edited."
    # 7. an optional query parameter added
    paths["/repos/{owner}/{repo}"]["get"].setdefault("parameters", []).append(
        {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}
    )
    new_path = _write(spec, tmp_path / "github-edited.json")
    new = toolcat.load(new_path)

    code, changes, doc = _diff(capsys, github, new_path)
    root_old, root_new = _name(old, "GET", "/"), _name(new, "GET", "/")
    list_tool, create_tool = _name(old, "GET", issues), _name(old, "POST", issues)
    repo_tool = _name(old, "GET", "/repos/{owner}/{repo}")
    props = "/input_schema/properties"
    assert sorted(changes) == sorted(
        [
            ("TD101", root_old, ""),
            ("TD106", list_tool, f"{props}/state/enum"),
            ("TD107", list_tool, f"{props}/per_page/maximum"),
            ("TD102", create_tool, f"{props}/assignee"),
            ("TD103", create_tool, "/input_schema/required"),
            ("TD302", repo_tool, "/description"),
            ("TD303", repo_tool, f"{props}/verbose"),
            ("TD301", root_new, ""),
        ]
    )
    removed = next(c for c in doc["findings"] if c["rule"] == "TD101")
    assert f"likely renamed to '{root_new}'" in removed["message"]
    assert code == 1
    # the same spec against itself: nothing
    assert _diff(capsys, github, github)[:2] == (0, [])


# -- Kubernetes (Swagger 2.0) --------------------------------------------------------------


def test_kubernetes_revision_gives_exactly_the_planned_changes(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = corpus_dir / "kubernetes-swagger2.json"
    spec = json.loads(source.read_text(encoding="utf-8"))
    old = toolcat.load(source)
    paths = spec["paths"]
    pods = "/api/v1/namespaces/{namespace}/pods"
    # 1. an operation removed
    configmap = "/api/v1/namespaces/{namespace}/configmaps/{name}"
    del paths[configmap]["delete"]
    # 2. a query parameter made required (the shared $ref inlined for this operation)
    listing = paths[pods]["get"]
    for index, param in enumerate(listing["parameters"]):
        if param.get("$ref") == "#/parameters/limit-1NfNmdNH":
            inline = copy.deepcopy(spec["parameters"]["limit-1NfNmdNH"])
            inline["required"] = True
            listing["parameters"][index] = inline
    # 3. a path renamed (one operation under it)
    log = "/api/v1/namespaces/{namespace}/pods/{name}/log"
    paths[log.replace("/log", "/logs")] = paths.pop(log)
    # 4. a description reworded
    paths["/api/v1/namespaces/{name}"]["get"]["description"] += " Edited."
    # 5. a lifted body property tightened: Binding's apiVersion (two operations post one)
    binding = spec["definitions"]["io.k8s.api.core.v1.Binding"]
    binding["properties"]["apiVersion"]["maxLength"] = 63
    # 6. a nested definition tightened: PodSpec's activeDeadlineSeconds, met through $refs
    pod_spec = spec["definitions"]["io.k8s.api.core.v1.PodSpec"]
    pod_spec["properties"]["activeDeadlineSeconds"]["minimum"] = 1
    new_path = _write(spec, tmp_path / "kubernetes-edited.json")

    code, changes, _ = _diff(capsys, source, new_path)
    pod_spec_users = {
        t.name for t in old if "io.k8s.api.core.v1.PodSpec" in t.input_schema.get("$defs", {})
    }
    assert len(pod_spec_users) > 10  # pods, templates, deployments, jobs, ...
    deadline = [c for c in changes if c[2].endswith("/activeDeadlineSeconds/minimum")]
    assert {c[1] for c in deadline} == pod_spec_users
    assert {c[0] for c in deadline} == {"TD107"}
    assert len(deadline) == len(pod_spec_users)  # once per tool, however often it is met
    rest = [c for c in changes if c not in deadline]
    bindings = {
        _name(old, "POST", p)
        for p in (f"{pods}/{{name}}/binding", "/api/v1/namespaces/{namespace}/bindings")
    }
    assert sorted(rest) == sorted(
        [
            ("TD101", _name(old, "DELETE", configmap), ""),
            ("TD103", _name(old, "GET", pods), "/input_schema/required"),
            ("TD109", _name(old, "GET", log), "/command/path"),
            ("TD302", _name(old, "GET", "/api/v1/namespaces/{name}"), "/description"),
            *[("TD107", b, "/input_schema/properties/apiVersion/maxLength") for b in bindings],
            # Binding is also what they return (when the import keeps output schemas)
            *[("TD306", b, "/output_schema") for b in bindings if old[b].output_schema],
        ]
    )
    assert code == 1
