"""Output formats of `toolcat validate`: text, JSON, GitHub annotations, SARIF 2.1.0, JUnit XML.

Each formatter is a pure function of the diagnostics (and the files read) that
returns the text to print on stdout. Diagnostics are duck-typed
(``code``, ``name``, ``severity``, ``message``, ``file``, ``line``, ``column``,
``path``), so this module imports nothing heavy.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "FORMATS",
    "SEVERITY_RANK",
    "counts",
    "format_github",
    "github_summary",
    "format_json",
    "format_junit",
    "format_sarif",
    "format_text",
    "is_failure",
    "summary_line",
]

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


class DiagnosticLike(Protocol):
    # Read-only members, so frozen dataclasses (loader.Diagnostic) satisfy the protocol.
    @property
    def code(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def file(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def column(self) -> int: ...

    @property
    def path(self) -> tuple[str | int, ...]: ...

    @property
    def severity(self) -> Any: ...

    @property
    def name(self) -> str: ...


def _sev(d: DiagnosticLike) -> str:
    return str(getattr(d.severity, "value", d.severity))


def is_failure(d: DiagnosticLike, fail_on: str) -> bool:
    """Whether ``d`` is at or above the ``--fail-on`` threshold (info never fails)."""
    return SEVERITY_RANK.get(_sev(d), 2) <= SEVERITY_RANK[fail_on]


def counts(diagnostics: Iterable[DiagnosticLike]) -> dict[str, int]:
    c = Counter(_sev(d) for d in diagnostics)
    return {"error": c["error"], "warning": c["warning"], "info": c["info"]}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(diagnostics: Sequence[DiagnosticLike], files: Sequence[str]) -> str:
    """``2 errors, 1 warning in 3 files`` (``no problems in 3 files`` when clean)."""
    c = counts(diagnostics)
    where = f"in {_plural(len(files), 'file')}"
    if not diagnostics:
        return f"no problems {where}"
    parts = [_plural(c["error"], "error"), _plural(c["warning"], "warning")]
    if c["info"]:
        parts.append(_plural(c["info"], "note"))
    return f"{', '.join(parts)} {where}"


# -- text -------------------------------------------------------------------------


def format_text(diagnostics: Sequence[DiagnosticLike], files: Sequence[str], fail_on: str) -> str:
    """One ``file:line:col: severity code message`` line per finding."""
    return "".join(
        f"{d.file}:{d.line}:{d.column}: {_sev(d)} {d.code} {_one_line(d.message)}\n"
        for d in diagnostics
    )


def _one_line(text: str) -> str:
    from toolcat.catalog.common import escape_controls

    # control characters (ESC would let a catalog recolour or rewrite the terminal) as \xNN
    return escape_controls(" ".join(text.split()))


_XML_BAD = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF], "\ufffd")


def _xml_safe(text: str) -> str:
    """Replace the characters XML 1.0 cannot hold (control characters) with U+FFFD."""
    return text.translate(_XML_BAD)


# -- JSON -------------------------------------------------------------------------


def format_json(diagnostics: Sequence[DiagnosticLike], files: Sequence[str], fail_on: str) -> str:
    """A JSON object: ``{"version": 1, "files", "diagnostics", "counts", "failOn", "failed"}``."""
    doc = {
        "version": 1,
        "files": list(files),
        "diagnostics": [
            {
                "code": d.code,
                "name": d.name,
                "severity": _sev(d),
                "message": d.message,
                "file": d.file,
                "line": d.line,
                "column": d.column,
                "path": list(d.path),
            }
            for d in diagnostics
        ],
        "counts": counts(diagnostics),
        "failOn": fail_on,
        "failed": any(is_failure(d, fail_on) for d in diagnostics),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# -- GitHub workflow commands ------------------------------------------------------


def _gh_data(text: str) -> str:
    from toolcat.catalog.common import escape_controls

    return escape_controls(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(
    diagnostics: Sequence[DiagnosticLike],
    files: Sequence[str],
    fail_on: str,
    *,
    max_annotations: int | None = None,
    summary: bool = False,
) -> str:
    """``::error file=F,line=L,col=C,title=CODE name::message`` per finding (escaped per GitHub).

    ``max_annotations``: at most this many annotations (the most relevant come first);
    ``summary``: end with one plain line of totals, by code (not an annotation).
    """
    lines = []
    shown = diagnostics if max_annotations is None else diagnostics[:max_annotations]
    for d in shown:
        command = _GITHUB_COMMAND.get(_sev(d), "notice")
        props = (
            f"file={_gh_prop(_relative(d.file))},line={d.line},col={d.column},"
            f"title={_gh_prop(f'{d.code} {d.name}')}"
        )
        lines.append(f"::{command} {props}::{_gh_data(d.message)}\n")
    if summary:
        lines.append(github_summary(diagnostics, files, len(shown)) + "\n")
    return "".join(lines)


def github_summary(diagnostics: Sequence[DiagnosticLike], files: Sequence[str], shown: int) -> str:
    """``toolcat: 3 errors, ... in 12 files; 50 annotated, 9 not shown; by code: TC103 8, ...``"""
    total = len(diagnostics)
    line = f"toolcat: {summary_line(diagnostics, files)}"
    if total:
        line += f"; {shown} annotated" + (f", {total - shown} not shown" if total > shown else "")
        by_code = Counter(d.code for d in diagnostics).most_common()
        line += "; by code: " + ", ".join(f"{code} {n}" for code, n in by_code)
    return _one_line(line)


# -- SARIF 2.1.0 -------------------------------------------------------------------


def _relative(file: str) -> str:
    """``file`` relative to the working directory when it lies below it, else as given."""
    try:
        path = Path(file)
        if path.is_absolute():
            rel = path.resolve().relative_to(Path.cwd().resolve())
            return rel.as_posix()
    except (ValueError, OSError):
        pass
    return file.replace(os.sep, "/")


def _artifact(file: str) -> dict[str, str]:
    from urllib.parse import quote

    rel = _relative(file)
    if Path(rel).is_absolute():
        return {"uri": Path(rel).as_uri()}
    return {"uri": quote(rel), "uriBaseId": "%SRCROOT%"}


def _project_urls() -> dict[str, str]:
    """The package's ``Project-URL`` metadata (``[project.urls]``), labels lower-cased."""
    from importlib import metadata

    try:
        entries = metadata.metadata("toolcat").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, str] = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        found[label.strip().lower()] = url.strip().rstrip("/")
    return found


def _information_uri(urls: dict[str, str]) -> str | None:
    for key in ("homepage", "documentation", "repository", "source"):
        if urls.get(key, "").startswith("https://"):
            return urls[key]
    return None


def _docs_base(urls: dict[str, str]) -> str | None:
    """Where docs/diagnostics.md is published: ``[project.urls] Diagnostics``, or the
    repository's copy when the repository is on GitHub."""
    if urls.get("diagnostics", "").startswith("https://"):
        return urls["diagnostics"]
    for key in ("repository", "source", "homepage"):
        if urls.get(key, "").startswith("https://github.com/"):
            return f"{urls[key]}/blob/main/docs/diagnostics.md"
    return None


def _rule(code: str, name: str, severity: str, docs: str | None) -> dict[str, Any]:
    anchor = f"{code.lower()}-{name}"  # the GitHub slug of the "### TC012 unknown-service" heading
    rule: dict[str, Any] = {
        "id": code,
        "name": name,
        "shortDescription": {"text": name.replace("-", " ").capitalize()},
        "help": {"text": f"See docs/diagnostics.md#{anchor} for a broken and a fixed example."},
        "defaultConfiguration": {"level": _SARIF_LEVEL.get(severity, "note")},
    }
    if docs:
        rule["helpUri"] = f"{docs}#{anchor}"
    return rule


def format_sarif(
    diagnostics: Sequence[DiagnosticLike],
    files: Sequence[str],
    fail_on: str,
    *,
    version: str | None = None,
    docs_base: str | None = None,
    information_uri: str | None = None,
) -> str:
    """A SARIF 2.1.0 log with one run: a rule per code used, a result per finding.

    ``informationUri`` and each rule's ``helpUri`` come from the package's
    ``[project.urls]`` (or the arguments); without them they are left out and
    each rule's ``help`` text names docs/diagnostics.md.
    """
    if version is None:
        from toolcat import __version__

        version = __version__
    urls = _project_urls() if docs_base is None or information_uri is None else {}
    if docs_base is None:
        docs_base = _docs_base(urls)
    if information_uri is None:
        information_uri = _information_uri(urls)
    from toolcat.loader import CODES

    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results = []
    for d in diagnostics:
        if d.code not in index:
            registered = CODES.get(d.code)
            default = str(getattr(registered[1], "value", registered[1])) if registered else _sev(d)
            index[d.code] = len(rules)
            rules.append(_rule(d.code, d.name, default, docs_base))
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": _SARIF_LEVEL.get(_sev(d), "note"),
                "message": {"text": d.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": _artifact(d.file),
                            "region": {
                                "startLine": max(1, int(d.line)),
                                "startColumn": max(1, int(d.column)),
                            },
                        }
                    }
                ],
            }
        )
    driver: dict[str, Any] = {
        "name": "toolcat",
        "version": version,
        "semanticVersion": version,
        "rules": rules,
    }
    if information_uri:
        driver["informationUri"] = information_uri
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "artifacts": [{"location": _artifact(f)} for f in files],
        "results": results,
        "columnKind": "unicodeCodePoints",
        "invocations": [
            {
                "executionSuccessful": True,
                "exitCode": int(any(is_failure(d, fail_on) for d in diagnostics)),
            }
        ],
    }
    log = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# -- JUnit XML ---------------------------------------------------------------------


def format_junit(diagnostics: Sequence[DiagnosticLike], files: Sequence[str], fail_on: str) -> str:
    """One ``<testsuite>`` per file holding one ``<testcase>``; findings at or
    above ``fail_on`` are its ``<failure>``, the others go to ``<system-out>``."""
    import xml.etree.ElementTree as ET

    by_file: dict[str, list[DiagnosticLike]] = {f: [] for f in files}
    for d in diagnostics:
        by_file.setdefault(d.file, []).append(d)
    root = ET.Element("testsuites", name="toolcat validate")
    total_failures = 0
    for file, found in by_file.items():
        failing = [d for d in found if is_failure(d, fail_on)]
        other = [d for d in found if not is_failure(d, fail_on)]
        suite = ET.SubElement(
            root,
            "testsuite",
            name=_xml_safe(file),
            tests="1",
            failures=str(int(bool(failing))),
            errors="0",
            skipped="0",
        )
        case = ET.SubElement(
            suite,
            "testcase",
            classname="toolcat.validate",
            name=_xml_safe(file),
            file=_xml_safe(file),
        )
        if failing:
            total_failures += 1
            first = failing[0]
            failure = ET.SubElement(
                case,
                "failure",
                type=first.code,
                message=_xml_safe(
                    f"{_plural(len(failing), 'finding')}; first: {first.code} "
                    f"{_one_line(first.message)}"
                ),
            )
            failure.text = _xml_safe(format_text(failing, [file], fail_on))
        if other:
            ET.SubElement(case, "system-out").text = _xml_safe(format_text(other, [file], fail_on))
    root.set("tests", str(len(by_file)))
    root.set("failures", str(total_failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


Formatter = Callable[[Sequence[DiagnosticLike], Sequence[str], str], str]
FORMATS: dict[str, Formatter] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "sarif": format_sarif,
    "junit": format_junit,
}
