"""`toolcat test` on the examples of MCP tools: offline, through the MCP transport's own
argument mapping and result shaping, with the upstream's answer recorded in the example."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.catalog import (
    Catalog,
    FrozenDict,
    McpCommand,
    McpUpstream,
    ToolDefinition,
    ToolExample,
)
from toolcat.catalog.common import freeze
from toolcat.cli._examples import run_examples

SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["q"],
}


def catalog(*examples: ToolExample) -> Catalog:
    tool = ToolDefinition(
        name="docs_search",
        description="Search the docs.",
        input_schema=freeze(SCHEMA),
        command=McpCommand(
            "docs",
            "search",
            "sha256:" + "0" * 64,
            arguments=FrozenDict({"q": "query"}),
            fixed=FrozenDict({"site": "main"}),
        ),
        examples=examples,
    )
    # the command names a program that does not exist: nothing may start it
    upstream = McpUpstream("docs", command=("toolcat-test-no-such-upstream",))
    return Catalog([tool], [], mcp_servers=[upstream])


def example(**fields: Any) -> ToolExample:
    frozen = {k: freeze(v) if k in ("request", "response") else v for k, v in fields.items()}
    return ToolExample(
        arguments=freeze(fields.pop("arguments", {"q": "cats"})),
        **{k: v for k, v in frozen.items() if k != "arguments"},
    )


TEXT = {"content": [{"type": "text", "text": "3 pages about cats"}]}


@pytest.mark.parametrize(
    ("fields", "codes"),
    [
        ({"request": {"query": "cats", "site": "main"}, "response": TEXT}, []),
        ({"response": TEXT, "result": "3 pages about cats"}, []),
        ({"request": {"query": "cats"}, "response": TEXT}, ["TC066"]),  # fixed site missing
        ({"response": TEXT, "result": "2 pages"}, ["TC067"]),
        (
            {
                "response": {
                    "content": [{"type": "text", "text": '{"hits": 3}'}],
                    "structuredContent": {"hits": 3},
                },
                "result": {"hits": 3},
            },
            [],
        ),
        (
            {"response": {"content": [{"type": "text", "text": "quota"}], "isError": True}},
            [],
        ),
        ({"response": {"content": "not a list"}}, ["TC069"]),
        ({"arguments": {"n": 1}, "request": {"n": 1}}, ["TC066"]),  # q is required
    ],
)
def test_mcp_examples_run_offline(fields: dict[str, Any], codes: list[str]) -> None:
    outcomes = run_examples(catalog(example(**fields)), {})
    assert [d.code for o in outcomes for d in o.diagnostics] == codes


def test_an_upstream_error_reaches_the_model_as_an_error_it_can_read() -> None:
    failing = {"content": [{"type": "text", "text": "rate limited"}], "isError": True}
    outcome = run_examples(catalog(example(response=failing, result="x")), {})[0]
    (diag,) = outcome.diagnostics
    assert diag.code == "TC067"
    assert "upstream_error" in outcome.diff and "rate limited" in outcome.diff


def test_a_request_that_differs_shows_a_diff_of_the_upstream_arguments() -> None:
    outcome = run_examples(catalog(example(request={"query": "dogs", "site": "main"})), {})[0]
    assert outcome.diagnostics[0].code == "TC066"
    assert '-  "query": "dogs"' in outcome.diff and '+  "query": "cats"' in outcome.diff


CATALOG = """\
toolcat: 1
mcp_servers:
  docs: {command: [toolcat-test-no-such-upstream]}
tools:
  - name: docs_search
    description: Search the docs.
    mcp:
      server: docs
      tool: search
      pin: "sha256:0000000000000000000000000000000000000000000000000000000000000000"
      arguments: {query: q}
      fixed: {site: main}
    parameters:
      query: {type: string, description: Words to look for.}
    examples:
      - name: finds pages
        arguments: {query: cats}
        request: {q: cats, site: main}
        response:
          content: [{type: text, text: 3 pages about cats}]
        result: 3 pages about cats
      - name: structured
        arguments: {query: dogs}
        response:
          content: [{type: text, text: '{"hits": 2}'}]
          structuredContent: {hits: 2}
        result: {hits: 2}
"""


def test_toolcat_test_runs_the_examples_a_catalog_file_carries(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolcat.cli import main

    path = tmp_path / "docs.yaml"
    path.write_text(CATALOG, encoding="utf-8")
    assert main(["validate", str(path)]) == 0, capsys.readouterr()
    assert main(["test", str(path)]) == 0, capsys.readouterr()
    path.write_text(CATALOG.replace("result: 3 pages about cats", "result: 2 pages"))
    capsys.readouterr()
    assert main(["test", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "TC067" in out + err and "finds pages" in out + err
