"""Reciprocal rank fusion, the embedded tool text, the vector cache files and vector checks."""

from __future__ import annotations

import math
import os
import struct
from pathlib import Path

import pytest
from toolcat.catalog import HttpCommand, ToolAnnotations, ToolDefinition
from toolcat.catalog.common import freeze
from toolcat.catalog.search import EmbeddingsSettings, SearchHit, fuse_rankings
from toolcat.executor import EmbeddingsFailure, SearchResults
from toolcat.executor._embeddings import (  # noqa: PLC2701  # the module's own unit test
    MAX_DIMENSIONS,
    _unit,
)
from toolcat.executor._semantic import _cosine_ranking, tool_text  # noqa: PLC2701  # its unit test
from toolcat.executor._vectors import VectorCache  # noqa: PLC2701  # the module's own unit test


def test_rrf_sums_reciprocal_ranks() -> None:
    hits = fuse_rankings([(["a", "b", "c"], 1.0), (["c", "b"], 1.0)], k=60, top=3)
    assert [h.name for h in hits] == ["c", "b", "a"]
    assert hits[0].score == round(1 / 63 + 1 / 61, 6)
    assert hits[2].score == round(1 / 61, 6)


def test_rrf_weight_and_k() -> None:
    lexical, semantic = ["a", "b"], ["b", "a"]
    assert fuse_rankings([(lexical, 1.0), (semantic, 1.0)])[0].name == "a"  # tie: first list
    assert fuse_rankings([(lexical, 1.0), (semantic, 2.0)])[0].name == "b"
    assert fuse_rankings([(lexical, 1.0), (semantic, 0.0)]) == [
        SearchHit("a", round(1 / 61, 6)),
        SearchHit("b", round(1 / 62, 6)),
    ]
    # a small k lets the top of one list win over the middle of both
    three = [(["x", "a", "b", "m"], 1.0), (["z", "c", "d", "m"], 1.0)]
    assert fuse_rankings(three, k=1)[0].name == "x"
    assert fuse_rankings(three, k=60)[0].name == "m"


def test_rrf_top_and_empty() -> None:
    assert fuse_rankings([(["a", "b"], 1.0)], top=0) == []
    assert fuse_rankings([], top=5) == []
    assert len(fuse_rankings([([str(i) for i in range(50)], 1.0)], top=7)) == 7


def test_search_results_is_a_list_with_a_note() -> None:
    hits = SearchResults([SearchHit("a", 1.0)], note="down")
    assert hits == [SearchHit("a", 1.0)] and hits.ranking == "lexical" and hits.note == "down"
    assert SearchResults().note is None


def test_tool_text() -> None:
    tool = ToolDefinition(
        name="get_user-profile",
        description="The profile of a user.",
        input_schema=freeze({"type": "object", "properties": {"user_id": {"type": "string"}}}),
        command=HttpCommand(service="s", method="GET", path="/"),
        annotations=ToolAnnotations(title="User profile"),
    )
    assert tool_text(tool) == (
        "get user profile (User profile)\nThe profile of a user.\nParameters: user_id"
    )


def test_unit_vectors_and_bad_values() -> None:
    assert _unit([3, 4]) == [0.6, 0.8]
    for bad in ([0.0, 0.0], [math.nan, 1.0], [math.inf, 1.0], ["1", 2.0], [True, 1.0]):
        with pytest.raises(EmbeddingsFailure):
            _unit(bad)


def test_cosine_ranking_respects_only_and_depth() -> None:
    vectors = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [0.6, 0.8]}
    assert _cosine_ranking([1.0, 0.0], vectors, None, 10) == ["a", "c", "b"]
    assert _cosine_ranking([1.0, 0.0], vectors, {"b", "c"}, 10) == ["c", "b"]
    assert _cosine_ranking([1.0, 0.0], vectors, None, 1) == ["a"]
    # equal similarity: catalog order
    assert _cosine_ranking([1.0, 0.0], {"x": [0.0, 1.0], "y": [0.0, 1.0]}, None, 2) == ["x", "y"]


def test_cache_round_trip_and_keys(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "c")
    assert cache.problem is None
    key = VectorCache.key("model", None, "text")
    assert key != VectorCache.key("model", 8, "text") != VectorCache.key("other", None, "text")
    assert cache.get(key, None) is None
    cache.put(key, [0.6, 0.8])
    got = cache.get(key, None)
    assert got is not None and [round(x, 6) for x in got] == [0.6, 0.8]
    assert cache.get(key, 3) is None  # another size than asked
    assert [p.name for p in (tmp_path / "c").rglob("*")] == [key[:2], f"{key}.vec"]


def test_cache_ignores_links_and_oversized_files(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    key = VectorCache.key("m", None, "t")
    target = tmp_path / "elsewhere.vec"
    cache.put(VectorCache.key("m", None, "u"), [1.0])
    (tmp_path / key[:2]).mkdir(exist_ok=True)
    target.write_bytes(b"TCVEC1\n" + struct.pack("<I", 1) + struct.pack("<f", 1.0))
    os.symlink(target, tmp_path / key[:2] / f"{key}.vec")
    assert cache.get(key, None) is None
    big = tmp_path / key[:2] / f"{key}.vec"
    big.unlink()
    big.write_bytes(b"TCVEC1\n" + struct.pack("<I", MAX_DIMENSIONS) + b"\0" * (8 * MAX_DIMENSIONS))
    assert cache.get(key, None) is None


def test_cache_prunes_the_oldest_files_over_its_size(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, max_bytes=4 * 1000)
    keys = [VectorCache.key("m", None, str(i)) for i in range(10)]
    for i, key in enumerate(keys):
        cache.put(key, [1.0] + [0.0] * 99)  # 411 bytes a file
        path = tmp_path / key[:2] / f"{key}.vec"
        os.utime(path, (1000 + i, 1000 + i))
    cache.prune()
    left = [k for k in keys if cache.get(k, None) is not None]
    assert left == keys[-7:]  # down to 3/4 of 4,000 bytes: the 7 newest


def test_settings_defaults() -> None:
    s = EmbeddingsSettings(url="https://api.example/v1", model="m")
    assert (s.timeout, s.weight, s.k, s.dimensions, s.cache, s.api_key) == (
        10.0,
        1.0,
        60,
        None,
        None,
        None,
    )


def test_numpy_and_pure_python_rank_alike() -> None:
    import random

    from toolcat.executor._semantic import _as_matrix, _numpy_ranking

    rng = random.Random(7)
    vectors = {f"t{i}": _unit([rng.uniform(-1, 1) for _ in range(32)]) for i in range(300)}
    vectors["dup"] = list(vectors["t5"])  # a tie: catalog order
    names = list(vectors)
    matrix = _as_matrix(vectors)
    assert matrix is not None and matrix.shape == (301, 32)
    for _ in range(20):
        query = _unit([rng.uniform(-1, 1) for _ in range(32)])
        only = set(rng.sample(names, 100))
        for subset in (None, only):
            expected = _cosine_ranking(query, vectors, subset, 40)
            assert _numpy_ranking(query, matrix, names, subset, 40) == expected
    query = vectors["t5"]
    assert _numpy_ranking(query, matrix, names, None, 2) == ["t5", "dup"]
    assert _as_matrix({}) is None
