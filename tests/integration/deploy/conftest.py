"""Readers of deploy/: the Dockerfile's instructions, the Kubernetes manifests as the base
and the Redis overlay render them, and the pieces the tests compare (issue 12, item 6).

The manifests are rendered here as kustomize would for what they use (a list of
resources, an ``images:`` entry, JSON-patch ``add`` operations); anything else in a
kustomization.yaml fails the reader, so a manifest the tests do not understand is never
validated half-way.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[3]
DEPLOY = REPO / "deploy"
KUBERNETES = DEPLOY / "kubernetes"
DOCKERFILE = DEPLOY / "Dockerfile"
CATALOG = DEPLOY / "catalog" / "catalog.yaml"

Manifest = dict[str, Any]


# -- the Dockerfile ------------------------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: FROM, RUN, CMD, ...
    text: str  # the rest of the logical line, continuation lines joined

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form CMD/ENTRYPOINT (or of HEALTHCHECK's CMD)."""
        text = self.text
        if self.keyword == "HEALTHCHECK":
            text = text[text.index(" CMD ") + len(" CMD ") :]
        value = json.loads(text)
        assert isinstance(value, list) and all(isinstance(v, str) for v in value), self
        return value


def dockerfile() -> list[Instruction]:
    """The Dockerfile's instructions in order (comments dropped, ``\\`` lines joined)."""
    found: list[Instruction] = []
    logical = ""
    for line in DOCKERFILE.read_text().splitlines():
        if not logical and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if logical and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if line.rstrip().endswith("\\"):
            logical += line.rstrip()[:-1] + " "
            continue
        logical += line
        keyword, _, rest = logical.strip().partition(" ")
        found.append(Instruction(keyword.upper(), re.sub(r"\s+", " ", rest.strip())))
        logical = ""
    assert not logical, "the Dockerfile ends inside a continued line"
    return found


def last(keyword: str) -> Instruction:
    """The instruction that counts (the last one, as in a build)."""
    matches = [i for i in dockerfile() if i.keyword == keyword]
    assert matches, f"the Dockerfile has no {keyword}"
    return matches[-1]


def image_command() -> list[str]:
    """What the image runs with no arguments: ENTRYPOINT followed by CMD."""
    return last("ENTRYPOINT").exec_form() + last("CMD").exec_form()


# -- the manifests -------------------------------------------------------------------------


def documents(path: Path) -> list[Manifest]:
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    assert all(isinstance(d, dict) for d in docs), path
    return docs


def _kustomization(folder: Path) -> dict[str, Any]:
    data = yaml.safe_load((folder / "kustomization.yaml").read_text())
    assert isinstance(data, dict)
    unknown = set(data) - {"apiVersion", "kind", "labels", "images", "resources", "patches"}
    assert not unknown, f"{folder}: the reader does not render {sorted(unknown)}"
    return data


def _apply_patch(doc: Manifest, operations: list[dict[str, Any]]) -> None:
    for op in operations:
        assert op["op"] == "add", f"the reader applies JSON-patch add only: {op}"
        *parents, leaf = op["path"].lstrip("/").split("/")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node.insert(len(node) if leaf == "-" else int(leaf), copy.deepcopy(op["value"]))
        else:
            node[leaf] = copy.deepcopy(op["value"])


def render(folder: Path = KUBERNETES) -> list[Manifest]:
    """The manifests ``kubectl apply -k folder`` would send, for what our files use."""
    data = _kustomization(folder)
    docs: list[Manifest] = []
    for entry in data.get("resources", []):
        path = (folder / entry).resolve()
        docs += render(path) if path.is_dir() else documents(path)
    for item in data.get("patches", []):
        target = item["target"]
        matched = [
            d
            for d in docs
            if d["kind"] == target["kind"] and d["metadata"]["name"] == target["name"]
        ]
        assert len(matched) == 1, f"{folder}: patch target {target} matches {len(matched)}"
        _apply_patch(matched[0], yaml.safe_load(item["patch"]))
    for image in data.get("images", []):
        for doc in docs:
            for container in pod_spec(doc).get("containers", []) if is_workload(doc) else []:
                if container["image"] == image["name"]:
                    container["image"] = f"{image['newName']}:{image['newTag']}"
    for label in data.get("labels", []):
        for doc in docs:
            doc["metadata"].setdefault("labels", {}).update(label["pairs"])
    return docs


def is_workload(doc: Manifest) -> bool:
    return doc["kind"] in ("Deployment", "StatefulSet", "DaemonSet")


def pod_spec(doc: Manifest) -> dict[str, Any]:
    spec: dict[str, Any] = doc["spec"]["template"]["spec"]
    return spec


def one(docs: list[Manifest], kind: str, name: str = "toolcat") -> Manifest:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"{len(found)} {kind} named {name}"
    return found[0]


def container(docs: list[Manifest]) -> dict[str, Any]:
    spec = pod_spec(one(docs, "Deployment"))
    found: list[dict[str, Any]] = [c for c in spec["containers"] if c["name"] == "toolcat"]
    assert len(found) == 1
    return found[0]


def literal_env(docs: list[Manifest]) -> dict[str, str]:
    """The container's environment with every reference read from the repository's
    ConfigMap and example Secret (as the kubelet would fill it in)."""
    maps = {d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"}
    secret = documents(KUBERNETES / "secret.example.yaml")[0]
    secrets = {secret["metadata"]["name"]: secret["stringData"]}
    env: dict[str, str] = {}
    for item in container(docs).get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
            continue
        source = item["valueFrom"]
        ref = source.get("configMapKeyRef") or source["secretKeyRef"]
        table = maps if "configMapKeyRef" in source else secrets
        env[item["name"]] = table[ref["name"]][ref["key"]]
    return env


def expand_env(env: dict[str, str], container_env: list[dict[str, Any]]) -> dict[str, str]:
    """``env`` with the literal values of ``container_env`` expanded as the kubelet does:
    ``$(VAR)`` names a variable defined earlier in the list."""
    out = dict(env)
    for item in container_env:
        if "value" in item:
            out[item["name"]] = expand([item["value"]], out)[0]
    return out


def expand(args: list[str], env: dict[str, str]) -> list[str]:
    """Kubernetes' ``$(VAR)`` in args, from the container's environment."""
    return [re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1), m.group(0)), a) for a in args]
