"""A small HTML-to-Markdown converter for the HTML that real specs write.

Stripe's descriptions are HTML made of a few tags (``p``, ``code``, ``a``, ``strong``,
lists). Converting them with markdownify costs its import (BeautifulSoup and
soupsieve, about a tenth of a second) and a tree of Python objects per description,
most of ``toolcat schema``'s time on that spec. This module converts that subset
itself, on the standard library's HTML parser, and gives **the same text markdownify
gives** with the options ``_text`` uses: it builds the tree BeautifulSoup's
``html.parser`` builder would build and applies markdownify's rules to it (whitespace
between blocks, ``chomp`` at inline tags, code spans with enough backticks,
autolinks, list bullets and numbers).

Anything outside the subset (another tag, an attribute that changes the output, a
comment or declaration, an end tag that does not close the open tag, an entity it
does not know, nesting past ``MAX_DEPTH``) raises :class:`_Unsupported`, and the caller
converts that text with markdownify as before: the fast path never guesses.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from toolcat._errors import ToolcatError

__all__ = ["MAX_DEPTH", "html_to_markdown"]

MAX_DEPTH = 64  # deeper nesting goes to markdownify (which may refuse it)

_BLOCK = frozenset({"p", "ul", "ol", "li"})  # markdownify strips whitespace around these
_INLINE = {"strong": "**", "b": "**", "em": "*", "i": "*"}
# tags markdownify passes through as their text (no conversion function, not a block)
_INERT = frozenset({"span", "u", "small", "abbr", "cite", "mark", "var", "currency", "amount"})
_TAGS = _BLOCK | _INLINE.keys() | _INERT | {"a", "code", "br"}
# named references BeautifulSoup resolves to these characters (with or without ';')
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'", "nbsp": "\xa0"}
_ASCII_SPACES = frozenset("\x20\x0a\x09\x0c\x0d")

_NEWLINE_WHITESPACE = re.compile(r"[\t \r\n]*[\r\n][\t \r\n]*")
_WHITESPACE = re.compile(r"[\t ]+")
_EXTRACT_NEWLINES = re.compile(r"^(\n*)((?:.*[^\n])?)(\n*)$", flags=re.DOTALL)
_LINE_WITH_CONTENT = re.compile(r"^(.*)", flags=re.MULTILINE)
_BACKTICK_RUNS = re.compile(r"`+")


class _Unsupported(ToolcatError):
    """The text is outside the subset: convert it with markdownify."""


class _Tag:
    __slots__ = ("attrs", "children", "name", "parent")

    def __init__(self, name: str, attrs: dict[str, str], parent: _Tag | None) -> None:
        self.name = name
        self.attrs = attrs
        self.parent = parent
        self.children: list[_Tag | str] = []


class _Builder:
    """The tree BeautifulSoup's ``html.parser`` builder makes, for the subset, from the
    events of an HTML parser (``_TOKEN``'s, or the standard library's)."""

    def __init__(self) -> None:
        self.root = _Tag("[document]", {}, None)
        self.open = self.root
        self.depth = 0
        self.data: list[str] = []

    def _end_data(self) -> None:
        if not self.data:
            return
        text = "".join(self.data)
        self.data = []
        if all(c in _ASCII_SPACES for c in text):  # BeautifulSoup's endData
            text = "\n" if "\n" in text else " "
        self.open.children.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _TAGS or (tag == "ol" and any(k == "start" for k, _ in attrs)):
            raise _Unsupported(tag)
        self._end_data()
        element = _Tag(tag, {k: "" if v is None else v for k, v in attrs}, self.open)
        self.open.children.append(element)
        if tag != "br":  # an empty element: closed at once
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _Unsupported("depth")
            self.open = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "br":
            raise _Unsupported(tag)
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag != self.open.name or self.open.parent is None:
            raise _Unsupported(f"/{tag}")
        self._end_data()
        self.open = self.open.parent
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        self.data.append(data)

    def handle_entityref(self, name: str) -> None:
        if name not in _ENTITIES:
            raise _Unsupported(f"&{name}")
        self.data.append(_ENTITIES[name])

    def handle_charref(self, name: str) -> None:
        digits, base = (name[1:], 16) if name[:1] in ("x", "X") else (name, 10)
        try:
            code = int(digits, base) if digits.isascii() and digits.isalnum() else 0
        except ValueError:
            code = 0
        if not 32 <= code <= 126:  # printable ASCII only; the rest as BeautifulSoup decides
            raise _Unsupported(f"&#{name}")
        self.data.append(chr(code))

    def handle_comment(self, data: str) -> None:
        raise _Unsupported("comment")

    def handle_decl(self, decl: str) -> None:
        raise _Unsupported("declaration")

    def handle_pi(self, data: str) -> None:
        raise _Unsupported("processing instruction")

    def unknown_decl(self, data: str) -> None:
        raise _Unsupported("declaration")

    def finish(self) -> _Tag:
        self._end_data()  # tags still open are closed at the end, as BeautifulSoup does
        return self.root


@functools.cache
def _parser_class() -> Any:
    """The builder on the standard library's HTML parser (imported when first needed)."""
    from html.parser import HTMLParser

    class _Parser(_Builder, HTMLParser):
        def __init__(self) -> None:
            HTMLParser.__init__(self, convert_charrefs=False)  # as BeautifulSoup does
            _Builder.__init__(self)

    return _Parser


# the plainest HTML, read by one regular expression (several times faster than the
# HTML parser, and the same events): text, a lowercase tag with only href/title
# attributes in double quotes (no "&", "<" or ">" in them), a plain entity or an ASCII
# character reference; any other "<" or "&" falls to the parser
_TOKEN = re.compile(
    r"([^<&]+)"
    r"|<(/?)([a-z][a-z0-9]*)((?:[ \t\n]+(?:href|title)=\"[^\"<>&]*\")*)[ \t\n]*(/?)>"
    r"|&(amp|lt|gt|quot|apos|nbsp);"
    r"|&#([0-9]{2,3});"
    r"|(.)",
    re.DOTALL,
)
_ATTR = re.compile(r'(href|title)="([^"]*)"')


def _plain_tree(html: str) -> _Tag:
    """The tree of ``html`` read with :data:`_TOKEN`; :class:`_Unsupported` where it cannot."""
    builder = _Builder()
    for text, end, tag, attrs, slash, entity, number, other in _TOKEN.findall(html):
        if text:
            builder.handle_data(text)
        elif tag:
            if end:
                if attrs or slash:
                    raise _Unsupported(tag)
                builder.handle_endtag(tag)
                continue
            pairs: list[tuple[str, str | None]] = _ATTR.findall(attrs)
            if slash:
                builder.handle_startendtag(tag, pairs)
            else:
                builder.handle_starttag(tag, pairs)
        elif entity:
            builder.handle_entityref(entity)
        elif number:
            builder.handle_charref(number)
        else:
            raise _Unsupported(other)
    return builder.finish()


def html_to_markdown(html: str) -> str:
    """``html`` as markdownify converts it with ATX headings, ``-`` bullets and no
    escaping; raises :class:`_Unsupported` outside the subset."""
    try:
        root = _plain_tree(html)
    except _Unsupported:
        parser = _parser_class()()
        parser.feed(html)
        parser.close()
        root = parser.finish()
    return _tag(root, frozenset()).strip("\n")


def _is_block(node: _Tag | str | None) -> bool:
    return isinstance(node, _Tag) and node.name in _BLOCK


def _tag(node: _Tag, parent_tags: frozenset[str]) -> str:
    """markdownify's ``process_tag`` for the subset."""
    children = node.children
    inside = node.name in _BLOCK
    last = len(children) - 1
    for_children = parent_tags | {node.name, "_noformat"} if node.name == "code" else None
    if for_children is None:
        for_children = parent_tags | {node.name}
    strings: list[str] = []
    for i, child in enumerate(children):
        if isinstance(child, _Tag):
            out = _tag(child, for_children)
        else:
            prev = children[i - 1] if i > 0 else None
            nxt = children[i + 1] if i < last else None
            if not child.strip():
                if inside and (prev is None or nxt is None):
                    continue
                if _is_block(prev) or _is_block(nxt):
                    continue
            out = _text(child, inside, prev, nxt)
        if out:
            strings.append(out)
    joined: list[str] = [""]
    for string in strings:  # newlines at child boundaries: the larger count, at most 2
        match = _EXTRACT_NEWLINES.match(string)
        assert match is not None  # the pattern matches every string
        leading, content, trailing = match.groups()
        if joined[-1] and leading:
            leading = "\n" * min(2, max(len(joined.pop()), len(leading)))
        joined.extend((leading, content, trailing))
    return _convert(node, "".join(joined), parent_tags)


def _text(text: str, inside: bool, prev: _Tag | str | None, nxt: _Tag | str | None) -> str:
    """markdownify's ``process_text`` (no ``pre`` in the subset, no escaping)."""
    text = _WHITESPACE.sub(" ", _NEWLINE_WHITESPACE.sub("\n", text))
    if _is_block(prev) or (inside and prev is None):
        text = text.lstrip(" \t\r\n")
    if _is_block(nxt) or (inside and nxt is None):
        text = text.rstrip()
    return text


def _chomp(text: str) -> tuple[str, str, str]:
    prefix = " " if text and text[0] == " " else ""
    suffix = " " if text and text[-1] == " " else ""
    return prefix, suffix, text.strip()


def _convert(node: _Tag, text: str, parent_tags: frozenset[str]) -> str:
    name = node.name
    if name in _INLINE or name in ("a", "code"):
        if "_noformat" in parent_tags:
            return text
        prefix, suffix, text = _chomp(text)
        if not text:
            return ""
        if name == "a":
            href = node.attrs.get("href")
            title = node.attrs.get("title")
            if text.replace(r"\_", "_") == href and not title:
                return f"<{href}>"
            quoted = title.replace('"', r"\"") if title else ""
            title_part = f' "{quoted}"' if title else ""
            return f"{prefix}[{text}]({href}{title_part}){suffix}" if href else text
        if name == "code":
            ticks = max((len(m) for m in _BACKTICK_RUNS.findall(text)), default=0)
            mark = "`" * (ticks + 1)
            if ticks:
                text = f" {text} "
            return f"{prefix}{mark}{text}{mark}{suffix}"
        mark = _INLINE[name]
        return f"{prefix}{mark}{text}{mark}{suffix}"
    if name == "p":
        text = text.strip(" \t\r\n")
        return f"\n\n{text}\n\n" if text else ""
    if name == "br":
        return "  \n" + text
    if name in ("ul", "ol"):
        return _list(node, text, parent_tags)
    if name == "li":
        return _item(node, text)
    return text  # the document and inert tags: their text


def _list(node: _Tag, text: str, parent_tags: frozenset[str]) -> str:
    before_paragraph = False
    siblings = node.parent.children if node.parent is not None else []
    at = next(i for i, s in enumerate(siblings) if s is node)
    for sibling in siblings[at + 1 :]:  # the next content sibling
        if isinstance(sibling, _Tag) or sibling.strip():
            before_paragraph = not (isinstance(sibling, _Tag) and sibling.name in ("ul", "ol"))
            break
    if "li" in parent_tags:
        return "\n" + text.rstrip()
    return "\n\n" + text + ("\n" if before_paragraph else "")


def _item(node: _Tag, text: str) -> str:
    text = text.strip()
    if not text:
        return "\n"
    parent = node.parent
    if parent is not None and parent.name == "ol":
        siblings = parent.children
        at = next(i for i, s in enumerate(siblings) if s is node)
        before = sum(1 for s in siblings[:at] if isinstance(s, _Tag) and s.name == "li")
        bullet = f"{1 + before}. "
    else:
        bullet = "- "
    indent = " " * len(bullet)
    text = _LINE_WITH_CONTENT.sub(lambda m: indent + m.group(1) if m.group(1) else "", text)
    return bullet + text[len(bullet) :] + "\n"
