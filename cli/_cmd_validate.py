"""`toolcat validate [PATH...]`: check catalogs and report every diagnostic.

Without PATH, the ``roots`` of the repository's settings (``toolcat.toml`` or
``[tool.toolcat]``, see ``_config``) are checked, each as its own catalog. A
machine format (json, github, sarif, junit) is written on every exit, 2
included: then it holds one TC070 finding naming the usage or input problem.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from ._app import CliError

FORMAT_CHOICES = ("text", "json", "github", "sarif", "junit")
DEFAULT_MAX_ANNOTATIONS = 50


def register(sub: Any) -> None:
    p = sub.add_parser(
        "validate",
        help="check catalogs; exit 0 clean, 1 findings, 2 bad usage or unreadable input",
        description=(
            "Load and check catalogs (YAML files, directories, or OpenAPI specs) without "
            "network or secrets. Exit 0 when clean, 1 when a finding is at or above "
            "--fail-on, 2 on bad usage or unreadable input. Without PATH, the roots named "
            "in toolcat.toml (or [tool.toolcat] in pyproject.toml) are checked, each as "
            "its own catalog."
        ),
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="catalog file, directory, or OpenAPI spec (default: the configured roots)",
    )
    p.add_argument(
        "--format", choices=FORMAT_CHOICES, default="text", help="output format (default: text)"
    )
    p.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        default=None,
        help="lowest severity that fails the run (default: the settings' fail_on, else error)",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="settings file (default: the first toolcat.toml, or pyproject.toml with "
        "[tool.toolcat], from here up to the repository root)",
    )
    p.add_argument("--no-config", action="store_true", help="ignore any settings file")
    p.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="leave out files below a directory PATH that match (relative to the working "
        "directory; repeatable; added to the settings' exclude)",
    )
    p.add_argument(
        "--baseline",
        metavar="FILE",
        help="report only findings that are not in this baseline (default: the settings' baseline)",
    )
    p.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="write every finding to FILE as the new baseline (printing only the summary "
        "line), and exit 0",
    )
    p.add_argument(
        "--max-annotations",
        metavar="N",
        type=_count,
        default=None,
        help=f"--format github: at most N annotations (default: {DEFAULT_MAX_ANNOTATIONS})",
    )
    from ._loading import add_ref_root

    add_ref_root(p)
    p.set_defaults(func=run)
    _write_machine_format_on_usage_errors(p)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except CliError as exc:
        if exc.code == 2:
            _write_problem(args.format, str(exc), args.fail_on or "error")
        raise


def _run(args: argparse.Namespace) -> int:
    from ._config import compile_globs, find_config, load_config
    from ._findings import apply_settings, apply_suppressions, read_baseline
    from ._formats import is_failure, summary_line

    if args.no_config:
        config = load_config(None)
    else:
        config = load_config(Path(args.config) if args.config else find_config())
    args.fail_on = args.fail_on or config.fail_on or "error"
    excluded = [compile_globs(config.exclude, config.folder), compile_globs(args.exclude, Path())]
    predicates = [e for e in excluded if e is not None]

    def exclude(path: Path) -> bool:
        return any(e(path) for e in predicates)

    if args.paths:
        catalogs = [list(args.paths)]
    elif config.roots:
        catalogs = [[root] for root in configured_roots(config)]
    else:
        raise CliError(
            "a PATH is required (or roots in toolcat.toml or [tool.toolcat]; "
            "see 'toolcat validate --help')"
        )
    baseline = None
    baseline_file = args.baseline or (
        str(config.folder / config.baseline) if config.baseline else None
    )
    if baseline_file is not None and args.write_baseline is None:
        baseline = read_baseline(baseline_file)

    diagnostics: list[Any] = []
    read: dict[str, None] = {}  # the files of every root, in order, once each
    for paths in catalogs:
        result = _read(paths, args.ref_root, exclude if predicates else None)
        diagnostics.extend(result.diagnostics)
        read.update(dict.fromkeys(result.files))
    files = list(read)
    diagnostics = apply_suppressions(diagnostics, files)
    diagnostics = apply_settings(diagnostics, config.ignore, config.severity)
    from toolcat.loader import sort_diagnostics

    diagnostics = sort_diagnostics(diagnostics)
    checked = [p for paths in catalogs for p in paths]
    diagnostics, note = _baseline(args, baseline, diagnostics, files, checked)
    if args.write_baseline is not None:  # the findings went to the baseline: only the summary
        print(f"toolcat: {summary_line(diagnostics, files)}{note}", file=sys.stderr)
        return 0
    sys.stdout.write(_formatted(args, config, diagnostics, files))
    sys.stdout.flush()
    if args.format == "text" or note:
        print(f"toolcat: {summary_line(diagnostics, files)}{note}", file=sys.stderr)
    return 1 if any(is_failure(d, args.fail_on) for d in diagnostics) else 0


def _baseline(
    args: argparse.Namespace,
    baseline: Any,
    diagnostics: list[Any],
    files: list[str],
    checked: list[str],
) -> tuple[list[Any], str]:
    """--write-baseline writes the findings; a baseline read leaves out those it knows.
    Returns the findings left and what the summary line adds."""
    from ._findings import write_baseline

    note = ""
    if args.write_baseline is not None:
        keep = _other_catalogs_entries(args.write_baseline, files, checked)
        written = write_baseline(args.write_baseline, diagnostics, keep)
        note = f"; wrote {written} baseline entries to {args.write_baseline}"
        if keep:
            note += f" ({len(keep)} of catalogs not checked here kept as they were)"
    elif baseline is not None:
        scope = baseline.in_scope(files, checked)
        diagnostics, known, gone = baseline.split(diagnostics, scope)
        note = f"; {known} known in the baseline left out"
        if gone:
            note += f", {gone} baseline entries no longer found (rewrite it with --write-baseline)"
    return diagnostics, note


def _formatted(
    args: argparse.Namespace, config: Any, diagnostics: list[Any], files: list[str]
) -> str:
    """The findings in ``--format``; github annotations capped as the settings say."""
    from ._formats import FORMATS, format_github

    if args.format == "github":
        cap = args.max_annotations
        if cap is None:
            cap = (
                DEFAULT_MAX_ANNOTATIONS
                if config.max_annotations is None
                else config.max_annotations
            )
        return format_github(diagnostics, files, args.fail_on, max_annotations=cap, summary=True)
    return FORMATS[args.format](diagnostics, files, args.fail_on)


def _other_catalogs_entries(path: str, files: list[str], checked: list[str]) -> list[Any]:
    """The entries of the baseline at ``path`` that belong to catalogs this run did not
    check (another root's): a rewrite keeps them. None when there is no readable baseline."""
    from ._findings import read_baseline

    if not Path(path).is_file():
        return []
    try:
        previous = read_baseline(path)
    except CliError:
        return []  # not a baseline (yet): written afresh
    return previous.outside(previous.in_scope(files, checked))


def configured_roots(config: Any = None) -> list[str]:
    """Each root of the repository's settings (``config``, else the file found from the
    working directory), as a PATH relative to the working directory; none without."""
    if config is None:
        from ._config import find_config, load_config

        config = load_config(find_config())
    return [_shown(root) for root in config.root_dirs()]


def _read(paths: list[str], ref_root: str | None, exclude: Any) -> Any:
    from ._loading import read_catalog

    if exclude is None:
        return read_catalog(paths, ref_root)
    return read_catalog(paths, ref_root, exclude=exclude)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory (as SARIF and GitHub want it) when below it."""
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(path)


# -- the one finding of an exit 2 ------------------------------------------------------

_LOCATION = re.compile(r"^(?P<file>[^\s:][^:]*?)(?::(?P<line>\d+))?: ")


def problem_finding(message: str) -> Any:
    """The TC070 finding for an exit-2 ``message``: at the file it names, if it names one."""
    from toolcat.loader import Diagnostic

    file, line = "toolcat", 1
    m = _LOCATION.match(message)
    if m is not None and Path(m.group("file")).exists():
        file = m.group("file")
        line = int(m.group("line") or 1)
    return Diagnostic.make("TC070", message, file, line)


def _write_problem(fmt: str, message: str, fail_on: str) -> None:
    """Write a machine format holding the one finding (text stays one line on stderr)."""
    if fmt not in FORMAT_CHOICES or fmt == "text":
        return
    import json

    from ._formats import FORMATS, format_github

    finding = problem_finding(message)
    files = [] if finding.file == "toolcat" else [finding.file]
    if fmt == "github":
        out = format_github([finding], files, fail_on, summary=True)
        if not files:  # no file to point at: an annotation on the run itself
            out = out.replace("file=toolcat,line=1,col=1,", "", 1)
    else:
        out = FORMATS[fmt]([finding], files, fail_on)
    if fmt == "sarif":  # the run itself failed: say so where SARIF viewers look
        log = json.loads(out)
        log["runs"][0]["invocations"] = [
            {
                "executionSuccessful": False,
                "exitCode": 2,
                "toolExecutionNotifications": [{"level": "error", "message": {"text": message}}],
            }
        ]
        out = json.dumps(log, indent=2, ensure_ascii=False) + "\n"
    elif fmt == "json":
        doc = json.loads(out)
        doc["exitCode"] = 2
        out = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # the one line on stderr still tells


def _format_in(argv: list[str]) -> str | None:
    """The ``--format`` value in a command line that failed to parse, if it is a known one."""
    for i, word in enumerate(argv):
        value = None
        if word == "--format" and i + 1 < len(argv):
            value = argv[i + 1]
        elif word.startswith("--format="):
            value = word.partition("=")[2]
        if value in FORMAT_CHOICES:
            return value
    return None


def _write_machine_format_on_usage_errors(parser: Any) -> None:
    """A usage error (unknown flag, bad value) still writes the chosen machine format.

    argparse hands the subcommand's words to this parser's ``parse_known_args``;
    its ``error`` (and the unrecognized words it returns) are the usage errors.
    """
    original_parse = parser.parse_known_args
    original_error = parser.error
    seen: list[str] = []

    def parse_known_args(args: Any = None, namespace: Any = None) -> Any:
        seen[:] = list(args or [])
        namespace, extras = original_parse(args, namespace)
        if extras:
            _usage_problem(seen, f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def error(message: str) -> Any:
        _usage_problem(seen, message)
        return original_error(message)

    parser.parse_known_args = parse_known_args
    parser.error = error


def _usage_problem(argv: list[str], message: str) -> None:
    fmt = _format_in(argv)
    if fmt is not None:
        fail_on = "warning" if "warning" in argv else "error"
        _write_problem(fmt, f"bad usage: {message}", fail_on)
