"""Schema regexes run on RE2, off the event loop (issue 10, class 2)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from toolcat.catalog import compile_check, linear_regex, pattern_problem, pattern_search
from toolcat.executor import Executor, ExecutorSettings, ToolCall
from toolcat.executor._arguments import ArgumentChecker

EVIL = "a" * 40 + "!"  # Python's re: about 2**40 steps for ^(a+)+$


def test_the_issues_pattern_is_answered_by_re2() -> None:
    assert pattern_search("^(a+)+$", EVIL) is False
    assert pattern_search("^(a+)+$", "aaaa") is True


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^(a+)+$"},
        {"type": "object", "patternProperties": {"^(a|aa)+$": {}}, "additionalProperties": False},
        # unevaluatedProperties: jsonschema's own keyword code (the fast path declines it)
        {"type": "object", "patternProperties": {"^(a|aa)+$": {}}, "unevaluatedProperties": False},
        {"type": "array", "items": {"type": "string", "pattern": "^(a*)*b$"}},
    ],
)
def test_jsonschema_runs_schema_regexes_on_re2(schema: dict[str, Any]) -> None:
    value: Any = {"args": EVIL}["args"]
    if schema["type"] == "object":
        value = {EVIL: 1}
    elif schema["type"] == "array":
        value = ["b", EVIL]
    with linear_regex():
        assert Draft202012Validator(schema).is_valid(value) is False
    errors = ArgumentChecker({"type": "object", "properties": {"v": schema}}).check({"v": value})
    assert errors and errors[0].type == "invalid_arguments"


def test_other_jsonschema_users_keep_pythons_re() -> None:
    digit = Draft202012Validator({"pattern": r"^\d$"})
    assert digit.is_valid("\u0663") is True  # Python's \d: any Unicode digit
    with linear_regex():
        assert digit.is_valid("\u0663") is False  # RE2 (and ECMA-262): ASCII digits
    assert digit.is_valid("\u0663") is True


@pytest.mark.parametrize(
    ("pattern", "text"),
    [(r"^\d$", "\u0663"), ("^a$", "a\n"), (r"^\w+$", "\u00e9t\u00e9"), ("^[a-z]+$", "abc")],
)
def test_fast_path_and_jsonschema_agree_where_re2_differs_from_re(pattern: str, text: str) -> None:
    schema = {"type": "string", "pattern": pattern}
    fast = compile_check(schema)
    assert fast is not None
    with linear_regex():
        assert fast(text) is Draft202012Validator(schema).is_valid(text)


@pytest.mark.parametrize("pattern", ["^(?!test)[a-z]+$", r"(a)\1", r"a\Z", "a{1001}", "(?<=a)b"])
def test_a_pattern_re2_cannot_run_is_not_checked(pattern: str) -> None:
    assert pattern_problem(pattern)
    schema = {"type": "object", "properties": {"v": {"type": "string", "pattern": pattern}}}
    assert compile_check(schema) is None  # the fast path leaves it to jsonschema ...
    assert ArgumentChecker(schema).check({"v": "test" + EVIL}) == ()  # ... which skips it
    assert ArgumentChecker(schema).check({"v": 1})  # the rest of the schema still holds


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
