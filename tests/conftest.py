"""Shared fixtures: paths to the repository, its data, the shared spec corpus, and catalog
text written and loaded (``catalog_files``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from toolcat.tests.support import CatalogFiles

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
CORPUS = Path(os.environ.get("TOOLCAT_CORPUS", REPO.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpus of real OpenAPI specs; tests using it skip when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip(f"spec corpus not found at {CORPUS} (set TOOLCAT_CORPUS to run these tests)")
    return CORPUS


@pytest.fixture
def catalog_files(tmp_path: Path) -> CatalogFiles:
    """Catalog text written under ``tmp_path`` and loaded; a load with errors fails the test:
    ``catalog_files.catalog(TEXT)``, or ``.load(TEXT)`` for the whole result too."""
    return CatalogFiles(tmp_path)
