from __future__ import annotations

import pytest
from toolcat.loader import MissingVariableError, check_env_syntax, interpolate


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("plain", {}, "plain"),
        ("${A}", {"A": "1"}, "1"),
        ("${A:-x}/y", {}, "x/y"),
        ("${A:-x}", {"A": ""}, "x"),
        ("${A:-}", {}, ""),
        ("$${A}", {}, "${A}"),
        ("http://${HOST:-127.0.0.1}:${PORT:-8080}/api", {"PORT": "9"}, "http://127.0.0.1:9/api"),
    ],
)
def test_interpolate(text: str, env: dict[str, str], expected: str) -> None:
    assert interpolate(text, env) == expected


def test_missing_variable_names_it_without_a_value() -> None:
    with pytest.raises(MissingVariableError) as info:
        interpolate("Bearer ${TOKEN}", {"OTHER": "secret"}, where="service orders")
    assert "TOKEN" in str(info.value) and "secret" not in str(info.value)


@pytest.mark.parametrize("text", ["${", "${1A}", "${A", "${A-b}", "x${}y", "${A:-b"])
def test_bad_syntax_is_found(text: str) -> None:
    error = check_env_syntax(text)
    assert error is not None
    assert text.index("${") == error.offset


@pytest.mark.parametrize("text", ["", "$5", "a$b", "${A}", "${A_1:-http://x:1/}", "$$", "$${"])
def test_good_syntax_passes(text: str) -> None:
    assert check_env_syntax(text) is None
