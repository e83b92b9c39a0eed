"""The feedback loop: ask the model, run the tools it calls, feed the results back, repeat."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence, Set
from contextlib import nullcontext
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from toolcat.catalog.common import OPENAI_MAX_TOOLS
from toolcat.executor import (
    ErrorType,
    ToolCall,
    ToolContext,
    ToolError,
    ToolResult,
    error_result,
    with_context,
)

from ._common import ModelTurn, Usage
from ._protocols import ModelClient
from ._selection import Selection
from ._settings import MAX_CALLS_PER_TURN, LoopSettings, ToolSelection
from ._telemetry import LoopTelemetry
from ._trace import LoopResult, LoopStep, StopReason

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition
    from toolcat.executor import Executor, SemanticSearch

__all__ = ["MAX_CALLS_PER_TURN", "PROVIDER_TOOL_LIMITS", "AgentLoop", "ToolSelection"]

#: The most tools one request may carry, by provider (``toolcat.catalog.common.PROVIDER_LIMITS``);
#: a provider missing here has no known limit. ``AgentLoop(max_tools=)`` overrides it.
PROVIDER_TOOL_LIMITS: Mapping[str, int] = MappingProxyType({"openai": OPENAI_MAX_TOOLS})

logger = logging.getLogger("toolcat.agent")


class AgentLoop:
    """Runs a conversation with a model until it answers, using the catalog's tools.

    Tools offered are every tool of the catalog, or the tools of ``toolset``,
    plus the catalog tools named per run in ``arun(tools=...)``. With
    ``tool_selection="search"`` the model gets instead the ``pinned`` tools
    (default: the catalog's ``search.pinned`` ones for ``toolset``), those of
    ``arun(tools=...)``, plus ``search_tools``; the tools a search finds
    join the next request's list, the least recently found leaving first so that
    no request carries more than ``max_tools`` (default: the provider's limit,
    ``PROVIDER_TOOL_LIMITS``), and any tool of the toolset may be called. With
    ``tool_selection="native-search"`` (Anthropic) every tool is sent, all but the
    pinned ones with ``defer_loading: true``, plus the API's own tool-search tool
    (``search_variant``: ``bm25`` or ``regex``); the API runs the searches, and
    their ``server_tool_use``/``tool_search_tool_result`` blocks stay in the
    conversation as they came (a ``pause_turn`` reply is sent back to go on). Over
    the API's limit of tools it falls back to ``search`` (``selection_note`` says
    why). When the reply
    has tool calls, they run through the executor (concurrently by default),
    their results go back in the provider's format and the model is asked
    again. A run stops on:

    - ``final_answer``: a reply without tool calls;
    - ``return_direct``: every call of the last turn went to a ``return_direct``
      tool and succeeded; their results are the answer (the model is not asked
      again);
    - ``max_iterations``: ``max_iterations`` rounds of tool calls happened; the
      model is then asked once more with tool choice ``none`` for a final
      answer.

    At most ``max_calls_per_turn`` calls of one reply run; each call past it
    is not sent and gets a ``refused_by_policy`` error result the model reads.

    ``tool_choice`` is ``auto``, ``none``, ``required`` or a tool name.
    ``required`` and a tool name apply to the first request of a run only
    (afterwards ``auto``), so that a forced call cannot loop forever.

    Tool failures never stop the loop: they are results the model reads.
    Model endpoint failures raise ``ModelError`` subclasses.

    >>> # loop = AgentLoop(OpenAIChatClient(url, "m"), Executor(catalog), LoopSettings())
    >>> # result = await loop.arun("What is the stock of SKU A-1?")
    """

    def __init__(
        self, model: ModelClient, executor: Executor, settings: LoopSettings | None = None
    ) -> None:
        s = settings if settings is not None else LoopSettings()
        _check_settings(s)
        self.settings = s
        self.context = s.context  # the caller every tool call runs for (identity, app values)
        resolved = s.catalog if s.catalog is not None else getattr(executor, "catalog", None)
        if resolved is None:
            raise ValueError("pass the catalog (the executor does not expose one)")
        self.model = model
        self.executor = executor
        self.catalog: Catalog = resolved
        self.default_tools = tuple(t.name for t in resolved.toolset(s.toolset))
        self.tool_selection: ToolSelection = s.tool_selection
        # None: the catalog's search.pinned tools for this toolset
        pinned = resolved.pinned(s.toolset) if s.pinned is None else s.pinned
        self.pinned = tuple(dict.fromkeys(pinned))
        for name in self.pinned:
            resolved[name]  # an unknown name raises UnknownToolError
        self.max_tools = (
            s.max_tools if s.max_tools is not None else PROVIDER_TOOL_LIMITS.get(model.provider)
        )
        self.search_variant: Literal["bm25", "regex"] = s.search_variant
        #: why native-search became search (too many tools), or None
        self.selection_note: str | None = None
        if self.tool_selection == "native-search":
            self._check_native_search()
        self._semantic: Any = None  # the SemanticSearch of search.embeddings, made on first use
        if self.tool_selection == "search":
            self._check_search()
        self.system = s.system
        self.max_iterations = s.max_iterations
        self.max_calls_per_turn = s.max_calls_per_turn
        self.tool_choice = s.tool_choice
        self.stream = s.stream
        self.on_text = s.on_text
        self.on_step = s.on_step
        self.concurrent = s.concurrent
        self._telemetry = LoopTelemetry(
            model.provider, getattr(model, "model", None), s.tracer_provider
        )

    def _check_native_search(self) -> None:
        """The model client must run the API's own tool search; over its limit of tools,
        toolcat's ``search_tools`` is used instead (``selection_note`` says why)."""
        model = self.model
        if not callable(getattr(model, "deferred_tool_specs", None)):
            raise ValueError(
                f"tool_selection 'native-search' needs a model client with the API's own "
                f"tool search (Anthropic), not {model.provider!r}; use 'search'"
            )
        most = getattr(model, "max_deferred_tools", None)
        if most is not None and len(self.default_tools) > most:
            self.selection_note = (
                f"{len(self.default_tools)} tools are more than the {most} that "
                f"{model.provider}'s tool search accepts: toolcat's search_tools is used"
            )
            logger.warning("%s", self.selection_note)
            self.tool_selection = "search"

    def _check_search(self) -> None:
        """``search_tools`` must not shadow a catalog tool, and must fit beside the pins."""
        from toolcat.executor import SEARCH_TOOL_NAME  # here: 'toolcat list' starts as before

        if SEARCH_TOOL_NAME in self.catalog:
            raise ValueError(
                f"the catalog has a tool named {SEARCH_TOOL_NAME!r}: tool search cannot "
                "offer its own tool of that name"
            )
        if self.max_tools is not None and len(self.pinned) + 1 > self.max_tools:
            raise ValueError(
                f"{len(self.pinned)} pinned tools and {SEARCH_TOOL_NAME} are more than "
                f"the {self.max_tools} tools a request may carry"
            )

    def offered(self, extra: Sequence[str] = ()) -> tuple[ToolDefinition, ...]:
        """The tools a run offers: the defaults, then ``extra`` (catalog names) not yet in."""
        names = list(self.default_tools)
        names += [n for n in extra if n not in names]
        return tuple(self.catalog[n] for n in names)  # an unknown name raises UnknownToolError

    def semantic_search(self) -> SemanticSearch | None:
        """The fused ranking ``search_tools`` uses when the catalog has ``search.embeddings``."""
        settings = self.catalog.search_settings
        if settings is None or settings.embeddings is None:
            return None
        if self._semantic is None:
            from toolcat.executor import SemanticSearch

            self._semantic = SemanticSearch(self.catalog)
        searcher: SemanticSearch = self._semantic
        return searcher

    def run(self, prompt: str | None = None, **kwargs: Any) -> LoopResult:
        """Synchronous ``arun`` for scripts (runs its own event loop)."""
        return asyncio.run(self.arun(prompt, **kwargs))

    async def arun(
        self,
        prompt: str | None = None,
        *,
        history: Sequence[Mapping[str, Any]] = (),
        tools: Sequence[str] = (),
        tool_choice: str | None = None,
        max_iterations: int | None = None,
        context: ToolContext | None = None,
    ) -> LoopResult:
        """Run until a stop condition; ``history`` continues an earlier conversation.

        ``context`` (default: the loop's) is the caller the tool calls run for: the
        access policy and ``from: claims.x``/``context.x`` parameters read it.
        """
        ctx = context if context is not None else self.context
        with self._telemetry.agent(), with_context(ctx) if ctx is not None else nullcontext():
            return await self._run(prompt, history, tools, tool_choice, max_iterations)

    async def _run(
        self,
        prompt: str | None,
        history: Sequence[Mapping[str, Any]],
        tools: Sequence[str],
        tool_choice: str | None,
        max_iterations: int | None,
    ) -> LoopResult:
        started = time.perf_counter()
        selection, offered, callable_names = self._first_tools(tools)
        names = {t.name for t in offered}
        specs = self._first_specs(offered, tools)
        version = selection.version if selection else 0
        choice = tool_choice or self.tool_choice
        if choice not in ("auto", "none", "required") and choice not in names:
            raise ValueError(f"tool_choice {choice!r} is not an offered tool")
        limit = max_iterations or self.max_iterations
        messages: list[Mapping[str, Any]] = list(history)
        if prompt is not None:
            messages.append(self.model.user_message(prompt))
        steps: list[LoopStep] = []
        usage: Usage | None = None
        rounds = 0
        final_request = False
        while True:
            if selection is not None and selection.version != version:
                offered, version = selection.tools(), selection.version
                names |= {t.name for t in offered}
                specs = self.model.tool_specs(offered)
            reply = await self._ask(messages, specs, choice)
            usage = reply.usage + usage if reply.usage else usage
            messages.append(reply.message)
            index = len(steps) + 1
            self._report(LoopStep(index, choice, reply, messages=(reply.message,), phase="model"))
            if not reply.tool_calls and reply.finish_reason == "pause_turn" and not final_request:
                # the API paused its own (server-side) tools: send the turn back to go on
                steps.append(LoopStep(index, choice, reply, messages=(reply.message,)))
                self._report(steps[-1])
                rounds += 1
                if rounds >= limit:
                    final_request, choice = True, "none"
                continue
            if not reply.tool_calls:
                steps.append(LoopStep(index, choice, reply, messages=(reply.message,)))
                self._report(steps[-1])
                reason: StopReason = "max_iterations" if final_request else "final_answer"
                return self._result(reply.text, reason, messages, steps, usage, started, names)
            step = await self._tool_step(
                LoopStep(index, choice, reply), final_request, callable_names, selection
            )
            messages.extend(step.messages[1:])
            steps.append(step)
            self._report(step)
            if final_request:
                return self._result(
                    reply.text, "max_iterations", messages, steps, usage, started, names
                )
            if all(self._is_direct(r) for r in step.results):
                answer = "\n\n".join(r.content for r in step.results)
                return self._result(answer, "return_direct", messages, steps, usage, started, names)
            rounds += 1
            if rounds >= limit:
                final_request, choice = True, "none"
            elif choice != "none":
                choice = "auto"

    def _first_tools(
        self, tools: Sequence[str]
    ) -> tuple[Selection | None, tuple[ToolDefinition, ...], Set[str]]:
        """The run's tool search (search mode only), the tools first offered, those callable."""
        if self.tool_selection == "search":
            selection = Selection(self, tools)
            return selection, selection.tools(), selection.callable
        offered = self.offered(tools)
        return None, offered, {t.name for t in offered}

    def _first_specs(self, offered: Sequence[ToolDefinition], tools: Sequence[str]) -> Any:
        if self.tool_selection == "native-search":
            # every tool goes, deferred but the pinned ones; the API searches them itself
            pins = tuple(dict.fromkeys((*self.pinned, *tools)))
            return self.model.deferred_tool_specs(  # type: ignore[attr-defined]
                offered, pins, self.search_variant
            )
        return self.model.tool_specs(offered)

    async def _ask(self, messages: list[Mapping[str, Any]], specs: Any, choice: str) -> ModelTurn:
        with self._telemetry.chat() as span:
            reply = await self.model.create(
                messages,
                tools=specs,
                tool_choice=choice,
                system=self.system,
                stream=self.stream,
                on_text=self.on_text,
            )
            self._telemetry.record(span, reply)
        return reply

    async def _tool_step(
        self,
        asked: LoopStep,
        final_request: bool,
        callable_names: Set[str],
        selection: Selection | None,
    ) -> LoopStep:
        """``asked`` (a reply with tool calls) once its calls ran, their results appended."""
        reply = asked.reply
        t0 = time.perf_counter()
        if final_request:  # the model ignored tool choice "none": do not run, close the turn
            results = [_not_run(c) for c in reply.tool_calls]
        else:
            results = await self._execute(reply.tool_calls, callable_names, selection)
        appended = self.model.result_messages(results)
        return LoopStep(
            asked.index,
            asked.tool_choice,
            reply,
            tuple(results),
            time.perf_counter() - t0,
            (reply.message, *appended),
        )

    async def _execute(
        self,
        calls: Sequence[ToolCall],
        offered: Set[str],
        selection: Selection | None = None,
    ) -> list[ToolResult]:
        """Run the calls of one turn; a call to a tool not offered is an error result.

        Only the first ``max_calls_per_turn`` calls run; the rest are refused unsent.
        With tool search, ``search_tools`` calls are answered here, never dispatched.
        """
        cap = self.max_calls_per_turn
        allowed = calls[:cap]
        searches = [c for c in allowed if selection is not None and c.name == selection.name]
        runnable = [
            c
            for c in allowed
            if c not in searches and (c.name in offered or c.name not in self.catalog)
        ]
        try:
            ran = await self.executor.aexecute_many(runnable, concurrent=self.concurrent)
        except Exception as exc:  # a bug below must not end the conversation: report it
            logger.error("the tool calls of a turn failed inside the executor", exc_info=exc)
            ran = [_internal(c, exc) for c in runnable]
        by_position = iter(ran)
        results = []
        for c in allowed:
            if selection is not None and c in searches:
                # a thread: the first search builds the index, too long to block the event loop
                results.append(await asyncio.to_thread(selection.search, c))
            else:
                results.append(next(by_position) if c in runnable else _not_offered(c))
        return results + [_over_cap(c, cap, len(calls)) for c in calls[cap:]]

    def _is_direct(self, result: ToolResult) -> bool:
        tool = self.catalog.get(result.call.name)
        return result.ok and (result.return_direct or bool(tool and tool.return_direct))

    def _report(self, step: LoopStep) -> None:
        if self.on_step is not None:
            self.on_step(step)

    @staticmethod
    def _result(
        text: str,
        reason: StopReason,
        messages: list[Mapping[str, Any]],
        steps: list[LoopStep],
        usage: Usage | None,
        started: float,
        names: set[str],
    ) -> LoopResult:
        return LoopResult(
            text,
            reason,
            tuple(messages),
            tuple(steps),
            usage,
            time.perf_counter() - started,
            tuple(sorted(names)),
        )


def _check_settings(s: LoopSettings) -> None:
    if s.tool_selection not in ("all", "search", "native-search"):
        raise ValueError(
            "tool_selection must be 'all' or 'search' (or 'native-search'), "
            f"not {s.tool_selection!r}"
        )
    if s.search_variant not in ("bm25", "regex"):
        raise ValueError(f"search_variant must be 'bm25' or 'regex', not {s.search_variant!r}")
    if s.max_iterations < 1:
        raise ValueError("max_iterations must be at least 1")
    if s.max_calls_per_turn < 1:
        raise ValueError("max_calls_per_turn must be at least 1")


def _error_result(call: ToolCall, kind: ErrorType, msg: str) -> ToolResult:
    """The executor's JSON error object, so every error the model reads has one shape."""
    return error_result(call, [ToolError(kind, msg)])


def _not_offered(call: ToolCall) -> ToolResult:
    return _error_result(
        call, "unknown_tool", f"tool {call.name!r} is not offered in this conversation"
    )


def _not_run(call: ToolCall) -> ToolResult:
    return _error_result(
        call,
        "refused_by_policy",
        "not run: the iteration limit was reached; answer with what you have",
    )


def _over_cap(call: ToolCall, cap: int, asked: int) -> ToolResult:
    return _error_result(
        call,
        "refused_by_policy",
        f"not run: one turn may run at most {cap} tool calls and this one asked for "
        f"{asked}; call again with fewer",
    )


def _internal(call: ToolCall, exc: Exception) -> ToolResult:
    # The exception's text may hold anything (a URL with a token, a path, a value):
    # the model reads only its type, as with the executor's own internal errors.
    return _error_result(call, "internal", f"the executor failed: {type(exc).__name__}")
