"""Base URLs from ``servers`` (variables filled with their defaults) or 2.0 host/basePath."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from ._swagger2 import server_url

__all__ = [
    "base_url_variable",
    "expand_server",
    "first_server_url",
    "service_name",
    "server_service_name",
    "to_base_url",
    "under_base",
]

_VAR = re.compile(r"\{([^{}]+)\}")


def expand_server(server: Any) -> str | None:
    """``servers[i].url`` with each ``{variable}`` replaced by its default (or first enum value)."""
    if not isinstance(server, dict) or not isinstance(server.get("url"), str):
        return None
    found = server.get("variables")
    variables: dict[str, Any] = found if isinstance(found, dict) else {}

    def fill(m: re.Match[str]) -> str:
        var = variables.get(m.group(1))
        if isinstance(var, dict):
            if "default" in var:
                return str(var["default"])
            enum = var.get("enum")
            if isinstance(enum, list) and enum:
                return str(enum[0])
        return m.group(0)

    return _VAR.sub(fill, server["url"].strip())


def first_server_url(servers: Any) -> str | None:
    if isinstance(servers, list):
        for server in servers:
            url = expand_server(server)
            if url is not None:
                return url
    return None


def base_url_variable(service: str) -> str:
    name = re.sub(r"[^A-Z0-9]+", "_", f"{service}_BASE_URL".upper()).strip("_")
    return name if not name[0].isdigit() else f"API_{name}"


def to_base_url(url: str, service: str, spec_url: str | None) -> tuple[str, bool]:
    """A base URL for the catalog, and whether it needs the user to set a variable.

    Relative URLs resolve against ``spec_url`` (where the spec was downloaded
    from) when it is known; otherwise they are prefixed with ``${SERVICE_BASE_URL}``.
    A literal ``$`` is written ``$$`` so that it is not read as a variable.
    """
    if spec_url and "://" not in url:
        url = urljoin(spec_url, url)
    if "{" in url or ("://" in url and not url.lower().startswith(("http://", "https://"))):
        return "${" + base_url_variable(service) + "}", True  # a variable without a default
    escaped = url.replace("$", "$$").rstrip("/")
    if "://" in url:
        return escaped, False
    if escaped and not escaped.startswith("/"):
        escaped = "/" + escaped
    return "${" + base_url_variable(service) + "}" + escaped, True


def _origin_and_path(url: str) -> tuple[str, str, int | None, str] | None:
    if "${" in url or "://" not in url:
        return None
    try:
        parts = urlsplit(url.replace("$$", "$"))
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if port is None:
        port = 443 if scheme == "https" else 80
    return scheme, (parts.hostname or "").lower(), port, parts.path.rstrip("/")


def under_base(url: str, base: str) -> bool:
    """Whether catalog base URL ``url`` is ``base`` or below it: same scheme, host and
    port, and a path under base's path, segment by segment (``/v1x`` is not under ``/v1``).

    Unresolved ``${VAR}`` URLs compare as text only, so an unknown is never "under".
    """
    base = base.rstrip("/")
    url = url.rstrip("/")
    if url == base or url.startswith(base + "/"):
        return True
    a, b = _origin_and_path(url), _origin_and_path(base)
    if a is None or b is None or a[:3] != b[:3]:
        return False
    return a[3] == b[3] or a[3].startswith(b[3] + "/")


def server_service_name(service: str, url: str, taken: set[str]) -> str:
    """A name for the service of a ``servers`` entry outside ``service``'s base URL."""
    parts = _origin_and_path(url)
    label = ""
    if parts is not None:
        labels = parts[1].split(".")
        for part in labels[:-1] if len(labels) > 1 else labels:
            part = re.sub(r"[^a-z0-9]+", "_", part).strip("_")
            if part not in _GENERIC_LABELS and re.fullmatch(r"[a-z][a-z0-9_]*", part):
                label = part
                break
    name = f"{service}_{label or 'server'}"
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    return candidate


_GENERIC_LABELS = frozenset({"api", "apis", "www", "rest", "gateway", "public", "v1", "v2", "v3"})


def service_name(doc: dict[str, Any], path: Path, version: str) -> str:
    """A short service name: a host label the title names (``api.github.com`` + "GitHub's
    REST API" -> ``github``), else the title's first words, else the file name."""
    info = doc.get("info")
    title = info.get("title") if isinstance(info, dict) else None
    title = title if isinstance(title, str) else ""
    words = re.sub(r"[^a-z0-9]+", " ", title.lower()).split()
    raw = server_url(doc) if version == "2.0" else first_server_url(doc.get("servers"))
    host = urlsplit(raw).hostname if raw and "://" in raw else None
    name = ""
    if host:
        squashed = "".join(words)
        for label in host.lower().split(".")[:-1]:
            if label not in _GENERIC_LABELS and re.fullmatch(r"[a-z][a-z0-9]+", label):
                if label in squashed:
                    name = label
                    break
    name = name or "_".join(words[:3])[:40].strip("_")
    name = name or re.sub(r"[^a-z0-9]+", "_", path.stem.lower()).strip("_") or "api"
    return name if not name[0].isdigit() else f"api_{name}"
