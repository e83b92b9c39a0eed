from __future__ import annotations

import copy
import json
import pickle

import pytest
from toolcat.catalog import FrozenDict, FrozenList, freeze, thaw


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
