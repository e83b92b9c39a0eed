"""Secrets of one call, and their removal from every text that leaves the executor."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from toolcat.catalog import interpolate, references

__all__ = ["MASK", "Redactor", "is_sensitive_header", "resolve"]

MASK = "***"

# Header names whose whole value is a secret, whatever produced it.
_SENSITIVE_HEADER = re.compile(
    r"authorization|cookie|token|secret|passw|api[-_]?key|apikey|session|signature|credential",
    re.IGNORECASE,
)
# Variable names that hold secrets even in non-secret fields (a key in a base URL).
_SENSITIVE_VAR = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL|SIGNATURE", re.IGNORECASE)
# Shorter values are not masked: they would shred ordinary text.
_MIN_SECRET = 3


def is_sensitive_header(name: str) -> bool:
    return _SENSITIVE_HEADER.search(name) is not None


class Redactor:
    """The secret values of one call; :meth:`__call__` masks them in any text."""

    __slots__ = ("_secrets",)

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        self.add(*secrets)

    def add(self, *values: str) -> None:
        for value in values:
            if value and len(value) >= _MIN_SECRET and value not in self._secrets:
                self._secrets.append(value)
        # Longest first, so a secret that contains another is masked whole.
        self._secrets.sort(key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """Header values for display: sensitive names masked whole, secrets masked anywhere."""
        out: dict[str, str] = {}
        for name, value in headers:
            if is_sensitive_header(name):
                scheme, sep, _ = value.partition(" ")
                keep = sep and scheme.lower() in ("bearer", "basic", "token", "digest")
                out[name] = f"{scheme} {MASK}" if keep else MASK
            else:
                out[name] = self(value)
        return out


def resolve(
    text: str,
    env: Mapping[str, str],
    redactor: Redactor,
    *,
    where: str,
    secret: bool,
) -> str:
    """Interpolate ``${VAR}`` in ``text``; record secret values with ``redactor``.

    With ``secret`` every variable's value (and the result) is a secret; otherwise
    only variables whose names look like secrets (``API_KEY``, ``TOKEN``...) are.
    Raises :class:`toolcat.loader.MissingVariableError` naming the variable.
    """
    if "$" not in text:
        if secret:
            redactor.add(text)
        return text
    value = interpolate(text, env, where=where)
    for name in references(text):
        if secret or _SENSITIVE_VAR.search(name):
            var_value = env.get(name)
            if var_value:
                redactor.add(var_value)
    if secret:
        redactor.add(value)
    return value
