"""Descriptions as plain Markdown within a length budget.

OpenAPI descriptions are CommonMark, but some specs (Stripe's) write HTML
(``<p>Retrieves the <code>account</code>.</p>``). A description that is HTML
(it starts with a tag that Python's HTML parser recognises) is converted to
Markdown by markdownify, a maintained converter; Markdown is kept as it is
(converting it would fold its line breaks). A text over the budget is cut at a
paragraph, line or word boundary and ends with ``…``.
"""

from __future__ import annotations

import functools
from typing import Any

from toolcat.catalog.common import MAX_DESCRIPTION_CHARS

__all__ = ["DEFAULT_DESCRIPTION_MAX", "MIN_DESCRIPTION_MAX", "markdown_text", "within"]

DEFAULT_DESCRIPTION_MAX = MAX_DESCRIPTION_CHARS
MIN_DESCRIPTION_MAX = 40
# HTML past this many characters is not converted (the text is cut to the budget after
# conversion anyway): a spec's description cannot make the converter work for long
MAX_CONVERT_CHARS = 8_000

# tags that make a description HTML (a Markdown text may hold "<T>" in prose)
_HTML_TAGS = frozenset(
    "a abbr b blockquote br code dd div dl dt em h1 h2 h3 h4 h5 h6 hr i li ol p pre "
    "small span strong sub sup table tbody td th thead tr u ul".split()
)


@functools.cache
def _first_tag_class() -> Any:
    from html.parser import HTMLParser  # here: "<p>" and the like need no parser

    class _FirstTag(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.tag: str | None = None
            self.text_first = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if self.tag is None and not self.text_first:
                self.tag = tag

        def handle_data(self, data: str) -> None:
            if self.tag is None and data.strip():
                self.text_first = True

    return _FirstTag


def _is_html(text: str) -> bool:
    if not text.startswith("<"):
        return False
    end = text.find(">", 1, 12)
    if end != -1 and text[1:end] in _HTML_TAGS:  # "<p>": the parser finds that tag first
        return True
    parser = _first_tag_class()()
    parser.feed(text[:200])
    return parser.tag in _HTML_TAGS


@functools.lru_cache(maxsize=4096)
def markdown_text(text: str) -> str:
    """``text`` as Markdown: HTML converted, Markdown as written; stripped."""
    text = text.strip()
    if not _is_html(text):
        return text
    try:
        converted = _markdownify(text[:MAX_CONVERT_CHARS])
    except RecursionError:  # tags nested thousands deep: kept as written (and cut)
        return text
    lines = [line.rstrip() for line in converted.strip().splitlines()]
    out: list[str] = []
    for line in lines:  # at most one blank line in a row
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def _markdownify(html: str) -> str:
    """markdownify's conversion: ATX headings, ``-`` bullets, no escaping."""
    return str(_converter().convert(html))


@functools.cache
def _converter() -> Any:
    """One markdownify converter for every description (its options are read once)."""
    from markdownify import MarkdownConverter  # here: only a spec with HTML needs it

    return MarkdownConverter(
        heading_style="ATX",
        bullets="-",
        escape_asterisks=False,
        escape_underscores=False,
        escape_misc=False,
    )


def within(text: str, budget: int) -> str:
    """``text`` cut to ``budget`` characters at a paragraph, line or word boundary."""
    if len(text) <= budget:
        return text
    cut = text[: budget - 1]
    for mark in ("\n\n", "\n", ". ", " "):
        at = cut.rfind(mark)
        if at >= budget // 2:
            cut = cut[: at + (1 if mark == ". " else 0)]
            break
    return cut.rstrip() + "…"
