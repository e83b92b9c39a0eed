"""Tool names (safe, cut with a hash, unique, stable) and operation selection."""

from __future__ import annotations

import re
from typing import Any

import pytest
from toolcat.loader.openapi import Selection
from toolcat.loader.openapi._names import base_name, unique_name

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.mark.parametrize(
    ("op_id", "method", "path", "expected"),
    [
        ("listPets", "GET", "/pets", "listPets"),
        ("repos/get-content", "GET", "/x", "repos_get-content"),
        ("  weird id!! ", "GET", "/x", "weird_id"),
        (None, "GET", "/pets/{petId}/toys", "get_pets_petId_toys"),
        ("///", "DELETE", "/", "delete"),
        ("créerÉvénement", "POST", "/x", "creerEvenement"),  # accents folded, not dropped
        ("ünïcode_名前", "GET", "/x", "unicode"),
        ("名前", "GET", "/名前/{id}", "get_id"),
    ],
)
def test_base_names(op_id: Any, method: str, path: str, expected: str) -> None:
    assert base_name(op_id, method, path) == expected


def test_long_names_are_cut_with_a_stable_hash() -> None:
    long = "a" * 100
    one = unique_name(long, "GET /a", set())
    assert len(one) == 64 and VALID.match(one)
    assert one == unique_name(long, "GET /a", set())  # stable
    assert one != unique_name(long, "GET /b", set())  # the hash tells operations apart


def test_duplicates_get_a_hash_suffix_and_stay_unique() -> None:
    taken = {"getThing"}
    second = unique_name("getThing", "GET /things/{id}", taken)
    assert second != "getThing" and second.startswith("getThing_") and VALID.match(second)
    taken.add(second)
    third = unique_name("getThing", "GET /things/{id}", taken)
    assert third not in taken and VALID.match(third)


def _doc(spec3: Any) -> dict[str, Any]:
    doc: dict[str, Any] = spec3(
        {
            "/pets": {
                "get": {"operationId": "listPets", "tags": ["pets"], "responses": {}},
                "post": {"operationId": "createPet", "tags": ["pets", "write"], "responses": {}},
            },
            "/pets/{id}": {
                "delete": {
                    "operationId": "deletePet",
                    "tags": ["pets"],
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {},
                }
            },
            "/stores": {"get": {"operationId": "listStores", "tags": ["stores"], "responses": {}}},
            "/health": {"get": {"responses": {}}},
        }
    )
    return doc


@pytest.mark.parametrize(
    ("include", "exclude", "expected"),
    [
        (
            Selection(),
            Selection(),
            ["listPets", "createPet", "deletePet", "listStores", "get_health"],
        ),
        (Selection(tags=("pets",)), Selection(), ["listPets", "createPet", "deletePet"]),
        (Selection(tags=("pets",), methods=("get",)), Selection(), ["listPets"]),
        (
            Selection(paths=("/pets*",)),
            Selection(operations=("deletePet",)),
            ["listPets", "createPet"],
        ),
        (
            Selection(operations=("listStores", "createPet")),
            Selection(),
            ["createPet", "listStores"],
        ),
        (
            Selection(),
            Selection(tags=("write",), methods=("DELETE",)),
            ["listPets", "listStores", "get_health"],
        ),
    ],
)
def test_selection(
    spec3: Any, run_import: Any, include: Selection, exclude: Selection, expected: list[str]
) -> None:
    result = run_import(_doc(spec3), include=include, exclude=exclude)
    assert [t["name"] for t in result.tools] == expected
    left_out = [r for r in result.report if r.skipped]
    assert len(left_out) == 5 - len(expected)
    assert not [d for d in result.diagnostics if d.code == "TC204"]  # selection is no error


def test_prefix_overrides_and_taken_names(spec3: Any, run_import: Any) -> None:
    overrides = {
        "listPets": {
            "name": "pets_list",
            "description": "All pets.",
            "confirm": True,
            "tags": ["x"],
        },
        "nope": {"name": "n"},
    }
    result = run_import(
        _doc(spec3), prefix="pet_", overrides=overrides, taken_names=frozenset({"pet_createPet"})
    )
    tools = {t["name"]: t for t in result.tools}
    assert (
        tools["pets_list"]["description"] == "All pets." and tools["pets_list"]["confirm"] is True
    )
    assert tools["pets_list"]["tags"] == ["x"]
    assert "pet_deletePet" in tools and "pet_get_health" in tools
    created = [n for n in tools if n.startswith("pet_createPet")]
    assert created and created[0] != "pet_createPet"  # taken elsewhere in the catalog
    [diag] = [d for d in result.diagnostics if d.code == "TC206"]
    assert "nope" in diag.message
    assert all(VALID.match(n) for n in tools)


@pytest.mark.parametrize(
    ("override", "hint"),
    [
        ("listPet", "did you mean 'listPets'?"),  # a typo: the near name
        ("deletePets", "did you mean 'deletePet'?"),
        ("updatePet", "remove it if the spec dropped the operation"),  # not 'createPet'
        ("removePlanet", "remove it if the spec dropped the operation"),
    ],
)
def test_an_unknown_override_is_a_warning_naming_only_close_operations(
    spec3: Any, run_import: Any, override: str, hint: str
) -> None:
    from toolcat.loader import Severity

    result = run_import(_doc(spec3), overrides={override: {"description": "Mine."}})
    [diag] = [d for d in result.diagnostics if d.code == "TC206"]
    assert diag.severity is Severity.WARNING
    assert diag.message == (
        f"the tools override {override!r} names no operationId of this spec, "
        f"so it is ignored; {hint}"
    )
    assert len(result.tools) == 5  # the other operations are imported as ever


def test_names_are_stable_across_reimports(spec3: Any, run_import: Any) -> None:
    doc = _doc(spec3)
    doc["paths"]["/x" * 40] = {"get": {"responses": {}}}
    first = [t["name"] for t in run_import(doc).tools]
    assert first == [t["name"] for t in run_import(doc).tools]
    assert all(VALID.match(n) for n in first) and len(set(first)) == len(first)


def test_a_long_name_is_cut_with_a_stable_hash_of_its_operation() -> None:
    """The hash is SHA-1's, so a name is the same on every import, in every version."""
    key = "GET /v1/things/{id}/ünïcode"
    assert unique_name("x" * 80, key, set()) == f"{'x' * 55}_cde1c8f0"
