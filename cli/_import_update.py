"""`toolcat import` options for overlays and re-imports: ``--overlay``, ``--update``, ``--force``.

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
    "import_summary",
    "options_argv",
    "record_of",
    "record_path",
    "write_catalog",
    "read_catalog_text",
    "record_text",
    "refuse_discarding_edits",
    "report_update",
    "register_update",
    "run_update_only",
    "write_atomically",
]

_OPENAPI: list[argparse.ArgumentParser] = []  # the `import openapi` parser, for re-parsing
# not options of the import: where it goes, how it reports, what this run is
_NOT_RECORDED = frozenset({"spec", "output", "update", "force", "quiet", "verbose", "help"})
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
    o.add_argument(
        "--force",
        action="store_true",
        help="-o FILE: overwrite FILE even when it was changed by hand since it was imported "
        "(without --force that is refused: --update FILE keeps the changes)",
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
    p.add_argument(
        "-v",
        "--verbose",
        dest="update_verbose",
        action="store_true",
        help="with --update: list every operation too",
    )


def record_path(file: str | Path) -> Path:
    """Where the import record of the catalog ``file`` is kept: beside it, as
    ``FILE.import-record`` (not YAML, so no catalog loader reads it)."""
    path = Path(file)
    return path.with_name(f"{path.name}.import-record")


def _not_a_file(path: Path) -> bool:
    """Whether ``path`` exists as something other than a regular file (a device, a FIFO)."""
    return path.exists() and not path.is_file()


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (one line on failure).

    A target that exists and is not a regular file (``-o /dev/null``, a FIFO, a terminal)
    is written into as it is: a rename would replace the device itself with a file."""
    if _not_a_file(path):
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            raise CliError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CliError(f"{path}: cannot write: {exc.strerror or exc}") from exc


def write_catalog(output: str, text: str, record: str) -> None:
    """An imported catalog into ``output`` (its folder made if missing), its import record
    beside it (what --update needs; the catalog stays small and its diffs show only what
    the tools say).

    Into a target that is not a regular file (``-o /dev/null``, a FIFO) both go as one
    stream, as on standard output: no record file is left beside a device."""
    path = Path(output)
    if _not_a_file(path):
        write_atomically(path, text + record)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # -o catalog/x.yaml in a new checkout
    except OSError as exc:
        raise CliError(f"{path.parent}: cannot create the folder: {exc.strerror or exc}") from exc
    write_atomically(path, text)
    write_atomically(record_path(path), record.lstrip("\n"))


def _read_with_record(file: str) -> tuple[str, Any]:
    """``file``'s text and its import record (``None``: none): its ``.import-record``
    beside it, else the comment lines that end the file (what ``import`` writes to
    standard output)."""
    from toolcat.loader.openapi import parse_record

    path = Path(file)
    try:
        text = path.read_text(encoding="utf-8")
        beside = record_path(file)
        record_text = "\n" + beside.read_text(encoding="utf-8") if beside.is_file() else text
    except FileNotFoundError:
        raise CliError(
            f"{file}: no such file; --update re-imports into a catalog that "
            "'toolcat import openapi -o FILE' (or 'toolcat import mcp -o FILE') wrote"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
    return text, parse_record(record_text)


def record_of(file: str, kind: str = "openapi") -> Any:
    """The import record of ``file``; a file without one is refused (one line)."""
    record = _read_with_record(file)[1]
    if record is None:
        raise CliError(
            f"{file}: not written by 'toolcat import {kind}' (no import record beside it "
            f"in {record_path(file).name} or at its end, or the record was changed); "
            "refusing to update it, nothing changed"
        )
    return record


def options_argv(
    args: argparse.Namespace,
    base: Path | None,
    parser: argparse.ArgumentParser | None = None,
    paths: frozenset[str] = _PATH_OPTIONS,
) -> list[str]:
    """The import options of ``args`` as command-line arguments (paths relative to ``base``):
    those of ``parser`` (default: ``import openapi``'s) that differ from their defaults."""
    out: list[str] = []
    for action in (parser or _OPENAPI[0])._actions:
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
            if dest in paths and base is not None:
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
    record = record_of(file)
    if options_argv(args, None):
        return  # options on the command line replace the recorded ones
    folder = Path(file).parent
    ns = _OPENAPI[0].parse_args([args.spec, *_from_record(record.argv, folder)])
    _narrow_ref_root(ns)
    for key, value in vars(ns).items():
        if key not in _NOT_RECORDED and key != "func":
            setattr(args, key, value)


def refuse_discarding_edits(args: argparse.Namespace, update: str | None = None) -> None:
    """``-o FILE`` over a catalog that import wrote and that was changed by hand since:
    refused (one line, nothing written) unless ``--force``; the way to keep them is
    ``update`` (default: ``--update FILE`` instead of ``-o``, as ``import openapi`` takes it).

    A file import did not write, or one as import left it, is simply overwritten.
    """
    file = getattr(args, "output", None)
    if not file or getattr(args, "force", False) or not Path(file).is_file():
        return
    text, record = _read_with_record(file)
    if record is None:
        return
    from toolcat.loader import CatalogError, read_yaml
    from toolcat.loader.openapi import edits_since_import

    try:
        current = read_yaml(text, file)
    except CatalogError:
        current = None
    if isinstance(current, dict):
        changes = edits_since_import(current, record)
    else:
        changes = ["the file is no catalog now"]
    if not changes:
        return
    shown = ", ".join(changes[:3]) + (f" and {len(changes) - 3} more" if len(changes) > 3 else "")
    them = "it" if len(changes) == 1 else "them"
    count = "1 change" if len(changes) == 1 else f"{len(changes)} changes"
    raise CliError(
        f"{file} was changed by hand since it was imported ({count}: {shown}); a plain "
        f"import would discard {them}. Re-import with "
        f"{update or f'--update {file} (instead of -o)'} to keep {them}, or add --force to "
        f"overwrite {them}; nothing written"
    )


def run_update_only(args: argparse.Namespace) -> int:
    """``toolcat import --update FILE``: the recorded spec and options."""
    file = args.update_file
    record = record_of(file)
    folder = Path(file).parent
    if record.extra.get("kind") == "mcp":  # written by `toolcat import mcp`
        from ._import_mcp import rerun_mcp

        return rerun_mcp(args, record, file)
    spec = folder / record.spec
    quiet = ["-q"] if getattr(args, "update_quiet", False) else []
    quiet += ["-v"] if getattr(args, "update_verbose", False) else []
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


def record_text(args: argparse.Namespace, result: Any, spec: Path, document: Any) -> str:
    """The import record that ends a written catalog (``document``: the catalog written,
    as ``catalog_document`` built it)."""
    from toolcat.loader.openapi import operation_key, render_record

    out = getattr(args, "update", None) or getattr(args, "output", None)
    base = Path(out).parent if out else Path()
    rel = Path(os.path.relpath(os.path.abspath(spec), os.path.abspath(base))).as_posix()
    ops = {r.tool: operation_key(r.method, r.path, r.operation_id) for r in result.report if r.tool}
    text: str = render_record(rel, options_argv(args, base), document, ops)
    return text


def finish_update(args: argparse.Namespace, result: Any, spec: Path, options: Any) -> int:
    """Merge the fresh import into ``args.update`` and write it under the writer's header;
    one line per thing kept, changed, added or removed, then the summary."""
    from toolcat.loader.openapi import (
        catalog_document,
        merge_update,
        operation_key,
        render_document,
        render_header,
    )

    file = args.update
    path = Path(file)
    record = record_of(file)  # again: the file may have changed while the import ran
    current = read_catalog_text(path)
    if result.report and not result.tools:
        raise CliError(f"no tool imported from {args.spec}; {file} left as it is")
    ops = {r.tool: operation_key(r.method, r.path, r.operation_id) for r in result.report if r.tool}
    new = catalog_document(result)
    fresh = record_text(args, result, spec, new)  # before the merge reads ``new``
    outcome = merge_update(current, record, new, ops)
    tools = outcome.doc.get("tools") or []
    header = render_header(result, spec, options, written=len(tools))
    write_atomically(path, header + render_document(outcome.doc))
    write_atomically(record_path(file), fresh.lstrip("\n"))
    report_update(file, len(tools), outcome)
    return 0


def report_update(file: str | Path, written: int, outcome: Any) -> None:
    """What an ``--update`` did (stderr), for either kind of import: a line per tool kept,
    changed, added or removed, then the counts."""
    for line in [*outcome.kept, *outcome.changed, *outcome.added, *outcome.removed]:
        print(line, file=sys.stderr)
    edits = "1 hand edit" if len(outcome.kept) == 1 else f"{len(outcome.kept)} hand edits"
    print(
        f"updated {file}: {written} tools; {edits} kept, {len(outcome.changed)} changed, "
        f"{len(outcome.added)} added, {len(outcome.removed)} removed",
        file=sys.stderr,
    )


def import_summary(result: Any, unit: str, source: object, output: str | None) -> int:
    """The last line of an import (stderr): how many of the source's ``unit``s (operations,
    tools) became tools. A source with some that gives no tool is a failed import, not an
    empty one: one more line, and exit status 1."""
    skipped = sum(1 for r in result.report if r.skipped)
    print(
        f"{len(result.report)} {unit}s: {len(result.tools)} imported, {skipped} left out "
        f"-> {output or '<stdout>'}",
        file=sys.stderr,
    )
    if result.report and not result.tools:
        print(
            f"toolcat: error: no tool imported from {source}: every {unit} was left out "
            "(see above)",
            file=sys.stderr,
        )
        return 1
    return 0


def read_catalog_text(path: Path) -> dict[str, Any]:
    """The catalog ``--update`` merges into, as written (a one-line error otherwise)."""
    from toolcat.loader import CatalogError, read_yaml

    file = str(path)
    try:
        current = read_yaml(path.read_text(encoding="utf-8"), file)
    except CatalogError as exc:
        raise CliError(f"{file}: {exc.diagnostics[0] if exc.diagnostics else exc}") from exc
    if not isinstance(current, dict):
        raise CliError(f"{file}: not a catalog (a mapping with toolcat: 1)")
    return current
