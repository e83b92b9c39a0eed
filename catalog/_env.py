"""``${VAR}`` and ``${VAR:-default}``: checked when a catalog loads, resolved when a tool runs.

Validation never reads the environment (CI validates without secrets). The
executor calls :func:`interpolate` with the environment of the running call.
``$$`` is a literal ``$``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from toolcat._errors import ToolcatError

__all__ = [
    "EnvSyntaxError",
    "MissingVariableError",
    "bare_references",
    "check_env_syntax",
    "interpolate",
    "is_sensitive_header",
    "is_sensitive_variable",
    "references",
]

# ${NAME} or ${NAME:-default}; the default may not contain "}".
_REF = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_ANY_DOLLAR_BRACE = re.compile(r"\$\$|\$\{")
# What other tools expand but toolcat sends as it is: $NAME (shells, .env files) and
# %NAME% (Windows). %XX% of two hex digits is percent-encoding, never a variable.
_BARE = re.compile(r"\$\$|\$\{|\$([A-Za-z_][A-Za-z0-9_]*)|%([A-Z_][A-Z0-9_]+)%")
_HEX_PAIR = re.compile(r"[0-9A-F]{2}")
# Header names whose whole value is a secret, whatever produced it.
_SENSITIVE_HEADER = re.compile(
    r"authorization|cookie|token|secret|passw|api[-_]?key|apikey|session|signature|credential",
    re.IGNORECASE,
)
# Variable names that hold secrets even in non-secret fields (a key in a base URL).
_SENSITIVE_VAR = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL|SIGNATURE", re.IGNORECASE)


def is_sensitive_header(name: str) -> bool:
    """Whether a header of this name carries a credential (``Authorization``,
    ``X-Api-Key``, ``Cookie``, ...): masked whole wherever it is shown, and never written
    in a catalog as it is (TC147)."""
    return _SENSITIVE_HEADER.search(name) is not None


def is_sensitive_variable(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``API_KEY``,
    ``GITHUB_TOKEN``, ``DB_PASSWORD``, ...)."""
    return _SENSITIVE_VAR.search(name) is not None


@dataclass(eq=False)
class EnvSyntaxError(ToolcatError, ValueError):
    """A ``${`` that does not start a valid reference; ``offset`` is 0-based in the string."""

    text: str
    offset: int

    def __str__(self) -> str:
        return (
            f"bad variable reference at character {self.offset + 1} of {self.text!r}: "
            "write ${NAME} or ${NAME:-default} (NAME is letters, digits and _), "
            "or $$ for a literal $"
        )


@dataclass(eq=False)
class MissingVariableError(ToolcatError, LookupError):
    """An environment variable a tool needs is not set. Never carries a value."""

    name: str
    where: str = ""

    def __str__(self) -> str:
        where = f" (needed by {self.where})" if self.where else ""
        return f"environment variable {self.name} is not set{where}"


def check_env_syntax(text: str) -> EnvSyntaxError | None:
    """The first malformed reference in ``text``, or ``None`` when all are well formed."""
    if "$" not in text:
        return None
    for m in _ANY_DOLLAR_BRACE.finditer(text):
        if m.group() == "$$":
            continue
        ref = _REF.match(text, m.start())
        if ref is None:
            return EnvSyntaxError(text, m.start())
    return None


def bare_references(text: str) -> list[tuple[int, str]]:
    """``$NAME`` and ``%NAME%`` in ``text``: (0-based offset, the text as written).

    toolcat expands only ``${NAME}``; these go out literally (a credential
    ``$TOKEN`` would be sent as the five characters), so the loader warns.

    >>> bare_references("Bearer $TOKEN, $${HOME}, ${OK}, %APPDATA%, a%20b%2F")
    [(7, '$TOKEN'), (32, '%APPDATA%')]
    """
    if "$" not in text and "%" not in text:
        return []
    found = []
    for m in _BARE.finditer(text):
        if m.group(1) is not None:
            found.append((m.start(), m.group()))
        elif m.group(2) is not None and not _HEX_PAIR.fullmatch(m.group(2)):
            found.append((m.start(), m.group()))
    return found


def references(text: str) -> Iterator[str]:
    """The variable names ``text`` refers to."""
    for m in _REF.finditer(text):
        if m.group(1):
            yield m.group(1)


def interpolate(
    text: str,
    env: Mapping[str, str],
    *,
    where: str = "",
    missing: Callable[[str], str] | None = None,
) -> str:
    """Replace every reference with its value from ``env``.

    >>> interpolate("${HOST:-localhost}:${PORT}", {"PORT": "80"})
    'localhost:80'

    ``:-`` uses the default when the variable is unset or empty, as the shell does.
    A variable that is unset and has no default raises :class:`MissingVariableError`,
    or, with ``missing``, is replaced by ``missing(name)`` (a dry run shows a stand-in).
    """
    if "$" not in text:
        return text

    def sub(m: re.Match[str]) -> str:
        if m.group() == "$$":
            return "$"
        name, default = m.group(1), m.group(2)
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is not None:
            return value
        if missing is not None:
            return missing(name)
        raise MissingVariableError(name, where)

    return _REF.sub(sub, text)
