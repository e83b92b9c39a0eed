"""Help is as wide as shutil would say, the parser imports no shutil for the width, and a run
of `toolcat list` imports none of the slow modules it does not need (jsonschema, jinja2, httpx).
pydantic it needs (the file models), and with it shutil (importlib.metadata's zipfile)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from toolcat.cli._app import build_parser, help_width

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo"


@pytest.mark.parametrize("columns", ["50", "132", "", "zero", "-3"])
def test_width_as_shutil_finds_it(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    import shutil

    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setenv("LINES", "24")  # shutil reads both; only COLUMNS matters here
    assert help_width() == shutil.get_terminal_size().columns - 2


def test_help_wraps_at_that_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    narrow = build_parser("list").format_help()
    monkeypatch.setenv("COLUMNS", "200")
    wide = build_parser("list").format_help()
    assert max(map(len, narrow.splitlines())) <= 38 < max(map(len, wide.splitlines()))


def test_the_parser_imports_no_shutil_and_list_no_heavy_library() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from toolcat.cli._app import build_parser, main\n"
        f"build_parser('list').parse_args(['list', {str(DEMO)!r}])\n"
        "assert not {'shutil', 'bz2', 'lzma'} & set(sys.modules)\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['list', {str(DEMO)!r}]) == 0\n"
        "slow = ('jsonschema', 'jinja2', 'httpx')\n"
        "print(sorted(m for m in slow if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
