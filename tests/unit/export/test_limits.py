"""Provider limits: too many tools or a name the API refuses is a warning, one line each."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog.common import (
    MAX_DESCRIPTION_CHARS,
    OPENAI_MAX_TOOLS,
    PROVIDER_LIMITS,
    TOOL_NAME,
    TOOL_NAME_PATTERN,
)
from toolcat.cli._app import main
from toolcat.cli._cmd_chat import _selection
from toolcat.executor.agent import PROVIDER_TOOL_LIMITS
from toolcat.executor.providers import PROVIDERS, limit_warnings, limits
from toolcat.loader import _pins
from toolcat.loader.openapi import ImportOptions, _import, _text


def _catalog_file(tmp_path: Path, names: list[str]) -> Path:
    tools = "".join(
        f"  - {{name: '{n}', description: Tool {i}., service: s, method: GET, path: /t{i}}}\n"
        for i, n in enumerate(names)
    )
    path = tmp_path / "c.yaml"
    path.write_text(
        "toolcat: 1\nservices:\n  s: {base_url: 'https://api.example'}\ntools:\n" + tools
    )
    return path


def test_every_built_in_provider_states_the_catalogs_limits() -> None:
    assert set(PROVIDER_LIMITS) == set(PROVIDERS)
    for name in PROVIDERS:
        assert limits(name) is PROVIDER_LIMITS[name], name


def test_every_user_of_a_limit_reads_the_one_module() -> None:
    assert MAX_DESCRIPTION_CHARS == 1024 and OPENAI_MAX_TOOLS == 128
    table = [
        (_import.MAX_DESCRIPTION, MAX_DESCRIPTION_CHARS),
        (_text.DEFAULT_DESCRIPTION_MAX, MAX_DESCRIPTION_CHARS),
        (ImportOptions().description_max, MAX_DESCRIPTION_CHARS),
        (_pins.PIN_LIMIT, OPENAI_MAX_TOOLS - 1),
        (PROVIDER_LIMITS["openai"].max_tools, OPENAI_MAX_TOOLS),
        (PROVIDER_TOOL_LIMITS["openai"], OPENAI_MAX_TOOLS),
        (PROVIDER_LIMITS["openai"].name_pattern, TOOL_NAME.pattern),
        (PROVIDER_LIMITS["anthropic"].name_pattern, TOOL_NAME.pattern),
    ]
    assert [got for got, _ in table] == [want for _, want in table]


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("get_order", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("", False),
        ("a.b", False),
        ("a b", False),
        ("a\n", False),
        ("-_9", True),
    ],
)
def test_the_tool_name_rule_reads_the_same_compiled_and_as_json_schema(name: str, ok: bool) -> None:
    assert (TOOL_NAME.match(name) is not None) is ok
    assert (TOOL_NAME.fullmatch(name) is not None) is ok
    # JSON Schema's ``$`` is the very end (ECMA-262): Python's ``\Z``
    assert (re.fullmatch(TOOL_NAME_PATTERN.replace("$", r"\Z"), name) is not None) is ok


def test_the_agent_loops_limits_are_the_registrys() -> None:
    derived = {n: limits(n).max_tools for n in PROVIDERS if limits(n).max_tools is not None}
    assert dict(PROVIDER_TOOL_LIMITS) == {"openai": 128}
    assert derived == {"openai": 128, "openai-responses": 128}
    assert all(derived[n] == v for n, v in PROVIDER_TOOL_LIMITS.items())


@pytest.mark.parametrize(
    ("provider", "name", "ok"),
    [
        ("openai", "a" * 64, True),
        ("openai", "a" * 65, False),
        ("openai", "repos.get", False),
        ("anthropic", "get-thing_2", True),
        ("gemini", "repos.get:v1", True),
        ("gemini", "1st_tool", False),
        ("mcp", "repos.get", True),
        ("mcp", "a" * 129, False),
    ],
)
def test_name_rules(provider: str, name: str, ok: bool) -> None:
    assert limits(provider).name_ok(name) is ok
    assert (limit_warnings(provider, [name]) == []) is ok


def test_schema_warns_once_per_limit_on_stderr(tmp_path: Path, capsys: Any) -> None:
    path = _catalog_file(tmp_path, [f"tool_{i}" for i in range(130)])
    assert main(["schema", str(path), "--provider", "openai", "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "toolcat: warning: openai: 130 tools, and the API takes at most 128 in one request "
        "(pick fewer with --toolset, or let the model search them: toolcat chat "
        "--tool-selection search)"
    ]
    assert main(["schema", str(path), "--provider", "anthropic", "--quiet"]) == 0
    assert capsys.readouterr().err == ""  # no stated count limit


def test_a_name_the_provider_refuses_is_a_warning(tmp_path: Path, capsys: Any) -> None:
    path = _catalog_file(tmp_path, ["_ok", "get_thing", "2fa_enable"])
    assert main(["schema", str(path), "--provider", "openai"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["schema", str(path), "--provider", "gemini", "--quiet"]) == 0
    assert capsys.readouterr().err == (
        "toolcat: warning: gemini: tool name '2fa_enable' is not one the API takes "
        "(a letter or '_' first, then letters, digits, '_', '.', ':' and '-', at most 64 "
        "characters)\n"
    )


def test_chat_warns_about_names_and_counts_only_when_all_are_sent(capsys: Any) -> None:
    names = [f"tool_{i}" for i in range(130)]

    class _Cat:
        def toolset(self, name: str | None) -> list[Any]:
            return [argparse.Namespace(name=n) for n in names]

    args = argparse.Namespace(provider="openai", toolset=None, tool=[], tool_selection="auto")
    assert _selection(args, _Cat()) == "search"
    err = capsys.readouterr().err
    assert "warning" not in err and "search_tools" in err  # auto: searched, not sent
    args.tool_selection = "all"
    assert _selection(args, _Cat()) == "all"
    err = capsys.readouterr().err
    assert err.startswith("toolcat chat: warning: openai: 130 tools")
    names.append("1st.tool")
    args.provider = "gemini"
    _selection(args, _Cat())
    assert capsys.readouterr().err == (
        "toolcat chat: warning: gemini: tool name '1st.tool' is not one the API takes "
        "(a letter or '_' first, then letters, digits, '_', '.', ':' and '-', at most 64 "
        "characters)\n"
    )


def test_chat_defaults_are_the_agents() -> None:
    """`toolcat chat` writes the agent's defaults out so that other commands need not import it."""
    from toolcat.cli import _cmd_chat
    from toolcat.executor.agent import MAX_CALLS_PER_TURN, MAX_REPLY_BYTES

    assert _cmd_chat.MAX_REPLY_BYTES == MAX_REPLY_BYTES
    assert _cmd_chat.MAX_CALLS_PER_TURN == MAX_CALLS_PER_TURN
