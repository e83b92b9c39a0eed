"""Secrets of one call, and their removal from every text that leaves the executor."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache, partial
from typing import Any
from urllib.parse import quote

from toolcat.catalog.common import (
    interpolate,
    is_sensitive_header,
    is_sensitive_variable,
    references,
)

__all__ = [
    "MASK",
    "MAX_ENCODED_SECRET",
    "Redactor",
    "is_sensitive_header",
    "is_sensitive_variable",
    "resolve",
    "secret_references",
]

MASK = "***"

# Shorter values are not masked: they would shred ordinary text.
_MIN_SECRET = 3
# Secrets longer than this are masked only as written (their encoded-form pattern
# would be large); no real credential comes near it.
MAX_ENCODED_SECRET = 4096
# What an upstream's echo may turn a character into: JSON's \uXXXX (any case) and
# \/, \", \\; percent-encoding of its UTF-8 bytes (any case); '+' for a space.
_JSON_SHORT = {"/": r"\\/", '"': r'\\"', "\\": r"\\\\"}


# Windows-1252 as the WHATWG Encoding Standard reads it (what "latin1" means to a web
# stack): its characters for bytes 0x80-0x9F; the five it leaves undefined stay C1 controls.
_CP1252 = {
    b: bytes([b]).decode("cp1252")
    for b in range(0x80, 0xA0)
    if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}


def _mojibake(value: str) -> tuple[str, ...]:
    """What an upstream that decodes the UTF-8 bytes of ``value`` as Latin-1 (Python's
    WSGI and http.server, Node, Java servlets) or Windows-1252 reads; ``()`` for ASCII.

    >>> _mojibake("clé")
    ('clÃ©',)
    """
    if value.isascii():
        return ()
    latin1 = value.encode("utf-8").decode("latin-1")
    cp1252 = latin1.translate(_CP1252)
    return (latin1,) if cp1252 == latin1 else (latin1, cp1252)


def _char(ch: str) -> str:
    alts = [re.escape(ch)]
    code = ord(ch)
    if code < 0x10000:
        alts.append(r"\\u" + "".join(f"[{c.lower()}{c.upper()}]" for c in f"{code:04x}"))
    else:  # a UTF-16 surrogate pair in JSON
        hi, lo = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        alts.append(rf"(?i:\\u{hi:04x}\\u{lo:04x})")
    alts.append("".join(f"%(?i:{b:02x})" for b in ch.encode("utf-8")))
    if ch in _JSON_SHORT:
        alts.append(_JSON_SHORT[ch])
    if ch == " ":
        alts.append(r"\+")
    return "(?:" + "|".join(alts) + ")"


def _encoded(secret: str) -> re.Pattern[str]:
    """Any mix of the escaped forms of ``secret``, character by character."""
    return re.compile("".join(_char(ch) for ch in secret))


@lru_cache(maxsize=256)  # a caller's token recurs on each of its calls
def _echoes(token: str) -> tuple[str, ...]:
    """The forms an upstream's echo may give ``token``: JSON (``\\/``, ``\\"``,
    ``\\\\``; ``\\u003c`` for ``<>&`` as Go writes them, in either hex case) and
    percent-encoding (either hex case)."""
    json_text = token.replace("\\", "\\\\").replace('"', '\\"')
    forms = {json_text, json_text.replace("/", "\\/")}
    if any(ch in token for ch in "<>&"):
        for table in _HTML_ESCAPES:
            forms |= {text.translate(table) for text in list(forms)}
    forms.add(quote(token, safe=""))
    forms.add(token.translate(_PERCENT_LOWER))
    forms.discard(token)
    return tuple(forms)


_HTML_ESCAPES = tuple(
    str.maketrans({ch: "\\u" + fmt.format(ord(ch)) for ch in "<>&"}) for fmt in ("{:04x}", "{:04X}")
)
# percent-encoding with lower-case hex, as quote(safe="") encodes (ASCII)
_UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
_PERCENT_LOWER = {i: f"%{i:02x}" for i in range(128) if chr(i) not in _UNRESERVED}


class Redactor:
    """The secret values of one call; :meth:`__call__` masks them in any text."""

    __slots__ = ("_literal", "_patterns", "_secrets")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        self._patterns: dict[str, re.Pattern[str]] = {}
        self._literal: set[str] = set()  # masked by their listed forms only, no pattern
        self.add(*secrets)

    def add(self, *values: str) -> None:
        """Secrets of the call: masked as written, in the forms an echo escapes them to
        (JSON, percent-encoding) and as an upstream that decodes their bytes as Latin-1
        or Windows-1252 reads them."""
        for value in values:
            if not value or len(value) < _MIN_SECRET:
                continue
            for form in (value, *_mojibake(value)):
                if form not in self._secrets:
                    self._secrets.append(form)
        # Longest first, so a secret that contains another is masked whole.
        self._secrets.sort(key=len, reverse=True)

    def add_token(self, *tokens: str) -> None:
        """Bearer tokens (a caller's, an exchanged one): masked as written and in the forms
        an echo gives them (JSON escapes, percent-encoding in either case), by plain
        replacement. A long token that changes with each caller would otherwise cost a
        regex compile per call, slow for a token that long."""
        for token in tokens:
            if not token or len(token) < _MIN_SECRET:
                continue
            forms = (token, *_echoes(token))
            self._literal.update(forms)
            self.add(*forms)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        if "\\" in text or "%" in text or "+" in text:
            for secret in self._secrets:  # an echo that escaped it: JSON, URL-encoding
                if len(secret) <= MAX_ENCODED_SECRET and secret not in self._literal:
                    pattern = self._patterns.get(secret)
                    if pattern is None:
                        pattern = self._patterns[secret] = _encoded(secret)
                    text = pattern.sub(MASK, text)
        return text

    def value(self, value: Any) -> Any:
        """A JSON value for display (a dry run's body): secrets masked in every string,
        a number that is one of the secrets masked whole."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self(value)
        if isinstance(value, Mapping):
            return {self(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            return MASK if json.dumps(value) in self._secrets else value
        return value

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """Header values for display: sensitive names masked whole, secrets masked anywhere."""
        out: dict[str, str] = {}
        for name, value in headers:
            if is_sensitive_header(name):
                scheme, sep, _ = value.partition(" ")
                keep = sep and scheme.lower() in ("bearer", "basic", "token", "digest")
                out[name] = f"{scheme} {MASK}" if keep else MASK
            else:
                out[name] = self(value)
        return out


def resolve(
    text: str,
    env: Mapping[str, str],
    redactor: Redactor,
    *,
    where: str,
    secret: bool,
    unset: list[str] | None = None,
) -> str:
    """Interpolate ``${VAR}`` in ``text``; record secret values with ``redactor``.

    With ``secret`` every variable's value (and the result) is a secret; otherwise
    only variables whose names look like secrets (``API_KEY``, ``TOKEN``...) are.
    Raises :class:`toolcat.loader.MissingVariableError` naming a variable that is not
    set, unless ``unset`` is given (a dry run): then such a variable stands as its own
    reference (``${NAME}``, a secret where its value would be) and its name is added to
    ``unset``.
    """
    if "$" not in text:
        if secret:
            redactor.add(text)
        return text
    value = interpolate(
        text, env, where=where, missing=None if unset is None else partial(_stand_in, unset)
    )
    for name in secret_references(text, secret=secret):
        var_value = env.get(name)
        if var_value:
            redactor.add(var_value)
        elif unset is not None and name in unset:
            redactor.add("${" + name + "}")
    if secret:
        redactor.add(value)
    return value


def secret_references(text: str, *, secret: bool) -> list[str]:
    """The ``${VAR}`` names in ``text`` whose values are secrets: every one where the field
    itself is ``secret``, else those whose names look like secrets (``API_KEY``, ...).

    >>> secret_references("db://me:${DB_PASSWORD}@${DB_HOST}", secret=False)
    ['DB_PASSWORD']
    """
    return [name for name in references(text) if secret or is_sensitive_variable(name)]


def _stand_in(unset: list[str], name: str) -> str:
    """A dry run's stand-in for the unset variable ``name``: its reference, its name noted."""
    if name not in unset:
        unset.append(name)
    return "${" + name + "}"
