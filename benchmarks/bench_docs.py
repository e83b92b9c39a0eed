"""Benchmark: `toolcat docs` on GitHub's 1,223 tools and on a generated 25,000-tool catalog.

Run: ``python benchmarks/bench_docs.py [--corpus DIR] [--tools 25000] [--repeat 5]
[--screenshots DIR]``.

For each catalog it reports the time to load the catalog and to write the site
(after loading; the ratio is to loading), the site's size and file count, and in
headless Chromium from ``file://``:

- the first view: the page's own ``performance.now()`` when its script has run
  (``html[data-ready]``), median and worst of ``--repeat`` fresh browser contexts,
  and its ratio to the same measure of a *floor page* in the same run: a page with
  only the site's stylesheet and one script that marks it ready (what any page
  from disk costs this browser on this machine at this moment);
- the first search: loading the search index (``assets/search-index.js``, on the
  first search) and the parts of its postings the query needs
  (``assets/index/N.js``), and ranking the query; then the median of later
  searches (other queries: each loads the parts it needs that are not there yet).

``--tools N`` generates the synthetic catalog from one template (0 skips it). Needs
the spec corpus for the GitHub part (``--corpus``, else ``$TOOLCAT_CORPUS``, else
``../shared/corpus``; prints "skipped" without it); the browser part needs Chromium
(``TOOLCAT_CHROMIUM``, ``chromium`` or ``chromium-browser``) and Playwright.
``--screenshots DIR`` also writes the README's screenshots (GitHub's site: search
results, the pager under page 2 of them, a tool page, a phone).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from toolcat.tests.support import synthetic_catalog

REPO = Path(__file__).resolve().parent.parent
QUERIES = ["list open issues", "invoice for a user account", "delete a ticket", "create a gist"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        default=os.environ.get("TOOLCAT_CORPUS") or str(REPO.parent / "shared" / "corpus"),
    )
    parser.add_argument("--tools", type=int, default=25_000, help="synthetic catalog (0: none)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--screenshots", metavar="DIR")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        spec = Path(args.corpus) / "github-api.github.com.json"
        if spec.is_file():
            (folder / "github.yaml").write_text(
                "toolcat: 1\nservices:\n  github:\n    base_url: https://api.github.com\n"
                f"openapi:\n  - spec: {json.dumps(str(spec))}\n    service: github\n",
                encoding="utf-8",
            )
            site = _build("GitHub", folder / "github.yaml", folder / "github", "github")
            _browser("GitHub", site, args.repeat, args.screenshots)
        else:
            print(f"GitHub: skipped ({spec} not found; give --corpus)")
        if args.tools:
            path = folder / "synthetic.json"
            path.write_text(json.dumps(synthetic_catalog(args.tools)), encoding="utf-8")
            site = _build(f"synthetic {args.tools}", path, folder / "synthetic", "synthetic")
            _browser(f"synthetic {args.tools}", site, args.repeat, None)
    return 0


def _build(label: str, path: Path, out: Path, title: str) -> Path:
    import resource

    from toolcat.cli._docsite import build_site
    from toolcat.loader import load_catalog

    start = time.perf_counter()
    catalog = load_catalog([str(path)], progress=False).catalog
    assert catalog is not None
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    report = build_site(catalog, out, title=title, root=path.parent)
    built = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB
    assets = out / "assets"
    sizes = {
        "index.html": (out / "index.html").stat().st_size,
        "tools.js": (assets / "tools.js").stat().st_size,
        "search-index.js": (assets / "search-index.js").stat().st_size,
    }
    print(f"{label}: {report.tools} tools")
    print(
        f"  load catalog {loaded:.2f} s; write site {built:.2f} s "
        f"({built / loaded:.2f}x the load); peak memory of the process so far {peak / 1e6:.0f} MB"
    )
    print(f"  site: {report.files} files, {report.bytes / 1e6:.1f} MB; ", end="")
    print(", ".join(f"{k} {v / 1e3:.0f} kB" for k, v in sizes.items()), end="; ")
    parts = list((assets / "index").glob("*.js"))
    total = sum(p.stat().st_size for p in parts)
    print(f"the index's postings: {len(parts)} parts, {total / 1e3:.0f} kB")
    return out


def _ready(page: Any, url: str) -> float:
    page.goto(url)
    page.wait_for_selector("html[data-ready]", state="attached", timeout=120_000)
    return float(page.get_attribute("html", "data-ready") or "nan")


def _browser(label: str, site: Path, repeat: int, shots: str | None) -> None:
    executable = os.environ.get("TOOLCAT_CHROMIUM") or next(
        filter(None, (shutil.which(n) for n in ("chromium", "chromium-browser"))), None
    )
    if not executable:
        print("  first view: skipped (no Chromium)")
        return
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("  first view: skipped (no Playwright)")
        return
    floor = site / "floor.html"  # the baseline: a page that only marks itself ready
    floor.write_text(
        '<!doctype html><html><head><meta charset="utf-8">'
        '<link rel="stylesheet" href="assets/style.css">'
        '<script defer src="floor.js"></script></head><body><p>floor</p></body></html>',
        encoding="utf-8",
    )
    (site / "floor.js").write_text(
        'document.documentElement.setAttribute("data-ready",'
        " String(Math.round(performance.now())));",
        encoding="utf-8",
    )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable)
        views: list[float] = []
        floors: list[float] = []
        first: list[float] = []
        later: list[float] = []
        for _ in range(repeat):  # interleaved, so load on the machine hits both alike
            for url, into in ((floor.as_uri(), floors), ((site / "index.html").as_uri(), views)):
                context = browser.new_context()
                page = context.new_page()
                into.append(_ready(page, url))
                if into is views:
                    took = page.evaluate(
                        "async qs => { const out = []; for (const q of qs) { const t ="
                        " performance.now(); await window.toolcatSearch(q, 0);"
                        " out.push(performance.now() - t); } return out; }",
                        QUERIES,
                    )
                    first.append(took[0])
                    later += took[1:]
                context.close()
        view, base = statistics.median(views), statistics.median(floors)
        print(
            f"  first view ready (ms, {repeat} fresh contexts): median {view:.0f}, worst "
            f"{max(views):.0f}; floor page median {base:.0f}: {view / base:.1f}x the floor"
        )
        print(
            f"  first search (loads the index and its parts) median "
            f"{statistics.median(first):.0f} ms; later searches (loading the parts they "
            f"need) median {statistics.median(later):.1f} ms"
        )
        if shots:
            _screenshots(browser, site, Path(shots))
        browser.close()


def _screenshots(browser: Any, site: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1200, "height": 760})
    page.goto((site / "index.html").as_uri() + "#q=list+open+issues&method=GET")
    page.wait_for_selector("html[data-ready]", state="attached")
    page.screenshot(path=str(out / "browser-search.png"))
    page.set_viewport_size({"width": 1200, "height": 420})
    page.goto((site / "index.html").as_uri() + "#q=list+open+issues&page=2")
    page.wait_for_selector("html[data-ready]", state="attached")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.screenshot(path=str(out / "browser-pager.png"))
    page.set_viewport_size({"width": 1200, "height": 1000})
    page.goto((site / "tools" / "repos_get.html").as_uri())
    page.wait_for_selector("html[data-ready]", state="attached")
    page.click("#tab-anthropic")
    page.screenshot(path=str(out / "browser-tool.png"))
    page.close()
    phone = browser.new_page(
        viewport={"width": 390, "height": 760}, device_scale_factor=1, is_mobile=True
    )
    phone.goto((site / "index.html").as_uri() + "#q=create+a+pull+request")
    phone.wait_for_selector("html[data-ready]", state="attached")
    phone.screenshot(path=str(out / "browser-phone.png"))
    phone.close()
    print(f"screenshots written to {out}")


if __name__ == "__main__":
    sys.exit(main())
