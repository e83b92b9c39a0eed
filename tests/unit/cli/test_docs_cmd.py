"""`toolcat docs`: the static catalog browser's files (the browser tests drive them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolcat.cli import main
from toolcat.loader import load_catalog

EVIL = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & "quotes"'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def write_evil_catalog(folder: Path) -> Path:
    """A small catalog whose texts try to inject HTML (used by the browser tests too)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "evil.yaml"
    path.write_text(
        "toolcat: 1\nservices:\n  shop:\n    base_url: http://127.0.0.1:9\n"
        "tools:\n"
        f"  - name: evil_tool\n    description: {json.dumps(EVIL)}\n    service: shop\n"
        "    method: DELETE\n    path: /items/{sku}\n    confirm: true\n"
        "    annotations: {destructive: true}\n"
        f"    parameters:\n      sku: {{type: string, description: {json.dumps(EVIL)}}}\n"
        "    tags: [danger]\n"
        "  - name: list_items\n    description: List the items in stock.\n    service: shop\n"
        "    method: GET\n    path: /items\n    annotations: {read_only: true}\n"
        "    tags: [inventory]\n"
        "toolsets:\n  readonly: [list_items]\n",
        encoding="utf-8",
    )
    return path


def test_docs_writes_a_site_for_the_demo(
    repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    code, _, err = run(capsys, "docs", str(repo_root / "examples" / "demo"), "-o", str(out))
    assert code == 0, err
    assert "wrote 4 tools" in err
    assert sorted(p.name for p in (out / "tools").iterdir()) == [
        "get_item.html",
        "order_status.html",
        "place_order.html",
        "search_items.html",
    ]
    page = (out / "tools" / "get_item.html").read_text(encoding="utf-8")
    assert "catalog.yaml:13" in page  # where it was declared, relative to the catalog
    assert str(repo_root) not in page  # never the building machine's absolute path
    for provider in ("openai", "anthropic", "gemini", "mcp"):
        assert f'id="panel-{provider}"' in page
    assert "cdn" not in (out / "index.html").read_text(encoding="utf-8").lower()


def test_the_index_ships_as_a_script_assigning_a_global(
    repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = repo_root / "examples" / "demo"
    run(capsys, "docs", str(demo), "-o", str(tmp_path))
    text = (tmp_path / "assets" / "search-index.js").read_text(encoding="utf-8")
    prefix = "window.TOOLCAT_INDEX = "
    assert text.startswith(prefix)
    catalog = load_catalog([str(demo)], progress=False).catalog
    assert catalog is not None
    core = json.loads(text[len(prefix) :].rstrip().rstrip(";"))
    assert core.pop("shards") == 1 and "postings" not in core  # the postings come in parts
    part = (tmp_path / "assets" / "index" / "0.js").read_text(encoding="utf-8")
    prefix = "(window.TOOLCAT_SHARDS = window.TOOLCAT_SHARDS || {})[0] = "
    assert part.startswith(prefix)
    core["postings"] = json.loads(part[len(prefix) :].rstrip().rstrip(";"))
    assert core == catalog.search_index.to_dict()


def test_the_index_comes_in_parts_that_hold_each_term_and_its_prefixes() -> None:
    from toolcat.cli._docsite import _index_parts, index_shard

    postings = {f"{w}{i}": [i, 1.0] for i in range(300) for w in ("repo", "issu", "查询")}
    postings.update({"a": [0, 1.0], "𝔘nicode": [1, 1.0]})
    index = {"min_prefix": 3, "postings": postings, "tools": []}
    core, parts = _index_parts(index, 1200)  # 500 tools a part: 3 parts
    assert core == {"min_prefix": 3, "tools": [], "shards": 3} and len(parts) == 3
    assert {t: p for part in parts for t, p in part.items()} == postings
    for term in postings:  # a term and every prefix a query looks up: the same part
        shard = index_shard(term, 3, 3)
        assert term in parts[shard]
        assert all(index_shard(term[:cut], 3, 3) == shard for cut in range(3, len(term)))
    assert index_shard("abc", 1, 3) == 0
    assert index_shard("ab", 7, 3) == (97 * 31 + 98) % 7  # shorter than min_prefix: all of it


def test_a_folder_that_is_not_empty_is_refused_without_force(
    repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    demo = str(repo_root / "examples" / "demo")
    code, out, err = run(capsys, "docs", demo, "-o", str(tmp_path))
    assert code == 2
    assert out == "" and err.count("\n") == 1 and "--force" in err
    assert not (tmp_path / "index.html").exists()
    code, _, _ = run(capsys, "docs", demo, "-o", str(tmp_path), "--force")
    assert code == 0 and (tmp_path / "index.html").is_file()
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_catalog_text_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = write_evil_catalog(tmp_path / "cat")
    out = tmp_path / "site"
    code, _, err = run(capsys, "docs", str(catalog), "-o", str(out))
    assert code == 0, err
    for page in (out / "index.html", out / "tools" / "evil_tool.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>window.pwned" not in html and "<img src=x" not in html
        assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html


def test_a_tool_page_shows_its_schema_examples_and_the_request_they_render(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "c.yaml"
    catalog.write_text(
        "toolcat: 1\nservices:\n  shop:\n    base_url: http://127.0.0.1:9\n"
        "    auth: {type: bearer, token: s3cret-token}\n"
        "tools:\n"
        "  - name: get_item\n    description: One item.\n    service: shop\n"
        "    method: GET\n    path: /items/{sku}\n"
        '    parameters:\n      sku: {type: string, description: The SKU, examples: ["W-1"]}\n'
        "  - name: list_items\n    description: All items.\n    service: shop\n"
        "    method: GET\n    path: /items\n",
        encoding="utf-8",
    )
    code, _, err = run(capsys, "docs", str(catalog), "-o", str(tmp_path / "site"))
    assert code == 0, err
    page = (tmp_path / "site" / "tools" / "get_item.html").read_text(encoding="utf-8")
    assert 'id="example-request"' in page and "http://127.0.0.1:9/items/W-1" in page
    assert "s3cret-token" not in page  # the dry run masks secrets
    other = (tmp_path / "site" / "tools" / "list_items.html").read_text(encoding="utf-8")
    assert 'id="example-request"' not in other and "no examples of its own" in other


def test_the_list_is_paged_and_its_rows_ship_as_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """250 tools: index.html holds the first 100, list/2.html and list/3.html the rest."""
    tools = [
        {
            "name": f"tool_{i:03d}",
            "description": EVIL if i == 120 else f"Tool number {i}.",
            "service": "shop",
            "method": "GET" if i % 2 else "DELETE",
            "path": f"/t/{i}",
            "confirm": not i % 2,
            "annotations": {"read_only": bool(i % 2)},
            "tags": [f"t{i % 3}"],
        }
        for i in range(250)
    ]
    catalog = {
        "toolcat": 1,
        "services": {"shop": {"base_url": "http://127.0.0.1:9"}},
        "tools": tools,
        "toolsets": {"odd": [t["name"] for t in tools[1::2]]},
    }
    (tmp_path / "many.json").write_text(json.dumps(catalog), encoding="utf-8")
    out = tmp_path / "site"
    code, _, err = run(capsys, "docs", str(tmp_path / "many.json"), "-o", str(out))
    assert code == 0, err
    pages = {
        1: (out / "index.html").read_text(encoding="utf-8"),
        2: (out / "list" / "2.html").read_text(encoding="utf-8"),
        3: (out / "list" / "3.html").read_text(encoding="utf-8"),
    }
    assert not (out / "list" / "1.html").exists() and not (out / "list" / "4.html").exists()
    assert [p.count('<a class="name"') for p in pages.values()] == [100, 100, 50]
    assert 'href="tools/tool_000.html"' in pages[1] and 'href="list/2.html"' in pages[1]
    assert 'href="../tools/tool_100.html"' in pages[2] and 'src="../assets/app.js"' in pages[2]
    assert 'href="../index.html">‹ previous' in pages[2] and 'href="3.html">next' in pages[2]
    assert "page 3 of 3" in pages[3] and "next ›" not in pages[3]
    assert "201-250 of 250 tools" in pages[3]
    assert "<script>window.pwned" not in pages[2] and "&lt;script&gt;window.pwned" in pages[2]
    text = (out / "assets" / "tools.js").read_text(encoding="utf-8")
    prefix = "window.TOOLCAT_TOOLS = "
    assert text.startswith(prefix) and text.isascii()  # a file, not inline: "</" is harmless
    data = json.loads(text[len(prefix) :].rstrip().rstrip(";"))
    assert data["page_size"] == 100
    assert data["values"] == {
        "toolset": ["odd"],
        "tag": ["t0", "t1", "t2"],
        "method": ["DELETE", "GET"],
        "service": ["shop"],
    }
    rows = data["tools"]
    assert [r[0] for r in rows] == [t["name"] for t in tools]  # the search index's order
    assert rows[1] == ["tool_001", "tool_001.html", 1, "/t/1", "Tool number 1.", 1, 0, [0], [1]]
    assert rows[2][5] == 2 | 4 and rows[2][7] == []  # destructive (DELETE), confirm; no toolset
    assert rows[120][4] == EVIL  # data for textContent, never markup
    # --force rewrites the pages of a smaller catalog and removes the pages it no longer has
    catalog["tools"] = tools[:150]
    catalog["toolsets"] = {}
    (tmp_path / "many.json").write_text(json.dumps(catalog), encoding="utf-8")
    code, _, err = run(capsys, "docs", str(tmp_path / "many.json"), "-o", str(out), "--force")
    assert code == 0, err
    assert sorted(p.name for p in (out / "list").iterdir()) == ["2.html"]
    assert sorted(p.name for p in (out / "assets" / "index").iterdir()) == ["0.js"]


def test_the_list_shows_the_summary_apart_and_the_title_names_the_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "teams" / "billing" / "catalog"
    folder.mkdir(parents=True)
    (folder / "invoices.yaml").write_text(
        "toolcat: 1\nservices:\n  a: {base_url: 'http://127.0.0.1:9'}\n"
        "  b: {base_url: 'http://127.0.0.1:9'}\ntools:\n"
        "  - name: get_stations\n    service: a\n    method: GET\n    path: /stations\n"
        "    description: |-\n      Get a list of train stations\n\n"
        "      Returns a paginated and\n      searchable list of all train stations.\n"
        "  - name: ping\n    service: b\n    method: GET\n    path: /ping\n"
        "    description: Ping.\n",
        encoding="utf-8",
    )
    out = tmp_path / "site"
    code, _, err = run(capsys, "docs", str(folder), "-o", str(out))
    assert code == 0, err
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "<title>billing: 2 tools</title>" in index  # not the folder's generic name
    assert '<div class="meta">Get a list of train stations</div>' in index
    assert "Returns a paginated" not in index  # on the tool's page, not run into the line
    page = (out / "tools" / "get_stations.html").read_text(encoding="utf-8")
    assert "Returns a paginated and\nsearchable list" in page
    # a spec imported on its own: its service's name
    code, _, _ = run(
        capsys,
        "docs",
        str(Path(__file__).parents[3] / "specs" / "sample-service.yaml"),
        "-o",
        str(tmp_path / "spec-site"),
    )
    assert code == 0
    site = (tmp_path / "spec-site" / "index.html").read_text()
    assert "<title>sample_warehouse_service: 4 tools</title>" in site
