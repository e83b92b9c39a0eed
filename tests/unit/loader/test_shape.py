"""Stage 2: the file models and how their errors read (code, place, advice)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolcat.loader import load_catalog
from toolcat.tests.support import http_command

HEAD = "toolcat: 1\nservices:\n  svc:\n    base_url: http://127.0.0.1:1\n"
TOOL = (
    "tools:\n  - name: t\n    description: A tool.\n    service: svc\n    method: GET\n"
    "    path: /x\n"
)


def _diags(tmp_path: Path, text: str) -> list[tuple[str, int, str]]:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return [(d.code, d.line, d.message) for d in load_catalog([path]).diagnostics]


@pytest.mark.parametrize(
    ("extra", "code", "line", "words"),
    [
        ("    timout: 3\n", "TC003", 11, "did you mean 'timeout'?"),
        ("    zzz: 3\n", "TC003", 11, "valid keys: name, description"),
        ("    timeout: [1]\n", "TC004", 11, "a number of seconds or a mapping"),
        ("    timeout: {conect: 1}\n", "TC003", 11, "did you mean 'connect'?"),
        ("    retry: {attempts: 0}\n", "TC008", 11, "greater than or equal to 1"),
        ("    tags: ops\n", "TC004", 11, "must be a list, not string 'ops'"),
        (
            "    headers: {X-A: [1]}\n",
            "TC004",
            11,
            "must be a string, an integer, a number or true or false, not a list",
        ),
        ("    auth: {type: bearr, token: x}\n", "TC008", 11, "did you mean 'bearer'?"),
        ("    auth: {token: x}\n", "TC005", 11, "missing required key 'type'"),
        (
            "    auth: {type: basic, username: u}\n",
            "TC005",
            11,
            "missing required key 'password' in auth",
        ),
        ("    parameters:\n      q: string\n", "TC004", 12, "write {type: string}"),
        (
            "    parameters:\n      q: {type: string, description: Q., in: querry}\n",
            "TC008",
            12,
            "use one of 'path', 'query'",
        ),
        ("    confirm: 'yes'\n", "TC004", 11, "must be true or false, not string 'yes'"),
    ],
)
def test_tool_shape_errors(tmp_path: Path, extra: str, code: str, line: int, words: str) -> None:
    (found,) = _diags(tmp_path, HEAD + TOOL + extra)
    assert found[:2] == (code, line), found
    assert words in found[2]
    assert found[2].startswith("tool 't': ")


def test_missing_required_tool_key_points_at_the_tool(tmp_path: Path) -> None:
    text = HEAD + TOOL.replace("    path: /x\n", "")
    assert _diags(tmp_path, text) == [
        ("TC005", 6, "tool 't': missing required key 'path'; add 'path:'")
    ]


def test_method_any_case(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + TOOL.replace("method: GET", "method: pAtCh") + "    confirm: true\n")
    result = load_catalog([path])
    assert result.diagnostics == ()
    assert result.catalog is not None and http_command(result.catalog["t"]).method == "PATCH"


def test_version_as_text_gets_a_hint(tmp_path: Path) -> None:
    (found,) = _diags(tmp_path, 'toolcat: "1"\n')
    assert found[:2] == ("TC006", 1) and "as a number" in found[2]


@pytest.mark.parametrize(
    ("key", "meant"),
    [("explod", "explode"), ("sensitve", "sensitive"), ("contnt_type", "content_type")],
)
def test_a_misspelt_placement_key_is_an_error(tmp_path: Path, key: str, meant: str) -> None:
    """Every placement key, `sensitive` included, is one the typo check knows: a misspelt
    one would silently send (or log) the argument differently, so it is an error."""
    extra = f"    parameters:\n      q: {{type: string, description: Q., {key}: true}}\n"
    (found,) = _diags(tmp_path, HEAD + TOOL + extra)
    assert found[0] == "TC003", found
    assert f"did you mean '{meant}'?" in found[2]
