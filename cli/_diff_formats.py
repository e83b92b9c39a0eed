"""Output formats of `toolcat diff`: text, Markdown, JSON, SARIF 2.1.0, GitHub annotations.

Each formatter is a pure function of the changes (``toolcat.catalog.diff.ToolChange``)
and a :class:`DiffReport` header; it returns the text to print on stdout. File names
in changes are already the ones to show (``REF:path`` for a catalog read from git).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._formats import (
    SARIF_SCHEMA_URI,
    _artifact,
    _gh_data,
    _gh_prop,
    _information_uri,
    _one_line,
    _project_urls,
)

if TYPE_CHECKING:
    from toolcat.catalog.diff import ToolChange

__all__ = [
    "DIFF_FORMATS",
    "FAIL_ON",
    "MARKDOWN_ROWS",
    "DiffReport",
    "combine",
    "format_load_failure",
    "is_failure",
    "summary",
]

# --fail-on: the least serious class that fails the run (a ladder, like validate's)
FAIL_ON = {"breaking": 0, "safety": 1, "any": 2}
MARKDOWN_ROWS = 50  # rows per class in a Markdown report (a PR comment holds 65,536 chars)

_SARIF_LEVEL = {"breaking": "error", "safety": "warning", "note": "note"}
_GITHUB_COMMAND = {"breaking": "error", "safety": "warning", "note": "notice"}
_HEADINGS = {"breaking": "Breaking changes", "safety": "Safety regressions", "note": "Notes"}


@dataclass(frozen=True, slots=True)
class DiffReport:
    """What was compared: the OLD and NEW catalogs as the user named them."""

    old: str
    new: str
    fail_on: str = "breaking"


def is_failure(change: ToolChange, fail_on: str) -> bool:
    """Whether ``change`` is at or above the ``--fail-on`` class."""
    return change.kind.rank <= FAIL_ON[fail_on]


def _counts(changes: Sequence[ToolChange]) -> dict[str, int]:
    c = Counter(str(ch.kind) for ch in changes)
    return {"breaking": c["breaking"], "safety": c["safety"], "note": c["note"]}


def summary(changes: Sequence[ToolChange]) -> str:
    """``2 breaking, 1 safety, 3 notes in 4 tools`` (``no changes`` when there are none)."""
    if not changes:
        return "no changes"
    c = _counts(changes)
    tools = len({ch.tool for ch in changes})
    notes = "note" if c["note"] == 1 else "notes"
    where = "1 tool" if tools == 1 else f"{tools} tools"
    return f"{c['breaking']} breaking, {c['safety']} safety, {c['note']} {notes} in {where}"


def _where(change: ToolChange) -> str:
    return f"{change.source}: " if change.source is not None else ""


def format_text(changes: Sequence[ToolChange], report: DiffReport) -> str:
    """One ``file:line:col: class RULE tool /location: message`` line per change."""
    lines = []
    for ch in changes:
        at = f" {ch.location}" if ch.location else ""  # property names may hold anything
        lines.append(
            _one_line(f"{_where(ch)}{ch.kind} {ch.rule} {ch.tool}{at}: {ch.message}") + "\n"
        )
    return "".join(lines)


def _cell(text: str) -> str:
    return _one_line(text).replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def format_markdown(changes: Sequence[ToolChange], report: DiffReport) -> str:
    """A report for a pull-request comment: a summary, then one table per class."""
    out = [f"### toolcat diff: {summary(changes)}\n"]
    out.append(f"\n`{_cell(report.old)}` → `{_cell(report.new)}`\n")
    for kind, heading in _HEADINGS.items():
        rows = [ch for ch in changes if str(ch.kind) == kind]
        if not rows:
            continue
        out.append(f"\n#### {heading} ({len(rows)})\n\n| rule | tool | where | change |\n")
        out.append("|---|---|---|---|\n")
        for ch in rows[:MARKDOWN_ROWS]:
            where = f"`{_cell(ch.location)}`" if ch.location else ""
            out.append(
                f"| {ch.rule} {ch.name} | `{_cell(ch.tool)}` | {where} | {_cell(ch.message)} |\n"
            )
        if len(rows) > MARKDOWN_ROWS:
            more = len(rows) - MARKDOWN_ROWS
            out.append(f"\n… and {more} more; `--format json` lists every change.\n")
    return "".join(out)


def _change_json(ch: ToolChange) -> dict[str, Any]:
    src = ch.source
    return {
        "rule": ch.rule,
        "name": ch.name,
        "severity": str(ch.kind),
        "tool": ch.tool,
        "location": ch.location,
        "message": ch.message,
        "file": src.file if src else None,
        "line": src.line if src else None,
        "column": src.column if src else None,
    }


def format_json(changes: Sequence[ToolChange], report: DiffReport) -> str:
    """``{"version": 1, "old", "new", "findings", "counts", "failOn", "failed"}``; each
    finding's ``severity`` is its class (``breaking``, ``safety``, ``note``)."""
    doc = {
        "version": 1,
        "old": report.old,
        "new": report.new,
        "findings": [_change_json(ch) for ch in changes],
        "counts": _counts(changes),
        "failOn": report.fail_on,
        "failed": any(is_failure(ch, report.fail_on) for ch in changes),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _located(ch: ToolChange) -> bool:
    """A change has a place in the NEW files (a removed tool's place was in OLD)."""
    return ch.source is not None and ch.rule != "TD101"


def format_github(changes: Sequence[ToolChange], report: DiffReport) -> str:
    """``::error file=F,line=L,col=C,title=TD107 constraint-tightened::tool x ...``."""
    from ._formats import _relative

    lines = []
    for ch in changes:
        props = []
        if _located(ch):
            assert ch.source is not None
            src = ch.source
            props.append(f"file={_gh_prop(_relative(src.file))},line={src.line},col={src.column}")
        props.append(f"title={_gh_prop(f'{ch.rule} {ch.name}')}")
        at = f" {ch.location}" if ch.location else ""
        text = f"tool '{ch.tool}'{at}: {ch.message}"
        lines.append(f"::{_GITHUB_COMMAND[str(ch.kind)]} {','.join(props)}::{_gh_data(text)}\n")
    return "".join(lines)


def _sarif_rule(rule_id: str, repo_docs: str | None) -> dict[str, Any]:
    from toolcat.catalog.diff import CHANGE_RULES

    rule = CHANGE_RULES[rule_id]
    entry: dict[str, Any] = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "help": {"text": "See docs/cli.md, section 'toolcat diff', for every rule."},
        "defaultConfiguration": {"level": _SARIF_LEVEL[str(rule.kind)]},
        "properties": {"severity": str(rule.kind)},
    }
    if repo_docs:
        entry["helpUri"] = f"{repo_docs}#toolcat-diff"
    return entry


def format_sarif(changes: Sequence[ToolChange], report: DiffReport) -> str:
    """A SARIF 2.1.0 log: a rule per rule id used, a result per change (a location in
    the NEW files when known, and the tool with the change's pointer as a logical one)."""
    from pathlib import Path

    from toolcat import __version__

    urls = _project_urls()
    repo = next(
        (urls[k] for k in ("repository", "source") if urls.get(k, "").startswith("https://")),
        None,
    )
    repo_docs = f"{repo}/blob/main/docs/cli.md" if repo and "github.com/" in repo else None
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results = []
    for ch in changes:
        if ch.rule not in index:
            index[ch.rule] = len(rules)
            rules.append(_sarif_rule(ch.rule, repo_docs))
        result: dict[str, Any] = {
            "ruleId": ch.rule,
            "ruleIndex": index[ch.rule],
            "level": _SARIF_LEVEL[str(ch.kind)],
            "message": {"text": f"tool '{ch.tool}': {ch.message}"},
        }
        location: dict[str, Any] = {
            "logicalLocations": [
                {"name": ch.tool, "fullyQualifiedName": f"{ch.tool}{ch.location}", "kind": "member"}
            ]
        }
        if _located(ch):
            assert ch.source is not None
            location["physicalLocation"] = {
                "artifactLocation": _artifact(ch.source.file),
                "region": {
                    "startLine": max(1, ch.source.line),
                    "startColumn": max(1, ch.source.column),
                },
            }
        result["locations"] = [location]
        results.append(result)
    driver: dict[str, Any] = {
        "name": "toolcat",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": rules,
    }
    info = _information_uri(urls)
    if info:
        driver["informationUri"] = info
    failed = any(is_failure(ch, report.fail_on) for ch in changes)
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "results": results,
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True, "exitCode": int(failed)}],
    }
    log = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


DiffFormatter = Callable[[Sequence["ToolChange"], DiffReport], str]
DIFF_FORMATS: dict[str, DiffFormatter] = {
    "text": format_text,
    "markdown": format_markdown,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}


def format_load_failure(
    fmt: str, failed: Sequence[tuple[str, Sequence[Any], Sequence[str]]], report: DiffReport
) -> str:
    """What stdout holds when OLD or NEW does not load: nothing was compared, and the
    machine formats still parse (their diagnostics as ``toolcat validate`` gives them)."""
    from ._formats import FORMATS, format_text

    diagnostics = [d for _, found, _ in failed for d in found]
    files = [f for _, _, read in failed for f in read]
    sides = " and ".join(side for side, _, _ in failed)
    if fmt == "text":
        return ""  # stderr has every line already
    if fmt == "markdown":
        lines = format_text(diagnostics, files, "error")
        return (
            f"### toolcat diff: {sides} does not load; nothing compared\n\n"
            f"`{_cell(report.old)}` → `{_cell(report.new)}`\n\n```\n{lines}```\n"
        )
    if fmt == "json":
        validate_doc = json.loads(FORMATS["json"](diagnostics, files, "error"))
        doc = {
            "version": 1,
            "old": report.old,
            "new": report.new,
            "findings": [],
            "counts": {"breaking": 0, "safety": 0, "note": 0},
            "failOn": report.fail_on,
            "failed": True,
            "notLoaded": [side for side, _, _ in failed],
            "diagnostics": validate_doc["diagnostics"],
        }
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return FORMATS[fmt](diagnostics, files, "error")  # sarif, github: as validate writes them


def combine(fmt: str, reports: Sequence[str]) -> str:
    """The reports of several catalogs (the roots of a repository) as one document of
    ``fmt``: text, Markdown and GitHub annotations one after the other; JSON as
    ``{"version": 1, "catalogs": [report, ...], "failed"}``; SARIF as one log with a
    run per catalog. One report is returned as it is."""
    if len(reports) == 1:
        return reports[0]
    if fmt == "json":
        docs = [json.loads(r) for r in reports]
        doc = {"version": 1, "catalogs": docs, "failed": any(d["failed"] for d in docs)}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        logs = [json.loads(r) for r in reports]
        log = {**logs[0], "runs": [run for one in logs for run in one["runs"]]}
        return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return "\n".join(reports)
    return "".join(reports)
