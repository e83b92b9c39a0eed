"""Tool search: tokens, BM25F ranking, the catalog's lazy index, and bad input in bounded time."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from toolcat.catalog import Catalog, HttpCommand, Service, ToolDefinition
from toolcat.catalog.common import freeze
from toolcat.catalog.search import MAX_QUERY_CHARS, SearchIndex, tokenize
from toolcat.catalog.search._search import NUMBER_WEIGHT
from toolcat.tests.support import http_command


def tool(
    name: str, description: str, params: dict[str, str] | None = None, **kw: Any
) -> ToolDefinition:
    props = {k: {"type": "string", "description": v} for k, v in (params or {}).items()}
    return ToolDefinition(
        name=name,
        description=description,
        input_schema=freeze({"type": "object", "properties": props}),
        command=HttpCommand(service=kw.pop("service", "svc"), method="GET", path=f"/{name}"),
        **kw,
    )


def catalog(*tools: ToolDefinition, toolsets: dict[str, list[str]] | None = None) -> Catalog:
    services = {http_command(t).service for t in tools} or {"svc"}
    return Catalog(tools, [Service(s, "http://127.0.0.1:9") for s in services], toolsets)


SMALL = catalog(
    tool("repos_list_for_user", "List public repositories for the specified user."),
    tool("issues_create", "Create an issue in a repository.", {"title": "The title of the issue"}),
    tool("issues_list", "List issues assigned to the authenticated user across all repositories."),
    tool("getWeatherForecast", "Weather forecast for a city and a date.", {"city": "City name"}),
    tool("delete_repo", "Deleting a repository requires admin access.", tags=("danger",)),
    tool("send_sms", "Text message to a phone number.", service="telephony"),
    toolsets={"weather": ["getWeatherForecast"]},
)


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("getRepoIssues", ["get", "repo", "issues"]),
        ("repos_list_for_user", ["repos", "list", "for", "user"]),
        ("api.v2.users", ["api", "v", "2", "users"]),
        ("HTTPStatusCode", ["http", "status", "code"]),
        ("oauth2Token", ["oauth", "2", "token"]),
        ("listURLs", ["list", "urls"]),  # a plural acronym stays one word
        ("getIDsForUser", ["get", "ids", "for", "user"]),
        ("OSStatus HTTPSServer", ["os", "status", "https", "server"]),
        ("Café Über", ["cafe", "uber"]),
        ("查询天气", ["查", "询", "天", "气"]),
        ("", []),
        ("!!! --- ...", []),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(
    "query, best",
    [
        ("list the repos of a user", "repos_list_for_user"),
        ("open a new issue", "issues_create"),  # "new" is in the create family
        ("what will the weather be in Paris", "getWeatherForecast"),  # camelCase name
        ("forecasting", "getWeatherForecast"),  # stems: forecasting -> forecast
        ("remove a repository", "delete_repo"),  # remove ~ delete (general verbs)
        ("danger", "delete_repo"),  # tags
        ("telephony", "send_sms"),  # service
        ("the issue TITLE", "issues_create"),  # parameter descriptions, any case
    ],
)
def test_best_match(query: str, best: str) -> None:
    assert SMALL.search(query, top=1)[0].name == best


def test_numbers_are_values_not_names() -> None:
    """A number in a request (3 people) barely counts: it does not pick a tool's version."""
    buses = catalog(
        tool("Buses_3_FindBus", "Find a bus journey between two cities."),
        tool("Buses_2_FindBus", "Find a bus journey for a group of people between two cities."),
    )
    terms = buses.search_index.query_terms("a bus for 3 people in 5000 ways")
    assert terms["3"] == terms["5000"] == NUMBER_WEIGHT
    assert "500" not in terms  # a number has no abbreviation (nor synonyms)
    assert [h.name for h in buses.search("a bus for 3 people")][0] == "Buses_2_FindBus"
    # a number alone still finds the tool that names it
    assert [h.name for h in buses.search("3")] == ["Buses_3_FindBus"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("what is my user name", "get_username"),  # the catalog's one word for two
        ("rules of the board game", "boardgame_play"),
        ("user", "list_users"),  # one word alone is not a compound
    ],
)
def test_two_words_written_as_one(query: str, expected: str) -> None:
    words = catalog(
        tool("get_username", "Look up the login handle of an account."),
        tool("list_users", "List the accounts of a team."),
        tool("boardgame_play", "Start a round."),
    )
    assert [h.name for h in words.search(query)][0] == expected


def test_arguments_behind_refs_and_alternatives_are_indexed() -> None:
    schema = {
        "type": "object",
        "properties": {
            "amount": {"anyOf": [{"$ref": "#/$defs/Money"}, {"type": "null"}]},
            "node": {"$ref": "#/$defs/Node"},  # refers to itself: indexing ends
        },
        "$defs": {
            "Money": {"properties": {"currency": {"type": "string", "enum": ["EUR", "JPY"]}}},
            "Node": {"properties": {"child": {"$ref": "#/$defs/Node"}}},
        },
    }
    pay = ToolDefinition(
        name="pay",
        description="Pay an invoice.",
        input_schema=freeze(schema),
        command=HttpCommand(service="svc", method="POST", path="/pay"),
    )
    both = catalog(pay, tool("refund", "Refund an invoice."))
    assert [h.name for h in both.search("currency")] == ["pay"]
    assert [h.name for h in both.search("in yen (JPY)")] == ["pay"]
    assert [h.name for h in both.search("child")] == ["pay"]


def test_ranking_is_ordered_rounded_and_stable() -> None:
    hits = SMALL.search("list repositories issues", top=10)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(round(s, 6) == s for s in scores)
    assert [h.name for h in hits] == [h.name for h in SMALL.search("list repositories issues")]


def test_ties_keep_catalog_order() -> None:
    twins = catalog(tool("b_tool", "Same words."), tool("a_tool", "Same words."))
    assert [h.name for h in twins.search("same words")] == ["b_tool", "a_tool"]


@pytest.mark.parametrize("top", [1, 3, 10, 99, 500])
def test_the_top_is_the_start_of_the_whole_ranking(top: int) -> None:
    """Only tools that can reach the top are sorted: the answer is still the full order's start."""
    words = "order invoice refund user repo".split()
    many = catalog(
        *(
            tool(f"t{i}", " ".join(words[j] for j in range(5) if (i >> j) & 1) or "none")
            for i in range(300)  # every subset of the five words, ten times: many ties
        )
    )
    for query in ("order refund", "user repo invoice order", "refund"):
        whole = many.search(query, top=1000)
        assert many.search(query, top=top) == whole[:top]


def test_top_and_toolset_limit_the_answer() -> None:
    assert len(SMALL.search("list", top=1)) == 1
    assert SMALL.search("list", top=0) == []
    assert [h.name for h in SMALL.search("list issues", toolset="weather")] == []
    assert SMALL.search("weather", toolset="weather")[0].name == "getWeatherForecast"


def test_the_index_is_built_once_on_first_search() -> None:
    fresh = catalog(tool("a", "alpha"))
    assert fresh._search_index is None  # loading a catalog builds nothing
    fresh.search("alpha")
    first = fresh.search_index
    fresh.search("beta")
    assert fresh.search_index is first


def test_to_dict_is_json_and_scores_like_search() -> None:
    """What a browser receives: summing the postings of the query terms gives the same scores."""
    index = SMALL.search_index
    doc = json.loads(json.dumps(index.to_dict()))
    terms = index.query_terms("list issues for a user")
    scores: dict[int, float] = {}
    for term, weight in terms.items():
        flat = doc["postings"].get(term, [])
        for pos, s in zip(flat[::2], flat[1::2], strict=True):
            scores[pos] = scores.get(pos, 0.0) + weight * s
    best = max(scores, key=lambda p: (scores[p], -p))
    assert doc["tools"][best] == index.search("list issues for a user", top=1)[0].name


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "a" * 100_000,
        " ".join(f"w{i}x" for i in range(20_000)),
        "天气预报 北京 明天",
        "météo à Zürich, s'il vous plaît",
        "\x00\x1b[31m\u202e",
        "the of and to",  # only stop words
    ],
)
def test_bad_queries_answer_quickly(query: str) -> None:
    started = time.perf_counter()
    hits = SMALL.search(query, top=5)
    assert time.perf_counter() - started < 1.0
    assert all(h.score > 0 for h in hits)


def test_a_long_query_reads_only_its_start() -> None:
    long = "x " * MAX_QUERY_CHARS + "weather"
    assert SMALL.search(long) == []


def test_one_tool_catalog() -> None:
    one = catalog(tool("only", "The only tool."))
    assert [h.name for h in one.search("only tool")] == ["only"]
    assert one.search("nothing here") == []


def test_empty_catalog() -> None:
    assert catalog().search("anything") == []
    assert len(SearchIndex.build([])) == 0


def test_25000_tools_in_bounded_time() -> None:
    words = "account invoice order user repo issue payment file report ticket".split()
    many = catalog(
        *(
            tool(
                f"{words[i % 10]}_{words[(i // 10) % 10]}_op{i}",
                f"Operation {i} on the {words[i % 10]} of a {words[(i // 7) % 10]}.",
                {"id": f"The {words[(i // 3) % 10]} id"},
            )
            for i in range(25_000)
        )
    )
    started = time.perf_counter()
    assert len(many.search_index) == 25_000
    assert time.perf_counter() - started < 60  # about 5 s on a busy 2-core VM
    started = time.perf_counter()
    hits = many.search("invoice for a user account", top=10)
    assert time.perf_counter() - started < 2.0
    assert len(hits) == 10


def test_loading_and_listing_import_no_search_code() -> None:
    """`toolcat list` starts as before: the index and search_tools modules load on use."""
    import subprocess
    import sys

    code = (
        "import sys, io, contextlib; import toolcat.catalog; from toolcat.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['list', 'examples/demo'])\n"
        "print(sorted(m for m in sys.modules if m.endswith(('catalog.search._search', "
        "'executor._toolsearch')) or 'snowball' in m))"
    )
    repo = __import__("pathlib").Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, check=True
    )
    assert out.stdout.strip() == "[]"  # toolcat.cli._cmd_search, like every command, is loaded
