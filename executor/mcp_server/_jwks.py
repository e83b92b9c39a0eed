"""An issuer's signing keys (JWKS), fetched from the configured URL only, cached, bounded.

The URL comes from configuration, never from a token: a ``kid``, ``jku``, ``x5u``
or ``jwk`` header is only ever a lookup key or ignored. A token with an unknown
``kid`` triggers at most one refresh, and refreshes are at least
``min_refresh`` seconds apart, so random ``kid`` values cannot make the server
hammer the issuer. One fetch runs at a time, and tokens that arrive meanwhile wait
for it. Every fetch is bounded in time, size and nesting; a failed one keeps the
keys already known, and with none known every token is refused. A key the JWT
library cannot read is skipped (and logged); the others still verify.
"""

from __future__ import annotations

import logging
import time

import anyio
import httpx
from jwt import PyJWK
from jwt.exceptions import PyJWTError

from ._idp import AnswerRefused, read_json

__all__ = ["JwksCache", "MAX_JWKS_BYTES", "MAX_JWKS_KEYS"]

log = logging.getLogger("toolcat.serve")

MAX_JWKS_BYTES = 256 * 1024  # a JWKS larger than this is refused as garbage
MAX_JWKS_KEYS = 64  # keys beyond this are ignored
MAX_KID_CHARS = 256  # a longer kid is never looked up


class JwksCache:
    """The keys of one JWKS URL by ``kid``.

    ``timeout``: seconds for one whole fetch; ``max_age``: keys older than this
    are fetched again on the next use; ``min_refresh``: the least time between
    two fetches triggered by unknown ``kid`` values.
    """

    def __init__(
        self,
        url: str,
        client: httpx.AsyncClient,
        *,
        timeout: float = 5.0,
        max_age: float = 3600.0,
        min_refresh: float = 30.0,
    ) -> None:
        self.url = url
        self._client = client
        self.timeout = timeout
        self.max_age = max_age
        self.min_refresh = min_refresh
        self._keys: dict[str | None, tuple[PyJWK, str | None]] = {}  # kid -> key, its JWK "alg"
        self._fetched_at: float | None = None  # the last successful fetch
        self._tried_at: float | None = None  # the last attempt, successful or not
        self._inflight: anyio.Event | None = None  # set when the fetch under way ends
        self.fetches = 0

    async def key(self, kid: str | None, algorithm: str) -> PyJWK | None:
        """The key for ``kid`` usable with ``algorithm``, or ``None`` (refresh at most once).

        While a fetch is in flight (the first one, or one after a key rotation), a token
        waits for it (at most ``timeout``) rather than be refused for keys still on
        their way; one fetch serves every token that waits."""
        if kid is not None and (not isinstance(kid, str) or len(kid) > MAX_KID_CHARS):
            return None
        if self._inflight is not None:
            await self._inflight.wait()
        now = time.monotonic()
        stale = self._fetched_at is None or now - self._fetched_at > self.max_age
        if stale and self._may_refresh():  # an issuer that is down is retried as seldom
            await self._refresh()
        found = self._find(kid, algorithm)
        if found is None and self._may_refresh():
            await self._refresh()
            found = self._find(kid, algorithm)
        return found

    @property
    def known(self) -> bool:
        """Whether any key is known (with none, the issuer could not be read)."""
        return bool(self._keys)

    def _find(self, kid: str | None, algorithm: str) -> PyJWK | None:
        if kid is not None:
            entry = self._keys.get(kid)
            return entry[0] if entry is not None and _fits(*entry, algorithm) else None
        fitting = [k for k, named in self._keys.values() if _fits(k, named, algorithm)]
        return fitting[0] if len(fitting) == 1 else None  # no kid: only an unambiguous key

    def _may_refresh(self) -> bool:
        return self._tried_at is None or time.monotonic() - self._tried_at >= self.min_refresh

    async def _refresh(self) -> None:
        """Fetch the keys once for every task that asks meanwhile (single flight)."""
        if self._inflight is not None:  # another task is fetching: its keys serve this one
            await self._inflight.wait()
            return
        if not self._may_refresh():
            return
        done = self._inflight = anyio.Event()
        self._tried_at = time.monotonic()
        self.fetches += 1
        try:
            # shielded: a client that hangs up does not cancel the fetch others wait for
            with anyio.CancelScope(shield=True), anyio.fail_after(self.timeout):
                keys = await self._fetch()
        except TimeoutError:
            log.warning(
                "JWKS fetch took longer than %ss; keeping %d known keys",
                self.timeout,
                len(self._keys),
            )
        except (httpx.HTTPError, AnswerRefused) as exc:
            reason = str(exc) if isinstance(exc, AnswerRefused) else type(exc).__name__
            log.warning("JWKS fetch failed (%s); keeping %d known keys", reason, len(self._keys))
        else:
            self._keys = keys
            self._fetched_at = time.monotonic()
        finally:
            self._inflight = None
            done.set()

    async def _fetch(self) -> dict[str | None, tuple[PyJWK, str | None]]:
        document = await read_json(
            self._client,
            "GET",
            self.url,
            max_bytes=MAX_JWKS_BYTES,
            what="JWKS",
            follow_redirects=False,
        )
        if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
            raise AnswerRefused("the JWKS is not an object with a 'keys' list")
        keys: dict[str | None, tuple[PyJWK, str | None]] = {}
        for n, item in enumerate(document["keys"][:MAX_JWKS_KEYS]):
            if not isinstance(item, dict) or item.get("kty") == "oct":
                continue  # a symmetric key in a public JWKS is never usable
            if item.get("use") not in (None, "sig"):
                continue
            kid, named = item.get("kid"), item.get("alg")
            try:
                key = PyJWK(item)
            except (PyJWTError, ValueError, TypeError, KeyError) as exc:
                # one key the library cannot read: the others still verify tokens
                shown = kid[:MAX_KID_CHARS] if isinstance(kid, str) else None
                log.warning("JWKS key %d (kid %r) skipped: %s", n, shown, type(exc).__name__)
                continue
            keys[kid if isinstance(kid, str) else None] = (
                key,
                named if isinstance(named, str) else None,
            )
        return keys


_FAMILIES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}


def _fits(key: PyJWK, named: str | None, algorithm: str) -> bool:
    """The key's type suits ``algorithm`` and, when the JWK names an ``alg``, it is that one."""
    if named is not None and named != algorithm:
        return False
    return _FAMILIES.get(algorithm[:2]) == key.key_type
