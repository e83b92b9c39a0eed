"""HTML descriptions become Markdown (markdownify's, with ATX headings, "-" bullets, no
escaping); Markdown stays as written."""

from __future__ import annotations

import pytest
from toolcat.loader.openapi._text import markdown_text

CASES = [
    ("<p>Retrieves the <code>account</code>.</p>", "Retrieves the `account`."),
    ("<p>One</p><p><strong>bold</strong> and <em>it</em></p>", "One\n\n**bold** and *it*"),
    ('<p>See <a href="https://a.test/b">the docs</a>.</p>', "See [the docs](https://a.test/b)."),
    ('<p><a href="https://x.test/a_b">https://x.test/a_b</a></p>', "<https://x.test/a_b>"),
    ("<p>Lists:</p><ul><li>one</li><li>two</li></ul><p>end</p>", "Lists:\n\n- one\n- two\n\nend"),
    ("<ol><li>first</li><li>second</li></ol>", "1. first\n2. second"),
    ("<h2>Title</h2><p>a_b * c</p>", "## Title\n\na_b * c"),
    ("<p>x &amp; y &lt;z&gt;</p>", "x & y <z>"),
    ("<p>a<br>b</p>", "a\nb"),
    ("Markdown *stays*\n\n- as written", "Markdown *stays*\n\n- as written"),
    ("<T> in prose is not HTML", "<T> in prose is not HTML"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_descriptions_as_markdown(text: str, expected: str) -> None:
    assert markdown_text(text) == expected
