"""PyYAML is imported through toolcat.loader._pyyaml, whose cheaper pattern matches exactly
what PyYAML's own does."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from toolcat.loader import _pyyaml

PACKAGE = Path(__file__).resolve().parents[3]


def test_the_listed_class_matches_every_code_point_as_pyyaml_s() -> None:
    theirs = re.compile(_pyyaml.NON_PRINTABLE)
    ours = re.compile(_pyyaml.NON_PRINTABLE_LISTED)
    text = "".join(map(chr, range(0x110000)))
    assert [m.start() for m in ours.finditer(text)] == [m.start() for m in theirs.finditer(text)]


def test_it_is_the_pattern_pyyaml_writes() -> None:
    """A PyYAML release that changes the line would import as usual, only slower: this says so."""
    source = Path(_pyyaml.yaml.reader.__file__).read_text(encoding="utf-8")
    line = next(ln for ln in source.splitlines() if "NON_PRINTABLE = re.compile(" in ln)
    written = line.split("re.compile(", 1)[1].rsplit(")", 1)[0]
    assert ast.literal_eval(written) == _pyyaml.NON_PRINTABLE


def test_loading_yaml_through_toolcat_swaps_in_the_cheap_pattern_only_while_importing() -> None:
    code = (
        "import re, toolcat.loader._yaml as y, yaml\n"
        "from toolcat.loader._pyyaml import NON_PRINTABLE_LISTED as L\n"
        "assert yaml.reader.Reader.NON_PRINTABLE.pattern == L\n"
        "assert re.compile.__module__ == 're'\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "ok"


def test_no_module_imports_yaml_itself() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in {"tests", "benchmarks", ".venv", "build"} or rel.name == "_pyyaml.py":
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.match(r"\s*(import yaml\b|from yaml[. ])", line):
                offenders.append(f"{rel}: {line.strip()}")
    assert offenders == []
