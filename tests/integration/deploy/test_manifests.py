"""The Kubernetes manifests and the Dockerfile of deploy/ (issue 12, item 6): schema-valid
for the Kubernetes versions stated, and consistent with what `toolcat serve` really does.

Schemas: kubernetes-validate's bundled, offline copies of the Kubernetes OpenAPI
schemas, in strict mode (an unknown or misplaced field fails). Arguments: parsed with
toolcat's own argparse parser, so a renamed or removed flag fails here.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from toolcat.cli._app import build_parser

from .conftest import (
    CATALOG,
    DEPLOY,
    KUBERNETES,
    REPO,
    Manifest,
    container,
    dockerfile,
    documents,
    expand,
    image_command,
    last,
    literal_env,
    one,
    pod_spec,
    render,
)

# The oldest Kubernetes the manifests support (preStop's sleep action is on by default
# from 1.30) and a recent one; the schemas ship inside kubernetes-validate.
VERSIONS = ("1.30.0", "1.34.0")
PROBE_PATHS = {"livenessProbe": "/healthz", "startupProbe": "/healthz", "readinessProbe": "/readyz"}
# Where a ${VAR} is a credential: an auth token, password or secret, a header value.
CREDENTIAL = re.compile(r"(token|password|secret|key|value)$|headers")
RENDERINGS = {"base": KUBERNETES, "redis": KUBERNETES / "redis"}


def parse_serve(args: list[str]) -> argparse.Namespace:
    """``toolcat serve ARGS`` as the real command parses them (a bad flag raises)."""
    parsed = build_parser("serve").parse_args(["serve", *args])
    assert isinstance(parsed, argparse.Namespace)
    return parsed


@pytest.fixture(params=sorted(RENDERINGS), scope="module")
def rendered(request: pytest.FixtureRequest) -> list[Manifest]:
    return render(RENDERINGS[request.param])


def _every_manifest() -> list[tuple[str, int, Manifest]]:
    found = []
    for path in sorted(KUBERNETES.rglob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for i, doc in enumerate(documents(path)):
            found.append((str(path.relative_to(REPO)), i, doc))
    return found


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "where,index,doc", _every_manifest(), ids=lambda v: v if isinstance(v, str) else None
)
def test_every_manifest_is_valid_kubernetes(
    where: str, index: int, doc: Manifest, version: str
) -> None:
    kubernetes_validate.validate(doc, version, strict=True)


@pytest.mark.parametrize("version", VERSIONS)
def test_what_kustomize_renders_is_valid(rendered: list[Manifest], version: str) -> None:
    for doc in rendered:  # patched and labelled: the objects `kubectl apply -k` sends
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_validator_catches_a_misplaced_field() -> None:
    doc = render()
    broken = one(doc, "Deployment")
    pod_spec(broken)["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/readyz"
    with pytest.raises(kubernetes_validate.ValidationError, match="paht"):
        kubernetes_validate.validate(broken, VERSIONS[0], strict=True)


def test_every_manifest_file_is_applied_or_an_example() -> None:
    listed: set[Path] = set()
    for kustomization in KUBERNETES.rglob("kustomization.yaml"):
        folder = kustomization.parent
        for entry in documents(kustomization)[0].get("resources", []):
            assert (folder / entry).exists(), f"{kustomization}: {entry} is missing"
            listed.add((folder / entry).resolve())
    files = {p.resolve() for p in KUBERNETES.rglob("*.yaml") if p.name != "kustomization.yaml"}
    assert files - listed == {(KUBERNETES / "secret.example.yaml").resolve()}


def test_probes_name_the_health_paths_on_the_served_port(rendered: list[Manifest]) -> None:
    c = container(rendered)
    args = parse_serve(c["args"])
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    for probe, path in PROBE_PATHS.items():
        get = c[probe]["httpGet"]
        assert get["path"] == path, probe
        assert ports[get["port"]] == args.port, probe
    assert c["readinessProbe"]["failureThreshold"] == 1  # a draining pod leaves at once


def test_the_container_runs_serve_over_http_with_watch(rendered: list[Manifest]) -> None:
    c = container(rendered)
    assert "command" not in c  # the image's ENTRYPOINT, `toolcat serve`, runs the args
    assert last("ENTRYPOINT").exec_form() == ["toolcat", "serve"]
    args = parse_serve(expand(c["args"], literal_env(rendered)))
    assert args.transport == "http" and args.host == "0.0.0.0"
    assert args.watch and args.settle > 0
    assert not args.insecure_no_auth and not args.yes
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    volumes = {v["name"]: v for v in pod_spec(one(rendered, "Deployment"))["volumes"]}
    # The catalog PATH is the ConfigMap's mount: whole, never subPath (not updated).
    (catalog_mount,) = [m for m in mounts.values() if m["mountPath"] == args.paths[0]]
    assert "subPath" not in catalog_mount and catalog_mount.get("readOnly") is True
    config_map = volumes[catalog_mount["name"]]["configMap"]["name"]
    one(rendered, "ConfigMap", config_map)


def test_the_drain_fits_in_the_grace_period(rendered: list[Manifest]) -> None:
    spec = pod_spec(one(rendered, "Deployment"))
    c = container(rendered)
    drain = parse_serve(c["args"]).drain_timeout
    pre_stop = c["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert spec["terminationGracePeriodSeconds"] >= drain + pre_stop + 2 + 5  # 5 s to spare


def test_the_pod_runs_as_a_non_root_user_on_a_read_only_root(rendered: list[Manifest]) -> None:
    spec = pod_spec(one(rendered, "Deployment"))
    c = container(rendered)
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["automountServiceAccountToken"] is False
    user = last("USER").text.split(":")[0]
    assert user.isdigit() and int(user) != 0  # numeric: runAsNonRoot can check it
    assert spec["securityContext"]["runAsUser"] == int(user)
    security = c["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    (tmp,) = [m for m in c["volumeMounts"] if m["mountPath"] == "/tmp"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert "emptyDir" in volumes[tmp["name"]]  # HOME, TMPDIR and serve --docs write there


def test_every_container_has_requests_and_a_memory_limit(rendered: list[Manifest]) -> None:
    for doc in rendered:
        if doc["kind"] != "Deployment":
            continue
        for c in pod_spec(doc)["containers"]:
            resources = c["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]), doc["metadata"]["name"]
            assert "memory" in resources["limits"], doc["metadata"]["name"]
            assert c["securityContext"]["readOnlyRootFilesystem"] is True


def test_service_hpa_and_pdb_point_at_the_pods(rendered: list[Manifest]) -> None:
    deployment = one(rendered, "Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert "replicas" not in deployment["spec"]  # the HPA owns it
    service = one(rendered, "Service")
    assert service["spec"]["selector"].items() <= labels.items()
    names = {p["name"] for p in container(rendered)["ports"]}
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= names
    hpa = one(rendered, "HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    pdb = one(rendered, "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert pdb["spec"]["maxUnavailable"] < hpa["spec"]["minReplicas"]  # one always serves
    # Replicas share no session: the Service needs no affinity once serve is stateless.
    assert "--stateless" in container(rendered)["args"]
    assert service["spec"].get("sessionAffinity", "None") == "None"


def _catalog_variables(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    import contextlib

    from toolcat.cli import main

    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "catalog.yaml").write_text(text)
    out = tmp_path / "env.json"
    with out.open("w") as stream, contextlib.redirect_stdout(stream):
        assert main(["env", str(folder), "--format", "json"]) == 0
    variables: list[dict[str, Any]] = json.loads(out.read_text())["variables"]
    return variables


def test_every_catalog_variable_comes_from_a_reference(
    rendered: list[Manifest], tmp_path: Path
) -> None:
    catalog = one(rendered, "ConfigMap", "toolcat-catalog")["data"]["catalog.yaml"]
    variables = _catalog_variables(tmp_path, catalog)
    assert {v["name"] for v in variables} >= {"WAREHOUSE_TOKEN", "OIDC_ISSUER"}
    env = {item["name"]: item for item in container(rendered)["env"]}
    maps = {d["metadata"]["name"]: d["data"] for d in rendered if d["kind"] == "ConfigMap"}
    secret = documents(KUBERNETES / "secret.example.yaml")[0]
    for var in variables:
        if not var["required"]:
            continue
        assert var["name"] in env, f"${{{var['name']}}} is not set in the Deployment"
        source = env[var["name"]]["valueFrom"]
        credential = any(CREDENTIAL.search(use["what"]) for use in var["uses"])
        if credential:  # a credential comes from a Secret, never a ConfigMap or the args
            ref = source["secretKeyRef"]
            assert ref["key"] in secret["stringData"], var["name"]
        else:
            ref = source.get("configMapKeyRef") or source["secretKeyRef"]
            if "configMapKeyRef" in source:
                assert ref["key"] in maps[ref["name"]], var["name"]
    secret_refs = [e for e in env.values() if "secretKeyRef" in e.get("valueFrom", {})]
    # Besides the catalog's credentials: the key replicas share to seal confirmations,
    # and Redis's password where there is a Redis.
    expected = {"WAREHOUSE_TOKEN", "TOOLCAT_CONFIRM_KEYS"}
    if any(a.startswith("--redis") for a in container(rendered)["args"]):
        expected.add("REDIS_PASSWORD")
        assert "$(REDIS_PASSWORD)" in env["REDIS_URL"]["value"]
    assert {e["name"] for e in secret_refs} == expected


def test_the_config_map_carries_the_image_catalog() -> None:
    config_map = one(
        documents(KUBERNETES / "configmap-catalog.yaml"), "ConfigMap", "toolcat-catalog"
    )
    assert config_map["data"]["catalog.yaml"] == CATALOG.read_text()
    from toolcat.cli import main

    assert main(["validate", str(CATALOG.parent), "--format", "json"]) == 0


def test_the_image_is_multi_stage_slim_and_not_root() -> None:
    froms = [i.text for i in dockerfile() if i.keyword == "FROM"]
    assert len(froms) >= 2 and all("${PYTHON_IMAGE}" in f for f in froms)
    base = next(i.text for i in dockerfile() if i.keyword == "ARG" and "PYTHON_IMAGE=" in i.text)
    assert re.search(r"python:3\.1[1-9]-slim", base), base
    copies = [i.text for i in dockerfile() if i.keyword == "COPY"]
    assert any(c.startswith("--from=build /opt/toolcat") for c in copies)  # no build tools
    assert last("USER").text.split(":")[0] not in ("0", "root")
    assert last("STOPSIGNAL").text == "SIGTERM"  # what the drain answers


def test_the_image_command_and_health_check_parse() -> None:
    args = parse_serve(image_command()[2:])
    assert args.transport == "http" and args.paths == ["/catalog"]
    assert [f"{args.port}"] == last("EXPOSE").text.split()
    check = last("HEALTHCHECK").exec_form()
    assert f"http://127.0.0.1:{args.port}/healthz" in " ".join(check)


def test_the_build_context_leaves_out_local_state() -> None:
    ignored = set((REPO / ".dockerignore").read_text().split())
    assert {".git", ".venv", "tests"} <= ignored
    # What the image copies must not be ignored: the catalog and the package's data.
    assert not {"deploy", "examples", "specs", "cli"} & ignored
    assert (DEPLOY / "catalog").is_dir()
