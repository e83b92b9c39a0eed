"""A Catalog pickles (for a process pool, say) as the arguments that build it."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from toolcat.loader import load_catalog

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def test_a_loaded_catalog_round_trips() -> None:
    result = load_catalog([DEMO], progress=False)
    catalog = result.catalog
    assert catalog is not None
    again = pickle.loads(pickle.dumps(catalog))
    assert list(again) == list(catalog)
    assert again.services == catalog.services
    assert again.toolsets == catalog.toolsets
    assert again.search_settings == catalog.search_settings
    assert dict(again.pins) == dict(catalog.pins)
    assert again.env == catalog.env
    with_env = catalog.with_env({"WAREHOUSE_URL": "http://127.0.0.1:1"})
    assert pickle.loads(pickle.dumps(with_env)).env == with_env.env


DATA = Path(__file__).resolve().parents[1] / "data" / "catalogs"
CATALOGS = sorted(
    [DEMO, DEMO.parent / "catalog.yaml", DATA / "good-dir", *DATA.glob("*/*.yaml")],
    key=str,
)


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.relative_to(DEMO.parents[1]).as_posix())
def test_every_load_result_round_trips(path: Path) -> None:
    """`toolcat serve` gets its first LoadResult pickled from a child process: a result
    that did not pickle would fall back to a slower load in the server (see PendingLoad)."""
    result = load_catalog([path], progress=False)
    again = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    assert again.diagnostics == result.diagnostics
    assert again.files == result.files and again.missing == result.missing
    assert again.server == result.server
    if result.catalog is None:
        assert again.catalog is None
    else:
        assert again.catalog is not None
        assert list(again.catalog) == list(result.catalog)
        assert again.catalog.services == result.catalog.services
