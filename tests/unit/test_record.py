"""``@record`` behaves as ``@dataclass(frozen=True, slots=True)``: each property against a twin
made by ``dataclass`` itself."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest
from toolcat.catalog import SourceLocation, ToolAnnotations, record


@record
class Point:
    x: int
    y: int = 0
    label: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)
    tags: tuple[str, ...] = field(default=(), hash=False)


@dataclass(frozen=True, slots=True)
class TwinPoint:
    x: int
    y: int = 0
    label: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)
    tags: tuple[str, ...] = field(default=(), hash=False)


@record
class Empty:
    pass


@dataclass(frozen=True, slots=True)
class TwinEmpty:
    pass


@record
class One:
    value: Any


@dataclass(frozen=True, slots=True)
class TwinOne:
    value: Any


CASES = [
    ((1,), {}),
    ((1, 2), {"label": "a"}),
    ((1, 2), {"secret": "s", "tags": ("t",)}),
    ((-5, 7), {"label": "b", "secret": "x", "tags": ("u", "v")}),
]


@pytest.mark.parametrize(("args", "kwargs"), CASES)
def test_repr_and_hash_as_dataclass(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    ours, theirs = Point(*args, **kwargs), TwinPoint(*args, **kwargs)
    assert repr(ours) == repr(theirs).replace("TwinPoint", "Point")
    assert hash(ours) == hash(theirs)


@pytest.mark.parametrize(("a", "b"), [(a, b) for a in CASES for b in CASES])
def test_equality_as_dataclass(
    a: tuple[tuple[Any, ...], dict[str, Any]], b: tuple[tuple[Any, ...], dict[str, Any]]
) -> None:
    ours = Point(*a[0], **a[1]) == Point(*b[0], **b[1])
    theirs = TwinPoint(*a[0], **a[1]) == TwinPoint(*b[0], **b[1])
    assert ours is theirs


def test_compare_false_fields_are_ignored_and_other_classes_differ() -> None:
    assert Point(1, label="a") == Point(1, label="b")
    other: object = TwinPoint(1)
    assert Point(1) != other
    assert Point(1).__eq__(other) is NotImplemented
    assert Point(1) != object.__new__(object)
    as_tuple: object = (1, 0, "", "", ())
    assert Point(1) != as_tuple


def test_no_fields_and_one_field() -> None:
    assert Empty() == Empty() and hash(Empty()) == hash(TwinEmpty())
    assert repr(Empty()) == "Empty()"
    assert One(3) == One(3) != One(4)
    assert hash(One("a")) == hash(TwinOne("a"))
    assert repr(One([1])) == "One(value=[1])"


def test_a_record_that_contains_itself_repr_is_finite() -> None:
    box: list[Any] = []
    one = One(box)
    box.append(one)
    twin_box: list[Any] = []
    twin = TwinOne(twin_box)
    twin_box.append(twin)
    assert repr(one) == repr(twin).replace("TwinOne", "One") == "One(value=[...])"


def test_frozen_slotted_and_still_a_dataclass() -> None:
    p = Point(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del p.y
    assert not hasattr(p, "__dict__")
    assert dataclasses.is_dataclass(p)
    assert [f.name for f in dataclasses.fields(p)] == ["x", "y", "label", "secret", "tags"]
    assert dataclasses.replace(p, y=9) == Point(1, 9)
    assert dataclasses.asdict(p)["y"] == 2
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p
    assert Point.__match_args__ == ("x", "y", "label", "secret", "tags")


def test_unhashable_field_fails_as_in_dataclass() -> None:
    with pytest.raises(TypeError):
        hash(One([1]))
    with pytest.raises(TypeError):
        hash(TwinOne([1]))


def test_the_ir_records_use_it() -> None:
    loc = SourceLocation("a.yaml", 1, 2)
    assert loc == SourceLocation("a.yaml", 1, 2) and len({loc, SourceLocation("a.yaml", 1, 2)}) == 1
    assert repr(loc) == "SourceLocation(file='a.yaml', line=1, column=2)"
    assert ToolAnnotations() == ToolAnnotations()


@record
class Made:
    name: str
    items: list[int] = field(default_factory=list)
    size: int = 3


@dataclass(frozen=True, slots=True)
class TwinMade:
    name: str
    items: list[int] = field(default_factory=list)
    size: int = 3


def test_init_as_dataclass_writes_it() -> None:
    import inspect

    assert str(inspect.signature(Made)) == str(inspect.signature(TwinMade))
    a, b = Made("a"), Made("b", size=5)
    assert a.items == [] and a.items is not b.items and b.size == 5
    assert Made("c", [1], 2) == Made(name="c", items=[1], size=2)
    given: list[int] = [7]
    assert Made("d", given).items is given
    assert Made.__init__.__qualname__ == "Made.__init__"
    assert Made.__init__.__annotations__ == TwinMade.__init__.__annotations__
    untyped: Any = Made
    bad: list[tuple[tuple[Any, ...], dict[str, Any]]] = [((), {}), (("a",), {"nope": 1})]
    for args, kwargs in [*bad, (("a", [], 1, 2), {})]:
        with pytest.raises(TypeError, match=r"__init__\(\)"):
            untyped(*args, **kwargs)


def test_a_class_without_docstring_gets_dataclass_s_doc() -> None:
    @record
    class Bare:
        x: int
        y: str = "a"

    @dataclass(frozen=True, slots=True)
    class TwinBare:
        x: int
        y: str = "a"

    assert Bare.__doc__ == (TwinBare.__doc__ or "").replace("TwinBare", "Bare")


def test_what_it_does_not_take_is_refused_at_definition() -> None:
    with pytest.raises(TypeError, match="non-default argument"):

        @record
        class Order:
            x: int = 0
            y: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="plain fields"):

        @record
        class Keyword:
            x: int = field(kw_only=True)

    with pytest.raises(TypeError, match="plain fields"):

        @record
        class Post:
            x: int

            def __post_init__(self) -> None:
                pass


def test_every_frozen_slotted_record_of_the_package_is_a_record() -> None:
    """One way to write an immutable record, so start-up stays as measured."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}:{n}"
        for package in ("catalog", "loader", "executor", "cli", "testing")
        for path in (root / package).rglob("*.py")
        if path.name != "_record.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"\s*@dataclass\(frozen=True, slots=True\)", line)
    ]
    assert found == [], "use @toolcat.catalog.record"
