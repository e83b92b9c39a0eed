"""`toolcat import` options of issue 9 part 3: ``--overlay FILE`` and ``--update FILE``.

``--update FILE`` re-imports into a catalog that ``toolcat import openapi`` wrote
and keeps what was changed by hand (see :mod:`toolcat.loader.openapi`'s
``merge_update``): ``toolcat import --update FILE`` takes the spec and the
options the file records; ``toolcat import openapi SPEC --update FILE`` takes
SPEC (a newer download, say) and the recorded options unless the command line
gives options of its own. A file without an import record is refused (exit 2,
one line) and left as it is.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ._app import CliError

__all__ = [
    "before_import",
    "finish_update",
    "record_path",
    "record_text",
    "register_update",
    "run_update_only",
    "write_atomically",
]

_OPENAPI: list[argparse.ArgumentParser] = []  # the `import openapi` parser, for re-parsing
# not options of the import: where it goes, how it reports, what this run is
_NOT_RECORDED = frozenset({"spec", "output", "update", "quiet", "help"})
_PATH_OPTIONS = frozenset({"overlay", "ref_root"})  # recorded relative to the written file


def register_update(p: Any, o: Any) -> None:
    """Add ``--overlay`` to ``import openapi`` and ``--update`` to both parsers."""
    _OPENAPI[:] = [o]
    o.add_argument(
        "--overlay",
        action="append",
        default=[],
        metavar="FILE",
        help="apply this OpenAPI Overlay 1.0 file to the spec first (repeatable, in order)",
    )
    o.add_argument(
        "--update",
        metavar="FILE",
        default=None,
        help="re-import into FILE (written by toolcat import) keeping hand edits; "
        "without other options, with the options FILE records",
    )
    p.add_argument(
        "--update",
        dest="update_file",
        metavar="FILE",
        default=None,
        help="re-import into FILE (written by toolcat import openapi) from the spec and "
        "options it records, keeping what was changed by hand",
    )
    p.add_argument(
        "-q",
        "--quiet",
        dest="update_quiet",
        action="store_true",
        help="with --update: report only the operations left out, the edits kept and the summary",
    )


def record_path(file: str | Path) -> Path:
    """Where the import record of the catalog ``file`` is kept: beside it, as
    ``FILE.import-record`` (not YAML, so no catalog loader reads it)."""
    path = Path(file)
    return path.with_name(f"{path.name}.import-record")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (one line on failure)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CliError(f"{path}: cannot write: {exc.strerror or exc}") from exc


def _record_of(file: str) -> Any:
    """The import record of ``file``: its ``.import-record`` beside it, else the comment
    lines that end the file (what ``import`` writes to standard output)."""
    from toolcat.loader.openapi import parse_record

    path = Path(file)
    try:
        text = path.read_text(encoding="utf-8")
        beside = record_path(file)
        if beside.is_file():
            text = "\n" + beside.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(
            f"{file}: no such file; --update re-imports into a catalog that "
            "'toolcat import openapi -o FILE' wrote"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
    record = parse_record(text)
    if record is None:
        raise CliError(
            f"{file}: not written by 'toolcat import openapi' (no import record beside it "
            f"in {record_path(file).name} or at its end, or the record was changed); "
            "refusing to update it, nothing changed"
        )
    return record


def _options_argv(args: argparse.Namespace, base: Path | None) -> list[str]:
    """The import options of ``args`` as command-line arguments (paths relative to ``base``)."""
    out: list[str] = []
    for action in _OPENAPI[0]._actions:
        dest = action.dest
        if not action.option_strings or dest in _NOT_RECORDED or not hasattr(args, dest):
            continue
        value = getattr(args, dest)
        if value == action.default or value is None:
            continue
        flag = next(
            (s for s in action.option_strings if s.startswith("--")), action.option_strings[0]
        )
        values = value if isinstance(value, list) else [value]
        if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
            out.append(flag)
            continue
        for v in values:
            shown = str(v)
            if dest in _PATH_OPTIONS and base is not None:
                shown = Path(
                    os.path.relpath(os.path.abspath(shown), os.path.abspath(base))
                ).as_posix()
            out += [flag, shown]
    return out


def _from_record(argv: list[str], folder: Path) -> list[str]:
    out: list[str] = []
    flags = {"--overlay", "--ref-root"}
    for i, token in enumerate(argv):
        if i > 0 and argv[i - 1] in flags:
            token = str(folder / token)
        out.append(token)
    return out


def before_import(args: argparse.Namespace) -> None:
    """Check ``--update FILE`` before anything runs; fill in the options FILE records."""
    file = getattr(args, "update", None)
    if not file:
        return
    if getattr(args, "output", None):
        raise CliError("--update writes FILE itself; leave out -o/--output")
    record = _record_of(file)
    if _options_argv(args, None):
        return  # options on the command line replace the recorded ones
    folder = Path(file).parent
    ns = _OPENAPI[0].parse_args([args.spec, *_from_record(record.argv, folder)])
    _narrow_ref_root(ns)
    for key, value in vars(ns).items():
        if key not in ("spec", "update", "quiet", "output", "func"):
            setattr(args, key, value)


def run_update_only(args: argparse.Namespace) -> int:
    """``toolcat import --update FILE``: the recorded spec and options."""
    file = args.update_file
    record = _record_of(file)
    folder = Path(file).parent
    spec = folder / record.spec
    quiet = ["-q"] if getattr(args, "update_quiet", False) else []
    argv = [str(spec), *_from_record(record.argv, folder), "--update", file, *quiet]
    ns = _OPENAPI[0].parse_args(argv)
    _narrow_ref_root(ns)
    result: int = ns.func(ns)
    return result


def _narrow_ref_root(ns: argparse.Namespace) -> None:
    """The recorded ``--ref-root`` only where it narrows the default (one line otherwise)."""
    from toolcat.loader.openapi import narrowed_ref_root

    ns.ref_root, note = narrowed_ref_root(ns.ref_root, Path(ns.spec))
    if note is not None:
        print(f"toolcat import: {note}", file=sys.stderr)


def record_text(args: argparse.Namespace, result: Any, spec: Path) -> str:
    """The import record that ends a written catalog."""
    from toolcat.loader.openapi import catalog_document, operation_key, render_record

    out = getattr(args, "update", None) or getattr(args, "output", None)
    base = Path(out).parent if out else Path()
    rel = Path(os.path.relpath(os.path.abspath(spec), os.path.abspath(base))).as_posix()
    ops = {r.tool: operation_key(r.method, r.path, r.operation_id) for r in result.report if r.tool}
    text: str = render_record(rel, _options_argv(args, base), catalog_document(result), ops)
    return text


def finish_update(args: argparse.Namespace, result: Any, spec: Path, written: str) -> int:
    """Merge the fresh import into ``args.update`` and write it; one line per edit kept.

    ``written``: the import as the writer wrote it; its header comments head the file.
    """
    from toolcat.loader import CatalogError, read_yaml
    from toolcat.loader.openapi import (
        catalog_document,
        merge_update,
        operation_key,
        render_document,
    )

    file = args.update
    path = Path(file)
    record = _record_of(file)  # again: the file may have changed while the import ran
    text = path.read_text(encoding="utf-8")
    try:
        current = read_yaml(text, file)
    except CatalogError as exc:
        raise CliError(f"{file}: {exc.diagnostics[0] if exc.diagnostics else exc}") from exc
    if not isinstance(current, dict):
        raise CliError(f"{file}: not a catalog (a mapping with toolcat: 1)")
    if result.report and not result.tools:
        raise CliError(f"no tool imported from {args.spec}; {file} left as it is")
    ops = {r.tool: operation_key(r.method, r.path, r.operation_id) for r in result.report if r.tool}
    new = catalog_document(result)
    outcome = merge_update(current, record, new, ops)
    header = ""  # the writer's own header, whatever it says
    for line in written.splitlines(keepends=True):
        if not line.startswith("#"):
            break
        header += line
    merged = header + render_document(outcome.doc)
    write_atomically(path, merged)
    write_atomically(record_path(file), record_text(args, result, spec).lstrip("\n"))
    for line in [*outcome.kept, *outcome.added, *outcome.removed]:
        print(line, file=sys.stderr)
    print(
        f"updated {file}: {len(outcome.kept)} hand edits kept, {len(outcome.added)} added, "
        f"{len(outcome.removed)} removed",
        file=sys.stderr,
    )
    return 0
