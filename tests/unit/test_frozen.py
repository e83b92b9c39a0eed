from __future__ import annotations

import copy
import json
import pickle

import pytest
from toolcat.catalog import FrozenDict, FrozenList
from toolcat.catalog.common import freeze, thaw


def test_freeze_is_deep_and_refuses_mutation() -> None:
    value = freeze({"a": [1, {"b": 2}]})
    assert isinstance(value, FrozenDict)
    assert isinstance(value["a"], FrozenList)
    with pytest.raises(TypeError):
        value["c"] = 1
    with pytest.raises(TypeError):
        value["a"].append(3)
    with pytest.raises(TypeError):
        value["a"][1]["b"] = 3
    with pytest.raises(TypeError):
        value.update(x=1)


def test_frozen_values_serialize_and_thaw() -> None:
    value = freeze({"a": [1, {"b": None}]})
    assert json.loads(json.dumps(value)) == {"a": [1, {"b": None}]}
    mutable = thaw(value)
    mutable["a"].append(2)
    assert type(mutable) is dict and type(mutable["a"]) is list
    assert value["a"] == [1, {"b": None}]
    assert copy.deepcopy(value) is value
    assert pickle.loads(pickle.dumps(value)) == value
    assert hash(freeze({"x": [1]})) == hash(freeze({"x": [1]}))


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_unpickled_values_are_frozen_alike_and_keep_their_sharing(protocol: int) -> None:
    shared = freeze({"type": "object", "properties": {"id": {"type": "integer"}}})
    value = freeze({"a": [shared, {"b": [1, "x", None]}], "c": shared, "e": {}, "l": []})
    assert value["c"] is value["a"][0]  # freeze keeps an already frozen value as is
    again = pickle.loads(pickle.dumps(value, protocol=protocol))
    assert again == value and hash(again) == hash(value)
    assert again["c"] is again["a"][0]  # one object still, not two copies
    kinds = {type(again), type(again["a"]), type(again["a"][1]), type(again["e"])}
    assert kinds == {FrozenDict, FrozenList} and type(again["l"]) is FrozenList
    with pytest.raises(TypeError):
        again["c"]["type"] = "string"
    with pytest.raises(TypeError):
        again["a"][1]["b"].append(2)
