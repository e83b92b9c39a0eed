"""Log lines cannot be forged: every character that ends a line is escaped, whatever
carried it into the record (a string argument, another type, the message itself)."""

from __future__ import annotations

import logging
import sys

import pytest
from toolcat.catalog.common import escape_controls, escape_json_controls
from toolcat.executor._logsafe import SecretFilter

# Every character str.splitlines ends a line at: CR, LF, VT, FF, FS, GS, RS, NEL, LS, PS.
LINE_ENDS = [chr(c) for c in range(sys.maxunicode + 1) if len(f"a{chr(c)}b".splitlines()) > 1]


def test_the_line_ends_are_the_ones_python_knows() -> None:
    assert len(LINE_ENDS) == 10 and "\u2028" in LINE_ENDS and "\u2029" in LINE_ENDS


@pytest.mark.parametrize("end", LINE_ENDS, ids=[f"U+{ord(c):04X}" for c in LINE_ENDS])
def test_no_line_end_survives_escaping(end: str) -> None:
    assert len(escape_controls(f"a{end}b").splitlines()) == 1
    assert end not in escape_controls(f"a{end}b")
    if ord(end) > 0x7F:  # json.dumps escapes the C0 ones itself
        assert end not in escape_json_controls(f'"a{end}b"')


class _Claims:
    """Not a string: its text reaches the line through %s."""

    def __str__(self) -> str:
        return "alice\u2028toolcat serve: FORGED"


@pytest.mark.parametrize(
    ("msg", "args"),
    [
        ("refused %s", ("alice\u2028toolcat serve: FORGED",)),
        ("refused %s", (_Claims(),)),
        ("refused %r", (["alice\u2029toolcat serve: FORGED"],)),
        ("refused alice\u2028toolcat serve: FORGED", None),  # an f-string
    ],
)
def test_a_record_holds_one_line(msg: str, args: tuple[object, ...] | None) -> None:
    record = logging.LogRecord("toolcat.serve", logging.INFO, __file__, 1, msg, args, None)
    assert SecretFilter().filter(record)
    line = record.getMessage()
    assert len(line.splitlines()) == 1 and "FORGED" in line
    assert "\\u2028" in line or "\\u2029" in line
