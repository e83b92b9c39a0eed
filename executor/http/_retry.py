"""When to try again: exponential backoff with jitter, and the server's ``Retry-After``.

One home for both callers: the HTTP dispatcher of tool calls and the model clients.

>>> retry_after({"retry-after-ms": "1500"})
1.5
>>> backoff_delay(3, base=1.0, cap=10.0, rng=lambda: 1.0)
4.0
"""

from __future__ import annotations

import calendar
import email.utils
import random
import re
import time
from collections.abc import Callable, Mapping

__all__ = ["MAX_RETRY_AFTER", "backoff_delay", "retry_after"]

#: No server's ask is taken beyond a day; callers compare with their own, smaller cap.
MAX_RETRY_AFTER = 86_400.0

# RFC 9110 says delay-seconds is 1*DIGIT; a decimal fraction is accepted as the
# model providers' SDKs do. A sign, an exponent or "inf" is not a delay.
_DELAY = re.compile(r"\d+(?:\.\d+)?\Z")


def retry_after(headers: Mapping[str, str], now: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asks to wait, or ``None`` when it asks nothing usable.

    ``retry-after-ms`` (OpenAI, Azure) wins over ``Retry-After``, which is a
    number of seconds or an HTTP date (a date in the past is 0). A malformed
    or negative value is ignored (``None``: the caller's own backoff applies);
    a huge one is capped at :data:`MAX_RETRY_AFTER`. Header names are matched
    as given: pass ``httpx.Headers`` for case-insensitive lookup.
    """
    ms = _delay(headers.get("retry-after-ms"))
    if ms is not None:
        return min(ms / 1000, MAX_RETRY_AFTER)
    raw = (headers.get("retry-after") or "").strip()
    if not raw:
        return None
    seconds = _delay(raw)
    if seconds is None:
        parsed = email.utils.parsedate_tz(raw)
        if parsed is None:
            return None
        # HTTP dates are GMT; a date without a zone is read as GMT too, never local time
        stamp = calendar.timegm(parsed[:6]) - (parsed[9] or 0)
        seconds = max(0.0, stamp - now())
    return min(seconds, MAX_RETRY_AFTER)


def _delay(raw: str | None) -> float | None:
    if raw is None or not _DELAY.match(raw := raw.strip()):
        return None
    return float(raw)  # 400 digits give inf, which the callers' min() caps


def backoff_delay(
    attempt: int, base: float, cap: float, rng: Callable[[], float] = random.random
) -> float:
    """Wait before try ``attempt + 1``: ``d = min(cap, base·2^(attempt-1))``, then a
    uniform pick in ``[d/2, d]`` (half fixed, half random), so clients that failed
    together do not retry together, and none waits less than half the schedule."""
    delay = min(cap, base * (2.0 ** min(attempt - 1, 64)))  # no float overflow
    return float(delay / 2 + rng() * delay / 2)
