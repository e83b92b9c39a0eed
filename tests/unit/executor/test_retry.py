"""The one retry module: Retry-After parsing and backoff with jitter, as tables."""

from __future__ import annotations

import email.utils

import httpx
import pytest
from toolcat.executor import backoff_delay, retry_after
from toolcat.executor.agent import _common
from toolcat.executor.http import _dispatch
from toolcat.executor.http._retry import MAX_RETRY_AFTER

NOW = 1_700_000_000.0


def _date(offset: float) -> str:
    return email.utils.formatdate(NOW + offset, usegmt=True)


@pytest.mark.parametrize(
    "headers,expected",
    [
        # absent
        ({}, None),
        ({"retry-after": ""}, None),
        # delay-seconds
        ({"retry-after": "0"}, 0.0),
        ({"retry-after": "7"}, 7.0),
        ({"Retry-After": " 7 "}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        # HTTP date: GMT, in the future, in the past, without a zone
        ({"retry-after": _date(30)}, 30.0),
        ({"retry-after": _date(-30)}, 0.0),
        ({"retry-after": _date(30).replace("GMT", "-0000")}, 30.0),
        ({"retry-after": _date(30).replace(" GMT", "")}, 30.0),
        # retry-after-ms wins, and falls back when it is unusable
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after-ms": "-5", "retry-after": "9"}, 9.0),
        # garbage and negatives are ignored (the caller's own backoff applies)
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after": "+3"}, None),
        ({"retry-after": "1e3"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "3 seconds"}, None),
        ({"retry-after": "Thu, 99 Foo 2015 07:28:00 GMT"}, None),
        ({"retry-after-ms": "-1"}, None),
        # huge values are capped
        ({"retry-after": "99999999999"}, MAX_RETRY_AFTER),
        ({"retry-after": "9" * 400}, MAX_RETRY_AFTER),
        ({"retry-after-ms": "9" * 400}, MAX_RETRY_AFTER),
        ({"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}, MAX_RETRY_AFTER),
    ],
)
def test_retry_after(headers: dict[str, str], expected: float | None) -> None:
    got = retry_after(httpx.Headers(headers), now=lambda: NOW)
    assert got == expected


def test_retry_after_takes_a_plain_mapping() -> None:
    assert retry_after({"retry-after-ms": "1500"}) == 1.5


@pytest.mark.parametrize(
    "attempt,base,cap,low,high",
    [
        (1, 1.0, 10.0, 0.5, 1.0),
        (2, 1.0, 10.0, 1.0, 2.0),
        (3, 1.0, 10.0, 2.0, 4.0),
        (4, 0.5, 1.5, 0.75, 1.5),  # capped before the jitter
        (10, 1.0, 10.0, 5.0, 10.0),
        (5000, 1.0, 10.0, 5.0, 10.0),  # no float overflow on a silly attempt count
        (1, 0.0, 10.0, 0.0, 0.0),
    ],
)
def test_backoff_stays_between_half_and_all_of_the_schedule(
    attempt: int, base: float, cap: float, low: float, high: float
) -> None:
    assert backoff_delay(attempt, base, cap, rng=lambda: 0.0) == low
    assert backoff_delay(attempt, base, cap, rng=lambda: 1.0) == high
    for _ in range(200):  # the real random source stays inside the bounds
        assert low <= backoff_delay(attempt, base, cap) <= high


def test_dispatcher_and_model_clients_share_the_module() -> None:
    for module in (_dispatch, _common):
        shared = vars(module)  # imported names, not re-exported ones
        assert shared["retry_after"] is retry_after
        assert shared["backoff_delay"] is backoff_delay
