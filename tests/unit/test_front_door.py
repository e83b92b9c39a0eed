"""The front door: toolcat.load, the env a catalog carries, and the names an app uses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import toolcat
import toolcat.loader

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"


def test_load_returns_a_catalog_and_its_env_reaches_the_executor() -> None:
    catalog = toolcat.load(DEMO, env={"WAREHOUSE_URL": "http://warehouse.test:9"})
    assert isinstance(catalog, toolcat.Catalog)
    assert catalog.env == {"WAREHOUSE_URL": "http://warehouse.test:9"}
    with toolcat.Executor(catalog) as executor:
        request = executor.prepare(toolcat.ToolCall("get_item", {"sku": "W-BLUE-01"}))
    assert not isinstance(request, toolcat.ToolResult), request
    assert request.url.startswith("http://warehouse.test:9/")


def test_the_executor_s_own_env_wins_over_the_catalog_s() -> None:
    catalog = toolcat.load(DEMO, env={"WAREHOUSE_URL": "http://catalog.test:9"})
    with toolcat.Executor(
        catalog, toolcat.ExecutorSettings(env={"WAREHOUSE_URL": "http://mine.test:9"})
    ) as executor:
        request = executor.prepare(toolcat.ToolCall("get_item", {"sku": "W-BLUE-01"}))
    assert not isinstance(request, toolcat.ToolResult), request
    assert request.url.startswith("http://mine.test:9/")


def test_load_raises_catalog_error_with_every_diagnostic(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("toolcat: 1\ntools:\n  - name: a\n  - name: b\n")
    with pytest.raises(toolcat.CatalogError) as caught:
        toolcat.load(broken)
    assert isinstance(caught.value, toolcat.ToolcatError)
    assert len(caught.value.diagnostics) >= 2
    assert all(isinstance(d, toolcat.Diagnostic) for d in caught.value.diagnostics)


def test_load_needs_a_path_and_a_missing_one_is_a_toolcat_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        toolcat.load()
    with pytest.raises(toolcat.ToolcatError):
        toolcat.load(tmp_path / "absent.yaml")


LOADS = [toolcat.load, toolcat.loader.load]


@pytest.mark.parametrize("load", LOADS, ids=["toolcat.load", "toolcat.loader.load"])
@pytest.mark.parametrize(
    "given",
    [
        pytest.param(lambda: str(DEMO), id="a path"),
        pytest.param(lambda: DEMO, id="a Path"),
        pytest.param(lambda: [str(DEMO)], id="a list"),
        pytest.param(lambda: (DEMO,), id="a tuple"),
        pytest.param(lambda: (path for path in [DEMO]), id="a generator"),
    ],
)
def test_load_takes_a_path_or_one_list_of_them(load: Any, given: Any) -> None:
    assert [t.name for t in load(given())] == [t.name for t in toolcat.load(DEMO)]


@pytest.mark.parametrize("load", LOADS, ids=["toolcat.load", "toolcat.loader.load"])
def test_load_takes_several_paths_as_arguments_or_in_one_list(load: Any, tmp_path: Path) -> None:
    extra = tmp_path / "extra.yaml"
    extra.write_text(
        "toolcat: 1\nservices:\n  x: {base_url: 'https://x.test'}\n"
        "tools:\n  - {name: ping_x, description: Ping., service: x, method: GET, path: /ping}\n"
    )
    assert "ping_x" in load(DEMO, extra) and "get_item" in load(DEMO, extra)
    assert [t.name for t in load([DEMO, str(extra)])] == [t.name for t in load(DEMO, extra)]


@pytest.mark.parametrize("load", LOADS, ids=["toolcat.load", "toolcat.loader.load"])
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "load() needs at least one catalog path"),
        (([],), "load() needs at least one catalog path"),
        ((42,), "load() takes catalog paths (str or os.PathLike) or one list of them, not int"),
        (
            (b"examples",),
            "load() takes catalog paths (str or os.PathLike) or one list of them, not bytes",
        ),
        (
            ({"a": 1},),
            "load() takes catalog paths (str or os.PathLike) or one list of them, not dict",
        ),
        (
            ([DEMO, 3],),
            "load(): path 2 has type int; give str or os.PathLike paths, or one list of them",
        ),
        (
            ([DEMO], [DEMO]),
            "load(): path 1 has type list; give str or os.PathLike paths, or one list of them",
        ),
    ],
)
def test_anything_else_is_a_type_error_that_says_what_load_takes(
    load: Any, args: tuple[Any, ...], message: str
) -> None:
    with pytest.raises(TypeError) as caught:
        load(*args)
    assert str(caught.value) == message


@pytest.mark.parametrize("name", ["openai", "openai-responses", "anthropic", "gemini", "mcp"])
def test_provider_gives_the_three_conversions(name: str) -> None:
    provider = toolcat.provider(name)
    assert isinstance(provider, toolcat.Provider)
    exported = provider.tools(toolcat.load(DEMO), toolset="warehouse_readonly")
    assert exported.tools and callable(provider.parse_calls) and callable(provider.format_result)


def test_an_unknown_provider_is_a_toolcat_error() -> None:
    with pytest.raises(toolcat.ToolcatError, match="nope"):
        toolcat.provider("nope")


def test_the_executor_is_an_async_context_manager_too() -> None:
    async def run() -> toolcat.ToolResult:
        async with toolcat.Executor(toolcat.load(DEMO)) as executor:
            [result] = await executor.aexecute_many([toolcat.ToolCall("nope", {})])
        return result

    result = asyncio.run(run())
    assert not result.ok and "unknown" in result.content
