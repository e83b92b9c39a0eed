"""The HTML subset converter gives markdownify's text, and hands the rest to it."""

from __future__ import annotations

import random

import pytest
from toolcat.loader.openapi._html import MAX_DEPTH, _Unsupported, html_to_markdown
from toolcat.loader.openapi._text import _markdownify, markdown_text

SAMPLES = [
    "<p>Retrieves the <code>account</code>.</p>",
    "<p>One</p><p>Two <strong>bold</strong> and <em>it</em>.</p>",
    '<p>See <a href="https://stripe.com/docs">the docs</a>.</p>\n<p>More</p>',
    '<p><a href="https://x.test/a_b">https://x.test/a_b</a></p>',
    '<p><a href="u" title="T &quot;q&quot;">text</a> <a href>bare</a></p>',
    "<p>Lists:</p><ul><li>one</li><li>two <code>a`b</code></li></ul><p>after</p>",
    "<ol><li>first</li>\n<li>second<ul><li>nested</li></ul></li></ol>text",
    "<p>  spaces \n\t and\n\n lines  </p>",
    "<p>Amount in <currency>usd</currency> of <amount>100</amount>.</p>",
    "<p>a<br>b<br/>c</p>",
    "<p>x &amp; y &lt;z&gt; &#65;&#x42; &nbsp;</p>",
    "<p><b> padded </b><i></i><code> </code></p>",
    "<p>unclosed <strong>at the end",
    "<span>inert</span> <u>tags</u> <small>stay</small>",
]

# outside the subset: each goes to markdownify
OUTSIDE = [
    "<div>a</div>",
    "<p>a</b></p>",
    "<p><!-- c --></p>",
    "<pre>x</pre>",
    '<ol start="3"><li>x</li></ol>',
    "<p>&copy;</p>",
    "<p>&#128;</p>",
    "<p/>",
    "<p>" * (MAX_DEPTH + 1),
]


@pytest.mark.parametrize("html", SAMPLES)
def test_the_subset_converts_as_markdownify_does(html: str) -> None:
    assert html_to_markdown(html) == _markdownify(html)


@pytest.mark.parametrize("html", OUTSIDE)
def test_what_is_outside_the_subset_is_refused(html: str) -> None:
    with pytest.raises(_Unsupported):
        html_to_markdown(html)


@pytest.mark.parametrize("html", OUTSIDE[:6])
def test_markdown_text_converts_the_rest_with_markdownify(html: str) -> None:
    expected = "\n".join(line.rstrip() for line in _markdownify(html).strip().splitlines())
    assert markdown_text(html) == expected.strip()


_TAGS = ["p", "code", "a", "strong", "b", "em", "i", "ul", "ol", "li", "span", "br", "div"]
_WORDS = [
    "word", "x_y", "a*b", " ", "  ", "\n", " \n ", "\t", "`t`", "``", "&amp;", "&lt;",
    "&nbsp;", "&#65;", "&foo;", "&", "<", "1.", "- ", "#", "\xa0", "é",
]  # fmt: skip


def _random_html(rng: random.Random, depth: int) -> str:
    out = []
    for _ in range(rng.randint(0, 4)):
        if depth < 4 and rng.random() < 0.5:
            tag = rng.choice(_TAGS)
            if tag == "br":
                out.append(rng.choice(["<br>", "<br/>"]))
                continue
            attrs = rng.choice(["", ' href="w"', ' href="word"', " href"]) if tag == "a" else ""
            end = f"</{tag}>" if rng.random() > 0.05 else ""
            out.append(f"<{tag}{attrs}>{_random_html(rng, depth + 1)}{end}")
        else:
            out.append(rng.choice(_WORDS))
    return "".join(out)


def test_random_html_converts_as_markdownify_does() -> None:
    rng = random.Random(8)
    converted = 0
    for _ in range(1500):
        html = _random_html(rng, 0)
        try:
            fast = html_to_markdown(html)
        except _Unsupported:
            continue
        converted += 1
        assert fast == _markdownify(html), html
    assert converted > 500  # the subset is most of it
