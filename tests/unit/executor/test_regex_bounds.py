"""Hostile schemas and arguments are refused or bounded: regexes, references, nesting."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import httpx
import pytest
from toolcat.catalog.common import MAX_NESTING_DEPTH, pattern_runs, runnable_schema
from toolcat.executor import Executor, ExecutorSettings, ToolCall, parse_arguments
from toolcat.executor._arguments import ArgumentChecker

EVIL = "a" * 30 + "!"  # Python's re: about 2**30 steps for ^(a+)+$


def _nest(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"v": value}
    return value


def _deep_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "pattern": "^(a+)+$"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"v": schema}}
    return schema


# (what, property schema, argument value, the error's location inside "v")
HOSTILE: list[tuple[str, dict[str, Any], Any, tuple[str | int, ...]]] = [
    ("nested quantifier", {"type": "string", "pattern": "^(a+)+$"}, EVIL, ()),
    ("alternation", {"type": "string", "pattern": "^(a|aa)+$"}, EVIL, ()),
    ("star of star", {"type": "array", "items": {"pattern": "^(a*)*b$"}}, ["b", EVIL], (1,)),
    (
        "patternProperties",
        {"type": "object", "patternProperties": {"^(a|aa)+$": {}}, "additionalProperties": False},
        {EVIL: 1},
        (EVIL,),
    ),
    (
        "unevaluatedProperties",
        {"type": "object", "patternProperties": {"^(a|aa)+$": {}}, "unevaluatedProperties": False},
        {EVIL: 1},
        (EVIL,),
    ),
    ("deep schema", _deep_schema(120), _nest(120, EVIL), ("v",) * 120),
]


@pytest.mark.parametrize(
    ("schema", "value", "where"), [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE]
)
def test_a_backtracking_pattern_is_answered_at_once(
    schema: dict[str, Any], value: Any, where: tuple[str | int, ...]
) -> None:
    checker = ArgumentChecker({"type": "object", "properties": {"v": schema}})
    started = time.perf_counter()
    errors = checker.check({"v": value})
    assert time.perf_counter() - started < 0.5  # Python's re: minutes
    assert errors and errors[0].type == "invalid_arguments"
    assert errors[0].loc == ("v", *where)


@pytest.mark.parametrize(
    "ref", ["http://127.0.0.1:9/schema.json", "file:///etc/passwd", "other.json", "#/$defs/Nope"]
)
def test_a_ref_outside_the_schema_is_refused_and_never_fetched(ref: str) -> None:
    checker = ArgumentChecker({"type": "object", "properties": {"v": {"$ref": ref}}})
    (error,) = checker.check({"v": "x"})
    assert error.type == "refused_by_policy" and "never fetches" in error.msg
    assert "root:" not in error.msg  # nothing of /etc/passwd


def test_arguments_past_the_nesting_limit_are_refused() -> None:
    deep = json.dumps(_nest(MAX_NESTING_DEPTH + 1, 1))
    error = parse_arguments(deep)
    assert not isinstance(error, dict) and error.type == "invalid_arguments"
    assert "nest deeper" in error.msg


@pytest.mark.parametrize(
    ("pattern", "text"), [(r"^\d$", "\u0663"), ("^a$", "a\n"), (r"^\w+$", "\u00e9t\u00e9")]
)
def test_patterns_follow_ecma_262_where_pythons_re_does_not(pattern: str, text: str) -> None:
    """ASCII \\d and \\w, and $ at the very end: Python's re would accept each of these."""
    checker = ArgumentChecker({"type": "object", "properties": {"v": {"pattern": pattern}}})
    assert checker.check({"v": text})


@pytest.mark.parametrize("pattern", ["^(?!test)[a-z]+$", r"(a)\1", r"a\Z", "(?<=a)b"])
def test_a_pattern_the_engine_cannot_run_is_not_checked(pattern: str) -> None:
    assert not pattern_runs(pattern)
    schema = {"type": "object", "properties": {"v": {"type": "string", "pattern": pattern}}}
    assert ArgumentChecker(schema).check({"v": "test" + EVIL}) == ()
    assert ArgumentChecker(schema).check({"v": 1})  # the rest of the schema still holds


def test_a_pattern_property_the_engine_cannot_run_matches_every_name() -> None:
    names = {"(?=a)": {"type": "integer"}, "^b": {"type": "string"}}
    schema = {"type": "object", "patternProperties": names, "additionalProperties": False}
    assert runnable_schema(schema)["patternProperties"] == {
        "^b": {"type": "string"},
        "": {"type": "integer"},
    }
    checker = ArgumentChecker(schema)
    assert checker.check({"x": 1}) == ()  # not additional: as if it matched every name
    assert checker.check({"x": "one"})  # and its subschema holds for every name


def test_aexecute_checks_the_arguments_on_the_event_loop_in_bounded_time(
    f: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcat.executor import _executor

    seen: list[threading.Thread] = []
    parse = getattr(_executor, "parse_arguments")  # noqa: B009 (not re-exported there)

    def spy(raw: Any) -> Any:
        seen.append(threading.current_thread())
        return parse(raw)

    monkeypatch.setattr(_executor, "parse_arguments", spy)
    tool = f.tool(params=(f.p("sku", "query", {"type": "string", "pattern": "^(a+)+$"}),))

    async def go() -> Any:
        loop_thread = threading.current_thread()
        transport = httpx.MockTransport(lambda r: httpx.Response(200, json={"ok": True}))
        async with httpx.AsyncClient(transport=transport) as client:
            ex = Executor(f.catalog(tool), ExecutorSettings(async_client=client, env={}))
            began = time.perf_counter()
            bad = await ex.aexecute(ToolCall("t", {"sku": EVIL}))
            spent = time.perf_counter() - began
            good = await ex.aexecute(ToolCall("t", {"sku": "aaa"}))
        return loop_thread, bad, good, spent

    loop_thread, bad, good, spent = asyncio.run(go())
    assert bad.error is not None and bad.error.type == "invalid_arguments"
    assert good.ok
    # no worker-thread hop per call: the check is bounded (a linear-time regex engine)
    assert len(seen) == 2 and all(t is loop_thread for t in seen)
    assert spent < 1.0
