"""The redactor masks a secret in the forms an upstream's echo may give it."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

import pytest
from toolcat.executor._redact import MAX_ENCODED_SECRET, Redactor

SECRET = 's3cr/et é+key "q"'
# SECRET's UTF-8 bytes as an upstream that decodes them as Latin-1 reads them
LATIN1 = SECRET.encode("utf-8").decode("latin-1")


@pytest.mark.parametrize(
    "form",
    [
        SECRET,
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET)[1:-1].replace("/", "\\/"),
        json.dumps(SECRET, ensure_ascii=True)[1:-1],
        "".join(f"\\u{ord(c):04X}" for c in SECRET),
        quote(SECRET, safe=""),
        quote(SECRET, safe="").lower(),
        quote_plus(SECRET),
        LATIN1,  # and then escaped as an echo does
        json.dumps(LATIN1, ensure_ascii=True)[1:-1],
        quote(LATIN1, safe=""),
    ],
)
def test_every_encoded_form_is_masked(form: str) -> None:
    assert Redactor([SECRET])(f"before {form} after") == "before *** after"


@pytest.mark.parametrize(
    ("secret", "echoed"),
    [
        ("clé-42", "clÃ©-42"),  # é is C3 A9: the same in Latin-1 and Windows-1252
        ("k€y-42", "kâ\x82¬y-42"),  # € is E2 82 AC: 82 is a C1 control in Latin-1...
        ("k€y-42", "kâ‚¬y-42"),  # ... and '‚' in Windows-1252
        ("k€y-42", "k\\u00e2\\u201a\\u00acy-42"),  # that, escaped by JSON
    ],
)
def test_what_an_upstream_decoding_utf_8_as_latin_1_echoes_is_masked(
    secret: str, echoed: str
) -> None:
    assert Redactor([secret])(f"echo: {echoed}!") == "echo: ***!"


def test_an_ascii_secret_gets_no_extra_forms() -> None:
    redactor = Redactor(["plain-key"])
    assert redactor("plain-key") == "***" and redactor._secrets == ["plain-key"]


def test_astral_characters_as_surrogate_pairs() -> None:
    secret = "key\U0001f511x"
    assert Redactor([secret])(json.dumps({"k": secret})) == '{"k": "***"}'


def test_ordinary_text_is_left_alone() -> None:
    text = 'a \\n b %20 c + d "s3cr/et" \\u0073'
    assert Redactor([SECRET])(text) == text


def test_a_very_long_secret_is_masked_as_written_only() -> None:
    secret = "k" * (MAX_ENCODED_SECRET + 1)
    assert Redactor([secret])(f"{secret} %6B{secret[1:]}") == f"*** %6B{secret[1:]}"
