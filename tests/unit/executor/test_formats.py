"""Every `format` docs/executor.md lists is checked, and the docs list exactly what is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from toolcat.executor import Executor, PreparedRequest, ToolCall, ToolResult
from toolcat.executor._arguments import FORMAT_CHECKER

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
    assert set(TABLE) == set(FORMAT_CHECKER.checkers)


def test_the_fast_path_treats_every_checked_format_as_asserted() -> None:
    """_ASSERTED is written out (no jsonschema import to build a checker): it must cover
    every format jsonschema checks, or the fast path would skip one that jsonschema
    checks. A newer jsonschema with a new format fails here, not in production."""
    from toolcat.executor._arguments import _ASSERTED

    assert set(FORMAT_CHECKER.checkers) <= _ASSERTED
    assert _ASSERTED - set(FORMAT_CHECKER.checkers) <= {"iri", "iri-reference"}


def test_building_an_executor_imports_no_jsonschema() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from toolcat.executor import Executor\n"
        "from toolcat.executor._arguments import ArgumentChecker\n"
        "c = ArgumentChecker({'type': 'object', 'properties': {'a': {'type': 'integer'}}})\n"
        "assert c.check({'a': 1}) == ()\n"
        "assert 'jsonschema' not in sys.modules, 'imported for a valid call'\n"
        "assert c.check({'a': 'x'})\n"
        "assert 'jsonschema' in sys.modules\n"
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
    assert fmt in refused.error.msg or "is not a" in refused.error.msg


def test_an_unlisted_format_is_an_annotation() -> None:
    assert "password" not in FORMAT_CHECKER.checkers
    assert isinstance(_prepare("password", "anything at all"), PreparedRequest)
