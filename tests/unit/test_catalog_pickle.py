"""A Catalog pickles (for a process pool, say) as the arguments that build it."""

from __future__ import annotations

import pickle
from pathlib import Path

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
