"""An upstream's question to a 2026-07-28 client: the call parks, the retry answers it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from toolcat.executor.mcp_server._relay import ParkedCalls, hooks_for

QUESTION = types.ElicitRequestFormParams(
    message="Which colour?",
    requested_schema={"type": "object", "properties": {"colour": {"type": "string"}}},
)


@dataclass
class Session:
    """What the relay reads of a client's session: its capabilities, its progress."""

    client_capabilities: types.ClientCapabilities | None
    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)
    can_send_request: bool = False

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self.progress.append((progress, total, message))


def context(elicitation: bool = True) -> ServerRequestContext[Any, Any]:
    capabilities = types.ClientCapabilities.model_validate(
        {"elicitation": {"form": {}}} if elicitation else {}
    )
    session: Any = Session(capabilities)
    return ServerRequestContext(
        session=session, lifespan_context={}, protocol_version="2026-07-28", method="tools/call"
    )


def retry(first: types.InputRequiredResult, answer: dict[str, Any], **kw: Any) -> Any:
    return types.CallToolRequestParams.model_validate(
        {
            "name": kw.get("name", "paint"),
            "arguments": kw.get("arguments", {"wall": 1}),
            "requestState": first.request_state,
            "inputResponses": {"upstream": answer},
        }
    )


def upstream_call(calls: ParkedCalls, parked: Any, ctx: Any) -> Any:
    """A call whose upstream reports progress, asks one question and answers with it."""

    async def start() -> str:
        hooks = hooks_for(ctx, parked, calls)
        await hooks.progress(1, 2, "half way")
        answer = await hooks.elicit(QUESTION)
        return f"{answer.action} {answer.content}"

    return start


def test_the_question_goes_out_and_the_retry_hands_the_answer_to_the_waiting_call() -> None:
    async def scenario() -> None:
        calls, ctx = ParkedCalls(timeout=5), context()
        session: Any = ctx.session
        parked = calls.new("paint", {"wall": 1})
        first = await calls.run(parked, ctx, upstream_call(calls, parked, ctx))
        assert isinstance(first, types.InputRequiredResult)
        assert first.input_requests is not None
        asked = first.input_requests["upstream"]
        assert isinstance(asked, types.ElicitRequest) and asked.params == QUESTION
        assert len(calls) == 1
        params = retry(first, {"action": "accept", "content": {"colour": "red"}})
        found = calls.find(params)
        assert found is parked
        done = await calls.run(parked, context(), None, params.input_responses["upstream"])
        assert done == "accept {'colour': 'red'}"
        assert len(calls) == 0  # answered and finished: forgotten
        assert session.progress == [(1, 2, "half way")]

    asyncio.run(scenario())


def test_an_answer_for_other_arguments_or_a_finished_call_is_refused() -> None:
    async def scenario() -> None:
        calls, ctx = ParkedCalls(timeout=5), context()
        parked = calls.new("paint", {"wall": 1})
        first = await calls.run(parked, ctx, upstream_call(calls, parked, ctx))
        other = calls.find(retry(first, {"action": "decline"}, arguments={"wall": 2}))
        assert isinstance(other, str) and "another call" in other
        params = retry(first, {"action": "decline"})
        assert await calls.run(parked, ctx, None, params.input_responses["upstream"]) == (
            "decline None"
        )
        gone = calls.find(params)  # the same answer again: that call is over
        assert isinstance(gone, str) and "no longer running" in gone
        # a state that is not a parked call's (a confirmation's) is not for the relay
        assert calls.find(types.CallToolRequestParams(name="x", request_state="{}")) is None

    asyncio.run(scenario())


def test_no_answer_in_time_cancels_the_question_and_a_client_without_elicitation_declines() -> None:
    async def scenario() -> None:
        calls, ctx = ParkedCalls(timeout=0.2), context()
        parked = calls.new("paint", {"wall": 1})
        first = await calls.run(parked, ctx, upstream_call(calls, parked, ctx))
        assert isinstance(first, types.InputRequiredResult)
        assert parked.task is not None
        assert await asyncio.wait_for(parked.task, 5) == "cancel None"
        assert len(calls) == 0

        mute = context(elicitation=False)
        parked = calls.new("paint", {"wall": 1})
        assert await calls.run(parked, mute, upstream_call(calls, parked, mute)) == ("decline None")

    asyncio.run(scenario())
