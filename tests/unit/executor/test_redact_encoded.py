"""The redactor masks a secret in the forms an upstream's echo may give it."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

import pytest
from toolcat.executor._redact import MAX_ENCODED_SECRET, Redactor

SECRET = 's3cr/et é+key "q"'


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
    ],
)
def test_every_encoded_form_is_masked(form: str) -> None:
    assert Redactor([SECRET])(f"before {form} after") == "before *** after"


def test_astral_characters_as_surrogate_pairs() -> None:
    secret = "key\U0001f511x"
    assert Redactor([secret])(json.dumps({"k": secret})) == '{"k": "***"}'


def test_ordinary_text_is_left_alone() -> None:
    text = 'a \\n b %20 c + d "s3cr/et" \\u0073'
    assert Redactor([SECRET])(text) == text


def test_a_very_long_secret_is_masked_as_written_only() -> None:
    secret = "k" * (MAX_ENCODED_SECRET + 1)
    assert Redactor([secret])(f"{secret} %6B{secret[1:]}") == f"*** %6B{secret[1:]}"
