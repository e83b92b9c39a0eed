"""The pieces of 2026-07-28 confirmation: the answer a retried call carries, the ledger
that lets a confirmation run one call, and the keys that seal the state."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import mcp_types as types
import pytest
from toolcat.executor.mcp_server import McpServer, McpServerSettings
from toolcat.executor.mcp_server._confirm import (
    CONFIRM_KEYS_ENV,
    MemoryConfirmLedger,
    arguments_digest,
    decide,
    input_required,
    new_state,
    parse_keys,
    read_answer,
)

ARGS = {"sku": "B-BOLT-M6", "quantity": 2}


def retry(
    state: str | None, arguments: dict[str, Any] = ARGS, answer: Any = None
) -> types.CallToolRequestParams:
    responses = None if answer is None else {"confirm": answer}
    return types.CallToolRequestParams(
        name="create_order", arguments=arguments, request_state=state, input_responses=responses
    )


ACCEPT = types.ElicitResult(action="accept", content={"confirm": True})


@pytest.mark.parametrize(
    ("action", "content", "accepted", "says"),
    [
        ("accept", {"confirm": True}, True, None),
        ("accept", {"confirm": False}, False, "declined"),
        ("accept", {"confirm": "yes"}, False, "declined"),
        ("accept", None, False, "declined"),
        ("decline", None, False, "declined"),
        ("cancel", None, False, "dismissed"),
        ("whatever", {"confirm": True}, False, "declined"),
    ],
)
def test_only_accept_with_confirm_true_confirms(
    action: str, content: Any, accepted: bool, says: str | None
) -> None:
    answer = decide(action, {"action": action, "content": content})
    assert answer.accepted is accepted
    assert (answer.reason is None) if says is None else (says in (answer.reason or ""))


def test_an_accepted_answer_to_the_same_call_confirms_it() -> None:
    state = new_state("create_order", ARGS, 60)
    answer = read_answer(retry(state, dict(reversed(ARGS.items())), ACCEPT), 60)
    assert answer.accepted and answer.nonce == json.loads(state)["n"]
    assert 0 < answer.seconds_left <= 60


# Each case makes its state when it runs: a state made at collection would expire
# before a long suite reaches the test (its deadline is 60 s from when it was made).
@pytest.mark.parametrize(
    ("make", "says"),
    [
        (
            lambda: retry(new_state("create_order", ARGS, 60), {**ARGS, "quantity": 3}, ACCEPT),
            "other",
        ),
        (lambda: retry(new_state("delete_order", ARGS, 60), ARGS, ACCEPT), "other"),
        (lambda: retry(new_state("create_order", ARGS, -1), ARGS, ACCEPT), "within 60 s"),
        (lambda: retry(new_state("create_order", ARGS, 60)), "no answer"),
        (lambda: retry("not json", ARGS, ACCEPT), "could not be read"),
        (lambda: retry(json.dumps({"n": "x"}), ARGS, ACCEPT), "could not be read"),
    ],
    ids=["other-arguments", "other-tool", "late", "no-answer", "not-json", "incomplete"],
)
def test_anything_else_refuses_and_says_why(
    make: Callable[[], types.CallToolRequestParams], says: str
) -> None:
    answer = read_answer(make(), 60)
    assert answer.accepted is False and says in (answer.reason or "")


def test_the_digest_ignores_key_order_only() -> None:
    assert arguments_digest({"a": 1, "b": 2}) == arguments_digest({"b": 2, "a": 1})
    assert arguments_digest({"a": 1}) != arguments_digest({"a": "1"})
    assert arguments_digest(None) == arguments_digest({})


def test_the_question_is_an_input_required_result_with_one_form() -> None:
    result = input_required("Run it?", "state")
    wire = result.model_dump(by_alias=True, exclude_none=True)
    assert wire["resultType"] == "input_required" and wire["requestState"] == "state"
    form = wire["inputRequests"]["confirm"]
    assert form["method"] == "elicitation/create"
    assert form["params"]["requestedSchema"]["required"] == ["confirm"]


def test_the_ledger_lets_a_confirmation_run_once_until_it_expires() -> None:
    now = [100.0]
    ledger = MemoryConfirmLedger(clock=lambda: now[0])
    assert ledger.begin("n1", 10) is None
    assert ledger.begin("n1", 10) == {"state": "used"}
    assert ledger.begin("n2", 10) is None
    now[0] = 111.0  # both expired: forgotten, the memory is given back
    assert ledger.begin("n3", 10) is None and len(ledger) == 1


def test_a_full_ledger_refuses_rather_than_forget() -> None:
    ledger = MemoryConfirmLedger(clock=time.monotonic, max_records=2)
    assert ledger.begin("a", 60) is None and ledger.begin("b", 60) is None
    assert ledger.begin("c", 60) == {"state": "full"}
    assert ledger.begin("a", 60) == {"state": "used"}  # never forgotten early


def test_keys_are_comma_separated_and_at_least_32_bytes() -> None:
    assert parse_keys(None) is None and parse_keys("  ") is None
    assert parse_keys(f"{'a' * 32}, {'b' * 40}") == [b"a" * 32, b"b" * 40]
    with pytest.raises(ValueError, match="key 2 has 5 bytes") as caught:
        parse_keys(f"{'a' * 32},short")
    assert "short" not in str(caught.value)


def test_the_server_reads_its_keys_and_timeout(tmp_path: Any) -> None:
    catalog = tmp_path / "c.yaml"
    catalog.write_text("toolcat: 1\ntools: []\n")
    with pytest.raises(ValueError, match=CONFIRM_KEYS_ENV):
        McpServer([catalog], McpServerSettings(env={CONFIRM_KEYS_ENV: "too-short"}))
    with pytest.raises(ValueError, match="timeout"):
        McpServer([catalog], McpServerSettings(confirm_timeout=0))
    assert McpServer([catalog], McpServerSettings(confirm_keys=["k" * 32])).confirm_timeout == 120
