"""The state of one import: the spec's service, its base URL and auth, names taken, skips.

:class:`Importer` is built once per spec; :mod:`._operations` walks the spec's operations
with it and :mod:`._tool` builds each tool from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolcat.loader._diagnostics import Diagnostic

from ._errors import RefError
from ._options import ImportOptions, ImportResult, OperationReport
from ._refs import Resolver, default_ref_root
from ._schemas import SchemaConverter
from ._security import auth_for
from ._servers import (
    base_url_variable,
    first_server_url,
    server_service_name,
    service_name,
    to_base_url,
)
from ._swagger2 import schemes_as_v3, server_url

__all__ = ["Importer"]


class Importer:
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

    def service_doc(self) -> dict[str, Any]:
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

    # -- an operation skipped ------------------------------------------------------

    def skip(
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

    # -- servers of one operation --------------------------------------------------

    def operation_base_url(self, op: dict[str, Any], item: dict[str, Any]) -> str | None:
        if self.swagger:
            return None
        for holder in (op, item):
            raw = first_server_url(holder.get("servers"))
            if raw is not None:
                return to_base_url(raw, self.service, self.options.spec_url)[0]
        return None

    def credentialed_base(self) -> str:
        """The base URL the service's credentials belong to: the catalog's when it
        defines the service, else the one the import creates."""
        existing = self.options.existing_services.get(self.service)
        found = getattr(existing, "base_url", None)
        return found if isinstance(found, str) else self.base_url

    def server_service(self, base: str, method: str, path: str, op: dict[str, Any]) -> str:
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
                f"of service {self.service!r} ({self.credentialed_base()!r}); {advice}",
                self.shown,
                path=(*holder, "servers"),
            )
        )
        return name
