"""Integration fixtures shared by folders: the sample warehouse service on 127.0.0.1,
a catalog file for it (each folder gives the text as ``catalog_text``), and an
environment for `toolcat serve` that points at it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolcat.testing import BackgroundServer, make_service


@pytest.fixture(scope="module")
def warehouse() -> Iterator[str]:
    with BackgroundServer(make_service()) as server:
        yield server.url


@pytest.fixture
def catalog_file(tmp_path: Path, catalog_text: str) -> Path:
    path = tmp_path / "catalog.yaml"
    path.write_text(catalog_text)
    return path


@pytest.fixture
def serve_env(warehouse: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["WAREHOUSE_URL"] = warehouse
    return env
