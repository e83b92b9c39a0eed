"""`toolcat docs`: a static catalog browser (search, filters, a page per tool).

The site works from ``file://`` and any static host: no CDN, no fetch. The search
index (``SearchIndex.to_dict()``) ships as ``assets/search-index.js``, a script that
assigns a global, because browsers block ``fetch`` of JSON from ``file://``; the
list's data (one compact row a tool) ships the same way as ``assets/tools.js``. The
list is paged: ``index.html`` holds the first :data:`PAGE_SIZE` tools and
``list/N.html`` the others (readable without JavaScript), so the first view costs
the same for 25,000 tools as for 100; the page script loads ``tools.js`` after the
first view and the index on the first search, each with a ``<script>`` element.
``assets/search.js`` repeats the ranking of ``toolcat search`` exactly (tests
compare the two in Chromium). Every string from the catalog goes through Jinja2's
autoescape here, and the page script sets text only with ``textContent``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError
from toolcat.catalog import HttpCommand

if TYPE_CHECKING:
    from toolcat.catalog import Catalog, ToolDefinition

__all__ = [
    "NotEmptyError",
    "SiteReport",
    "build_site",
    "check_output",
    "default_title",
    "index_shard",
    "summary_of",
]

#: Characters of a tool's summary shown in the list (the tool page shows all of it).
SUMMARY_CHARS = 200
#: Tools on a page of the list (the first view renders one page, whatever the catalog's size).
PAGE_SIZE = 100
#: The search index's postings come in one part (``assets/index/N.js``) for so many tools,
#: at most :data:`MAX_SHARDS` parts; a search loads only the parts its terms are in.
TOOLS_PER_SHARD = 500
MAX_SHARDS = 256
_BADGE_BITS = {"readonly": 1, "destructive": 2, "confirm": 4}
ASSETS = ("style.css", "stem.js", "search.js", "app.js")
_SAFE_FILE = re.compile(r"[A-Za-z0-9_.-]{1,100}")


class NotEmptyError(ToolcatError):
    """The output folder holds files and ``force`` was not given."""


@dataclass(frozen=True, slots=True)
class SiteReport:
    tools: int
    files: int
    bytes: int


def _asset(name: str) -> str:
    return resources.files("toolcat.cli").joinpath("_site", name).read_text(encoding="utf-8")


def _environment() -> Any:
    import jinja2

    # Plain (not sandboxed) is enough: the templates are ours, catalog text is only data.
    return jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)


def _file_name(name: str, taken: set[str]) -> str:
    import hashlib

    base = name if _SAFE_FILE.fullmatch(name) and not name.startswith(".") else ""
    if not base or base.lower() in taken:
        base = f"tool-{hashlib.sha256(name.encode()).hexdigest()[:16]}"
    taken.add(base.lower())
    return base + ".html"


def _type_of(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return ""
    t = schema.get("type")
    if isinstance(t, list):
        text = " | ".join(str(x) for x in t)
    elif isinstance(t, str):
        text = t
    elif "$ref" in schema:
        text = str(schema["$ref"]).rsplit("/", 1)[-1]
    elif any(k in schema for k in ("anyOf", "oneOf")):
        text = "one of"
    else:
        text = "any"
    if text == "array" and isinstance(schema.get("items"), Mapping):
        text = f"array of {_type_of(schema['items'])}"
    if isinstance(schema.get("enum"), list):
        text += ": " + ", ".join(json.dumps(v) for v in schema["enum"][:20])
    return text


def _args(tool: ToolDefinition) -> list[dict[str, Any]]:
    schema = tool.input_schema
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return []
    required = set(schema.get("required") or ())
    command = tool.command
    if isinstance(command, HttpCommand):
        where = {p.argument: p.location.value for p in command.parameters}
        rest = "body" if command.body is not None else ""
    else:  # an upstream MCP tool's arguments: each under the upstream's name for it
        where = {k: f"argument {command.arguments.get(k, k)}" for k in props}
        rest = ""
    out = []
    for key, sub in props.items():
        location = where.get(key, rest)
        out.append(
            {
                "name": key,
                "type": _type_of(sub),
                "required": key in required,
                "location": location,
                "description": sub.get("description", "") if isinstance(sub, Mapping) else "",
            }
        )
    return out


def _badges(tool: ToolDefinition) -> list[tuple[str, str]]:
    a = tool.annotations
    out = []
    if a.read_only:
        out.append(("readonly", "read-only"))
    if a.destructive:
        out.append(("destructive", "destructive"))
    if tool.confirm:
        out.append(("confirm", "confirm"))
    return out


def _yes_no(value: bool | None) -> str:
    return "not stated" if value is None else ("yes" if value else "no")


def _source(tool: ToolDefinition, root: Path | None) -> str:
    if tool.source is None:
        return ""
    file = Path(tool.source.file)
    if root is not None:
        try:
            file = file.resolve().relative_to(root.resolve())
        except (ValueError, OSError):
            file = Path(file.name)
    elif file.is_absolute():
        file = Path(file.name)  # never an absolute path of the machine that built the site
    return f"{file.as_posix()}:{tool.source.line}"


def _provider_panels(tools: Iterable[ToolDefinition]) -> dict[str, list[dict[str, Any]]]:
    """tool name -> [{name, json, notes}] for each registered provider."""
    from toolcat.executor import providers

    from ._json import dumps_indented  # json.dumps(indent=2)'s text, through orjson

    panels: dict[str, list[dict[str, Any]]] = {}
    tools = list(tools)
    for pname in providers.names():
        prov = providers.get(pname)
        for tool in tools:
            try:
                result = prov.tools([tool])
                text = dumps_indented(result.tools)
                notes = [n.message for n in result.notes]
            except Exception as exc:  # one tool a provider cannot take must not stop the site
                text, notes = "", [f"not exported: {exc}"]
            panels.setdefault(tool.name, []).append({"name": pname, "json": text, "notes": notes})
    return panels


def _examples(catalog: Catalog) -> dict[str, dict[str, str]]:
    """tool name -> {arguments, request}: the schema's own ``examples`` and what they render.

    The catalog format holds no examples of its own; OpenAPI imports keep each
    parameter's ``example``/``examples`` in its schema. A tool gets an example when
    every property with one, taken together, is a call the executor accepts; the
    request is the dry run's (secrets masked, nothing sent).
    """
    from toolcat.executor import Executor, ExecutorSettings, PreparedRequest, ToolCall

    out: dict[str, dict[str, str]] = {}
    try:
        executor = Executor(catalog, ExecutorSettings(telemetry=False))
    except Exception:  # e.g. a variable the catalog needs is unset: no examples, still a site
        return out
    with executor:
        for tool in catalog:
            if not isinstance(tool.command, HttpCommand):  # a dry run renders HTTP requests
                continue
            props = tool.input_schema.get("properties")
            if not isinstance(props, Mapping):
                continue
            args = {
                k: v["examples"][0]
                for k, v in props.items()
                if isinstance(v, Mapping)
                and isinstance(v.get("examples"), list | tuple)
                and v["examples"]
            }
            if not args:
                continue
            try:
                prepared = executor.prepare(ToolCall(tool.name, args, id="docs"))
            except Exception:
                continue
            if isinstance(prepared, PreparedRequest):
                out[tool.name] = {
                    "arguments": json.dumps(args, indent=2, ensure_ascii=False, default=str),
                    "request": json.dumps(
                        prepared.to_dict(), indent=2, ensure_ascii=False, default=str
                    ),
                }
    return out


def check_output(out: Path, force: bool) -> None:
    """Raise :class:`NotEmptyError` unless ``out`` is missing, empty, or ``force``."""
    if out.exists() and not out.is_dir():
        raise NotEmptyError(f"{out} is not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise NotEmptyError(f"{out} is not empty (use --force to write into it)")


def summary_of(description: str) -> str:
    """The list's line for a tool: its description's first paragraph (an imported
    tool's OpenAPI summary), on one line, cut at :data:`SUMMARY_CHARS`. The rest of
    the description is on the tool's page: run into the summary, the two read as one."""
    first = " ".join(description.strip().split("\n\n", 1)[0].split())
    return first[:SUMMARY_CHARS] + ("…" if len(first) > SUMMARY_CHARS else "")


_GENERIC_NAMES = frozenset({"catalog", "catalogs", "tools", "toolcat", "specs", "spec", "api"})


def default_title(catalog: Catalog, path: Path) -> str:
    """The site's title when none is given: the one service's name (a spec imported on
    its own), else the catalog's folder or file name, passing over generic names
    (``teams/billing/catalog`` is "billing", not "catalog")."""
    here = path.resolve()
    services = {tool.target for tool in catalog}
    names = [*(services if len(services) == 1 else ()), here.stem if here.is_file() else here.name]
    names += [folder.name for folder in here.parents]
    return next((n for n in names if n and n.lower() not in _GENERIC_NAMES), names[0] or "toolcat")


def build_site(
    catalog: Catalog,
    out: Path,
    *,
    title: str = "toolcat catalog",
    force: bool = False,
    root: Path | None = None,
) -> SiteReport:
    """Write the site for ``catalog`` into ``out``; ``root`` makes source paths relative.

    Raises :class:`NotEmptyError` when ``out`` holds files and ``force`` is false.
    """
    check_output(out, force)
    env = _environment()
    index_t = env.from_string(_asset("index.html.j2"))
    tool_t = env.from_string(_asset("tool.html.j2"))
    _folder(out / "assets")
    tools_dir = _folder(out / "tools")
    if force:
        _remove(tools_dir, "*.html")
    toolsets_of: dict[str, list[str]] = {}
    for ts, names in catalog.toolsets.items():
        for n in names:
            toolsets_of.setdefault(n, []).append(ts)
    taken: set[str] = set()
    panels = _provider_panels(catalog)
    examples = _examples(catalog)
    rows: list[dict[str, Any]] = []
    written = 0
    size = 0
    for tool in catalog:
        a = tool.annotations
        command = tool.command
        row: dict[str, Any] = {
            "name": tool.name,
            "file": _file_name(tool.name, taken),
            "summary": summary_of(tool.description),
            "description": tool.description,
            "title": a.title or "",
            # a tool of an MCP server: MCP, the upstream's name of the tool and the server
            "service": tool.target,
            "method": command.method if isinstance(command, HttpCommand) else "MCP",
            "path": command.path if isinstance(command, HttpCommand) else command.tool,
            "mcp": not isinstance(command, HttpCommand),
            "pin": "" if isinstance(command, HttpCommand) else command.pin,
            "tags": list(tool.tags),
            "toolsets": toolsets_of.get(tool.name, []),
            "badges": _badges(tool),
        }
        rows.append(row)
        page = tool_t.render(
            title=title,
            t={
                **row,
                "args": _args(tool),
                "annotations": [
                    ("read-only", _yes_no(a.read_only)),
                    ("destructive", _yes_no(a.destructive)),
                    ("idempotent", _yes_no(a.idempotent)),
                    ("open world", _yes_no(a.open_world)),
                    ("confirm before running", "yes" if tool.confirm else "no"),
                ],
                "providers": panels.get(tool.name, []),
                "source": _source(tool, root),
                "example": examples.get(tool.name),
            },
        )
        size += _write(tools_dir / row["file"], page)
        written += 1
    filters = [
        ("toolset", "toolset", sorted(catalog.toolsets)),
        ("tag", "tag", sorted({t for r in rows for t in r["tags"]})),
        ("method", "method", sorted({r["method"] for r in rows})),
        ("service", "service", sorted({r["service"] for r in rows})),
    ]
    list_dir = out / "list"
    if force and (list_dir.is_symlink() or list_dir.exists()):
        _remove(_folder(list_dir), "*.html")
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    for number in range(1, pages + 1):
        if number == 2:
            _folder(list_dir)
        html = index_t.render(
            title=title,
            tools=rows[(number - 1) * PAGE_SIZE : number * PAGE_SIZE],
            total=len(rows),
            filters=filters,
            base="" if number == 1 else "../",
            page=number,
            pages=pages,
            page_size=PAGE_SIZE,
            prev_href=_page_href(number - 1, number) if number > 1 else "",
            next_href=_page_href(number + 1, number) if number < pages else "",
        )
        size += _write(out / "index.html" if number == 1 else list_dir / f"{number}.html", html)
    for name in ASSETS:
        size += _write(out / "assets" / name, _asset(name))
    size += _write(out / "assets" / "tools.js", _tools_script(rows, filters))
    core, parts = _index_parts(catalog.search_index.to_dict(), len(rows))
    index_dir = _folder(out / "assets" / "index")
    _remove(index_dir, "*.js")
    # ensure_ascii leaves no U+2028/2029 and "</" cannot end a script given as a file.
    size += _write(out / "assets" / "search-index.js", f"window.TOOLCAT_INDEX = {_js(core)};\n")
    shards = "(window.TOOLCAT_SHARDS = window.TOOLCAT_SHARDS || {})"
    for number, postings in enumerate(parts):
        size += _write(index_dir / f"{number}.js", f"{shards}[{number}] = {_js(postings)};\n")
    files = written + pages + 2 + len(ASSETS) + len(parts)
    return SiteReport(tools=len(rows), files=files, bytes=size)


def _page_href(number: int, here: int) -> str:
    """The link to list page ``number`` from list page ``here`` (page 1 is index.html)."""
    if number == 1:
        return "index.html" if here == 1 else "../index.html"
    return f"{number}.html" if here > 1 else f"list/{number}.html"


def _tools_script(rows: list[dict[str, Any]], filters: list[tuple[str, str, list[str]]]) -> str:
    """``assets/tools.js``: one compact row a tool, in catalog (= search index) order.

    A row is ``[name, file, method, path, summary, badges, service, toolsets, tags]``;
    method, service, toolsets and tags are positions in ``values``, badges a bit set
    (1 read-only, 2 destructive, 4 confirm). The page script reads it as data only.
    """
    values = {key: vals for key, _, vals in filters}
    pos = {key: {v: i for i, v in enumerate(vals)} for key, vals in values.items()}
    tools = [
        [
            r["name"],
            r["file"],
            pos["method"][r["method"]],
            r["path"],
            r["summary"],
            sum(_BADGE_BITS[b[0]] for b in r["badges"]),
            pos["service"][r["service"]],
            [pos["toolset"][t] for t in r["toolsets"]],
            [pos["tag"][t] for t in r["tags"]],
        ]
        for r in rows
    ]
    data = json.dumps(
        {"page_size": PAGE_SIZE, "values": values, "tools": tools},
        ensure_ascii=True,
        separators=(",", ":"),
    )
    return f"window.TOOLCAT_TOOLS = {data};\n"


def _js(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def index_shard(term: str, shards: int, width: int) -> int:
    """The part of the postings that holds ``term``: a hash of its first ``width``
    UTF-16 code units (search.js's ``shardOf``). A query's prefix lookups keep at least
    ``min_prefix`` units, so a term and its prefixes are always in the same part."""
    units = term.encode("utf-16-le")[: 2 * width]
    h = 0
    for i in range(0, len(units), 2):
        h = (h * 31 + int.from_bytes(units[i : i + 2], "little")) & 0xFFFFFFFF
    return h % shards


def _index_parts(index: dict[str, Any], tools: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Split ``SearchIndex.to_dict()`` into its core (no postings; ``shards``: how many
    parts) and the parts of the postings, one for each :data:`TOOLS_PER_SHARD` tools."""
    shards = max(1, min(MAX_SHARDS, -(-tools // TOOLS_PER_SHARD)))
    core = {k: v for k, v in index.items() if k != "postings"}
    core["shards"] = shards
    parts: list[dict[str, Any]] = [{} for _ in range(shards)]
    width = int(index["min_prefix"])
    for term, plist in index["postings"].items():
        parts[index_shard(term, shards, width)][term] = plist
    return core, parts


# The site's files and folders inside the output folder: a link found in the place of
# one (planted, or left by anything) is removed, never followed, so that --force
# writes and deletes nothing outside the output folder.


def _folder(path: Path) -> Path:
    """``path`` as a real folder (a link or a file in its place is removed first)."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _remove(folder: Path, pattern: str) -> None:
    """Remove the last build's files matching ``pattern`` from the real folder ``folder``
    (a link among them is removed itself, never what it points at)."""
    for old in folder.glob(pattern):
        if old.is_symlink() or old.is_file():
            old.unlink()


def _write(path: Path, text: str) -> int:
    data = text.encode("utf-8")
    if path.is_symlink():
        path.unlink()
    # O_NOFOLLOW: a link put in its place since is an error, not a file written elsewhere
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    with os.fdopen(os.open(path, flags, 0o666), "wb") as f:
        f.write(data)
    return len(data)
