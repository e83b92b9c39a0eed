"""`toolcat chat`: the feedback loop against a chat model endpoint, with the catalog's tools."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Literal

from ._app import CliError

if TYPE_CHECKING:
    from toolcat.executor.providers import ProviderName

# The providers that have a model client in toolcat.executor.agent, with the variable
# that holds the key (the one the provider's own SDK reads).
_KEY_ENV: dict[ProviderName, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

# The agent's defaults, written out: importing toolcat.executor.agent here would load
# httpx and jsonschema for every command that builds the parser (`toolcat list` too).
# tests/unit/test_startup_path.py checks that they equal the agent's own.
MAX_REPLY_BYTES = 16 * 1024 * 1024
MAX_CALLS_PER_TURN = 32


def register(sub: Any) -> None:
    from toolcat.catalog.common import OPENAI_MAX_TOOLS
    from toolcat.executor.providers import names

    p = sub.add_parser(
        "chat",
        help="talk to a model that can call the catalog's tools",
        description="Send PROMPT (or stdin, or an interactive session) to a model with the "
        "catalog's tools; run the tools it calls and feed the results back until it answers. "
        "The answer goes to stdout, the trace of tool calls to stderr.",
    )
    p.add_argument("path", metavar="PATH", help="catalog file, directory, or OpenAPI spec")
    p.add_argument(
        "prompt",
        nargs="?",
        metavar="PROMPT",
        help="the user message (default: stdin, or an interactive session)",
    )
    p.add_argument(
        "--base-url",
        required=True,
        metavar="URL",
        help="API root, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1",
    )
    p.add_argument("--model", required=True, metavar="M", help="the model name")
    p.add_argument(
        "--provider",
        choices=[n for n in names() if n in _KEY_ENV],
        default="openai",
        help="wire protocol: OpenAI-compatible chat completions (default) or Anthropic Messages",
    )
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the key (default OPENAI_API_KEY or "
        "ANTHROPIC_API_KEY, as the providers' SDKs do; unset: no auth header)",
    )
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="extra HTTP header for the model endpoint (repeatable)",
    )
    p.add_argument("--toolset", metavar="NAME", help="offer only the tools of this toolset")
    p.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="NAME",
        help="also offer this catalog tool (repeatable; on top of --toolset)",
    )
    p.add_argument(
        "--tool-selection",
        choices=("auto", "all", "search", "native-search"),
        default="auto",
        help="all: send every tool; search: send search_tools plus the pinned tools (the "
        "catalog's search.pinned and --tool), the tools found join later requests; "
        "native-search (Anthropic): send every tool deferred but the pinned ones, with the "
        "API's own tool-search tool; auto (default): search when the tools are more "
        f"than the provider accepts in one request (OpenAI: {OPENAI_MAX_TOOLS})",
    )
    p.add_argument(
        "--tool-search-variant",
        choices=("bm25", "regex"),
        default="bm25",
        help="with native-search: the API's search tool, bm25 (queries in words, default) "
        "or regex (patterns)",
    )
    p.add_argument(
        "--no-catalog-pins",
        action="store_true",
        help="in search mode, leave out the catalog's search.pinned tools (only --tool)",
    )
    p.add_argument(
        "--tool-choice",
        default="auto",
        metavar="CHOICE",
        help="auto (default), none, required, or a tool name (first request only)",
    )
    p.add_argument(
        "--max-iterations",
        type=int,
        default=10,
        metavar="N",
        help="rounds of tool calls before asking for a final answer (default 10)",
    )
    p.add_argument("--system", metavar="TEXT", help="system prompt")
    p.add_argument("--stream", action="store_true", help="stream the answer as it is written")
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="model request timeout (default 120)",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=3,
        metavar="N",
        help="retries on 429/5xx/connection errors (default 3)",
    )
    p.add_argument(
        "--max-reply-bytes",
        type=int,
        default=MAX_REPLY_BYTES,
        metavar="N",
        help=f"largest model reply read, in bytes (default {MAX_REPLY_BYTES}); more is an error",
    )
    p.add_argument(
        "--max-calls-per-turn",
        type=int,
        default=MAX_CALLS_PER_TURN,
        metavar="N",
        help=f"tool calls run per model turn (default {MAX_CALLS_PER_TURN}); the rest get "
        "an error result",
    )
    p.add_argument(
        "--extra-body",
        metavar="JSON",
        help="JSON object merged into every model request, e.g. "
        "'{\"temperature\": 0}' or a server's own options",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="cap on the reply's tokens (Anthropic default 4096)",
    )
    p.add_argument(
        "--yes", action="store_true", help="run tools marked confirm: true without asking"
    )
    p.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="json: print the whole run (answer, steps, calls, results, usage)",
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)
    _intermix(p)


def _intermix(parser: argparse.ArgumentParser) -> None:
    """Let PROMPT come after the options (``chat PATH --model M "question"``).

    Plain argparse binds both positionals at PATH and rejects a later PROMPT;
    intermixed parsing collects positionals wherever they are.
    """
    base = type(parser)

    class Intermixed(base):  # type: ignore[valid-type,misc]
        _nested = False

        def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
            if self._nested:
                return super().parse_known_args(args, namespace)
            self._nested = True
            try:
                return self.parse_known_intermixed_args(args, namespace)
            finally:
                self._nested = False

    parser.__class__ = Intermixed


def run(args: argparse.Namespace) -> int:
    if args.max_iterations < 1:
        raise CliError("--max-iterations must be at least 1")
    if not args.base_url.lower().startswith(("http://", "https://")):
        raise CliError(f"--base-url must start with http:// or https://, got {args.base_url!r}")
    if not args.timeout > 0:
        raise CliError("--timeout must be a positive number of seconds")
    if args.max_retries < 0:
        raise CliError("--max-retries cannot be negative")
    if not args.model.strip():
        raise CliError("--model cannot be empty")
    if args.prompt is not None and not args.prompt.strip():
        raise CliError("no prompt: PROMPT is empty")
    headers = _headers(args.header)
    extra = _extra_body(args.extra_body)
    key_env = args.api_key_env or _KEY_ENV[args.provider]
    if args.api_key_env and not os.environ.get(args.api_key_env):
        raise CliError(f"environment variable {args.api_key_env} is not set (--api-key-env)")
    from ._loading import load_or_exit

    catalog = load_or_exit([args.path], args.ref_root, like_validate=True)
    prompts = _prompts(args.prompt)
    import asyncio

    return asyncio.run(_chat(args, catalog, headers, extra, key_env, prompts))


async def _chat(
    args: argparse.Namespace,
    catalog: Any,
    headers: dict[str, str],
    extra: dict[str, Any],
    key_env: str,
    prompts: Any,
) -> int:
    from toolcat.catalog import UnknownToolError, UnknownToolsetError
    from toolcat.catalog.common import escape_controls
    from toolcat.executor import Executor, ExecutorSettings
    from toolcat.executor.agent import AgentLoop, LoopSettings

    model = _model_client(args, headers, extra, key_env)
    executor = Executor(catalog, ExecutorSettings(confirm=_confirmer(args.yes)))
    streamed = {"any": False}

    def on_text(piece: str) -> None:
        streamed["any"] = True
        if args.format == "text":
            sys.stdout.write(escape_controls(piece, lines=True))
            sys.stdout.flush()

    warned: list[int] = []

    def on_step(step: Any) -> None:
        if not warned:  # the session has started (the model answered): say what calls will miss
            from ._envuses import warn_unset

            warned.append(warn_unset(catalog, prefix="toolcat chat"))
        # Text streamed before tool calls ends its line before the trace and the next turn.
        if step.phase == "model" and step.reply.tool_calls and streamed["any"]:
            if args.format == "text":
                sys.stdout.write("\n")
                sys.stdout.flush()
            streamed["any"] = False
        _trace(step)

    try:
        selection = _selection(args, catalog)
        loop = AgentLoop(
            model,
            executor,
            LoopSettings(
                catalog=catalog,
                tool_selection=selection,
                pinned=() if args.no_catalog_pins else None,
                toolset=args.toolset,
                system=args.system,
                max_iterations=args.max_iterations,
                max_calls_per_turn=args.max_calls_per_turn,
                tool_choice=args.tool_choice,
                search_variant=args.tool_search_variant,
                stream=args.stream,
                on_text=on_text,
                on_step=on_step,
            ),
        )
        _ = loop.offered(args.tool)
        if loop.selection_note:
            print(f"toolcat chat: {loop.selection_note}", file=sys.stderr)
    except (UnknownToolsetError, UnknownToolError, ValueError) as exc:
        await _close(model, executor)
        raise CliError(str(exc)) from exc
    try:
        await _converse(args, loop, prompts, streamed, key_env)
    finally:
        await _close(model, executor)
    return 0


async def _converse(
    args: argparse.Namespace, loop: Any, prompts: Any, streamed: dict[str, bool], key_env: str
) -> None:
    """Each prompt in turn through the loop, the conversation carried on; an answer each."""
    from toolcat.executor.agent import ModelError

    interactive_prompts = args.prompt is None and sys.stdin.isatty()
    history: tuple[Any, ...] = ()
    for prompt in prompts:
        streamed["any"] = False
        try:
            result = await loop.arun(prompt, history=history, tools=args.tool)
        except ModelError as exc:
            hint = ""
            if getattr(exc, "status", None) in (401, 403) and not os.environ.get(key_env):
                hint = f" (no key was sent: {key_env} is not set; see --api-key-env)"
            raise CliError(f"{exc}{hint}", 1) from exc
        except ValueError as exc:
            raise CliError(str(exc)) from exc
        history = result.messages
        _show(args, result, streamed=streamed["any"])
        if interactive_prompts:
            sys.stdout.flush()


def _model_client(
    args: argparse.Namespace, headers: dict[str, str], extra: dict[str, Any], key_env: str
) -> Any:
    """The model client of ``--provider``, with the options both take."""
    from toolcat.executor.agent import AnthropicClient, OpenAIChatClient

    common = {
        "api_key_env": key_env,
        "headers": headers,
        "timeout": args.timeout,
        "max_retries": args.max_retries,
        "extra_body": extra,
        "max_reply_bytes": args.max_reply_bytes,
    }
    if args.provider == "anthropic":
        if args.max_tokens:
            common["max_tokens"] = args.max_tokens
        return AnthropicClient(args.base_url, args.model, **common)
    if args.max_tokens:
        extra.setdefault("max_tokens", args.max_tokens)
    return OpenAIChatClient(args.base_url, args.model, **common)


def _show(args: argparse.Namespace, result: Any, *, streamed: bool) -> None:
    """One prompt's answer: its JSON trace, or the final text (unless it was streamed)."""
    from toolcat.catalog.common import escape_controls

    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2, default=str))
    elif streamed and result.stop_reason != "return_direct":
        print()
    else:
        print(escape_controls(result.final_text, lines=True))
    if result.stop_reason == "max_iterations":
        print(
            f"toolcat chat: stopped at the iteration limit ({args.max_iterations})",
            file=sys.stderr,
        )


def _selection(args: argparse.Namespace, catalog: Any) -> Literal["all", "search", "native-search"]:
    """``--tool-selection``; ``auto`` is search when the tools exceed the provider's limit."""
    from toolcat.executor.providers import limit_warnings, limits

    names = {t.name for t in catalog.toolset(args.toolset)} | set(args.tool)
    limit = limits(args.provider).max_tools  # from the provider registry
    # names the provider refuses; too many tools only when all of them are sent
    every = args.tool_selection == "all"
    for line in limit_warnings(args.provider, sorted(names), count=every):
        print(f"toolcat chat: warning: {line}", file=sys.stderr)
    if args.tool_selection == "native-search":
        if args.provider != "anthropic":
            raise CliError(
                "--tool-selection native-search needs --provider anthropic (the API's own "
                "tool search); use --tool-selection search"
            )
        return "native-search"
    if args.tool_selection in ("all", "search"):
        return "all" if args.tool_selection == "all" else "search"
    if limit is None or len(names) <= limit:
        return "all"
    print(
        f"toolcat chat: {len(names)} tools are more than the {limit} that {args.provider} "
        "accepts in one request: the model gets search_tools (and the --tool tools) and "
        "finds the others; --tool-selection all sends every tool",
        file=sys.stderr,
    )
    return "search"


async def _close(model: Any, executor: Any) -> None:
    await model.aclose()
    await executor.aclose()


def _trace(step: Any) -> None:
    from toolcat.catalog.common import escape_controls

    if step.phase == "model":
        for line in _server_tools(step.reply.message):
            print(escape_controls(line), file=sys.stderr)
        for call in step.reply.tool_calls:
            args = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            print(escape_controls(f"-> {call.name} {_short(args)}"), file=sys.stderr)
        return
    for r in step.results:
        status = f"HTTP {r.status}" if r.status is not None else "not sent"
        line = (
            f"<- {r.call.name} {'ok' if r.ok else 'error'} ({status}, "
            f"{r.elapsed * 1000:.0f} ms): {_short(r.content)}"
        )
        print(escape_controls(line), file=sys.stderr)


def _server_tools(message: Any) -> list[str]:
    """Trace lines for the tools the API ran itself (Anthropic's tool search)."""
    content = message.get("content") if isinstance(message, dict) else None
    lines = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "server_tool_use":
            lines.append(f"-> {block.get('name')} {_short(json.dumps(block.get('input')))} (API)")
        elif block.get("type") == "tool_search_tool_result":
            result = block.get("content")
            result = result if isinstance(result, dict) else {}
            refs = result.get("tool_references")
            if isinstance(refs, list):
                found = [r.get("tool_name", "?") for r in refs if isinstance(r, dict)]
                lines.append(f"<- found {len(found)} tools: {_short(', '.join(found))} (API)")
            else:
                lines.append(f"<- tool search error: {result.get('error_code', '?')} (API)")
    return lines


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."


def _extra_body(raw: str | None) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise CliError(f"--extra-body is not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise CliError("--extra-body must be a JSON object")
    return value


def _headers(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw in values:
        name, sep, value = raw.partition(":")
        if not sep or not name.strip():
            raise CliError(f"--header needs 'NAME: VALUE', got {raw!r}")
        if any(c in raw for c in "\r\n\0"):
            raise CliError("--header values cannot hold CR, LF or NUL")
        out[name.strip()] = value.strip()
    return out


def _prompts(prompt: str | None) -> Any:
    if prompt is not None:
        yield prompt
        return
    if not sys.stdin.isatty():
        from ._inputs import read_stdin

        text = read_stdin("the prompt").strip()
        if not text:
            raise CliError("no prompt: give PROMPT or pipe one on stdin")
        yield text
        return
    print("toolcat chat: type a message; an empty line or Ctrl-D ends", file=sys.stderr)
    while True:
        try:
            line = input("you> ").strip()
        except EOFError:
            print(file=sys.stderr)
            return
        if not line:
            return
        yield line


def _confirmer(yes: bool) -> Any:
    def confirm(call: Any, tool: Any) -> bool:
        from toolcat.catalog.common import escape_controls

        if yes:
            return True
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            return False  # refused: the model is told; --yes allows it
        args = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
        sys.stderr.write(escape_controls(f"run {tool.name} {_short(args)}") + "? [y/N] ")
        sys.stderr.flush()
        try:
            return input().strip().lower() in ("y", "yes")
        except EOFError:
            return False

    return confirm
