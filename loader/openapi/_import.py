"""``import_openapi``: a spec becomes tool documents; an operation that cannot is skipped."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from toolcat.catalog import method_semantics
from toolcat.catalog.common import MAX_DESCRIPTION_CHARS, METHODS
from toolcat.loader._diagnostics import Diagnostic
from toolcat.loader._files import FileReadError, read_regular_file

from ._args import Arg, assign_names, conforming, safe_argument
from ._bodies import JSON, request_body
from ._errors import OperationSkipped, RefError, SpecError
from ._names import base_name, snake_case, unique_name
from ._options import ImportOptions, ImportResult, OperationReport
from ._params import merged_parameters, parameter_args
from ._refs import Resolver, default_ref_root
from ._responses import MAX_OUTPUT_DEFINITIONS, output_schema
from ._schemas import SchemaConverter, spec_text
from ._security import auth_for
from ._select import excluded_because, unmatched
from ._servers import (
    base_url_variable,
    first_server_url,
    server_service_name,
    service_name,
    to_base_url,
    under_base,
)
from ._swagger2 import (
    body_from_parameters,
    parameter_as_v3,
    schemes_as_v3,
    server_url,
)
from ._text import markdown_text, within
from ._version import detect_version

__all__ = ["MAX_DESCRIPTION", "MAX_OUTPUT_DEFINITIONS", "import_openapi"]

MAX_DESCRIPTION = MAX_DESCRIPTION_CHARS
# a Path Item's operation fields, in the order of the OpenAPI spec (3.2 adds query);
# which of them toolcat can call is toolcat.catalog.common.METHODS' business
_TYPO_CUTOFF = 0.85  # how alike an unknown operationId and a suggestion must be
_PATH_ITEM_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")
_TEMPLATE_VAR = re.compile(r"\{([^{}]+)\}")
_PLACEHOLDER = re.compile(r"[A-Za-z0-9_.\-~]+")


def read_document(path: Path, max_bytes: int) -> Any:
    """:func:`._read.read_document`, imported when a spec is read here: PyYAML (a slow
    import) stays out of a command whose JSON spec the loader parsed already."""
    from ._read import read_document as read

    return read(path, max_bytes)


def import_openapi(
    spec_path: str | os.PathLike[str],
    options: ImportOptions | None = None,
    *,
    progress: bool | None = None,
    document: Any = None,
) -> ImportResult:
    """Import every selected operation of an OpenAPI 3.x or Swagger 2.0 spec.

    Never raises for a bad spec: a spec that cannot be read at all gives one
    TC201/TC202/TC207 diagnostic and no tools; an operation that cannot be
    imported is skipped with a TC203/TC204 diagnostic naming it.

    >>> result = import_openapi("petstore.yaml", ImportOptions(service="pets"))  # doctest: +SKIP
    >>> [t["name"] for t in result.tools]  # doctest: +SKIP
    ['listPets', 'createPets', 'showPetById']

    ``document`` is the spec already parsed (a caller that parsed the file to
    recognise it passes it here, so a 13 MB spec is not parsed twice); refs into
    other files still resolve relative to ``spec_path``.
    """
    options = options or ImportOptions()
    path = Path(spec_path)
    result = ImportResult()
    try:
        doc = document if document is not None else read_document(path, options.max_spec_bytes)
        result.version = detect_version(doc, str(path))
    except SpecError as exc:
        result.diagnostics.append(
            Diagnostic.make(exc.code, exc.reason, str(path), exc.line, exc.column)
        )
        return result
    if options.overlays:
        doc = _overlaid(doc, options, result)
    result.output_schemas = options.output_schemas
    _Importer(path, doc, result.version, options, result).run(_want_progress(progress))
    _locate(result, path, options.max_spec_bytes)
    from ._rules import apply_rules  # rules, overrides, the spec's x-toolcat-confirm

    apply_rules(result, doc, options.rules, options.overrides, str(path))
    return result


def _overlaid(doc: Any, options: ImportOptions, result: ImportResult) -> Any:
    """The spec with ``options.overlays`` applied; an overlay that cannot be read is left out
    (its TC060-TC062 error stays in the result)."""
    from ._overlay import apply_overlays, read_overlay

    overlays = []
    for i, file in enumerate(options.overlays):
        found: list[Diagnostic] = []
        overlay = read_overlay(Path(file), options.max_spec_bytes, found)
        for d in found:  # an unreadable file is placed at the entry's overlays[i]
            if d.path == ("overlays",):
                d = dataclasses.replace(d, path=("overlays", i))
            result.diagnostics.append(d)
        if overlay is not None:
            overlays.append(overlay)
    return apply_overlays(doc, overlays, result.diagnostics)


# Findings about an operation are made on plain values; where they were written
# is found by reading the spec's text again as nodes, once, when there is one to
# place. That reading is slow and grows with the spec's size, so the findings of a spec
# past the cap below keep line 1 and say where by their path (`paths./a.get`).
_LOCATE_MAX_BYTES = 2 * 1024 * 1024
_LOCATED_CODES = frozenset({"TC203", "TC204", "TC205", "TC209"})


def _locate(result: ImportResult, path: Path, max_bytes: int) -> None:
    """Give the spec's findings the line and column of the operation they name."""
    shown = str(path)
    pending = [
        i
        for i, d in enumerate(result.diagnostics)
        if d.code in _LOCATED_CODES and d.path and d.file == shown and (d.line, d.column) == (1, 1)
    ]
    if not pending:
        return
    try:
        data = read_regular_file(path, min(max_bytes, _LOCATE_MAX_BYTES))
    except FileReadError:
        return  # too large to read again: the path still says where
    # here: a JSON spec without findings to place loads no YAML reader
    import yaml
    from toolcat.loader._yaml import Positions, compose_yaml

    try:
        root = compose_yaml(data)
    except (yaml.YAMLError, ValueError, RecursionError):
        return  # not readable as nodes: the path still says where
    positions = Positions(shown, root)
    for i in pending:
        d = result.diagnostics[i]
        if positions.exact(d.path[:2]):
            line, column = positions.key(d.path)
            result.diagnostics[i] = dataclasses.replace(d, line=line, column=column)


def _want_progress(progress: bool | None) -> TextIO | None:
    if progress is None:
        progress = sys.stderr.isatty() and not os.environ.get("CI")
    return sys.stderr if progress else None


#: The header that names one attempt of a call (draft-ietf-httpapi-idempotency-key-header):
#: an imported non-safe operation with it gets ``idempotency_key``.
_IDEM = "idempotency-key"


class _Importer:
    """The state of one import: the spec, its resolver and schema converter, names taken."""

    def __init__(
        self,
        path: Path,
        doc: dict[str, Any],
        version: str,
        options: ImportOptions,
        result: ImportResult,
    ) -> None:
        self.path, self.doc, self.version, self.options, self.result = (
            path,
            doc,
            version,
            options,
            result,
        )
        self.shown = str(path)
        self.swagger = version == "2.0"
        root_dir = options.ref_root or default_ref_root(path)
        self.resolver = Resolver(path, doc, root_dir=root_dir, max_bytes=options.max_spec_bytes)
        self.root = self.resolver.root_file
        self.converter = SchemaConverter(self.resolver, version)
        self.service = options.service or service_name(doc, path, version)
        self.taken: set[str] = set(options.taken_names)
        self.taken.update(
            o["name"]
            for o in options.overrides.values()
            if isinstance(o, dict) and isinstance(o.get("name"), str)
        )
        if self.swagger:
            self.schemes = schemes_as_v3(doc.get("securityDefinitions"))
        else:
            comps = doc.get("components") if isinstance(doc.get("components"), dict) else {}
            schemes = comps.get("securitySchemes") if isinstance(comps, dict) else None
            self.schemes = {}
            if isinstance(schemes, dict):
                for name, s in schemes.items():
                    try:
                        self.schemes[name] = self.resolver.deref(s, self.root)[0]
                    except RefError:
                        continue
        # the notes on the spec's own security go to each operation that inherits it
        self.service_auth, self.service_notes = auth_for(
            doc.get("security"), self.schemes, self.service
        )
        self.base_url = self._service_base_url()
        self.server_services: dict[str, str] = {}  # servers URL -> its own service

    # -- service -------------------------------------------------------------------

    def _service_base_url(self) -> str:
        if self.swagger:
            raw = server_url(self.doc) or "/"
        else:
            raw = first_server_url(self.doc.get("servers")) or "/"
        url, needs_var = to_base_url(raw, self.service, self.options.spec_url)
        if needs_var and self.service not in self.options.existing_services:
            self.result.diagnostics.append(
                Diagnostic.make(
                    "TC205",
                    f"the spec has no absolute server URL ({raw!r}); "
                    f"set {base_url_variable(self.service)} "
                    f"or define the service {self.service!r} with a base_url in the catalog",
                    self.shown,
                    path=("servers",),
                )
            )
        return url

    def _service_doc(self) -> dict[str, Any]:
        base = self.base_url
        if self.options.base_url_env and "://" in base and not any(c in base for c in "${}"):
            # the spec's server is the default; ${NAME_BASE_URL} points the tools elsewhere
            base = "${" + base_url_variable(self.service) + ":-" + base + "}"
        doc: dict[str, Any] = {"base_url": base}
        info = self.doc.get("info")
        title = info.get("title") if isinstance(info, dict) else None
        if isinstance(title, str) and title.strip():
            doc["description"] = title.strip()
        if self.service_auth and self.service_auth.get("type") != "none":
            doc["auth"] = self.service_auth
        return doc

    # -- operations ----------------------------------------------------------------

    def _operations(self) -> list[tuple[str, str, Any, Any, str]]:
        ops: list[tuple[str, str, Any, Any, str]] = []
        paths = self.doc.get("paths")
        if not isinstance(paths, dict):
            return ops
        for path, raw_item in paths.items():
            try:
                item, item_file = self.resolver.deref(raw_item, self.root)
            except RefError as exc:
                self._skip("*", str(path), None, str(exc), code="TC203")
                continue
            if not isinstance(item, dict):
                continue
            for method in _PATH_ITEM_METHODS:
                if method not in item:
                    continue
                if method.upper() in METHODS:
                    ops.append((method.upper(), str(path), item[method], item, item_file))
                else:
                    self._skip(
                        method.upper(),
                        str(path),
                        None,
                        f"the HTTP method {method.upper()} is not supported",
                    )
            if isinstance(item.get("additionalOperations"), dict):
                for m in item["additionalOperations"]:
                    self._skip(
                        str(m).upper(), str(path), None, f"the HTTP method {m} is not supported"
                    )
        return ops

    def run(self, progress: TextIO | None) -> None:  # noqa: PLR0915  the pass over every operation: selection, names, tools, the import's report
        ops = self._operations()
        total = len(ops)
        step = max(total // 50, 1)
        seen_ids: set[str] = set()
        seen_tags: set[str] = set()  # for a selection value that matches nothing (TC215)
        for i, (method, path, op, item, item_file) in enumerate(ops):
            if progress is not None and total >= 100 and i % step == 0:
                progress.write(f"\rimporting {self.path.name}: {i}/{total} operations")
                progress.flush()
            if not isinstance(op, dict):
                self._skip(method, path, None, "the operation is not a mapping")
                continue
            op_id = op.get("operationId") if isinstance(op.get("operationId"), str) else None
            if op_id:
                seen_ids.add(op_id)
            tags = (
                [str(t) for t in op.get("tags", ()) if isinstance(t, str)]
                if isinstance(op.get("tags"), list)
                else []
            )
            seen_tags.update(tags)
            why = excluded_because(
                self.options.include, self.options.exclude, op_id, tags, path, method
            )
            if why:
                self.result.report.append(OperationReport(method, path, op_id, skipped=why))
                continue
            notes: list[str] = []
            try:
                tool = self._tool(method, path, op, op_id, tags, item, item_file, notes)
            except RefError as exc:
                self._skip(method, path, op_id, str(exc), code="TC203")
                continue
            except OperationSkipped as exc:
                self._skip(method, path, op_id, exc.reason)
                continue
            except RecursionError:
                self._skip(
                    method,
                    path,
                    op_id,
                    "its schemas nest too deeply (or loop through YAML aliases)",
                )
                continue
            except Exception as exc:  # a spec shape not foreseen: skip this one, keep the rest
                if os.environ.get("TOOLCAT_DEBUG"):
                    raise
                self._skip(method, path, op_id, f"unexpected {type(exc).__name__}: {exc}")
                continue
            self.result.tools.append(tool)
            self.result.report.append(
                OperationReport(method, path, op_id, tool=tool["name"], notes=tuple(notes))
            )
        if progress is not None and total >= 100:
            progress.write(f"\rimporting {self.path.name}: {total}/{total} operations\n")
            progress.flush()
        self._unmatched_selection(ops, seen_ids, seen_tags)
        for op_id in self.options.overrides:
            if op_id not in seen_ids:
                import difflib  # here: only a near miss needs it

                # a typo, not a sibling: 'deletePlanet' is not 'updatePlanet' (0.75)
                close = difflib.get_close_matches(
                    str(op_id), sorted(map(str, seen_ids)), 1, _TYPO_CUTOFF
                )
                hint = (
                    f"did you mean {close[0]!r}?"
                    if close
                    else "remove it if the spec dropped the operation"
                )
                self.result.diagnostics.append(
                    Diagnostic.make(
                        "TC206",
                        f"the tools override {op_id!r} names no operationId of this spec, "
                        f"so it is ignored; {hint}",
                        self.shown,
                        path=("tools", op_id),
                    )
                )
        self.result.service = self.service
        if self.service not in self.options.existing_services:
            self.result.services[self.service] = self._service_doc()

    def _unmatched_selection(
        self, ops: list[tuple[str, str, Any, Any, str]], seen_ids: set[str], seen_tags: set[str]
    ) -> None:
        """TC215 for an include value that matches no operation (a typo there gives an
        empty or partial catalog without a word), TC216 for such an exclude value."""
        paths = {str(op[1]) for op in ops}
        methods = {str(op[0]) for op in ops}
        for side, code in (("include", "TC215"), ("exclude", "TC216")):
            selection = getattr(self.options, side)
            if not selection:
                continue
            for field_name, index, value, hint in unmatched(
                selection, seen_tags, seen_ids, paths, methods
            ):
                kind = field_name[:-1]
                self.result.diagnostics.append(
                    Diagnostic.make(
                        code,
                        f"{side} {kind} {value!r} matches no operation of this spec{hint}",
                        self.shown,
                        path=(side, field_name, index),
                    )
                )

    def _skip(
        self, method: str, path: str, op_id: str | None, reason: str, code: str = "TC204"
    ) -> None:
        label = f"{method} {path}" + (f" ({op_id})" if op_id else "")
        self.result.diagnostics.append(
            Diagnostic.make(
                code,
                f"operation {label} skipped: {reason}",
                self.shown,
                path=("paths", path, method.lower()),
            )
        )
        self.result.report.append(OperationReport(method, path, op_id, skipped=reason))

    # -- one tool ------------------------------------------------------------------

    def _tool(  # noqa: C901, PLR0915  one operation to one tool document: parameters, body, responses, security, texts
        self,
        method: str,
        path: str,
        op: dict[str, Any],
        op_id: str | None,
        tags: list[str],
        item: dict[str, Any],
        item_file: str,
        notes: list[str],
    ) -> dict[str, Any]:
        if not path.startswith("/"):
            raise OperationSkipped("its path does not start with '/'")
        bad = [v for v in _TEMPLATE_VAR.findall(path) if not _PLACEHOLDER.fullmatch(v)]
        if bad:
            raise OperationSkipped(f"its path placeholder {{{bad[0]}}} is not a plain name")
        defs: dict[str, Any] = {}
        params = merged_parameters(
            self.resolver, item.get("parameters"), item_file, op.get("parameters"), item_file
        )
        if self.swagger:
            consumes = _texts(op.get("consumes") or self.doc.get("consumes"))
            plain = [
                (parameter_as_v3(p), f)
                for p, f in params
                if p.get("in") not in ("body", "formData")
            ]
            rb = body_from_parameters(params, consumes)
            body_raw, body_file = rb if rb else (None, item_file)
        else:
            plain = params
            body_raw, body_file = None, item_file
            if "requestBody" in op:
                body_raw, body_file = self.resolver.deref(op["requestBody"], item_file)
        args = parameter_args(plain, self.converter, defs)
        in_template = _TEMPLATE_VAR.findall(path)
        declared = {a.wire for a in args if a.location == "path"}
        for var in in_template:
            if var not in declared:
                args.append(Arg(var, "path", True, {"type": "string"}))
                notes.append(f"path variable {var!r} is not declared; taken as a string")
        unused = declared.difference(in_template)
        if unused:
            args = [a for a in args if not (a.location == "path" and a.wire in unused)]
            notes.append(
                f"path parameters not in the path were left out: {', '.join(sorted(unused))}"
            )
        body = request_body(
            body_raw, body_file, self.converter, defs, {safe_argument(a.wire) for a in args}
        )
        if body is not None:
            args.extend(body.args if body.argument is None else [body.argument])
        assign_names(args)
        for arg in args:
            arg.schema = conforming(arg.schema, defs, notes, f"argument {arg.argument!r}")
        self._describe(args, path, notes)
        for def_name, def_schema in list(defs.items()):
            if isinstance(def_schema, bool):  # 3.1 boolean schemas, as objects
                def_schema = {} if def_schema else {"not": {}}
            defs[def_name] = conforming(def_schema, defs, notes, f"definition {def_name!r}")

        override = self.options.overrides.get(op_id or "", {}) if op_id else {}
        override = override if isinstance(override, dict) else {}
        if isinstance(override.get("name"), str):
            name = override["name"]
        else:
            key = f"{method} {path}"
            stem = base_name(op_id, method, path)
            if self.options.naming == "snake_case":
                stem = snake_case(stem)
            name = unique_name(self.options.prefix + stem, key, self.taken)
        self.taken.add(name)

        tool: dict[str, Any] = {"name": name}
        tool["description"] = (
            override["description"]
            if isinstance(override.get("description"), str)
            else _description(op, method, path, self.options)
        )
        tool["service"] = self.service
        tool["method"] = method
        tool["path"] = path
        foreign = False
        base = self._operation_base_url(op, item)
        if base is not None and base != self.base_url:
            if under_base(base, self._credentialed_base()):
                tool["base_url"] = base
            else:  # another host or base path: its own service, without credentials
                tool["service"] = self._server_service(base, method, path, op)
                foreign = True
        if self.service not in self.options.existing_services and not foreign:
            # A service the catalog defines brings its own auth; the spec's does not override it.
            if "security" in op:
                auth, auth_notes = auth_for(op["security"], self.schemes, self.service)
                notes.extend(auth_notes)
                if auth is not None and auth != (self.service_auth or {"type": "none"}):
                    tool["auth"] = auth
            else:  # it inherits the spec's security: what of it could not be mapped
                notes.extend(self.service_notes)
        if body is not None:
            if body.media_type != JSON:
                tool["content_type"] = body.media_type
            if body.argument is not None:
                tool["body_argument"] = body.argument.argument
        if args:
            tool["parameters"] = {a.argument: a.to_doc() for a in args}
            if not method_semantics(method).safe:
                # Stripe's convention (and the IETF draft's): a header that names one attempt
                named = [
                    a.argument for a in args if a.location == "header" and a.wire.lower() == _IDEM
                ]
                if named:
                    tool["idempotency_key"] = named[0]
        if defs:
            reached = _reachable(defs, [a.schema for a in args])
            if reached:
                tool["definitions"] = {n: defs[n] for n in sorted(reached)}
        output = (
            self._output_schema(op, item_file, notes)
            if self.options.output_schemas != "none"
            else None
        )
        if output is not None:
            tool["output_schema"] = output
        annotations: dict[str, Any] = {}
        if isinstance(op.get("summary"), str) and op["summary"].strip():
            annotations["title"] = op["summary"].strip()
        semantics = method_semantics(method)
        annotations["read_only"] = semantics.read_only
        annotations["destructive"] = semantics.destructive
        annotations["idempotent"] = semantics.idempotent
        tool["annotations"] = annotations
        tags_override = override.get("tags")
        if isinstance(tags_override, list):
            tool["tags"] = [str(t) for t in tags_override]
        elif tags:
            tool["tags"] = tags
        for flag in ("confirm", "return_direct"):
            if isinstance(override.get(flag), bool):
                tool[flag] = override[flag]
        if "confirm" not in tool and semantics.needs_confirm:
            # the import policy decides, and says so: a write is never silently unconfirmed
            wanted = self.options.confirm_methods
            tool["confirm"] = True if wanted is None else method in wanted
        return tool

    def _describe(self, args: list[Arg], path: str, notes: list[str]) -> None:
        """Argument descriptions as Markdown within the budget; a plain one where the spec
        has none (the model still learns where the value goes)."""
        given: list[str] = []
        for arg in args:
            schema = arg.schema if isinstance(arg.schema, dict) else {}
            text = arg.description if arg.description else schema.get("description")
            if isinstance(text, str) and text.strip():
                if self.options.markdown:
                    text = markdown_text(text)
                arg.description = within(text.strip(), self.options.description_max)
                continue
            if "$ref" in schema:
                continue  # the definition describes it
            title = schema.get("title")
            if isinstance(title, str) and title.strip():
                arg.description = within(title.strip(), self.options.description_max)
            elif arg.location == "path":
                arg.description = f"The {{{arg.wire}}} segment of the path {path}."
            elif arg.location == "body":
                arg.description = f"The {arg.wire!r} field of the request body."
            else:
                arg.description = f"The {arg.wire!r} {arg.location} parameter."
            given.append(arg.argument)
        if given:
            notes.append(
                "the spec describes no argument "
                + ", ".join(repr(a) for a in given)
                + "; each got a description saying where it goes"
            )

    def _operation_base_url(self, op: dict[str, Any], item: dict[str, Any]) -> str | None:
        if self.swagger:
            return None
        for holder in (op, item):
            raw = first_server_url(holder.get("servers"))
            if raw is not None:
                return to_base_url(raw, self.service, self.options.spec_url)[0]
        return None

    def _credentialed_base(self) -> str:
        """The base URL the service's credentials belong to: the catalog's when it
        defines the service, else the one the import creates."""
        existing = self.options.existing_services.get(self.service)
        found = getattr(existing, "base_url", None)
        return found if isinstance(found, str) else self.base_url

    def _server_service(self, base: str, method: str, path: str, op: dict[str, Any]) -> str:
        """The credential-free service for an operation or path ``servers`` entry that
        lies outside the service's base URL (one per distinct URL, reported once)."""
        known = self.server_services.get(base)
        if known is not None:
            return known
        existing = self.options.existing_services
        taken = {*existing, *self.result.services, *self.server_services.values(), self.service}
        name = server_service_name(self.service, base, taken - set(existing))
        mine = existing.get(name)
        if mine is not None and str(getattr(mine, "base_url", "")).rstrip("/") != base:
            name = server_service_name(self.service, base, taken)  # an unrelated service
        self.server_services[base] = name
        if name not in existing:
            doc: dict[str, Any] = {
                "base_url": base,
                "description": f"servers entry of {method} {path}; no credentials",
            }
            self.result.services[name] = doc
            advice = (
                f"it calls the new service {name!r} without credentials; to send "
                f"credentials there, define service {name!r} in the catalog with its "
                "base_url and auth"
            )
        else:
            advice = f"it calls the catalog's service {name!r} and its credentials"
        holder = ("paths", path, method.lower()) if "servers" in op else ("paths", path)
        self.result.diagnostics.append(
            Diagnostic.make(
                "TC209",
                f"operation {method} {path} declares servers {base!r}, outside the base URL "
                f"of service {self.service!r} ({self._credentialed_base()!r}); {advice}",
                self.shown,
                path=(*holder, "servers"),
            )
        )
        return name

    def _output_schema(self, op: dict[str, Any], file: str, notes: list[str]) -> Any:
        produces = _texts(op.get("produces") or self.doc.get("produces"))
        return output_schema(op, file, self.converter, self.resolver, self.swagger, produces, notes)


_DEF_REF = re.compile(r'"\$ref":"#/\$defs/([^"]+)"')  # in spec_text's compact text


def _reachable(defs: dict[str, Any], roots: list[Any]) -> set[str]:
    """The definitions the argument schemas reach (readOnly pruning can orphan some)."""
    seen: set[str] = set()
    todo = [spec_text(r) for r in roots]
    while todo:
        for name in _DEF_REF.findall(todo.pop()):
            if name in defs and name not in seen:
                seen.add(name)
                todo.append(spec_text(defs[name]))
    return seen


def _texts(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _description(op: dict[str, Any], method: str, path: str, options: ImportOptions) -> str:
    summary = op.get("summary")
    summary = summary.strip() if isinstance(summary, str) else ""
    details = op.get("description")
    details = details.strip() if isinstance(details, str) else ""
    if options.markdown:
        summary, details = markdown_text(summary), markdown_text(details)
    text = summary
    if details and details != summary:
        text = f"{summary}\n\n{details}" if summary else details
    if not text:
        text = f"{method} {path}"
    if op.get("deprecated") is True:
        text = f"(Deprecated) {text}"
    return within(text, options.description_max)
