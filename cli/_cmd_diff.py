"""`toolcat diff OLD NEW` / `toolcat diff --base REF PATH...`: what changed, classified."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._app import CliError

if TYPE_CHECKING:
    from toolcat.catalog import Catalog
    from toolcat.catalog.diff import ToolChange

    from ._gitrev import RevisionTree

FORMAT_CHOICES = ("text", "markdown", "json", "sarif", "github")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "diff",
        help="what changed between two catalogs: breaking, safety, notes; exit 1 at --fail-on",
        description=(
            "Compare two catalogs (YAML files, directories or OpenAPI specs) tool by tool "
            "and classify every change: breaking for callers (TD1xx), a safety regression "
            "(TD2xx), or a note (TD3xx). 'toolcat diff OLD NEW' compares two paths; "
            "'toolcat diff --base REF PATH...' compares PATH as it was at the git revision "
            "REF with PATH as it is now; without PATH, each root named in toolcat.toml (or "
            "[tool.toolcat]) is compared as its own catalog, as validate checks them. Exit 0 "
            "when no change is at or above --fail-on, "
            "1 when one is (or a catalog does not load), 2 on bad usage or unreadable input."
        ),
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="OLD NEW; with --base, the catalog (one or more paths) in the working tree "
        "(default: each root of toolcat.toml or [tool.toolcat], as its own catalog)",
    )
    p.add_argument(
        "--base",
        metavar="REF",
        default=None,
        help="read OLD from this git revision (a branch, tag or commit); PATH is NEW",
    )
    p.add_argument(
        "--format", choices=FORMAT_CHOICES, default="text", help="output format (default: text)"
    )
    p.add_argument(
        "--fail-on",
        choices=("breaking", "safety", "any"),
        default="safety",
        help="the least serious class that fails the run: breaking; safety (and breaking); "
        "any change (default: safety: a dropped confirmation fails like a breaking change)",
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ._loading import check_ref_root

    check_ref_root(args.ref_root)
    if args.base is None:
        if len(args.paths) != 2:
            raise CliError(
                f"diff takes OLD and NEW (got {len(args.paths)} paths); or use --base REF PATH"
            )
        old = _load([args.paths[0]], args.ref_root, "OLD", None)
        new = _load([args.paths[1]], args.ref_root, "NEW", None)
        return _write(args.format, [_report(old, new, args, args.paths[0], args.paths[1])])
    from ._gitrev import tree_at

    catalogs = _catalogs(args.paths)
    with tree_at(args.base, [p for paths in catalogs for p in paths]) as tree:
        outcomes = [_against_base(args, paths, tree.only(paths)) for paths in catalogs]
    return _write(args.format, outcomes)


def _catalogs(paths: Sequence[str]) -> list[list[str]]:
    """The catalogs to compare: PATHs as one, else each configured root as its own."""
    if paths:
        return [list(paths)]
    from ._cmd_validate import configured_roots

    roots = configured_roots()
    if not roots:
        raise CliError(
            "diff --base REF needs a PATH (or roots in toolcat.toml or [tool.toolcat]; "
            "see 'toolcat diff --help')"
        )
    return [[root] for root in roots]


def _against_base(args: argparse.Namespace, paths: list[str], tree: RevisionTree) -> _Outcome:
    """One catalog (``paths`` now) against its state in ``tree``."""
    from pathlib import Path

    from toolcat.catalog import Catalog

    here = [p for p in paths if Path(p).exists()]
    gone = [p for p in paths if not Path(p).exists()]
    missing = [p for p in gone if p in tree.absent]
    if missing:  # in neither: a typo, not a catalog deleted since REF
        _load(missing, args.ref_root, "NEW", None)  # says why, as one line (exit 2)
    if gone:
        shown = ", ".join(gone)
        print(f"toolcat: note: {shown}: deleted since {args.base}", file=sys.stderr)
    if tree.absent:
        shown = ", ".join(tree.absent)
        print(f"toolcat: note: not in {args.base}: {shown} (its tools are new)", file=sys.stderr)
    empty = Catalog(tools=[], services=[])
    new = _load(here, args.ref_root, "NEW", None) if here else empty
    old_ref_root = _ref_root_at(tree, args.ref_root)
    old = _load(list(tree.paths), old_ref_root, "OLD", tree) if tree.paths else empty
    new_name = " ".join(paths)
    old_name = " ".join(tree.name(p) for p in paths)
    return _report(old, new, args, old_name, new_name, tree)


@dataclass(frozen=True)
class _Outcome:
    """One catalog compared: its report for stdout, exit code, and summary (text only)."""

    name: str
    text: str
    code: int
    summary: str = ""


def _write(fmt: str, outcomes: Sequence[_Outcome]) -> int:
    """Each catalog's report on stdout (several as one document), its summary on stderr
    (named by the catalog when there are several)."""
    from ._diff_formats import combine

    sys.stdout.write(combine(fmt, [o.text for o in outcomes]))
    sys.stdout.flush()
    for o in outcomes:
        if o.summary:
            named = f"{o.name}: " if len(outcomes) > 1 else ""
            print(f"toolcat: {named}{o.summary}", file=sys.stderr)
    return max(o.code for o in outcomes)


def _ref_root_at(tree: RevisionTree, ref_root: str | None) -> str:
    """``--ref-root`` inside the revision's tree (by default, the tree: the git repository)."""
    from pathlib import Path

    if ref_root is None:
        return str(tree.root)
    top = Path(tree.root)
    for candidate in (Path(ref_root).resolve(), *Path(ref_root).resolve().parents):
        if (candidate / ".git").exists():
            try:
                return str(top / Path(ref_root).resolve().relative_to(candidate))
            except ValueError:
                break
    return ref_root


@dataclass(frozen=True)
class _Failed:
    """A side that did not load: its diagnostics (already printed on stderr)."""

    side: str
    diagnostics: list[Any]
    files: list[str]


def _load(
    paths: Sequence[str], ref_root: str | None, side: str, tree: RevisionTree | None
) -> Catalog | _Failed:
    """The catalog, or its diagnostics after they went to stderr (as validate prints them).

    For the revision's side, every path in what is printed names ``REF:path``, never
    the temporary folder the revision was written to."""
    import dataclasses

    from ._loading import read_catalog, report_failed_load

    try:
        result = read_catalog(paths, ref_root)
    except CliError as exc:
        if tree is None:
            raise
        raise CliError(tree.show_text(str(exc)), exc.code) from exc
    if result.catalog is not None:
        catalog: Catalog = result.catalog
        return catalog
    diagnostics = list(result.diagnostics)
    files = list(result.files)
    if tree is not None:
        diagnostics = [
            dataclasses.replace(d, file=tree.show(d.file), message=tree.show_text(d.message))
            for d in diagnostics
        ]
        files = [tree.show(f) for f in files]
    errors = report_failed_load(diagnostics, files)
    noun = "error" if errors == 1 else "errors"
    print(f"toolcat: {side} does not load ({errors} {noun}); nothing compared", file=sys.stderr)
    return _Failed(side, diagnostics, files)


def _report(
    old: Catalog | _Failed,
    new: Catalog | _Failed,
    args: argparse.Namespace,
    old_name: str,
    new_name: str,
    tree: RevisionTree | None = None,
) -> _Outcome:
    """What comparing ``old`` with ``new`` prints, and its exit code."""
    from ._diff_formats import DIFF_FORMATS, DiffReport, format_load_failure, is_failure, summary

    report = DiffReport(old_name, new_name, args.fail_on)
    if isinstance(old, _Failed) or isinstance(new, _Failed):
        failed = [(s.side, s.diagnostics, s.files) for s in (old, new) if isinstance(s, _Failed)]
        return _Outcome(new_name, format_load_failure(args.format, failed, report), 1)
    from toolcat.catalog.diff import diff_catalogs

    changes = diff_catalogs(old, new)
    if tree is not None:
        changes = tuple(_shown(ch, tree) for ch in changes)
    said = summary(changes) if args.format == "text" else ""
    code = 1 if any(is_failure(ch, args.fail_on) for ch in changes) else 0
    return _Outcome(new_name, DIFF_FORMATS[args.format](changes, report), code, said)


def _shown(change: ToolChange, tree: RevisionTree) -> ToolChange:
    """A change whose place is in the revision's temporary tree names ``REF:path`` instead."""
    import dataclasses

    if change.source is None:
        return change
    file = tree.show(change.source.file)
    if file == change.source.file:
        return change
    return dataclasses.replace(change, source=dataclasses.replace(change.source, file=file))
