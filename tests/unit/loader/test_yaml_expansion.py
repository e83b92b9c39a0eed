"""What YAML aliases add is bounded by the document's own size, not only by the fixed caps:
a 1 KB alias bomb kept just under 5,000,000 values and 64 MiB of text is refused at once,
in catalogs and specs alike, while documents that share a little still load."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest
from toolcat.loader import _yaml as reader
from toolcat.loader import _yaml_reader as limits
from toolcat.loader._yaml_reader import Reader
from toolcat.loader.openapi import _read as spec_reader
from toolcat.loader.openapi._errors import SpecError


def laughs(fan: int, levels: int, text: str, head: str = "") -> str:
    """Billion laughs: each level a list of ``fan`` aliases of the level below."""
    lines = [head + f"a0: &a0 [{', '.join([text] * fan)}]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fan)}]")
    lines.append(f"top: [*a{levels - 1}]")
    return "\n".join(lines) + "\n"


def expanded(text: str) -> tuple[int, int]:
    """The values and characters ``text`` expands to (the reader's own counts)."""
    walk = Reader(text, "c.yaml", cycles=False)
    assert walk.document()[0]
    return walk._count, walk._chars


# 11 lists of 11 over six levels: ~3.7 M values; 16-character strings: ~60 M characters
BOMB = laughs(11, 6, "x" * 16)


def test_the_bomb_is_small_and_just_under_the_fixed_caps() -> None:
    assert len(BOMB) < 1024
    values, chars = expanded(BOMB)
    assert limits.MAX_YAML_VALUES * 0.7 < values < limits.MAX_YAML_VALUES
    assert limits.MAX_YAML_CHARS * 0.85 < chars < limits.MAX_YAML_CHARS


def test_a_bomb_under_the_fixed_caps_is_refused_quickly_in_bounded_memory() -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        parsed = reader.parse_yaml(BOMB, "c.yaml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 10  # a safety bound only: it takes milliseconds
    assert parsed.data is None and parsed.too_large
    (diag,) = parsed.diagnostics
    assert diag.code == "TC001" and "the expansion limit" in diag.message, diag
    assert (diag.line, diag.column) == (6, 5)  # the anchor whose uses share the most
    assert peak < 8 * 1024 * 1024, peak  # what is written, not what it stands for


def test_a_spec_with_the_bomb_is_tc207(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(laughs(11, 6, "x" * 16, head="openapi: 3.1.0\n"))
    with pytest.raises(SpecError) as info:
        spec_reader.read_document(path)
    assert info.value.code == "TC207"
    assert "the expansion limit" in info.value.reason and "alias bomb" in info.value.reason


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (laughs(10, 5, "x"), "values"),  # 230 k values from 60 written: over the floor
        (laughs(4, 4, "x" * 100_000), "characters"),  # few values, 100 KB shared 256 times
    ],
    ids=["values", "characters"],
)
def test_each_count_has_its_own_bound(text: str, words: str) -> None:
    parsed = reader.parse_yaml(text, "c.yaml")
    assert parsed.too_large
    assert f"{words} from" in parsed.diagnostics[0].message, parsed.diagnostics


def test_sharing_within_the_bound_loads() -> None:
    # under the floor: a small document may share up to 100,000 values
    small = laughs(10, 4, "x")
    assert expanded(small)[0] < limits.EXPANSION_FLOOR
    assert reader.parse_yaml(small, "c.yaml").diagnostics == ()
    # over the floor but under ten times what is written: a large catalog that shares
    defaults = "defaults: &d {" + ", ".join(f"k{i}: {i}" for i in range(8)) + "}\n"
    tools = "".join(f"t{i}: {{name: n{i}, path: /p, <<: *d}}\n" for i in range(20_000))
    values, _ = expanded(defaults + tools)
    assert values > limits.EXPANSION_FLOOR
    parsed = reader.parse_yaml(defaults + tools, "c.yaml")
    assert parsed.diagnostics == () and parsed.data["t19999"]["k7"] == 7


def test_real_specs_stay_far_under_the_bound(corpus_dir: Path) -> None:
    """GitHub's REST description, the largest real one we know, expands to what it writes."""
    spec = corpus_dir / "github-api.github.com.json"
    walk = Reader(spec.read_bytes(), str(spec), cycles=True)
    assert walk.document()[0]
    assert walk._shared == 0 and walk._count > limits.EXPANSION_FLOOR
