"""The image's command and the Deployment's arguments, run as written (issue 12, item 6).

`toolcat serve` runs in a subprocess with the Dockerfile's ENTRYPOINT and CMD (or the
Deployment's args) changed in three places only: the catalog folder (/catalog, laid out
as the kubelet lays out a ConfigMap volume), the bind address (127.0.0.1, not every
address) and the port (any free one). The environment is the Deployment's, read from
the ConfigMap and the example Secret. Then the probes the manifests name must answer,
the image's HEALTHCHECK command must pass, a ConfigMap update must be reloaded by
--watch, and SIGTERM must end the process with 0.

A real image build (podman) is the last test; it skips, saying why, where the machine
cannot build one.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import (
    CATALOG,
    DOCKERFILE,
    KUBERNETES,
    REPO,
    container,
    dockerfile,
    expand,
    expand_env,
    image_command,
    last,
    literal_env,
    render,
)

READY = re.compile(r"MCP streamable HTTP on (http://127\.0\.0\.1:(\d+)/\S*)")
TOOLCAT = Path(sys.executable).with_name("toolcat")  # the console script, as in the image


def config_map_volume(folder: Path, files: dict[str, str], version: int) -> None:
    """Write ``files`` as the kubelet updates a ConfigMap volume: into a new hidden
    folder, then one atomic rename of the ``..data`` link; the visible names are links
    through ``..data`` (so every file changes at once)."""
    folder.mkdir(exist_ok=True)
    data = folder / f"..2026_12_01_00_00_{version:02d}.{version}"
    data.mkdir()
    for name, text in files.items():
        (data / name).write_text(text)
    link = folder / "..data_tmp"
    link.symlink_to(data.name)
    os.replace(link, folder / "..data")
    for name in files:
        if not (folder / name).is_symlink():
            (folder / name).symlink_to(f"..data/{name}")
    for old in folder.glob("..2026_*"):
        if old != data:
            shutil.rmtree(old)


def as_run_here(command: list[str], catalog: Path) -> list[str]:
    """``command`` with the catalog folder, the address and the port of this machine."""
    assert command[:2] == ["toolcat", "serve"], command
    known_values = {"/catalog": str(catalog), "0.0.0.0": "127.0.0.1", "8000": "0"}
    out = [str(TOOLCAT), "serve"]
    for arg in command[2:]:
        flag, eq, value = arg.partition("=")
        if eq and value in known_values and flag in ("--host", "--port"):
            out.append(f"{flag}={known_values[value]}")
        else:
            out.append(known_values.get(arg, arg))
    assert "0" in " ".join(out) and str(catalog) in out
    return out


class Served:
    """A running `toolcat serve`; its stderr is collected by a thread."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.base, self.port = self._wait_ready()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def _wait_ready(self) -> tuple[str, int]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if found := READY.search(line):
                    return found.group(1).rsplit("/", 1)[0], int(found.group(2))
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise AssertionError("serve did not start:\n" + "".join(self.lines))

    def get(self, path: str) -> httpx.Response:
        with httpx.Client(timeout=10) as client:
            return client.get(self.base + path)

    def ready(self) -> dict[str, Any]:
        body: dict[str, Any] = self.get("/readyz").json()
        return body

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(30)
        self._reader.join(10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        return code


@pytest.fixture
def environment(warehouse: str) -> dict[str, str]:
    """The Deployment's environment (ConfigMap and example Secret), the sample
    warehouse as the upstream; nothing of this process's own provider keys."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(literal_env(render()))
    env["WAREHOUSE_URL"] = warehouse
    # The example Secret's "replace-me" is refused on purpose (too short for a key).
    env["TOOLCAT_CONFIRM_KEYS"] = secrets.token_hex(32)
    return env


@pytest.fixture
def served_image(tmp_path: Path, environment: dict[str, str]) -> Iterator[Served]:
    folder = tmp_path / "catalog"
    config_map_volume(folder, {"catalog.yaml": CATALOG.read_text()}, 1)
    served = Served(as_run_here(image_command(), folder), environment)
    yield served
    served.stop()


def test_the_image_command_answers_the_probes_the_manifests_name(served_image: Served) -> None:
    c = container(render())
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        answer = served_image.get(c[probe]["httpGet"]["path"])
        assert answer.status_code == 200, (probe, answer.text)
    ready = served_image.ready()
    assert ready["status"] == "ready" and ready["tools"] == 2
    # Authentication is on (the catalog's server.auth): the MCP endpoint wants a token.
    with httpx.Client(timeout=10) as client:
        answer = client.post(served_image.base + "/mcp", json={})
    assert answer.status_code == 401
    assert "Bearer" in answer.headers["www-authenticate"]
    assert "authentication: JWT" in "".join(served_image.lines)


def test_the_image_health_check_passes_and_fails(served_image: Served) -> None:
    check = [
        part.replace("127.0.0.1:8000", f"127.0.0.1:{served_image.port}")
        for part in last("HEALTHCHECK").exec_form()
    ]
    assert check[0] == "python3"
    check[0] = sys.executable  # the image's python3 is its virtual environment's
    assert subprocess.run(check, timeout=30).returncode == 0
    assert served_image.stop() == 0  # SIGTERM (the image's STOPSIGNAL) drains and exits 0
    failed = subprocess.run(check, timeout=30, capture_output=True)
    assert failed.returncode != 0


def test_the_image_refuses_to_serve_a_catalog_without_authentication(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    text = re.sub(r"(?ms)^server:.*?(?=^services:)", "", CATALOG.read_text())
    assert "server:" not in text
    folder = tmp_path / "catalog"
    config_map_volume(folder, {"catalog.yaml": text}, 1)
    argv = [str(TOOLCAT), "serve", *image_command()[2:]]  # 0.0.0.0:8000 as written
    argv[argv.index("/catalog")] = str(folder)
    done = subprocess.run(argv, env=environment, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    *_, line = done.stderr.strip().splitlines()  # after --log-level info's "serving 2 tools"
    assert line.startswith("toolcat: refusing to serve 0.0.0.0 without authentication")
    assert "Traceback" not in done.stderr


def _deployment_argv(folder: Path) -> list[str]:
    docs = render()
    args = expand(container(docs)["args"], literal_env(docs))
    return as_run_here(["toolcat", "serve", *args], folder)


def test_the_deployment_reloads_a_config_map_update(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    folder = tmp_path / "catalog"
    text = CATALOG.read_text()
    config_map_volume(folder, {"catalog.yaml": text}, 1)
    served = Served(_deployment_argv(folder), environment)
    try:
        assert served.ready()["tools"] == 2
        # `kubectl apply` of a ConfigMap without place_order: the kubelet swaps ..data.
        smaller = text[: text.index("  - name: place_order")]
        config_map_volume(folder, {"catalog.yaml": smaller}, 2)
        ready = _wait(served, lambda r: r["reloads"] >= 1)
        assert ready["tools"] == 1 and ready["status"] == "ready"
        # A broken update keeps the last good catalog, and the pod ready.
        config_map_volume(folder, {"catalog.yaml": smaller + "  - name: [\n"}, 3)
        ready = _wait(served, lambda r: r["failed_reloads"] >= 1)
        assert ready["tools"] == 1 and ready["status"] == "ready"
        assert served.get("/metrics").status_code == 200  # --metrics, as the args say
    finally:
        assert served.stop() == 0


def _wait(served: Served, done: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready = served.ready()
        if done(ready):
            return ready
        time.sleep(0.1)
    raise AssertionError(f"no reload: {json.dumps(served.ready())}\n" + "".join(served.lines))


# -- a real image ----------------------------------------------------------------------------

BASE_VARIABLE = "TOOLCAT_TEST_BASE_IMAGE"  # a local base image (deploy/debian-base-image.sh)


def _podman(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)


def _base_image() -> str:
    """The base to build FROM: the local one named by TOOLCAT_TEST_BASE_IMAGE, else the
    Dockerfile's default, pulled (skips, with podman's reason, when it cannot be)."""
    if os.environ.get(BASE_VARIABLE):
        base = os.environ[BASE_VARIABLE]
        if _podman("image", "exists", base).returncode != 0:
            pytest.skip(f"{BASE_VARIABLE}={base} is not a local image")
        return base
    (arg,) = [i.text for i in dockerfile() if i.keyword == "ARG" and "PYTHON_IMAGE=" in i.text]
    base = arg.split("=", 1)[1]
    if _podman("image", "exists", base).returncode == 0:
        return base
    pulled = _podman("pull", "--quiet", base, timeout=300)
    if pulled.returncode != 0:
        reason = (pulled.stderr.strip().splitlines() or ["no reason given"])[-1]
        pytest.skip(
            f"the base image {base} cannot be pulled on this machine ({reason}); "
            f"deploy/debian-base-image.sh makes one from Debian's packages: set {BASE_VARIABLE}"
        )
    return base


@pytest.fixture(scope="module")
def image() -> Iterator[str]:
    if not (shutil.which("podman") and shutil.which("buildah")):
        pytest.skip("podman and buildah are not installed (apt-get install podman buildah)")
    base = _base_image()
    tag = f"localhost/toolcat-test:{os.getpid()}"
    # chroot isolation: a build needs no cgroups, which a container in a VM may lack.
    built = _podman(
        "build", "--isolation", "chroot", "--format", "docker", "--network", "host",
        "-f", str(DOCKERFILE), "--build-arg", f"PYTHON_IMAGE={base}", "-t", tag, str(REPO),
        timeout=1500,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    try:
        yield tag
    finally:
        _podman("rmi", "--force", tag)


@pytest.mark.timeout(1800)
def test_the_built_image_runs_its_command(image: str, environment: dict[str, str]) -> None:
    (shown,) = json.loads(_podman("image", "inspect", image).stdout)
    config = shown["Config"]
    config.setdefault("Healthcheck", shown.get("Healthcheck"))  # podman shows it outside
    assert config["Entrypoint"] + config["Cmd"] == image_command()
    assert config["User"] == last("USER").text
    assert config["Healthcheck"]["Test"] == ["CMD", *last("HEALTHCHECK").exec_form()]
    # Started as the image says, then --host and --port again (argparse: the last wins),
    # so it listens on 127.0.0.1 and a free port. buildah's chroot isolation runs the
    # image's files as its user where `podman run` cannot create a container (no cgroups).
    working = subprocess.run(
        ["buildah", "from", image], capture_output=True, text=True, timeout=120, check=True
    ).stdout.strip()
    env = [f"--env={k}={environment[k]}" for k in literal_env(render())]  # URL, key: ours
    tmpfs = "type=tmpfs,destination=/tmp"
    run = ["buildah", "run", "--isolation", "chroot", "--network", "host",
           "--user", config["User"], "--mount", tmpfs, *env, working]  # fmt: skip
    try:
        served = Served(
            [*run, "--", *image_command(), "--host", "127.0.0.1", "--port", "0"], environment
        )
        try:
            assert served.get("/healthz").status_code == 200
            assert served.ready()["tools"] == 2  # the catalog baked in at /catalog
            check = [
                part.replace(":8000/", f":{served.port}/")
                for part in config["Healthcheck"]["Test"][1:]
            ]
            assert subprocess.run([*run, "--", *check], timeout=120).returncode == 0
        finally:
            served.proc.kill()  # buildah run answers SIGTERM with SIGKILL: no drain here
            served.stop()
    finally:
        subprocess.run(["buildah", "rm", working], capture_output=True, timeout=120)


@pytest.mark.skipif(not shutil.which("redis-server"), reason="redis-server is not installed")
def test_the_redis_overlay_serves_with_a_real_redis(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    """The Redis overlay's arguments and environment, against a real redis-server with
    a password on 127.0.0.1 (the Service's name and port replaced)."""
    docs = render(KUBERNETES / "redis")
    password = secrets.token_hex(16)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--requirepass", password],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        env = dict(environment, REDIS_PASSWORD=password)
        env = expand_env(env, container(docs)["env"])
        env["REDIS_URL"] = env["REDIS_URL"].replace("toolcat-redis:6379", f"127.0.0.1:{port}")
        assert env["REDIS_URL"] == f"redis://:{password}@127.0.0.1:{port}/0"
        args = expand(container(docs)["args"], env)
        folder = tmp_path / "catalog"
        config_map_volume(folder, {"catalog.yaml": CATALOG.read_text()}, 1)
        argv = as_run_here(["toolcat", "serve", *args], folder)
        served = _start_when_redis_answers(argv, env)
        try:
            ready = served.ready()
            assert ready["status"] == "ready" and ready.get("shared_state") == "reachable"
            assert password not in "".join(served.lines)  # the URL's password is never shown
        finally:
            assert served.stop() == 0
    finally:
        redis.terminate()
        redis.wait(30)


def _start_when_redis_answers(argv: list[str], env: dict[str, str]) -> Served:
    deadline = time.monotonic() + 30
    while True:  # redis-server takes a moment to listen; serve stops at once without it
        try:
            return Served(argv, env)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
