"""What `toolcat validate` reports after loading: inline suppressions, settings, baseline.

Order: the loader's findings, minus those a ``# toolcat: ignore[CODE]`` comment
suppresses (a suppression that matched nothing is TC125), then the settings
(``ignore`` and ``severity``), then the baseline (findings already in it are
left out).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ._app import CliError

__all__ = [
    "Baseline",
    "apply_settings",
    "apply_suppressions",
    "fingerprint",
    "read_baseline",
    "write_baseline",
]

# ``# toolcat: ignore[TC104]`` or ``# toolcat: ignore[TC103, TC104]``
_SUPPRESS = re.compile(r"#\s*toolcat:\s*ignore\[([^\]]*)\]")
_CODE = re.compile(r"^TC\d{3}$")
_YAML = (".yaml", ".yml")


def _suppressions(text: str) -> dict[int, tuple[set[str], bool]]:
    """Line -> (codes, whether the line is only the comment) for every suppression comment."""
    found: dict[int, tuple[set[str], bool]] = {}
    line, counted = 1, 0
    for m in _SUPPRESS.finditer(text):  # one regex pass: a 40 MB catalog is not split in lines
        line += text.count("\n", counted, m.start())
        counted = m.start()
        before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        codes = {c.strip() for c in m.group(1).split(",") if c.strip()}
        found[line] = (codes, not before.strip())
    return found


def apply_suppressions(diagnostics: Sequence[Any], files: Iterable[str]) -> list[Any]:
    """``diagnostics`` without those a suppression comment covers, plus TC125 for each
    suppressed code that covered nothing.

    A comment covers findings on its own line, and, when the comment is the whole line,
    findings on the next line too.
    """
    tables = _suppression_tables(files)
    if not tables:
        return list(diagnostics)
    used: set[tuple[str, int, str]] = set()
    kept = []
    for d in diagnostics:
        hit = _covered_by(tables.get(d.file), d)
        if hit is None:
            kept.append(d)
        else:
            used.add(hit)
    kept.extend(_unused_suppressions(tables, used))
    return kept


_Table = dict[int, tuple[set[str], bool]]  # line -> (codes, whether the comment is the line)


def _suppression_tables(files: Iterable[str]) -> dict[str, _Table]:
    """The suppression comments of each YAML file read, by line."""
    from toolcat.loader import FileReadError, read_regular_file

    tables: dict[str, _Table] = {}
    for file in dict.fromkeys(files):
        if not file.lower().endswith(_YAML):
            continue
        try:  # under the loader's cap: a file it refused as too large is not read here either
            text = read_regular_file(file).decode("utf-8-sig")
        except (FileReadError, OSError, UnicodeDecodeError):
            continue
        if "ignore[" in text:
            table = _suppressions(text)
            if table:
                tables[file] = table
    return tables


def _covered_by(table: _Table | None, d: Any) -> tuple[str, int, str] | None:
    """The comment (file, line, code) that covers finding ``d``, if one does."""
    if table is None:
        return None
    same = table.get(d.line)
    above = table.get(d.line - 1)
    if same is not None and d.code in same[0]:
        return (d.file, d.line, d.code)
    if above is not None and above[1] and d.code in above[0]:
        return (d.file, d.line - 1, d.code)
    return None


def _unused_suppressions(
    tables: Mapping[str, _Table], used: set[tuple[str, int, str]]
) -> list[Any]:
    """TC125 for each suppressed code that covered no finding."""
    from toolcat.loader import Diagnostic

    out = []
    for file, table in tables.items():
        for line, (codes, _) in table.items():
            for code in sorted(codes):
                if (file, line, code) in used:
                    continue
                what = (
                    "is not a toolcat diagnostic code"
                    if not _CODE.match(code)
                    else "suppresses nothing here"
                )
                out.append(
                    Diagnostic.make(
                        "TC125",
                        f"'# toolcat: ignore[{code}]': {code} {what}; remove it "
                        "(it covers findings on its own line, or on the next line when "
                        "the comment is the whole line)",
                        file,
                        line,
                    )
                )
    return out


def apply_settings(
    diagnostics: Sequence[Any], ignore: frozenset[str], severity: Mapping[str, str]
) -> list[Any]:
    """Drop ignored codes (and those set to ``off``); give the others their set severity."""
    from toolcat.loader import Severity

    out = []
    for d in diagnostics:
        level = severity.get(d.code)
        if d.code in ignore or level == "off":
            continue
        if level is not None and level != str(d.severity):
            d = dataclasses.replace(d, severity=Severity(level))
        out.append(d)
    return out


# -- baseline -----------------------------------------------------------------------

_POSITION = re.compile(r":\d+(?::\d+)?\b")
_LINE_WORDS = re.compile(r"\b(line|column) \d+")


def fingerprint(code: str, message: str) -> str:
    """A finding's identity without positions: edits above it do not change it."""
    text = _LINE_WORDS.sub(r"\1 N", _POSITION.sub(":N", " ".join(message.split())))
    return hashlib.sha256(f"{code}\0{text}".encode()).hexdigest()[:20]


def _key_file(file: str, folder: Path) -> str:
    """``file`` relative to the baseline's folder, with ``/``: the same from any directory."""
    try:
        return Path(os.path.relpath(os.path.abspath(file), folder)).as_posix()
    except ValueError:  # another drive (Windows)
        return Path(file).as_posix()


@dataclasses.dataclass
class Baseline:
    """Known findings: ``(file, code, fingerprint)`` with how many times each was seen.

    A run speaks only for the baseline entries of its own catalogs (:meth:`in_scope`):
    validating one root neither reports another root's entries as gone nor drops them
    when it rewrites the baseline.
    """

    path: Path
    known: Counter[tuple[str, str, str]]
    entries: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # as written

    def in_scope(self, files: Iterable[str], paths: Iterable[str]) -> Callable[[str], bool]:
        """Whether an entry's file belongs to a run that read ``files`` from ``paths``:
        one of those files, or one below a PATH (a file deleted since is still its own)."""
        folder = Path(os.path.abspath(self.path)).parent
        read = {_key_file(f, folder) for f in files}
        below = [_key_file(p, folder).rstrip("/") for p in paths]
        if "." in below:
            return lambda file: True

        def covered(file: str) -> bool:
            return file in read or any(file == p or file.startswith(p + "/") for p in below)

        return covered

    def split(
        self, diagnostics: Sequence[Any], scope: Callable[[str], bool] | None = None
    ) -> tuple[list[Any], int, int]:
        """``(new findings, how many were known, how many known ones are gone)``; only
        the entries in ``scope`` (default: all) can be gone."""
        left = Counter(self.known)
        folder = Path(os.path.abspath(self.path)).parent
        new = []
        for d in diagnostics:
            key = (_key_file(d.file, folder), d.code, fingerprint(d.code, d.message))
            if left[key] > 0:
                left[key] -= 1
            else:
                new.append(d)
        known = len(diagnostics) - len(new)
        gone = sum(n for key, n in left.items() if scope is None or scope(key[0]))
        return new, known, gone

    def outside(self, scope: Callable[[str], bool]) -> list[dict[str, Any]]:
        """The entries (as written) that ``scope`` does not cover: another root's."""
        return [e for e in self.entries if not scope(str(e.get("file")))]


def read_baseline(path: str) -> Baseline:
    """The baseline in ``path``; a missing or corrupt file is one line (exit 2)."""
    from toolcat.catalog.common import loads_json

    from ._inputs import read_user_file

    text = read_user_file(path, "the baseline")
    try:
        doc = loads_json(text)  # nested past the limit: a JSONDecodeError, not a RecursionError
    except ValueError as exc:
        raise CliError(f"{path}: the baseline is not valid JSON ({exc})") from exc
    findings = doc.get("findings") if isinstance(doc, dict) else None
    if (
        not isinstance(doc, dict)
        or doc.get("toolcat_baseline") != 1
        or not isinstance(findings, list)
    ):
        raise CliError(
            f"{path}: not a toolcat baseline (expected "
            '{"toolcat_baseline": 1, "findings": [...]}; write one with --write-baseline)'
        )
    known: Counter[tuple[str, str, str]] = Counter()
    for number, item in enumerate(findings):
        fields = [item.get(k) if isinstance(item, dict) else None for k in _ENTRY_KEYS]
        file, code, mark = (v if isinstance(v, str) else "" for v in fields)
        if not (file and code and mark):
            raise CliError(
                f"{path}: baseline finding {number} needs the strings {', '.join(_ENTRY_KEYS)}"
            )
        count = item.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise CliError(f"{path}: baseline finding {number}: 'count' must be 1 or more")
        known[(file, code, mark)] += count
    return Baseline(Path(path), known, [dict(item) for item in findings])


_ENTRY_KEYS = ("file", "code", "fingerprint")


def write_baseline(
    path: str, diagnostics: Sequence[Any], keep: Sequence[Mapping[str, Any]] = ()
) -> int:
    """Write every finding of ``diagnostics`` to ``path``, with the entries ``keep`` (of
    catalogs this run did not check) as they were; returns how many entries."""
    folder = Path(os.path.abspath(path)).parent
    counts: Counter[tuple[str, str, str]] = Counter()
    messages: dict[tuple[str, str, str], str] = {}
    for d in diagnostics:
        key = (_key_file(d.file, folder), d.code, fingerprint(d.code, d.message))
        counts[key] += 1
        messages.setdefault(key, " ".join(d.message.split()))
    entries = []
    for key in sorted(counts):
        entry: dict[str, Any] = dict(zip(_ENTRY_KEYS, key, strict=True))
        if counts[key] > 1:
            entry["count"] = counts[key]
        entry["message"] = messages[key]  # for a reviewer; matching ignores it
        entries.append(entry)
    entries += [dict(e) for e in keep]
    entries.sort(key=lambda e: tuple(str(e.get(k)) for k in _ENTRY_KEYS))
    doc = {"toolcat_baseline": 1, "findings": entries}
    try:
        Path(path).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "utf-8")
    except OSError as exc:
        raise CliError(f"cannot write the baseline {path}: {exc.strerror or exc}") from exc
    return len(entries)
