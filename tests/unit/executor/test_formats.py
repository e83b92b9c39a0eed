"""Every `format` docs/executor.md lists is checked, and the docs list exactly what is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from toolcat.executor import Executor, PreparedRequest, ToolCall, ToolResult
from toolcat.executor._arguments import CHECKED_FORMATS

from .factory import catalog, p, tool

DOC = Path(__file__).resolve().parents[3] / "docs" / "executor.md"
ROW = re.compile(r"^\| `([a-z0-9-]+)` \| `([^`]*)` \| `([^`]*)` \|$")


def _table() -> dict[str, tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Formats", 1)[1].split("\n## ", 1)[0]
    rows = [ROW.match(line) for line in section.splitlines()]
    return {m.group(1): (m.group(2), m.group(3)) for m in rows if m}


TABLE = _table()


def test_the_docs_list_exactly_the_checked_formats() -> None:
    assert len(TABLE) >= 19  # the table was read (2020-12's formats less iri/iri-reference)
    assert set(TABLE) == CHECKED_FORMATS


def test_jsonschema_rs_checks_no_other_format_of_2020_12() -> None:
    """Each 2020-12 format jsonschema-rs knows is either listed or left as an annotation
    on purpose: a value jsonschema-rs refuses for a format not listed would fail here."""
    from toolcat.executor._arguments import _UNCHECKED_FORMATS

    others = {"iri": "not an iri", "iri-reference": "http://exa mple.com", "password": ""}
    assert set(_UNCHECKED_FORMATS) < set(others)
    for fmt, bad in others.items():
        assert isinstance(_prepare(fmt, bad), PreparedRequest), fmt


def test_building_an_executor_imports_no_jsonschema() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from toolcat.executor import Executor\n"
        "from toolcat.executor._arguments import ArgumentChecker\n"
        "c = ArgumentChecker({'type': 'object', 'properties': {'a': {'type': 'integer'}}})\n"
        "assert c.check({'a': 1}) == ()\n"
        "assert c.check({'a': 'x'})\n"
        "assert 'jsonschema' not in sys.modules, 'imported by the argument check'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def _value(fmt: str, text: str) -> Any:
    return int(text) if fmt in ("int32", "int64") else text


def _prepare(fmt: str, value: Any) -> PreparedRequest | ToolResult:
    kind = "integer" if fmt in ("int32", "int64") else "string"
    t = tool(params=(p("v", "query", {"type": kind, "format": fmt}, required=True),))
    with Executor(catalog(t)) as executor:
        return executor.prepare(ToolCall("t", {"v": value}))


@pytest.mark.parametrize("fmt", sorted(TABLE))
def test_each_listed_format_accepts_and_refuses_its_examples(fmt: str) -> None:
    good, bad = TABLE[fmt]
    assert isinstance(_prepare(fmt, _value(fmt, good)), PreparedRequest), good
    refused = _prepare(fmt, _value(fmt, bad))
    assert isinstance(refused, ToolResult) and refused.error is not None, bad
    assert refused.error.type == "invalid_arguments"
    assert fmt in refused.error.msg or "maximum of" in refused.error.msg


def test_an_unlisted_format_is_an_annotation() -> None:
    assert "password" not in CHECKED_FORMATS
    assert isinstance(_prepare("password", "anything at all"), PreparedRequest)
