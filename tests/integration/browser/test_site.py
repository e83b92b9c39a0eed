"""The catalog browser (`toolcat docs`) in headless Chromium, opened from file://.

Needs a Chromium executable (Debian's ``chromium``; or ``TOOLCAT_CHROMIUM``) and
Playwright for Python (the ``test`` extra); the tests skip with the reason otherwise.
Playwright drives that executable: ``playwright install`` is never needed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import Catalog
from toolcat.cli import main
from toolcat.loader import load_catalog
from toolcat.tests.support import http_command, synthetic_catalog

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python missing")
#: Playwright's assertions wait for a locator's state without evaluating a string in the
#: page: the site's CSP (script-src 'self') refuses eval, so ``wait_for_function`` fails
#: whenever its condition is not already true at the first look.
expect = sync_api.expect

EVIL = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & "quotes"'
#: Requests of different kinds (verbs, nouns, abbreviations, stop words, non-ASCII).
QUERIES = [
    "list open issues",
    "create a pull request",
    "delete a repository",
    "get the contents of a file",
    "star a gist",
    "who is the authenticated user",
    "add a label to an issue",
    "repositories of an organization",
    "workflow runs for a repo",
    "update branch protection",
    "search code",
    "listReposForOrg",
    "GPG keys 2FA",
    "what is my user name",  # a compound of the catalog ("username"), sharded
    "the 2 latest releases of 3 repos",  # numbers weigh little, and have no prefixes
    "listURLs of webhooks",
    "café naïve résumé",
    "列出 issues",
    "",
    "the and of",
    "x" * 5000,
]


def chromium_path() -> str:
    path = os.environ.get("TOOLCAT_CHROMIUM") or next(
        filter(None, (shutil.which(n) for n in ("chromium", "chromium-browser"))), None
    )
    if not path:
        pytest.skip("no Chromium executable (install Debian's chromium or set TOOLCAT_CHROMIUM)")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert errors == [], errors  # no script error on any page


def build(catalog: Path, out: Path) -> Path:
    assert main(["docs", str(catalog), "-o", str(out)]) == 0
    return out


def open_site(page: Any, url: str) -> float:
    """Open ``url`` and wait until the page script has run; the ready time in ms."""
    page.goto(url)
    page.wait_for_selector("html[data-ready]", state="attached")
    return float(page.get_attribute("html", "data-ready"))


def settle(page: Any) -> None:
    """Wait until the list shows what the controls ask for (its data may still be loading)."""
    page.wait_for_selector("#tools:not([aria-busy])", state="attached")


def visible_names(page: Any) -> list[str]:
    """The names on the page of the list shown now."""
    settle(page)
    names: list[str] = page.eval_on_selector_all(
        "#tools li:not([hidden]) .name", "els => els.map(e => e.textContent)"
    )
    return names


def next_page(page: Any) -> None:
    """Follow the pager's "next" link: a static list page, or the script's after a search."""
    where = page.text_content("#pager .where")
    if (page.get_attribute("#pager a[rel=next]", "href") or "").startswith("#"):
        page.click("#pager a[rel=next]")
        expect(page.locator("#pager .where")).not_to_have_text(where or "")
    else:
        with page.expect_navigation():
            page.click("#pager a[rel=next]")
        page.wait_for_selector("html[data-ready]", state="attached")


def all_names(page: Any) -> list[str]:
    """The names on every page of the list, from the page shown now to the last, in order."""
    names = visible_names(page)
    while page.locator("#pager:not([hidden]) a[rel=next]").count():
        next_page(page)
        names += visible_names(page)
    return names


def search(page: Any, query: str) -> None:
    page.fill("#q", query)
    page.press("#q", "Enter")
    settle(page)


def js_ranking(page: Any, queries: list[str]) -> list[list[str]]:
    ranked: list[list[str]] = page.evaluate(
        "async qs => { const out = [];"  # each query loads the parts of the index it needs
        " for (const q of qs) out.push((await window.toolcatSearch(q, 10)).map(h => h.name));"
        " return out; }",
        queries,
    )
    return ranked


# -- a small catalog, always (when Chromium is there) --------------------------------


@pytest.fixture(scope="module")
def small_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Catalog]:
    folder = tmp_path_factory.mktemp("small")
    path = folder / "shop.yaml"
    path.write_text(
        "toolcat: 1\nservices:\n  shop:\n    base_url: http://127.0.0.1:9\n"
        "  billing:\n    base_url: http://127.0.0.1:9\n"
        "tools:\n"
        f"  - name: evil_tool\n    description: {json.dumps(EVIL)}\n    service: shop\n"
        "    method: DELETE\n    path: /items/{sku}\n    confirm: true\n"
        "    annotations: {destructive: true}\n"
        f"    parameters:\n      sku: {{type: string, description: {json.dumps(EVIL)}}}\n"
        "    tags: [danger]\n"
        "  - name: list_items\n    description: List the items in stock.\n    service: shop\n"
        "    method: GET\n    path: /items\n    annotations: {read_only: true}\n"
        "    tags: [inventory, stock]\n"
        "  - name: get_item\n    description: Fetch one item by its SKU.\n    service: shop\n"
        "    method: GET\n    path: /items/{sku}\n"
        "    parameters:\n      sku: {type: string, description: The SKU}\n"
        "    tags: [inventory]\n"
        "  - name: refund_payment\n    description: Refund a payment to the customer.\n"
        "    service: billing\n    method: POST\n    path: /refunds\n"
        "    parameters:\n      payment: {type: string, description: The payment id}\n"
        "    body:\n      payment: '{{ payment }}'\n"
        "toolsets:\n  readonly: [list_items, get_item]\n",
        encoding="utf-8",
    )
    out = build(path, folder / "site")
    catalog = load_catalog([str(path)], progress=False).catalog
    assert catalog is not None
    return out, catalog


def test_search_filter_and_tool_page(page: Any, small_site: tuple[Path, Catalog]) -> None:
    out, catalog = small_site
    open_site(page, (out / "index.html").as_uri())
    assert len(visible_names(page)) == 4
    search(page, "fetch an item")
    expected = [h.name for h in catalog.search("fetch an item")]
    expect(page.locator("#count")).to_have_text(re.compile(f"^{len(expected)} of"))
    assert visible_names(page) == expected
    page.select_option("select[data-filter=toolset]", "readonly")
    assert visible_names(page) == [n for n in expected if n in catalog.toolsets["readonly"]]
    search(page, "")
    page.select_option("select[data-filter=toolset]", "")
    page.select_option("select[data-filter=service]", "billing")
    assert visible_names(page) == ["refund_payment"]
    page.select_option("select[data-filter=service]", "")
    page.select_option("select[data-filter=method]", "GET")
    page.select_option("select[data-filter=tag]", "inventory")
    assert visible_names(page) == ["list_items", "get_item"]
    page.select_option("select[data-filter=tag]", "stock")  # a second tag of one tool
    assert visible_names(page) == ["list_items"]
    page.select_option("select[data-filter=tag]", "inventory")
    page.click("text=get_item")
    page.wait_for_selector("html[data-ready]", state="attached")
    assert page.text_content("h1 .name") == "get_item"
    assert "Fetch one item" in page.text_content("#description")
    assert page.is_visible("#panel-openai") and not page.is_visible("#panel-anthropic")
    page.click("#tab-anthropic")
    assert page.is_visible("#panel-anthropic") and not page.is_visible("#panel-openai")
    assert '"input_schema"' in page.text_content("#panel-anthropic pre")
    assert "shop.yaml:" in page.text_content("#source")


def test_catalog_text_never_runs(page: Any, small_site: tuple[Path, Catalog]) -> None:
    out, _ = small_site
    open_site(page, (out / "index.html").as_uri())
    search(page, "pwned script")
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert EVIL[:40] in page.text_content("#tools")
    open_site(page, (out / "tools" / "evil_tool.html").as_uri())
    page.wait_for_timeout(200)  # an onerror would have fired by now
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.text_content("#description") == EVIL  # shown literally
    assert page.locator("main img").count() == 0
    assert "destructive" in page.text_content("main") and "confirm" in page.text_content("main")


def test_search_ranks_like_the_catalog_small(page: Any, small_site: tuple[Path, Catalog]) -> None:
    out, catalog = small_site
    open_site(page, (out / "index.html").as_uri())
    queries = ["refund", "items in stock", "get item sku", "fetching", "zzz", ""]
    assert js_ranking(page, queries) == [[h.name for h in catalog.search(q)] for q in queries]


#: One tool per step of the query's reading (docs/search.md): numbers, compounds, acronyms.
WORDS_CATALOG = """toolcat: 1
services:
  svc: {base_url: "http://127.0.0.1:9"}
tools:
  - {name: Buses_3_FindBus, description: Find a bus journey., service: svc, method: GET, path: /b3}
  - name: Buses_2_FindBus
    description: Find a bus journey for a group of people.
    service: svc
    method: GET
    path: /b2
  - {name: get_username, description: The login handle of an account., service: svc,
     method: GET, path: /u}
  - {name: boardgame_play, description: Start a round., service: svc, method: GET, path: /g}
  - {name: listURLs, description: Every link we hold., service: svc, method: GET, path: /l}
"""


def test_search_reads_queries_like_the_catalog(
    page: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each step of reading a query gives the same terms and weights in both rankings."""
    folder = tmp_path_factory.mktemp("words")
    (folder / "words.yaml").write_text(WORDS_CATALOG, encoding="utf-8")
    out = build(folder / "words.yaml", folder / "site")
    catalog = load_catalog([str(folder / "words.yaml")], progress=False).catalog
    assert catalog is not None
    queries = [
        "a bus for 3 people",
        "3",
        "what is my user name",
        "board game rules",
        "all the URLs",
        "bus ٣ 2² 5000",
        "user name user name board game",
    ]
    open_site(page, (out / "index.html").as_uri())
    ranked = js_ranking(page, queries)
    assert ranked == [[h.name for h in catalog.search(q)] for q in queries]
    assert [r[0] for r in ranked[:5]] == [
        "Buses_2_FindBus",
        "Buses_3_FindBus",
        "get_username",
        "boardgame_play",
        "listURLs",
    ]


# -- GitHub's 1,223 tools (the corpus) -----------------------------------------------


@pytest.fixture(scope="module")
def github_site(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Catalog]:
    folder = tmp_path_factory.mktemp("github")
    spec = corpus_dir / "github-api.github.com.json"
    (folder / "github.yaml").write_text(
        "toolcat: 1\nservices:\n  github:\n    base_url: https://api.github.com\n"
        f"openapi:\n  - spec: {json.dumps(str(spec))}\n    service: github\n",
        encoding="utf-8",
    )
    start = time.perf_counter()
    out = build(folder / "github.yaml", folder / "site")
    print(f"GitHub site built in {time.perf_counter() - start:.1f} s")
    catalog = load_catalog([str(folder / "github.yaml")], progress=False).catalog
    assert catalog is not None
    return out, catalog


def test_github_site_ranks_like_toolcat_search(
    page: Any, github_site: tuple[Path, Catalog]
) -> None:
    out, catalog = github_site
    ready_ms = open_site(page, (out / "index.html").as_uri())
    print(f"GitHub site first view ready in {ready_ms:.0f} ms")
    assert ready_ms < 5000  # generous: measured about 0.7 s; benchmarks report it
    assert len(catalog) > 1000
    got = js_ranking(page, QUERIES)
    for query, names in zip(QUERIES, got, strict=True):
        assert names == [h.name for h in catalog.search(query)], query[:40]


def test_github_site_search_filter_open_and_tabs(
    page: Any, github_site: tuple[Path, Catalog]
) -> None:
    out, catalog = github_site
    open_site(page, (out / "index.html").as_uri() + "#q=list+open+issues")
    expected = [h.name for h in catalog.search("list open issues", top=2000)]
    assert len(expected) > 100  # more than a page: the pager walks the rest
    assert visible_names(page) == expected[:100]
    assert all_names(page) == expected
    page.select_option("select[data-filter=method]", "GET")  # back to page 1
    first = visible_names(page)
    shown = all_names(page)
    assert shown and all(http_command(catalog[n]).method == "GET" for n in shown)
    assert shown == [n for n in expected if http_command(catalog[n]).method == "GET"]
    assert first == shown[:100]
    if len(shown) > 100:  # the last page's number is in the address
        assert page.evaluate("location.hash").endswith(f"page={-(-len(shown) // 100)}")
    page.select_option("select[data-filter=method]", "")
    page.select_option("select[data-filter=method]", "GET")  # a change: page 1 again
    assert visible_names(page) == first
    page.click(f"#tools li .name >> text='{shown[0]}'")
    page.wait_for_selector("html[data-ready]", state="attached")
    assert page.text_content("h1 .name") == shown[0]
    assert http_command(catalog[shown[0]]).path in page.text_content("main")
    page.click("#tab-gemini")
    assert page.is_visible("#panel-gemini") and not page.is_visible("#panel-openai")
    assert shown[0] in page.text_content("#panel-gemini pre")
    assert "github.yaml:" in page.text_content("#source")


# -- a generated catalog of 25,000 tools ----------------------------------------------

#: Writing 25,000 tool pages takes minutes on a busy 2-core machine (file creation, mostly).
huge = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def huge_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Catalog]:
    from toolcat.cli._docsite import build_site

    folder = tmp_path_factory.mktemp("huge")
    path = folder / "huge.json"
    path.write_text(json.dumps(synthetic_catalog(25_000)), encoding="utf-8")
    catalog = load_catalog([str(path)], progress=False).catalog
    assert catalog is not None and len(catalog) == 25_000
    start = time.perf_counter()
    build_site(catalog, folder / "site", title="huge", root=folder)
    print(f"25,000-tool site built in {time.perf_counter() - start:.1f} s")
    return folder / "site", catalog


@huge
def test_25000_tools_first_view_is_one_page(page: Any, huge_site: tuple[Path, Catalog]) -> None:
    out, catalog = huge_site
    names = [t.name for t in catalog]
    ready_ms = open_site(page, (out / "index.html").as_uri())
    print(f"25,000-tool site first view ready in {ready_ms:.0f} ms")
    assert ready_ms < 5000  # generous: measured well under 1 s; benchmarks report it
    assert visible_names(page) == names[:100]
    assert "page 1 of 250" in page.text_content("#pager")
    assert (out / "index.html").stat().st_size < 200_000  # one page, whatever the catalog
    next_page(page)  # the static page 2 (what a browser without JavaScript gets too)
    assert page.url.endswith("/list/2.html")
    assert visible_names(page) == names[100:200]
    page.click("#pager a[rel=prev]")
    page.wait_for_selector("html[data-ready]", state="attached")
    assert page.url.endswith("/index.html") and visible_names(page) == names[:100]
    open_site(page, (out / "list" / "2.html").as_uri())  # the script works on list pages too
    search(page, "operation 24321")
    assert visible_names(page)[0] == names[24_321]
    assert "page=1" in page.evaluate("location.hash")  # a list page's address names its page
    page.click("#tools li .name >> nth=0")  # links from list/ lead to ../tools/
    page.wait_for_selector("html[data-ready]", state="attached")
    assert page.text_content("h1 .name") == names[24_321]


@huge
def test_25000_tools_search_reaches_a_late_page(page: Any, huge_site: tuple[Path, Catalog]) -> None:
    out, catalog = huge_site
    open_site(page, (out / "index.html").as_uri())
    late = [t.name for t in catalog][24_321]
    search(page, "operation 24321")
    assert visible_names(page)[0] == late == catalog.search("operation 24321")[0].name
    parts = page.evaluate(
        "[...document.scripts].filter(s => /assets[/]index[/]/.test(s.src)).length"
    )
    assert 0 < parts <= 6  # of the index's 50 parts: those the query's terms are in
    queries = ["invoice for a user account", "delete a ticket", "op24321", "repo issue"]
    assert js_ranking(page, queries) == [[h.name for h in catalog.search(q)] for q in queries]
    # Paging through a search: page 2 holds the catalog's ranks 101-200.
    search(page, "payment report")
    ranked = [h.name for h in catalog.search("payment report", top=25_000)]
    assert len(ranked) > 200
    assert visible_names(page) == ranked[:100]
    next_page(page)
    assert visible_names(page) == ranked[100:200]
    assert "page=2" in page.evaluate("location.hash")
    page.go_back()  # the pager's links are history entries
    expect(page.locator("#pager .where")).to_contain_text("page 1 ")
    assert visible_names(page) == ranked[:100]


@huge
def test_25000_tools_a_filter_narrows_across_all_pages(
    page: Any, huge_site: tuple[Path, Catalog]
) -> None:
    out, catalog = huge_site
    open_site(page, (out / "index.html").as_uri() + "#tag=invoice")
    tagged = [t.name for t in catalog if "invoice" in t.tags]
    assert len(tagged) == 2500
    assert page.text_content("#count").startswith("2500 of 25000")
    assert "page 1 of 25" in page.text_content("#pager")
    assert visible_names(page) == tagged[:100]
    page.select_option("select[data-filter=toolset]", "set1")
    in_set = set(catalog.toolsets["set1"])
    expected = [n for n in tagged if n in in_set]
    assert 100 < len(expected) < len(tagged)
    assert all_names(page) == expected
    search(page, "account")  # a search within the filters, best first, every page
    ranked = [h.name for h in catalog.search("account", top=25_000)]
    assert all_names(page) == [n for n in ranked if n in set(expected)]


#: Words that exercise each step of the Snowball English stemmer (and its exceptions).
STEM_WORDS = (
    "dying lying tying inning outing canning evening herring earring proceed proceeding "
    "exceeded succeeded agreed feed bleed hopping hoping filing fizzed sized generously "
    "generate communication university past pasted pasting organization interesting "
    "laterally emergency skies sky only early gently cried ties lies says sayyid yoyo boys "
    "employed employing theology geology ecologist logical fluently happily hopefulness "
    "repositories repository authenticated caresses ponies cats feeds agreement relational "
    "conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli "
    "analogousli vietnamization predication operator feudalism decisiveness hopefulness "
    "callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti "
    "electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable "
    "defensible irritant replacement adjustment dependent adoption homologou communism "
    "activate angulariti homologous effective bowdlerize probate rate cease controll roll "
    "a is be by aa ab abs"
).split()


def test_the_stemmer_matches_snowballstemmer(page: Any, small_site: tuple[Path, Catalog]) -> None:
    import snowballstemmer

    out, catalog = small_site
    open_site(page, (out / "index.html").as_uri())
    words = STEM_WORDS + [w for t in catalog for w in t.description.lower().split()]
    stem = snowballstemmer.stemmer("english").stemWord
    got: list[str] = page.evaluate("ws => ws.map(w => window.toolcatStem(w))", words)
    assert got == [stem(w) for w in words]


def test_the_stemmer_matches_on_githubs_words(
    page: Any, github_site: tuple[Path, Catalog], corpus_dir: Path
) -> None:
    import snowballstemmer

    out, _ = github_site
    open_site(page, (out / "index.html").as_uri())
    text = (corpus_dir / "github-api.github.com.json").read_text(encoding="utf-8")
    words = sorted({w.lower() for w in re.findall(r"[A-Za-z]{1,30}", text)})
    assert len(words) > 5000
    stem = snowballstemmer.stemmer("english").stemWord
    got: list[str] = page.evaluate("ws => ws.map(w => window.toolcatStem(w))", words)
    assert [w for w, g in zip(words, got, strict=True) if g != stem(w)] == []
