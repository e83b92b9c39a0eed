"""PyYAML, imported once for the package, without its slowest line.

``import yaml`` compiles ``yaml.reader.Reader.NON_PRINTABLE``, a negated character
class over every code point up to U+10FFFF. ``re`` builds that class point by
point: about 10 ms, a twentieth of ``toolcat list``'s whole run, for a pattern
toolcat never uses (the C composer reads the text; the pure-Python ``Reader`` does
not run). While ``yaml`` is imported, ``re.compile`` is handed the same class
written as its complement, which matches exactly the same characters
(``tests/unit/loader/test_pyyaml.py`` checks every code point) and compiles
in a fraction of the time. Every toolcat module takes ``yaml`` from here.
"""

from __future__ import annotations

import re
import sys
from typing import Any

# yaml.reader.Reader.NON_PRINTABLE, as PyYAML 5.1 to 6.0 write it ...
NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
# ... and the code points it matches, listed
NON_PRINTABLE_LISTED = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"


def _import_yaml() -> None:
    if "yaml" in sys.modules:
        return
    compile_ = re.compile

    def compile_listed(pattern: Any, flags: Any = 0) -> re.Pattern[Any]:
        if pattern == NON_PRINTABLE and not flags:
            pattern = NON_PRINTABLE_LISTED
        return compile_(pattern, flags)

    re.compile = compile_listed
    try:
        import yaml  # noqa: F401
    finally:
        re.compile = compile_


_import_yaml()

import yaml  # noqa: E402
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode  # noqa: E402
from yaml.resolver import Resolver  # noqa: E402

__all__ = [
    "NON_PRINTABLE",
    "NON_PRINTABLE_LISTED",
    "MappingNode",
    "Node",
    "Resolver",
    "ScalarNode",
    "SequenceNode",
    "yaml",
]
