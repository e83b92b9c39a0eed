"""Write the table of every diagnostic code into docs/diagnostics.md, from the registry.

Usage: python scripts/diagnostics_table.py [--check]

The table is generated: each code's name, severity and summary live where the code is
registered (toolcat.loader._codes, and the lint rules of toolcat.loader._lint).
``--check`` exits 1 when the docs' table differs (tests/unit/loader/test_docs.py checks
the same).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from toolcat.loader import rules_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md"
TABLE = re.compile(r"^\| code \| name \|.*?\n(?=\n)", re.MULTILINE | re.DOTALL)


def with_table(text: str) -> str:
    """``text`` (docs/diagnostics.md) with its table of codes replaced by the registry's."""
    if TABLE.search(text) is None:
        raise SystemExit(f"{DOC.name}: no table of codes ('| code | name | ...') found")
    return TABLE.sub(lambda _: rules_table(), text, count=1)


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = with_table(text)
    if "--check" in sys.argv[1:]:
        if new != text:
            print(f"{DOC} is out of date: run python scripts/diagnostics_table.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
