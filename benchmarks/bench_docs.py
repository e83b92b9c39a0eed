"""Benchmark: `toolcat docs` on GitHub's 1,223 tools, and the site's first view in Chromium.

Run: ``python benchmarks/bench_docs.py [--corpus DIR] [--repeat 5] [--screenshots DIR]``.

Reports the time to load the catalog, the time to write the site (after loading),
the site's size and file count, and the first view in headless Chromium from
``file://``: the page's own ``performance.now()`` when its script has run
(``html[data-ready]``), median and worst of ``--repeat`` fresh browser contexts.
Needs the spec corpus (``--corpus``, else ``$TOOLCAT_CORPUS``, else ``../shared/corpus``; prints
"skipped" without it); the browser part needs Chromium (``TOOLCAT_CHROMIUM``,
``chromium`` or ``chromium-browser``) and Playwright. ``--screenshots DIR``
also writes the README's screenshots (search results, a tool page, a phone).
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

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        default=os.environ.get("TOOLCAT_CORPUS") or str(REPO.parent / "shared" / "corpus"),
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--screenshots", metavar="DIR")
    args = parser.parse_args()
    spec = Path(args.corpus) / "github-api.github.com.json"
    if not spec.is_file():
        print(f"skipped: {spec} not found (give --corpus)")
        return 0
    from toolcat.cli._docsite import build_site
    from toolcat.loader import load_catalog

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "github.yaml").write_text(
            "toolcat: 1\nservices:\n  github:\n    base_url: https://api.github.com\n"
            f"openapi:\n  - spec: {json.dumps(str(spec))}\n    service: github\n",
            encoding="utf-8",
        )
        start = time.perf_counter()
        catalog = load_catalog([str(folder / "github.yaml")], progress=False).catalog
        assert catalog is not None
        loaded = time.perf_counter() - start
        start = time.perf_counter()
        report = build_site(catalog, folder / "site", title="github", root=folder)
        built = time.perf_counter() - start
        index_js = (folder / "site" / "assets" / "search-index.js").stat().st_size
        index_html = (folder / "site" / "index.html").stat().st_size
        print(f"tools: {report.tools}")
        print(f"load catalog: {loaded:.2f} s; write site: {built:.2f} s")
        print(f"site: {report.files} files, {report.bytes / 1e6:.1f} MB")
        print(f"index.html {index_html / 1e3:.0f} kB; search-index.js {index_js / 1e3:.0f} kB")
        _browser(folder / "site", args.repeat, args.screenshots)
    return 0


def _browser(site: Path, repeat: int, shots: str | None) -> None:
    executable = os.environ.get("TOOLCAT_CHROMIUM") or next(
        filter(None, (shutil.which(n) for n in ("chromium", "chromium-browser"))), None
    )
    if not executable:
        print("first view: skipped (no Chromium)")
        return
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("first view: skipped (no Playwright)")
        return
    url = (site / "index.html").as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable)
        times = []
        for _ in range(repeat):
            context = browser.new_context()
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("html[data-ready]", state="attached")
            times.append(float(page.get_attribute("html", "data-ready") or "nan"))
            context.close()
        print(
            f"first view ready (ms, {repeat} fresh contexts): median "
            f"{statistics.median(times):.0f}, worst {max(times):.0f}"
        )
        if shots:
            _screenshots(browser, site, Path(shots))
        browser.close()


def _screenshots(browser: object, site: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1200, "height": 760})  # type: ignore[attr-defined]
    page.goto((site / "index.html").as_uri() + "#q=list+open+issues&method=GET")
    page.wait_for_selector("html[data-ready]", state="attached")
    page.screenshot(path=str(out / "browser-search.png"))
    page.set_viewport_size({"width": 1200, "height": 1000})
    page.goto((site / "tools" / "repos_get.html").as_uri())
    page.wait_for_selector("html[data-ready]", state="attached")
    page.click("#tab-anthropic")
    page.screenshot(path=str(out / "browser-tool.png"))
    page.close()
    phone = browser.new_page(  # type: ignore[attr-defined]
        viewport={"width": 390, "height": 760}, device_scale_factor=1, is_mobile=True
    )
    phone.goto((site / "index.html").as_uri() + "#q=create+a+pull+request")
    phone.wait_for_selector("html[data-ready]", state="attached")
    phone.screenshot(path=str(out / "browser-phone.png"))
    phone.close()
    print(f"screenshots written to {out}")


if __name__ == "__main__":
    sys.exit(main())
