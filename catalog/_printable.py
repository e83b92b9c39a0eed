"""Text from outside (upstream bodies, catalog descriptions, model-chosen names) made safe
to print on a terminal or in a log line: control characters become visible escapes."""

from __future__ import annotations

__all__ = ["escape_controls", "escape_json_controls"]

# C0 controls, DEL and C1 controls (0x9b is CSI on some terminals) as \xNN; the bidi
# overrides and isolates (which reorder what the reader sees) and the Unicode line
# separators as \uNNNN.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0, 32), *range(0x7F, 0xA0))}
_BIDI = {c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
# The line and paragraph separators, which str.splitlines, JavaScript and many log
# viewers end a line at (the other line ends, CR, LF, VT, FF, FS-RS, NEL, are controls).
_SEPARATORS = {c: f"\\u{c:04x}" for c in (0x2028, 0x2029)}
_ALL = {**_CONTROLS, **_BIDI, **_SEPARATORS}
_LINES = {k: v for k, v in _ALL.items() if k not in (0x09, 0x0A)}  # TAB and LF kept
# In JSON text, C0 controls are already escaped by json.dumps; the rest as \u00NN.
_JSON = {c: f"\\u{c:04x}" for c in (*range(0x7F, 0xA0), *_BIDI, *_SEPARATORS)}


def escape_controls(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character escaped; with ``lines``, TAB and LF stay
    (multi-line output such as a response body), while CR, ESC and the rest never do."""
    return text.translate(_LINES if lines else _ALL)


def escape_json_controls(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with DEL, C1 and bidi
    controls escaped as ``\\u00NN``: still the same JSON, safe on a terminal."""
    return text.translate(_JSON)
