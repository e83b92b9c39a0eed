"""The one YAML reader: YAML 1.2 core-schema values, with where every key and value was written.

Catalogs, OpenAPI specs (``loader/openapi/_read.py``) and every other YAML
toolcat reads (:func:`read_yaml`) go through here, so a text means the same
value everywhere; what a plain scalar means is in ``_yaml_scalars.py``.

PyYAML's C parser yields the document as events; one pass over them
(``_yaml_reader.py``) builds the plain Python values and the positions of every
node (:class:`Positions`, plain tuples looked up by YAML path), and reports
duplicate keys (which ``yaml.load`` keeps silently), unsupported tags and aliases
that expand too far on the way. No node tree is built: a tree of nodes and marks
per file, alive while it was walked, was promoted by the cycle collector and
walked again by each of its full collections, a third of reading a large catalog.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml

from ._diagnostics import CatalogError, Diagnostic, Severity
from ._yaml_positions import Positions
from ._yaml_reader import Reader
from ._yaml_scalars import Yaml11Scalar

__all__ = [
    "ParsedYaml",
    "parse_yaml",
    "yaml_document",
    "read_yaml",
    "yaml11_warnings",
]


@dataclass(frozen=True, slots=True)
class ParsedYaml:
    """One parsed file: its value (``None`` when unusable), positions and findings.

    ``too_large`` says the document was refused because its aliases expand past
    a limit, and ``over`` names it ("5,000,000 values"); ``yaml11`` lists the
    plain values whose meaning changed from YAML 1.1 (see :func:`yaml11_warnings`).
    """

    data: Any
    positions: Positions
    diagnostics: tuple[Diagnostic, ...]
    too_large: bool = False
    yaml11: tuple[Yaml11Scalar, ...] = ()
    over: str = ""


def _unclosed(exc: yaml.MarkedYAMLError, text: str) -> bool:
    """Whether the error is an unclosed quote, or a bracket meant to close on its own line.

    Then the line to fix is where it was opened, not where the parser noticed
    (often the next key, or past the end of the file). A flow collection whose
    line ends with its opening bracket spans lines on purpose: a missing comma
    inside it is found where the parser stopped.
    """
    start, mark, context = exc.context_mark, exc.problem_mark, str(exc.context or "")
    if start is None or mark is None or start.line >= mark.line:
        return False
    if "quoted scalar" in context or "simple key" in context:
        return True  # a key without its ':' is found on the line after it
    if "flow" not in context:
        return False
    line_end = text.find("\n", start.index)
    opener_line = text[start.index : line_end if line_end != -1 else len(text)]
    return not opener_line.split(" #", 1)[0].rstrip().endswith(("[", "{"))


def _syntax_message(exc: yaml.MarkedYAMLError, text: str) -> str:
    source = text
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    if "expected a single document" in problem or "expected a single document" in str(context):
        return "a catalog file holds one YAML document; remove the second '---' or split the file"
    mark = exc.problem_mark
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        return "tab characters cannot indent YAML; indent with spaces"
    text = f"YAML syntax error: {problem}"
    start = exc.context_mark
    if _unclosed(exc, source) and start is not None and mark is not None:
        if "simple key" in str(context):
            return (
                f"YAML syntax error: this key has no ':' after it ({problem}, noticed at "
                f"line {mark.line + 1}, column {mark.column + 1})"
            )
        what = "quote" if "quoted" in str(context) else "bracket"
        return (
            f"YAML syntax error: this {what} is never closed ({problem}, noticed at line "
            f"{mark.line + 1}, column {mark.column + 1})"
        )
    if context and start is not None and mark is not None and start.line != mark.line:
        text += f" ({context} that starts at line {start.line + 1}, column {start.column + 1})"
    elif context:
        text += f" ({context})"
    return text


def yaml_document(text: str | bytes, file: str, *, cycles: bool = False) -> ParsedYaml | None:
    """Plain values and positions of one YAML document (``None`` when the text holds none).

    Aliases are counted as expanded against the caps; ``cycles=True`` lets an
    alias refer to the node that contains it (the value then contains itself),
    as the OpenAPI importer handles per operation; otherwise that is a TC001
    error. Raises :class:`yaml.YAMLError` when the text is not YAML, and
    ``ValueError`` when it cannot be decoded (callers word both for their users).
    """
    reader = Reader(text, file, cycles)
    found, data = reader.read()
    if not found:
        return None
    return ParsedYaml(
        data,
        Positions(file, reader.entries),
        tuple(reader.diagnostics),
        reader.too_large,
        tuple(reader.yaml11),
        reader.over,
    )


def parse_yaml(text: str, file: str) -> ParsedYaml:
    """Parse one YAML document into plain values with a position index.

    >>> parsed = parse_yaml("a: 1\\nb: [x]\\n", "c.yaml")
    >>> parsed.data, parsed.positions.value(("b", 0))
    ({'a': 1, 'b': ['x']}, (2, 5))
    """
    try:
        parsed = yaml_document(text, file)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if _unclosed(exc, text):
            mark = exc.context_mark  # where the bracket or quote was opened
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        diag = Diagnostic.make("TC001", _syntax_message(exc, text), file, line, col)
        return ParsedYaml(None, Positions(file), (diag,))
    except yaml.YAMLError as exc:  # reader errors (bad characters) carry a position too
        line, col = 1, 1
        position = getattr(exc, "position", None)
        if isinstance(position, int):
            before = text[:position]
            line = before.count("\n") + 1
            col = position - (before.rfind("\n") + 1) + 1
        message = f"YAML syntax error: {exc}".splitlines()[0]
        diag = Diagnostic.make("TC001", message, file, line, col)
        return ParsedYaml(None, Positions(file), (diag,))
    return parsed if parsed is not None else ParsedYaml(None, Positions(file), ())


def yaml11_warnings(parsed: ParsedYaml) -> list[Diagnostic]:
    """TC109 for each plain value that a YAML 1.1 tool reads as a boolean or number,
    or as another number (``010``: octal there).

    Users copy YAML from 1.1 tools (PyYAML's ``safe_load``, Ansible, older
    Kubernetes tooling), where ``country: NO`` is ``false`` and ``on: 1:30`` is
    ninety; toolcat reads both as text, so the file means something else to
    the tool it came from. Catalogs get this lint; imported specs do not (they
    are not the user's to edit, and OpenAPI 3.1 itself says YAML 1.2).
    """
    out = []
    for s in parsed.yaml11:
        old, new = s.yaml11, s.yaml12
        kind = "boolean" if isinstance(old, bool) else "number"
        shown = json.dumps(old) if isinstance(old, bool) else repr(old)
        if isinstance(new, int):  # a leading zero: octal in 1.1
            message = (
                f"{s.text} is the number {new} in YAML 1.2, but the number {shown} in YAML "
                f"1.1 tools, which read a leading 0 as octal; quote it ({json.dumps(s.text)}) "
                f"to keep the text, or write {new} (or {shown}) without the leading 0"
            )
        else:
            message = (
                f"{s.text} is the text {json.dumps(s.text)} in YAML 1.2, but the {kind} "
                f"{shown} in YAML 1.1 tools; quote it ({json.dumps(s.text)}) to keep the "
                f"text, or write {shown} for the {kind}"
            )
        out.append(Diagnostic.make("TC109", message, parsed.positions.file, s.line, s.column))
    return out


def read_yaml(text: str | bytes, file: str = "<string>") -> Any:
    """Read one YAML document as toolcat reads every YAML file (YAML 1.2 core schema).

    The replacement for ``yaml.safe_load`` anywhere in toolcat, so that a text
    means the same value in a catalog, a spec and everything else: ``yes``,
    ``no``, ``on``, ``off`` stay strings, ``true``/``false`` are booleans,
    timestamps stay strings, mapping keys are strings. Returns ``None`` for an
    empty document. A duplicate key keeps the last value (as ``safe_load``).
    Raises :class:`CatalogError` (TC001/TC004, with positions in ``file``)
    when the text is not YAML, uses unsupported tags, or its aliases expand past
    a limit (:data:`MAX_YAML_VALUES`, :data:`MAX_YAML_CHARS`, :data:`EXPANSION_FACTOR`).

    >>> read_yaml("enum: [DE, FR, NO]\\nstrict: true\\n")
    {'enum': ['DE', 'FR', 'NO'], 'strict': True}
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            diag = Diagnostic.make("TC001", f"the text is not UTF-8: {exc.reason}", file)
            raise CatalogError([diag]) from exc
    parsed = parse_yaml(text, file)
    errors = [d for d in parsed.diagnostics if d.severity is Severity.ERROR and d.code != "TC002"]
    if errors:
        raise CatalogError(errors)
    return parsed.data
