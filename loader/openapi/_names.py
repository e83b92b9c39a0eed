"""Provider-safe tool names: operationId else method + path, <= 64 characters, unique, stable."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_NAME", "base_name", "snake_case", "unique_name"]

MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_REPEATED = re.compile(r"_{2,}")


def _clean(text: str) -> str:
    """``text`` in the characters a provider takes, accents folded (``créer`` -> ``creer``).

    >>> _clean("créer_événement"), _clean("get /pets/{id}"), _clean("名前")
    ('creer_evenement', 'get_pets_id', '')
    """
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _REPEATED.sub("_", _UNSAFE.sub("_", text)).strip("_-")


def base_name(operation_id: object, method: str, path: str) -> str:
    """The name before prefix and uniqueness: the operationId made safe, else ``get_pets_petId``."""
    if isinstance(operation_id, str):
        name = _clean(operation_id)
        if name:
            return name
    return _clean(f"{method.lower()}_{path}") or method.lower()


_HUMPS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(name: str) -> str:
    """``GetAccountBankAccounts`` -> ``get_account_bank_accounts``; ``repos/get-content`` ->
    ``repos_get_content`` (a safe name stays safe)."""
    return _clean(_HUMPS.sub("_", name).replace("-", "_").lower()) or name


def _short_hash(key: str) -> str:
    import hashlib  # here: only a long name or a clash needs it (it loads OpenSSL)

    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()  # noqa: S324 - a name, not security
    return digest[:8]


def unique_name(name: str, key: str, taken: set[str] | frozenset[str]) -> str:
    """``name`` cut to 64 characters with a hash of ``key`` when needed, and not in ``taken``.

    ``key`` identifies the operation (``"GET /pets/{id}"``), so the same
    operation gets the same name on every import of the same spec.
    """
    if len(name) > MAX_NAME:
        name = f"{name[: MAX_NAME - 9]}_{_short_hash(key)}"
    if name not in taken:
        return name
    hashed = f"{name[: MAX_NAME - 9]}_{_short_hash(key)}"
    if hashed not in taken:
        return hashed
    n = 2
    while f"{hashed[: MAX_NAME - 4]}_{n}" in taken:
        n += 1
    return f"{hashed[: MAX_NAME - 4]}_{n}"
