"""Re-importing into a written catalog without losing what was changed by hand.

``toolcat import openapi`` ends the file it writes with an *import record*:
comment lines (so the catalog format is untouched) that say how the file was
made (the spec, relative to the file, and the command's options) and, for every
entry it wrote, a fingerprint of the generated value of each field. On
``toolcat import --update FILE`` the spec is imported again and merged with the
file as it is now, field by field:

- a field whose value still has its recorded fingerprint was not touched: it
  takes the newly generated value (so spec changes come through);
- a field whose value differs from its fingerprint, a generated field that is
  gone, or a field that was not generated, was changed by hand: it is kept;
- a tool is followed by its operation (operationId, else method and path), so
  a renamed tool keeps its name; a tool the spec no longer has is removed; a
  tool or any other entry that the record does not know was added by hand and
  is kept; a generated tool that was deleted by hand stays deleted.

Fields whose value is a mapping of named parts (a tool's ``parameters``,
``annotations``, ``headers``, ``response``) are compared part by part, so a
description written for one parameter does not freeze the others.

The merge works on catalog documents (what the writer emits), not on the
importer's internals, so it follows whatever the writer writes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ImportRecord",
    "UpdateOutcome",
    "edits_since_import",
    "fingerprints",
    "merge_update",
    "narrowed_ref_root",
    "operation_key",
    "parse_record",
    "render_document",
    "render_record",
]

RECORD_VERSION = 1
_HEAD = "# toolcat-import-record: "
_TOOL = "# toolcat-import-tool: "
_ENTRY = "# toolcat-import-entry: "
_BANNER = (
    "# --- import record: `toolcat import --update` reads the lines below to keep hand edits;"
    " leave them as they are ---"
)
# tool fields compared part by part (a mapping of named parts); ``mcp`` is an MCP tool's
# binding, so an update re-pins a tool whose server, tool name or fixed values nobody edited
_DEEP = frozenset({"parameters", "annotations", "headers", "response", "mcp"})
# top-level sections whose entries are compared field by field (the others: whole entries)
_FIELDWISE = frozenset({"services", "mcp_servers"})


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def fingerprints(entry: Mapping[str, Any], deep: Iterable[str] = _DEEP) -> dict[str, str]:
    """``{field: digest}`` of an entry; a ``deep`` field gives ``field/part`` keys too."""
    deep = frozenset(deep)
    out: dict[str, str] = {}
    for key, value in entry.items():
        out[_esc(str(key))] = _digest(value)
        if key in deep and isinstance(value, dict):
            for part, sub in value.items():
                out[f"{_esc(str(key))}/{_esc(str(part))}"] = _digest(sub)
    return out


@dataclass
class ImportRecord:
    """What a written catalog's import record says."""

    spec: str  # relative to the catalog file's folder (POSIX separators)
    argv: list[str]  # the import's options, as command-line arguments
    tools: list[dict[str, Any]] = field(default_factory=list)  # {name, op, fields}
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # "section/name" -> {fields}
    # the head's other keys, as the importer wrote them (`import mcp`: its kind, the listing)
    extra: dict[str, Any] = field(default_factory=dict)


def render_record(
    spec: str,
    argv: list[str],
    doc: Mapping[str, Any],
    ops: Mapping[str, str],
    extra: Mapping[str, Any] | None = None,
) -> str:
    """The comment lines that end a written catalog (``doc`` as the writer wrote it).

    ``ops``: the operation key of each generated tool name. ``extra``: more keys of the
    head line (:attr:`ImportRecord.extra` when read back).
    """
    head = {**(extra or {}), "record": RECORD_VERSION, "spec": spec, "argv": argv}
    lines = ["", _BANNER, _HEAD + json.dumps(head, ensure_ascii=True)]
    for tool in doc.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        name = str(tool.get("name"))
        item = {"name": name, "op": ops.get(name, name), "fields": fingerprints(tool)}
        lines.append(_TOOL + json.dumps(item, ensure_ascii=True, separators=(",", ":")))
    for section, entries in doc.items():
        if section == "tools" or not isinstance(entries, dict):
            continue
        for name, value in entries.items():
            item = {
                "at": f"{_esc(section)}/{_esc(str(name))}",
                "fields": _entry_prints(section, value),
            }
            lines.append(_ENTRY + json.dumps(item, ensure_ascii=True, separators=(",", ":")))
    return "\n".join(lines) + "\n"


def _entry_prints(section: str, value: Any) -> dict[str, str]:
    if section in _FIELDWISE and isinstance(value, dict):
        return {"": _digest(value), **fingerprints(value, ())}
    return {"": _digest(value)}


def parse_record(text: str) -> ImportRecord | None:
    """The import record that ends ``text``; ``None`` when there is none (or it is broken)."""
    at = text.rfind("\n" + _HEAD)
    if at < 0:
        if not text.startswith(_HEAD):
            return None
        at = -1
    record: ImportRecord | None = None
    for line in text[at + 1 :].splitlines():
        if not line.strip():
            continue
        try:
            if line.startswith(_HEAD):
                head = json.loads(line[len(_HEAD) :])
                if not (
                    isinstance(head, dict)
                    and head.get("record") == RECORD_VERSION
                    and isinstance(head.get("spec"), str)
                    and isinstance(head.get("argv"), list)
                    and all(isinstance(a, str) for a in head["argv"])
                ):
                    return None
                record = ImportRecord(head["spec"], list(head["argv"]))
                record.extra = {
                    k: v for k, v in head.items() if k not in ("record", "spec", "argv")
                }
            elif line.startswith(_TOOL) and record is not None:
                item = json.loads(line[len(_TOOL) :])
                if not (isinstance(item, dict) and isinstance(item.get("fields"), dict)):
                    return None
                record.tools.append(item)
            elif line.startswith(_ENTRY) and record is not None:
                item = json.loads(line[len(_ENTRY) :])
                if not (isinstance(item, dict) and isinstance(item.get("fields"), dict)):
                    return None
                record.entries[str(item.get("at"))] = item["fields"]
            else:
                return None  # something after the record: not as the writer left it
        except json.JSONDecodeError:
            return None
    return record


def edits_since_import(current: Mapping[str, Any], record: ImportRecord) -> list[str]:
    """What was changed in ``current`` (a written catalog, as it is now) since the import
    that wrote ``record``: one line per tool or entry added, edited or removed by hand.

    Empty when the file holds what the import wrote (comments aside): then a plain
    re-import loses nothing.
    """
    changes: list[str] = []
    recorded = {str(r.get("name")): r.get("fields") for r in record.tools}
    names: set[str] = set()
    for tool in current.get("tools") or ():
        name = str(tool.get("name")) if isinstance(tool, dict) else "?"
        names.add(name)
        fields = recorded.get(name)
        if fields is None or not isinstance(tool, dict):
            changes.append(f"tool {name} added")
        elif fingerprints(tool) != fields:
            changes.append(f"tool {name} edited")
    changes += [f"tool {name} removed" for name in recorded if name not in names]
    seen: set[str] = set()
    for section, entries in current.items():
        if section in ("toolcat", "tools"):
            continue
        if not isinstance(entries, dict):
            changes.append(f"{section} added")
            continue
        for name, value in entries.items():
            at = f"{_esc(str(section))}/{_esc(str(name))}"
            seen.add(at)
            fields = record.entries.get(at)
            if fields is None:
                changes.append(f"{section}.{name} added")
            elif _entry_prints(str(section), value) != fields:
                changes.append(f"{section}.{name} edited")
    changes += [
        f"{_unesc(at).replace('/', '.', 1)} removed" for at in record.entries if at not in seen
    ]
    return changes


@dataclass
class UpdateOutcome:
    """The merged catalog document and one line per thing kept, added or removed."""

    doc: dict[str, Any]
    kept: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # what the spec changed, untouched by hand


_MISSING: Any = object()


def _merge_fields(
    current: Mapping[str, Any],
    recorded: Mapping[str, str],
    new: Mapping[str, Any],
    deep: frozenset[str],
    label: str,
    kept: list[str],
    changed: list[str],
) -> dict[str, Any]:
    """``new`` with every hand edit of ``current`` (against ``recorded``) kept; ``changed``
    gets the fields the import changed where no hand had touched them."""
    out = dict(new)
    keys = list(
        dict.fromkeys([*new, *current, *(_unesc(k) for k in recorded if "/" not in k and k)])
    )
    for key in keys:
        mine = current.get(key, _MISSING)
        print_ = recorded.get(_esc(key))
        if key in deep and isinstance(new.get(key), dict) and isinstance(mine, dict):
            parts = _merge_parts(mine, recorded, new[key], key, label, kept, changed)
            if parts is not None:
                out[key] = parts
            continue
        if mine is _MISSING:
            if print_ is not None:  # generated, then deleted by hand
                out.pop(key, None)
                kept.append(f"kept   {label}: {key} removed by hand")
            elif key in new:
                changed.append(key)  # a field the import writes now
            continue
        if print_ is None or _digest(mine) != print_:
            if key not in new or _digest(mine) != _digest(new[key]):
                why = "added by hand" if print_ is None else "edited by hand"
                kept.append(f"kept   {label}: {key} ({why})")
            out[key] = mine
        elif key not in new or _digest(new[key]) != print_:
            changed.append(key)
    return out


def _merge_parts(
    mine: Mapping[str, Any],
    recorded: Mapping[str, str],
    new: Mapping[str, Any],
    key: str,
    label: str,
    kept: list[str],
    changed: list[str],
) -> dict[str, Any] | None:
    prefix = _esc(key) + "/"
    if not any(k.startswith(prefix) for k in recorded) and recorded.get(_esc(key)) is not None:
        return None  # recorded whole only (an older record): leave to the caller's rule
    out = dict(new)
    names = dict.fromkeys(
        [*new, *mine, *(_unesc(k[len(prefix) :]) for k in recorded if k.startswith(prefix))]
    )
    for part in names:
        value = mine.get(part, _MISSING)
        print_ = recorded.get(prefix + _esc(part))
        if value is _MISSING:
            if print_ is not None:
                out.pop(part, None)
                kept.append(f"kept   {label}: {key}.{part} removed by hand")
            elif part in new:
                changed.append(f"{key}.{part}")
            continue
        if print_ is None or _digest(value) != print_:
            if part not in new or _digest(value) != _digest(new[part]):
                why = "added by hand" if print_ is None else "edited by hand"
                kept.append(f"kept   {label}: {key}.{part} ({why})")
            out[part] = value
        elif part not in new or _digest(new[part]) != print_:
            changed.append(f"{key}.{part}")
    return out


def _same_operation(tool: Mapping[str, Any], fields: Mapping[str, str]) -> bool:
    """Whether ``tool`` (renamed by hand) is the recorded one: the same method and path,
    or (an MCP tool) the same server and upstream tool."""
    if fields.get("method") is not None:
        return _digest(tool.get("method")) == fields.get("method") and _digest(
            tool.get("path")
        ) == fields.get("path")
    binding = tool.get("mcp")
    if fields.get("mcp/tool") is None or not isinstance(binding, dict):
        return False
    return _digest(binding.get("server")) == fields.get("mcp/server") and _digest(
        binding.get("tool")
    ) == fields.get("mcp/tool")


def _unesc(key: str) -> str:
    return key.replace("~1", "/").replace("~0", "~")


def merge_update(  # noqa: C901, PLR0915  one merge of a fresh import into the file: each tool matched, kept, changed, added or gone
    current: Mapping[str, Any],
    record: ImportRecord,
    new: Mapping[str, Any],
    new_ops: Mapping[str, str],
    gone: Callable[[str], str] | None = None,
) -> UpdateOutcome:
    """Merge a fresh import (``new``, as the writer emits it) into ``current`` (the file now).

    ``new_ops``: the operation key of each newly generated tool name. ``gone(op)``: why a
    recorded tool is no longer imported (default: the spec no longer has it).
    """
    kept: list[str] = []
    outcome = UpdateOutcome(doc={}, kept=kept)
    cur_tools = [t for t in current.get("tools") or () if isinstance(t, dict)]
    by_name = {t.get("name"): t for t in cur_tools}
    recorded = {str(r.get("name")): r for r in record.tools}
    # which current tool each record entry is now: by name, else (renamed) by method and path
    now: dict[str, dict[str, Any]] = {}
    for name in recorded:
        if name in by_name:
            now[name] = by_name[name]
    unclaimed = [t for t in cur_tools if t.get("name") not in recorded]
    for name, rec in recorded.items():
        if name in now:
            continue
        fields = rec["fields"]
        for tool in unclaimed:
            if _same_operation(tool, fields):
                now[name] = tool
                unclaimed.remove(tool)
                break
    by_op = {str(r.get("op")): r for r in record.tools}
    tools: list[dict[str, Any]] = []
    seen_ops: set[str] = set()
    for tool in new.get("tools") or ():
        name = str(tool.get("name"))
        op = new_ops.get(name, name)
        seen_ops.add(op)
        found = by_op.get(op)
        if found is None:
            tools.append(dict(tool))
            outcome.added.append(f"added  tool {name}")
            continue
        mine = now.get(str(found.get("name")))
        if mine is None:
            kept.append(
                f"kept   tool {found.get('name')} removed by hand (the spec still has {op})"
            )
            continue
        label = f"tool {mine.get('name', name)}"
        changed: list[str] = []
        tools.append(_merge_fields(mine, found["fields"], tool, _DEEP, label, kept, changed))
        if changed:
            outcome.changed.append(f"changed {label}: {', '.join(changed)}")
    for rec in record.tools:
        op = str(rec.get("op"))
        if op not in seen_ops:
            name = str(rec.get("name"))
            shown = now.get(name, {}).get("name", name)
            why = gone(op) if gone is not None else f"the spec no longer has {op}"
            outcome.removed.append(f"removed tool {shown}: {why}")
    claimed = {id(t) for t in now.values()}
    for tool in cur_tools:
        if id(tool) not in claimed:
            tools.append(tool)
            kept.append(f"kept   tool {tool.get('name')} (added by hand)")
    doc: dict[str, Any] = {}
    for section, value in new.items():
        if section == "tools":
            doc["tools"] = tools
        elif isinstance(value, dict):
            doc[section] = _merge_section(section, current.get(section), value, record, outcome)
        else:
            doc[section] = value
    for section, value in current.items():  # sections the writer did not write this time
        if section in doc:
            continue
        if section == "tools":
            doc["tools"] = tools
            continue
        if isinstance(value, dict):
            merged = _merge_section(section, value, {}, record, outcome)
            if merged:
                doc[section] = merged
        else:
            doc[section] = value
            kept.append(f"kept   {section} (added by hand)")
    if "tools" not in doc and tools:
        doc["tools"] = tools
    outcome.doc = doc
    return outcome


def _merge_section(
    section: str,
    current: Any,
    new: Mapping[str, Any],
    record: ImportRecord,
    outcome: UpdateOutcome,
) -> dict[str, Any]:
    mine = current if isinstance(current, dict) else {}
    out: dict[str, Any] = {}
    label = section[:-1] if section.endswith("s") else section
    for name, value in new.items():
        rec = record.entries.get(f"{_esc(section)}/{_esc(str(name))}")
        if rec is None:
            if name in mine and _digest(mine[name]) != _digest(value):
                out[name] = mine[name]
                outcome.kept.append(f"kept   {label} {name} (written by hand)")
            else:
                out[name] = value
                if name not in mine:
                    outcome.added.append(f"added  {label} {name}")
            continue
        if name not in mine:
            outcome.kept.append(f"kept   {label} {name} removed by hand")
            continue
        if section in _FIELDWISE and isinstance(value, dict) and isinstance(mine[name], dict):
            fields = {k: v for k, v in rec.items() if k}
            parts: list[str] = []
            out[name] = _merge_fields(
                mine[name], fields, value, frozenset(), f"{label} {name}", outcome.kept, parts
            )
            if parts:
                outcome.changed.append(f"changed {label} {name}: {', '.join(parts)}")
        elif _digest(mine[name]) != rec.get(""):
            out[name] = mine[name]
            outcome.kept.append(f"kept   {label} {name} (edited by hand)")
        else:
            out[name] = value
            if _digest(value) != rec.get(""):
                outcome.changed.append(f"changed {label} {name}")
    for name, value in mine.items():
        if name in new:
            continue
        if f"{_esc(section)}/{_esc(str(name))}" in record.entries:
            outcome.removed.append(f"removed {label} {name}: the import no longer makes it")
        else:
            out[name] = value
            outcome.kept.append(f"kept   {label} {name} (added by hand)")
    return out


def operation_key(method: str, path: str, operation_id: str | None) -> str:
    """How a tool is followed across imports: its operationId, else ``METHOD path``."""
    return operation_id or f"{method.upper()} {path}"


def render_document(doc: Mapping[str, Any]) -> str:
    """``doc`` as YAML in the import writer's style (block style, readable text)."""
    from . import _emit

    block = getattr(_emit, "_block", None)
    needs = getattr(_emit, "_NeedsPyYAML", None)
    if block is not None and needs is not None:
        try:
            lines: list[str] = []
            block(dict(doc), 0, lines)
            return "\n".join(lines) + "\n"
        except needs:
            pass
    import yaml

    dumper = getattr(_emit, "_Dumper", yaml.SafeDumper)
    text: str = yaml.dump(
        dict(doc),
        Dumper=dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return text


def narrowed_ref_root(recorded: str | None, spec: Path) -> tuple[str | None, str | None]:
    """The ``--ref-root`` an update may take from an import record, and a note when it
    set the record's aside.

    A record is a file anyone may have edited: it can narrow where ``$ref``s read
    files, never widen it. A recorded root inside the default (the spec's repository,
    else its folder) is used; one outside it is not, and the default applies (the
    user widens it with ``--ref-root`` on the command line).
    """
    if recorded is None:
        return None, None
    from ._refs import default_ref_root

    allowed = default_ref_root(spec)
    if Path(recorded).resolve().is_relative_to(allowed):
        return recorded, None
    return None, (
        f"the import record's --ref-root {recorded} is wider than the spec's default "
        f"$ref root ({allowed}) and is not used; pass --ref-root to widen it"
    )
