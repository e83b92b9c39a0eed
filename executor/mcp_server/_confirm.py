"""Confirmation of ``confirm: true`` tools, in both MCP protocol eras.

Handshake era (2025-06-18, 2025-11-25): the server asks mid-call with an
``elicitation/create`` request and waits up to the timeout for the answer.

2026-07-28 era: a server cannot send requests; it answers the ``tools/call``
with an ``InputRequiredResult`` that carries the elicitation and a
``requestState``; the client asks its user and retries the same call with the
answer and the state echoed. The state is sealed by the SDK's
``RequestStateBoundary`` (AES-256-GCM under a key of this process or, behind a
load balancer, the keys in ``TOOLCAT_CONFIRM_KEYS``) and bound to the tool
name, the exact arguments, the caller and an expiry; inside it, a nonce makes
each confirmation good for one call (see :class:`ConfirmLedger`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import mcp_types as types

__all__ = [
    "CONFIRM_KEYS_ENV",
    "DEFAULT_CONFIRM_TIMEOUT",
    "MAX_CONFIRMATIONS",
    "ConfirmLedger",
    "MemoryConfirmLedger",
]

# How long the user has to answer, by default (seconds): --confirm-timeout changes it.
DEFAULT_CONFIRM_TIMEOUT = 120.0
# The sealed state outlives the deadline by this much, so a late answer gets a
# not_confirmed result that says why (after it, the SDK refuses the state itself).
STATE_GRACE = 60.0
# Confirmations used and not yet expired that one process remembers; past it, new
# confirmations are refused (never forgotten early: a forgotten one could run twice).
MAX_CONFIRMATIONS = 100_000
# Keys (comma-separated, each at least 32 bytes) that seal the 2026-07-28 state;
# the first seals, every one unseals. Replicas behind a load balancer share them.
CONFIRM_KEYS_ENV = "TOOLCAT_CONFIRM_KEYS"
# The key of the one input request toolcat sends.
INPUT_KEY = "confirm"

CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean", "title": "Run this tool call?"}},
    "required": ["confirm"],
}


class ConfirmLedger(Protocol):
    """Where used confirmations are remembered. ``begin`` records ``key`` for
    ``seconds`` and returns ``None`` (first use), or returns what is already
    recorded (used, or the ledger is full): the call is then not sent.

    The shape of an idempotency store's ``begin``, so that a store shared by
    every replica (Redis) can serve as the ledger."""

    def begin(self, key: str, seconds: float) -> dict[str, Any] | None: ...


class MemoryConfirmLedger:
    """Used confirmations in this process, at most ``max_records`` unexpired at once."""

    shared = False

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, max_records: int = MAX_CONFIRMATIONS
    ) -> None:
        self._clock = clock
        self._max = max_records
        self._lock = threading.Lock()
        self._used: OrderedDict[str, float] = OrderedDict()  # key -> expiry, oldest first

    def begin(self, key: str, seconds: float) -> dict[str, Any] | None:
        now = self._clock()
        with self._lock:
            until = self._used.get(key)
            if until is not None and until > now:
                return {"state": "used"}
            for old, expiry in list(self._used.items()):  # oldest first: stop at a live one
                if expiry > now:
                    break
                del self._used[old]
            if len(self._used) >= self._max:
                return {"state": "full"}
            self._used[key] = now + seconds
            return None

    def __len__(self) -> int:
        return len(self._used)


@dataclass
class Asking:
    """One tools/call's confirmation, shared by the handler and the executor's callback.

    ``modern``: the call came in the 2026-07-28 era. ``answer``: the client's answer
    when the call is a retry carrying one. The callback fills ``ask`` (the question to
    return as an ``InputRequiredResult``) or ``reason`` (why the call was refused)."""

    modern: bool
    answer: Answer | None = None
    ask: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Answer:
    """A retried call's answer, read from its (already unsealed) state and responses."""

    accepted: bool
    reason: str | None  # why it does not confirm this call; None when accepted
    nonce: str = ""
    seconds_left: float = 0.0


def question(tool_name: str, description: str, arguments: Any) -> str:
    """The text the user reads: the tool, its exact arguments and what it does."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return f"Run {tool_name} with {args}? ({description})"


def arguments_digest(arguments: Mapping[str, Any] | None) -> str:
    """A digest of a call's arguments as sent (canonical JSON)."""
    text = json.dumps(dict(arguments or {}), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def new_state(tool_name: str, arguments: Mapping[str, Any] | None, timeout: float) -> str:
    """The (plaintext) request state of a question; the SDK boundary seals it."""
    return json.dumps(
        {
            "v": 1,
            "n": secrets.token_urlsafe(16),
            "t": tool_name,
            "a": arguments_digest(arguments),
            "d": time.time() + timeout,
        },
        separators=(",", ":"),
    )


def input_required(message: str, state: str) -> types.InputRequiredResult:
    """The 2026-07-28 answer to a call that needs the user's confirmation first."""
    ask = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=message, requested_schema=CONFIRM_SCHEMA)
    )
    return types.InputRequiredResult(input_requests={INPUT_KEY: ask}, request_state=state)


def read_answer(params: types.CallToolRequestParams, timeout: float) -> Answer:
    """The answer a retried call carries; ``params.request_state`` is the plaintext the
    SDK boundary unsealed (it already checked the seal, tool, arguments, caller, expiry)."""
    try:
        state = json.loads(params.request_state or "")
        nonce, tool, digest, deadline = state["n"], state["t"], state["a"], state["d"]
    except (ValueError, TypeError, KeyError):
        return Answer(False, "the confirmation could not be read; the call was not sent")
    if tool != params.name or digest != arguments_digest(params.arguments):
        return Answer(
            False,
            "the confirmation was given for other arguments; the call was not sent. "
            "Call the tool again to ask the user about these arguments",
        )
    left = float(deadline) - time.time()
    if not left > 0:
        return Answer(False, late(timeout))
    response = (params.input_responses or {}).get(INPUT_KEY)
    if response is None:
        return Answer(False, "the client sent no answer to the confirmation; it was not sent")
    data: Any = response.model_dump() if hasattr(response, "model_dump") else response
    return decide(data.get("action") if isinstance(data, dict) else None, data, nonce, left)


def decide(action: Any, data: Any, nonce: str = "", left: float = 0.0) -> Answer:
    """Accepted only as ``accept`` with ``confirm: true``; every other answer refuses."""
    content = data.get("content") if isinstance(data, dict) else None
    if action == "accept" and isinstance(content, dict) and content.get("confirm") is True:
        return Answer(True, None, nonce, left)
    if action == "cancel":
        return Answer(False, "the user dismissed the confirmation; the call was not sent")
    return Answer(
        False,
        "the user declined this call; it was not sent. Do not retry it unless the user asks",
    )


def late(timeout: float) -> str:
    """Why a call whose question went unanswered was refused."""
    return f"the user did not answer within {timeout:g} s; the call was not sent"


NO_ELICITATION = (
    "the MCP client cannot ask its user to confirm this call (it does not support "
    "elicitation); it was not sent. The user can confirm it in a client that does, or "
    "the server can be run with --yes"
)
USED = "this confirmation was already used; the call was not sent again"
FULL = "too many confirmations at once; the call was not sent. Try again shortly"
UNRECORDED = (
    "the confirmation could not be recorded (shared state is unavailable); the call was "
    "not sent. Try again shortly"
)


def used_reason(record: Mapping[str, Any]) -> str:
    """Why a confirmation the ledger already holds does not run the call."""
    return FULL if record.get("state") == "full" else USED


def parse_keys(text: str | None) -> list[bytes] | None:
    """The keys of ``TOOLCAT_CONFIRM_KEYS`` (``None`` when unset or empty); raises
    ``ValueError`` (one line, never the value) when one is shorter than 32 bytes."""
    if text is None or not text.strip():
        return None
    keys = [k.strip().encode() for k in text.split(",") if k.strip()]
    for i, key in enumerate(keys):
        if len(key) < 32:
            raise ValueError(
                f"{CONFIRM_KEYS_ENV}: key {i + 1} has {len(key)} bytes; each key needs at "
                'least 32 (python -c "import secrets; print(secrets.token_hex(32))")'
            )
    return keys


def boundary(keys: list[bytes] | None, ttl: float, audience: str, principal: Any) -> Any:
    """The SDK middleware that seals and checks ``requestState`` (an ephemeral key when
    ``keys`` is ``None``): bound to the tool, its arguments, ``principal(ctx)``, the
    ``audience`` (the server name) and ``ttl`` seconds."""
    from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

    if keys is None:
        security = RequestStateSecurity.ephemeral(ttl=ttl, audience=audience)
        security.bind_principal = principal
    else:
        security = RequestStateSecurity(
            keys=keys, ttl=ttl, audience=audience, bind_principal=principal
        )
    return RequestStateBoundary(security, default_audience=audience)
