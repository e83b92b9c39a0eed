"""loads_json_document: orjson's fast read gives exactly json.loads' value and duplicates."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from toolcat.loader._files import _orjson_document, duplicate_finder, loads_json_document


def _reference(text: str | bytes) -> tuple[Any, list[str]]:
    found: list[str] = []
    return json.loads(text, object_pairs_hook=duplicate_finder(found)), found


CASES = [
    # (text, whether orjson's read is taken)
    ('{"openapi": "3.1.0", "paths": {"/a": {"get": {}}}}', True),
    ('{"a": "x:y", "b": {"c": ":", "d": [":", {"e": 1}]}}', True),  # colons in strings
    ('{"a": 1, "a": 2}', False),  # a duplicate at the top
    ('{"p": {"/x": {"get": {}}, "/x": {"post": {}}}}', False),  # and below
    ('{"a": {"k": "v:w"}, "b": 1, "a": 3}', False),  # the dropped value held colons
    ('{"a\\u003a": 1, "a:": 2}', False),  # an escaped colon: counted differently
    ('{"a\\u003A": 1}', False),
    ('{"n": 123456789012345678901234567890}', False),  # orjson: a float
    ('{"n": -99999999999999999999}', False),
    ('{"n": 18446744073709551615, "m": -9223372036854775808}', True),  # 64 bits: ints
    ('{"f": 1e400}', False),  # json.loads: inf; orjson refuses
    ('{"f": NaN}', False),
    ('{"f": [1e+20, 1.5e-07, 0.1, -0.0, 1E2]}', False),  # exponents: the slow path
    ('{"id": "62ab9291-fae2-468e-974b-7e1e+5"}', True),  # an "e-" in a string only
    ('{"id": "1e+5,"}', False),  # looks like an exponent: slow, still right
    ('{"s": "\\ud83d\\ude00 \\u00e9 \\n"}', True),
    ('"\\ud800"', False),  # a lone surrogate
    ("[]", True),
    ("3", True),
    ('\ufeff{"a": 1}', False),  # a BOM: json.loads refuses a str with one
]


@pytest.mark.parametrize(("text", "fast"), CASES)
def test_value_and_duplicates_are_json_loads_own(text: str, fast: bool) -> None:
    try:
        expected = _reference(text)
    except ValueError as exc:
        with pytest.raises(type(exc)):
            loads_json_document(text)
    else:
        got = loads_json_document(text)
        assert json.dumps(got[0]) == json.dumps(expected[0])  # ints stay ints, -0.0 stays
        assert got[1] == expected[1]
        assert type(got[0]) is type(expected[0])
    assert (_orjson_document(text) is not None) is fast
    assert (_orjson_document(text.encode("utf-8", "surrogatepass")) is not None) is fast


def _random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(8 if depth < 5 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1, 7, 2**63, -(2**63), 2**64 + 3, 10**30])
    if kind == 2:
        return rng.choice([0.5, -2.25, 1e-7, 3e21, 1.0])
    if kind in (3, 4):
        return "".join(
            rng.choice('ab:"\\\n\u00e9\U0001f600 {}[],') for _ in range(rng.randrange(6))
        )
    if kind == 5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    pairs = [
        (rng.choice(["a", "b", "c:", "d", "e\u00e9"]), _random_value(rng, depth + 1))
        for _ in range(rng.randrange(5))
    ]
    return pairs  # an object, written with its keys as drawn (maybe twice)


def _write(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(p, tuple) for p in value) and value:
        return "{" + ", ".join(f"{json.dumps(k)}: {_write(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_write(v) for v in value) + "]"
    return json.dumps(value)


def test_random_documents_read_as_json_loads_reads_them() -> None:
    rng = random.Random(20261201)
    fast = 0
    for _ in range(3000):
        text = _write([("root", _random_value(rng, 0))])
        value, duplicates = loads_json_document(text)
        expected, expected_duplicates = _reference(text)
        assert json.dumps(value) == json.dumps(expected), text
        assert duplicates == expected_duplicates, text
        fast += _orjson_document(text) is not None
    assert fast > 300  # the fast read is taken for a good share of them


def test_a_spec_with_a_key_twice_is_still_reported(tmp_path: Any) -> None:
    from toolcat.loader.openapi._errors import SpecError
    from toolcat.loader.openapi._read import read_document

    spec = tmp_path / "twice.json"
    spec.write_text(
        '{"openapi": "3.0.0", "info": {"title": "t", "version": "1"},\n'
        ' "paths": {"/a": {"get": {"responses": {}}},\n'
        '           "/a": {"post": {"responses": {}}}}}\n'
    )
    with pytest.raises(SpecError) as caught:
        read_document(spec)
    assert caught.value.code == "TC002"
    assert "/a" in str(caught.value)


def test_a_json_spec_is_read_from_its_bytes_and_only_then(tmp_path: Any) -> None:
    from pathlib import Path

    from toolcat.loader._files import sniff_json_spec

    spec = b'{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}'
    assert sniff_json_spec(spec, Path("s.json")) == (True, json.loads(spec))
    assert sniff_json_spec(b"  " + spec, Path("s.txt")) == (True, json.loads(spec))  # "{" first
    assert sniff_json_spec(b"\xef\xbb\xbf" + spec, Path("s.json")) is None  # BOM: the text path
    # JSON that is no spec is decided too (a catalog), with nothing to hand the importer
    assert sniff_json_spec(b'{"toolcat": 1, "openapi": "x"}', Path("c.json")) == (False, None)
    assert sniff_json_spec(b'{"a": 1}', Path("c.json")) == (False, None)
    assert sniff_json_spec(b"openapi: 3.0.0\n", Path("s.yaml")) is None
    assert sniff_json_spec(b'{"openapi": "3.0.0", "\xff": 1}', Path("s.json")) is None
    assert sniff_json_spec(b'{"openapi": "3.0.0", "a": 1, "a": 2}', Path("s.json")) is None


@pytest.mark.parametrize("prefix", [b"", b"\xef\xbb\xbf"])
def test_a_json_spec_loads_the_same_with_or_without_a_bom(tmp_path: Any, prefix: bytes) -> None:
    from toolcat.loader import load_catalog

    spec = {
        "openapi": "3.0.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/items": {"get": {"operationId": "listItems", "responses": {"200": {}}}}},
    }
    path = tmp_path / "spec.json"
    path.write_bytes(prefix + json.dumps(spec).encode())
    result = load_catalog([path])
    assert result.catalog is not None, result.diagnostics
    assert [t.name for t in result.catalog] == ["listItems"]
