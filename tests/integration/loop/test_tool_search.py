"""Tool search in the loop: the model searches GitHub's 1,223 tools, finds one and calls it.

A scripted model over real sockets, a loopback server standing in for the GitHub API; no
request may carry more than the provider's limit of 128 tools.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from toolcat.catalog import Catalog
from toolcat.executor import Executor, ExecutorSettings
from toolcat.executor.agent import (
    PROVIDER_TOOL_LIMITS,
    AgentLoop,
    LoopResult,
    LoopSettings,
    OpenAIChatClient,
)
from toolcat.loader import load_catalog
from toolcat.testing import BackgroundServer, ScriptedModel, ScriptedTurn


@pytest.fixture(scope="module")
def github_yaml(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("github")
    spec = corpus_dir / "github-api.github.com.json"
    (folder / "github.yaml").write_text(
        "toolcat: 1\nservices:\n  github:\n    base_url: ${GH_URL}\n"
        f"openapi:\n  - spec: {json.dumps(str(spec))}\n    service: github\n",
        encoding="utf-8",
    )
    return folder / "github.yaml"


@pytest.fixture(scope="module")
def github(github_yaml: Path) -> Catalog:
    result = load_catalog([str(github_yaml)], progress=False)
    assert result.catalog is not None
    assert len(result.catalog) == 1223
    return result.catalog


@pytest.fixture
def fake_github() -> Iterator[tuple[list[str], str]]:
    seen: list[str] = []

    async def anything(request: Request) -> JSONResponse:
        seen.append(f"{request.method} {request.url.path}")
        return JSONResponse([{"number": 7, "title": "Crash on start"}])

    app = Starlette(routes=[Route("/{path:path}", anything, methods=["GET", "POST"])])
    with BackgroundServer(app) as server:
        yield seen, server.url


def tool_names(body: Mapping[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def run(
    catalog: Catalog, url: str, turns: list[Any], **loop_kw: Any
) -> tuple[LoopResult, ScriptedModel]:
    scripted = ScriptedModel(turns)
    with BackgroundServer(scripted.app) as endpoint:

        async def go() -> LoopResult:
            client = OpenAIChatClient(endpoint.url + "/v1", "m", api_key_env=None, backoff=0.01)
            executor = Executor(catalog, ExecutorSettings(env={"GH_URL": url}))
            try:
                loop = AgentLoop(client, executor, LoopSettings(catalog=catalog, **loop_kw))
                return await loop.arun("Which issues are open in octo/hello?")
            finally:
                await client.aclose()
                await executor.aclose()

        return asyncio.run(go()), scripted


def test_search_find_and_call_among_1223_tools(
    github: Catalog, fake_github: tuple[list[str], str]
) -> None:
    seen, url = fake_github

    def call_found(body: Mapping[str, Any]) -> ScriptedTurn:
        assert "issues_list-for-repo" in tool_names(body)  # the found tool joined the list
        return ScriptedTurn(
            tool_calls=[
                {"name": "issues_list-for-repo", "arguments": {"owner": "octo", "repo": "hello"}}
            ]
        )

    turns = [
        ScriptedTurn(
            tool_calls=[
                {"name": "search_tools", "arguments": {"query": "list issues of a repository"}}
            ]
        ),
        call_found,
        ScriptedTurn(text="One open issue: #7 Crash on start."),
    ]
    result, scripted = run(github, url, turns, tool_selection="search", pinned=["meta_root"])
    assert result.stop_reason == "final_answer"
    assert seen == ["GET /repos/octo/hello/issues"]
    sizes = [len(tool_names(r.body)) for r in scripted.requests]
    assert max(sizes) <= PROVIDER_TOOL_LIMITS["openai"] == 128
    assert tool_names(scripted.requests[0].body) == ["meta_root", "search_tools"]
    found = json.loads(result.steps[0].results[0].content)
    assert "issues_list-for-repo" in [t["name"] for t in found["tools"]]


def test_the_found_tools_never_exceed_the_limit(
    github: Catalog, fake_github: tuple[list[str], str]
) -> None:
    """Forty searches of 20 tools each: the oldest found tools leave, at most max_tools stay."""
    _, url = fake_github
    words = ["repository", "issue", "pull", "gist", "team", "user", "workflow", "package"]
    turns: list[Any] = [
        ScriptedTurn(
            tool_calls=[
                {"name": "search_tools", "arguments": {"query": f"{w} {i}", "limit": 20}}
                for i, w in enumerate(words)
            ]
        )
        for _ in range(5)
    ] + [ScriptedTurn(text="done")]
    result, scripted = run(
        github, url, turns, tool_selection="search", max_tools=30, max_iterations=10
    )
    assert result.stop_reason == "final_answer"
    sizes = [len(tool_names(r.body)) for r in scripted.requests]
    assert sizes[0] == 1
    assert max(sizes) == 30


def test_all_mode_still_sends_every_tool(
    github: Catalog, fake_github: tuple[list[str], str]
) -> None:
    _, url = fake_github
    small = github.subset([t.name for t in github][:5])
    _, scripted = run(small, url, [ScriptedTurn(text="hi")])
    assert len(tool_names(scripted.requests[0].body)) == 5


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"tool_selection": "some"}, "tool_selection must be 'all' or 'search'"),
        ({"tool_selection": "search", "pinned": ["nope"]}, "unknown tool 'nope'"),
        (
            {"tool_selection": "search", "pinned": ["meta_root", "meta_get"], "max_tools": 2},
            "2 pinned tools and search_tools are more than the 2 tools",
        ),
    ],
)
def test_bad_selection_settings(github: Catalog, kw: dict[str, Any], message: str) -> None:
    client = OpenAIChatClient("http://127.0.0.1:9/v1", "m", api_key_env=None)
    with pytest.raises(Exception, match=message):
        AgentLoop(client, Executor(github), LoopSettings(catalog=github, **kw))


def chat(catalog: str, args: list[str], turns: list[Any], url: str) -> tuple[Any, ScriptedModel]:
    scripted = ScriptedModel(turns)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"GH_URL": url, "WAREHOUSE_URL": url})
    with BackgroundServer(scripted.app) as endpoint:
        argv = [sys.executable, "-m", "toolcat.cli", "chat", catalog, "Which issues are open?"]
        argv += ["--base-url", endpoint.url + "/v1", "--model", "m", *args]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    return proc, scripted


def test_chat_chooses_search_by_itself_over_the_limit(
    github_yaml: Path, fake_github: tuple[list[str], str]
) -> None:
    seen, url = fake_github
    turns = [
        ScriptedTurn(tool_calls=[{"name": "search_tools", "arguments": {"query": "list issues"}}]),
        ScriptedTurn(text="Found them."),
    ]
    proc, scripted = chat(str(github_yaml), ["--tool", "meta_root"], turns, url)
    assert proc.returncode == 0, proc.stderr
    assert "1223 tools are more than the 128 that openai accepts" in proc.stderr
    assert tool_names(scripted.requests[0].body) == ["meta_root", "search_tools"]
    assert 2 < len(tool_names(scripted.requests[1].body)) <= 128
    assert proc.stdout.strip() == "Found them."


@pytest.mark.parametrize(
    "args, first",
    [
        (["--tool-selection", "search", "--tool", "get_item"], ["get_item", "search_tools"]),
        ([], None),  # auto under the limit: every tool, no note
    ],
)
def test_chat_selection_on_a_small_catalog(
    repo_root: Path, fake_github: tuple[list[str], str], args: list[str], first: list[str] | None
) -> None:
    _, url = fake_github
    proc, scripted = chat(
        str(repo_root / "examples" / "demo"), args, [ScriptedTurn(text="ok")], url
    )
    assert proc.returncode == 0, proc.stderr
    names = tool_names(scripted.requests[0].body)
    if first is None:
        assert "search_tools" not in names and len(names) > 2
        assert "tools are more than" not in proc.stderr
    else:
        assert names == first
