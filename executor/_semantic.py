"""Semantic tool search: an OpenAI-compatible embeddings endpoint, fused with the lexical ranking.

The catalog's ``search.embeddings`` section (``toolcat.catalog.search.EmbeddingsSettings``)
names the endpoint. :class:`SemanticSearch` embeds every tool once (vectors cached
on disk, one file per tool keyed by a content hash of the model and the tool's
text), embeds each query (an in-memory LRU), ranks tools by cosine similarity and
fuses that ranking with ``Catalog.search``'s BM25F by reciprocal rank fusion
(``toolcat.catalog.search.fuse_rankings``).

Whatever goes wrong with the endpoint (refused, slow, an HTTP error, JSON that
is not an embeddings answer, vectors of the wrong size or count, NaN) gives the
lexical ranking with a ``note`` saying why; after a failure the endpoint rests
for ``RETRY_AFTER`` seconds, so a dead endpoint costs one timeout, not one a query.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
import struct
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcat._errors import ToolcatError
from toolcat.catalog.common import credentials_may_travel, interpolate
from toolcat.catalog.search import MAX_QUERY_CHARS, EmbeddingsSettings, SearchHit, fuse_rankings

from ._redact import Redactor

if TYPE_CHECKING:
    import httpx
    from toolcat.catalog import Catalog, ToolDefinition

__all__ = [
    "EMBEDDINGS_BATCH",
    "FUSION_DEPTH",
    "MAX_CACHE_BYTES",
    "MAX_DIMENSIONS",
    "MAX_EMBEDDINGS_RESPONSE_BYTES",
    "MAX_TOOL_TEXT_CHARS",
    "QUERY_CACHE_SIZE",
    "RETRY_AFTER",
    "EmbeddingsClient",
    "EmbeddingsFailure",
    "SearchResults",
    "SemanticSearch",
    "VectorCache",
    "default_cache_dir",
    "tool_text",
]

#: Texts sent in one request to the endpoint.
EMBEDDINGS_BATCH = 128
#: The largest answer read from the endpoint, in bytes (a batch of 128 vectors of 3,072
#: floats is about 8 MB as JSON).
MAX_EMBEDDINGS_RESPONSE_BYTES = 64 * 1024 * 1024
#: The most dimensions a vector may have (OpenAI's largest model has 3,072).
MAX_DIMENSIONS = 16_384
#: Characters of a tool's text embedded (name, title, description, parameters).
MAX_TOOL_TEXT_CHARS = 4_000
#: Query vectors kept in memory (least recently used leave first).
QUERY_CACHE_SIZE = 256
#: Seconds the endpoint rests after a failure (searches are lexical meanwhile).
RETRY_AFTER = 30.0
#: How deep each ranking goes into the fusion (or ``top``, when larger).
FUSION_DEPTH = 100
#: The largest on-disk vector cache; over it, the oldest files go until it is at 3/4.
MAX_CACHE_BYTES = 256 * 1024 * 1024

_MAGIC = b"TCVEC1\n"
_DECIMALS = 5  # similarities are compared at this precision (float32 has about 7 digits)
_HEADER = struct.Struct("<I")


class EmbeddingsFailure(ToolcatError):
    """The endpoint did not give usable vectors; ``str()`` is the note (no secrets in it)."""


class SearchResults(list[SearchHit]):
    """Ranked tools, best first, with how they were ranked.

    ``ranking`` is ``"fused"`` (lexical and semantic) or ``"lexical"``; ``note``
    says why semantic ranking was not used when it was configured (``None``
    otherwise).
    """

    ranking: str
    note: str | None

    def __init__(
        self, hits: Iterable[SearchHit] = (), *, ranking: str = "lexical", note: str | None = None
    ) -> None:
        super().__init__(hits)
        self.ranking = ranking
        self.note = note


def tool_text(tool: ToolDefinition) -> str:
    """The text embedded for a tool: name, title, description and parameter names."""
    params = tool.input_schema.get("properties")
    names = ", ".join(str(k) for k in params) if isinstance(params, Mapping) else ""
    title = tool.annotations.title
    words = tool.name.replace("_", " ").replace("-", " ")
    parts = [f"{words}{f' ({title})' if title else ''}", tool.description]
    if names:
        parts.append(f"Parameters: {names}")
    return "\n".join(p for p in parts if p)[:MAX_TOOL_TEXT_CHARS]


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/toolcat/embeddings``, else ``~/.cache/toolcat/embeddings``."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "toolcat" / "embeddings"


# -- the endpoint -------------------------------------------------------------------------


class EmbeddingsClient:
    """POST ``{url}/embeddings`` (or ``url`` itself when it ends with ``/embeddings``).

    The key is sent as ``Authorization: Bearer`` only to an https URL or http on
    loopback; redirects are not followed, so it never reaches another host.
    """

    def __init__(
        self,
        settings: EmbeddingsSettings,
        env: Mapping[str, str] | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        env = os.environ if env is None else env
        self.settings = settings
        self.requests = 0  # requests sent (for tests and benchmarks)
        self._redact = Redactor()
        self._transport = transport
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self.problem: str | None = None
        try:
            url = interpolate(settings.url, env, where="search.embeddings.url").rstrip("/")
            key = (
                interpolate(settings.api_key, env, where="search.embeddings.api_key")
                if settings.api_key
                else ""
            )
            self.model = interpolate(settings.model, env, where="search.embeddings.model")
        except ToolcatError as exc:
            self.url, self._key, self.problem = "", "", f"embeddings endpoint not usable: {exc}"
            return
        self._redact.add(key)
        self.url = url if url.endswith("/embeddings") else f"{url}/embeddings"
        self._key = key
        if not url.lower().startswith(("https://", "http://")):
            self.problem = "embeddings url must be http(s)"
        elif key and not credentials_may_travel(url):
            self.problem = (
                "embeddings api_key is sent only over https (or http to a loopback address)"
            )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _http(self) -> httpx.Client:
        import httpx

        with self._lock:
            if self._client is None:
                t = self.settings.timeout
                self._client = httpx.Client(
                    follow_redirects=False,
                    timeout=httpx.Timeout(t, connect=min(t, 5.0)),
                    transport=self._transport,
                )
                # an owner that never calls close() (an AgentLoop) still closes its sockets
                weakref.finalize(self, self._client.close)
            return self._client

    def embed(self, texts: Sequence[str], *, deadline: float | None = None) -> list[list[float]]:
        """One vector per text, in order; :class:`EmbeddingsFailure` on any problem."""
        if self.problem:
            raise EmbeddingsFailure(self.problem)
        out: list[list[float]] = []
        for start in range(0, len(texts), EMBEDDINGS_BATCH):
            if deadline is not None and time.monotonic() > deadline:
                raise EmbeddingsFailure(
                    f"embeddings endpoint: no answer within {self.settings.timeout:g} s"
                )
            out.extend(self._batch(texts[start : start + EMBEDDINGS_BATCH]))
        return out

    def _batch(self, texts: Sequence[str]) -> list[list[float]]:
        import httpx

        body: dict[str, Any] = {"model": self.model, "input": list(texts)}
        body["encoding_format"] = "float"
        if self.settings.dimensions is not None:
            body["dimensions"] = self.settings.dimensions
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self.requests += 1
        started = time.monotonic()
        try:
            with self._http().stream("POST", self.url, json=body, headers=headers) as response:
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > MAX_EMBEDDINGS_RESPONSE_BYTES:
                        raise EmbeddingsFailure(
                            "embeddings endpoint: answer larger than "
                            f"{MAX_EMBEDDINGS_RESPONSE_BYTES // (1024 * 1024)} MiB"
                        )
                    if time.monotonic() - started > self.settings.timeout:
                        raise httpx.ReadTimeout("total time")
                    chunks.append(chunk)
                status = response.status_code
        except httpx.TimeoutException:
            raise EmbeddingsFailure(
                f"embeddings endpoint: no answer within {self.settings.timeout:g} s"
            ) from None
        except httpx.HTTPError as exc:
            raise EmbeddingsFailure(
                self._redact(f"embeddings endpoint unreachable: {type(exc).__name__}")
            ) from None
        if status != 200:
            raise EmbeddingsFailure(f"embeddings endpoint answered HTTP {status}")
        return self._vectors(b"".join(chunks), len(texts))

    def _vectors(self, raw: bytes, count: int) -> list[list[float]]:
        import json

        try:
            doc = json.loads(raw)
        except ValueError:
            raise EmbeddingsFailure("embeddings endpoint: the answer is not JSON") from None
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list):
            raise EmbeddingsFailure("embeddings endpoint: the answer has no 'data' list")
        if len(data) != count:
            raise EmbeddingsFailure(f"embeddings endpoint: {len(data)} vectors for {count} texts")
        vectors: list[list[float] | None] = [None] * count
        want = self.settings.dimensions
        for position, item in enumerate(data):
            vec = item.get("embedding") if isinstance(item, dict) else None
            index = item.get("index", position) if isinstance(item, dict) else position
            if type(index) is not int or not 0 <= index < count or vectors[index] is not None:
                raise EmbeddingsFailure("embeddings endpoint: the answer's indexes are wrong")
            if not isinstance(vec, list) or not vec or len(vec) > MAX_DIMENSIONS:
                raise EmbeddingsFailure("embeddings endpoint: an embedding is not a vector")
            want = want or len(vec)
            if len(vec) != want:
                raise EmbeddingsFailure(
                    f"embeddings endpoint: a vector of {len(vec)} dimensions, expected {want}"
                )
            vectors[index] = _unit(vec)
        return [v for v in vectors if v is not None]


def _unit(vec: Sequence[Any]) -> list[float]:
    """The vector scaled to length 1; :class:`EmbeddingsFailure` for non-numbers, NaN, zero."""
    try:
        values = [float(x) for x in vec if type(x) in (int, float)]
    except (TypeError, ValueError, OverflowError):
        values = []
    if len(values) != len(vec):
        raise EmbeddingsFailure("embeddings endpoint: a vector holds something not a number")
    norm = math.sqrt(math.fsum(x * x for x in values))
    if not math.isfinite(norm) or norm == 0.0:
        raise EmbeddingsFailure("embeddings endpoint: a vector is zero, infinite or NaN")
    return [x / norm for x in values]


# -- the disk cache -------------------------------------------------------------------------


class VectorCache:
    """Tool vectors on disk, one file per content hash: ``DIR/ab/abcdef....vec``.

    The directory is created 0700 and files 0600, written to a temporary name
    and renamed (readers never see half a file). A file that is not a regular
    file, is too large, or does not hold a well-formed vector of the expected
    size is ignored (and replaced when the vector is fetched again). A directory
    that others may write to is not used (``problem`` says so).
    """

    def __init__(self, directory: Path, max_bytes: int = MAX_CACHE_BYTES) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.problem: str | None = None
        self._pruned = False
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = directory.lstat()
            if not stat.S_ISDIR(info.st_mode):
                self.problem = "the embeddings cache is not a directory"
            elif info.st_mode & 0o022:
                self.problem = "the embeddings cache directory is writable by others; not used"
            elif hasattr(os, "getuid") and info.st_uid != os.getuid():
                self.problem = "the embeddings cache directory belongs to another user; not used"
        except OSError as exc:
            self.problem = f"the embeddings cache cannot be used: {exc.strerror or exc}"

    @staticmethod
    def key(model: str, dimensions: int | None, text: str) -> str:
        blob = f"{model}\x00{dimensions or ''}\x00{text}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(blob).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.vec"

    def get(self, key: str, dimensions: int | None) -> list[float] | None:
        if self.problem:
            return None
        path = self._path(key)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            limit = len(_MAGIC) + _HEADER.size + 4 * MAX_DIMENSIONS
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            raw = os.read(fd, limit + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        return _decode(raw, dimensions)

    def put(self, key: str, vector: Sequence[float]) -> None:
        if self.problem:
            return
        path = self._path(key)
        data = _MAGIC + _HEADER.pack(len(vector)) + struct.pack(f"<{len(vector)}f", *vector)
        tmp = path.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except OSError:
            try:
                tmp.unlink()
            except OSError:
                pass

    def prune(self) -> None:
        """Over ``max_bytes``: delete the least recently written files down to 3/4 of it."""
        if self.problem or self._pruned:
            return
        self._pruned = True
        files: list[tuple[float, int, str]] = []
        total = 0
        try:
            for shard in os.scandir(self.directory):
                if not shard.is_dir(follow_symlinks=False):
                    continue
                for entry in os.scandir(shard.path):
                    if entry.is_file(follow_symlinks=False) and entry.name.endswith(".vec"):
                        info = entry.stat(follow_symlinks=False)
                        files.append((info.st_mtime, info.st_size, entry.path))
                        total += info.st_size
        except OSError:
            return
        if total <= self.max_bytes:
            return
        for _, size, name in sorted(files):
            if total <= self.max_bytes * 3 // 4:
                break
            try:
                os.unlink(name)
                total -= size
            except OSError:
                pass


def _decode(raw: bytes, dimensions: int | None) -> list[float] | None:
    head = len(_MAGIC) + _HEADER.size
    if len(raw) < head or not raw.startswith(_MAGIC):
        return None
    (dims,) = _HEADER.unpack_from(raw, len(_MAGIC))
    if not 0 < dims <= MAX_DIMENSIONS or len(raw) != head + 4 * dims:
        return None
    if dimensions is not None and dims != dimensions:
        return None
    vec = list(struct.unpack_from(f"<{dims}f", raw, head))
    norm = math.sqrt(math.fsum(x * x for x in vec))
    if not math.isfinite(norm) or abs(norm - 1.0) > 1e-3:
        return None
    return vec


# -- search -----------------------------------------------------------------------------


class SemanticSearch:
    """A catalog's tools ranked by BM25F fused with embeddings similarity.

    ``settings`` defaults to the catalog's ``search.embeddings``; without any,
    every search is lexical (``ranking == "lexical"``, no note). ``env`` is what
    ``${VAR}`` in the settings reads (default: the catalog's, else ``os.environ``).
    ``cache_dir`` overrides the settings' ``cache`` (``False``: no disk cache).
    """

    def __init__(
        self,
        catalog: Catalog,
        settings: EmbeddingsSettings | None = None,
        *,
        env: Mapping[str, str] | None = None,
        cache_dir: str | os.PathLike[str] | bool | None = None,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.catalog = catalog
        if settings is None and catalog.search_settings is not None:
            settings = catalog.search_settings.embeddings
        self.settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._vectors: dict[str, list[float]] | None = None
        self._matrix: Any = None  # the vectors as one numpy array, when numpy is installed
        self._queries: OrderedDict[str, list[float]] = OrderedDict()
        self._failed_at: float | None = None
        self._failure = ""
        self.client: EmbeddingsClient | None = None
        self.cache: VectorCache | None = None
        if settings is None:
            return
        env = env if env is not None else catalog.env
        self.client = EmbeddingsClient(settings, env, transport=transport)
        if cache_dir is not False:
            where: Path | None
            if cache_dir is None or cache_dir is True:
                where = default_cache_dir()
                if settings.cache:
                    try:  # a ${VAR} in it reads the same environment as the endpoint's fields
                        text = interpolate(
                            settings.cache,
                            os.environ if env is None else env,
                            where="search.embeddings.cache",
                        )
                        where = Path(os.path.expanduser(text))
                    except ToolcatError:
                        where = None  # vectors in memory only
            else:
                where = Path(cache_dir)
            if where is not None:
                self.cache = VectorCache(where)

    @property
    def enabled(self) -> bool:
        """Whether an embeddings endpoint is configured."""
        return self.client is not None

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    def __enter__(self) -> SemanticSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search(self, query: str, top: int = 10, *, toolset: str | None = None) -> SearchResults:
        """The ``top`` best tools for ``query``: fused when the endpoint answers, else lexical."""
        only = None if toolset is None else [t.name for t in self.catalog.toolset(toolset)]
        return self.search_only(query, top, only=only)

    def search_only(
        self, query: str, top: int = 10, *, only: Iterable[str] | None = None
    ) -> SearchResults:
        """:meth:`search` over the tools named in ``only`` (``None``: every tool)."""
        allowed = None if only is None else set(only)
        index = self.catalog.search_index
        if self.client is None or top <= 0:
            return SearchResults(index.search(query, top, only=allowed))
        depth = max(top, FUSION_DEPTH)
        lexical = index.search(query, depth, only=allowed)
        text = query[:MAX_QUERY_CHARS].strip()
        if not text:
            return SearchResults(lexical[:top])
        try:
            vectors = self._tool_vectors()
            qvec = self._query_vector(text)
        except EmbeddingsFailure as exc:
            return SearchResults(lexical[:top], note=f"{exc}; lexical ranking only")
        similar = self._rank(qvec, vectors, allowed, depth)
        assert self.settings is not None
        fused = fuse_rankings(
            [([h.name for h in lexical], 1.0), (similar, self.settings.weight)],
            k=self.settings.k,
            top=top,
        )
        return SearchResults(fused, ranking="fused")

    def rank_by_embeddings(
        self, query: str, top: int = 10, *, only: Iterable[str] | None = None
    ) -> list[str]:
        """Tool names by embeddings similarity alone; :class:`EmbeddingsFailure` on failure."""
        if self.client is None:
            raise EmbeddingsFailure("no embeddings endpoint configured")
        vectors = self._tool_vectors()
        text = query[:MAX_QUERY_CHARS].strip()
        if not text or top <= 0:
            return []
        allowed = None if only is None else set(only)
        return self._rank(self._query_vector(text), vectors, allowed, top)

    def prepare(self) -> str | None:
        """Embed the tools now (else on the first search); the note on failure, else ``None``."""
        if self.client is None:
            return None
        try:
            self._tool_vectors()
        except EmbeddingsFailure as exc:
            return f"{exc}; lexical ranking only"
        return None

    def _resting(self) -> None:
        if self._failed_at is not None and self._clock() - self._failed_at < RETRY_AFTER:
            raise EmbeddingsFailure(self._failure)

    def _failed(self, exc: EmbeddingsFailure) -> EmbeddingsFailure:
        self._failed_at, self._failure = self._clock(), str(exc)
        return exc

    def _tool_vectors(self) -> dict[str, list[float]]:
        with self._lock:
            if self._vectors is not None:
                return self._vectors
            self._resting()
            assert self.client is not None and self.settings is not None
            if self.client.problem:
                raise self._failed(EmbeddingsFailure(self.client.problem))
            dims = self.settings.dimensions
            tools = list(self.catalog)
            keys = [VectorCache.key(self.client.model, dims, tool_text(t)) for t in tools]
            vectors: dict[str, list[float]] = {}
            missing: list[int] = []
            for i, (tool, key) in enumerate(zip(tools, keys, strict=True)):
                vec = self.cache.get(key, dims) if self.cache else None
                if vec is None:
                    missing.append(i)
                else:
                    vectors[tool.name] = vec
            if missing:
                try:
                    fetched = self.client.embed([tool_text(tools[i]) for i in missing])
                except EmbeddingsFailure as exc:
                    raise self._failed(exc) from None
                for i, vec in zip(missing, fetched, strict=True):
                    vectors[tools[i].name] = vec
                    if self.cache:
                        self.cache.put(keys[i], vec)
                if self.cache:
                    self.cache.prune()
            sizes = {len(v) for v in vectors.values()}
            if len(sizes) > 1:  # cached under another size of the same model
                raise self._failed(EmbeddingsFailure("embeddings: tool vectors of different sizes"))
            self._vectors = vectors
            self._matrix = _as_matrix(vectors)
            self._failed_at = None
            return vectors

    def _query_vector(self, text: str) -> list[float]:
        with self._lock:
            vec = self._queries.get(text)
            if vec is not None:
                self._queries.move_to_end(text)
                return vec
            self._resting()
        assert self.client is not None and self._vectors is not None
        try:
            (vec,) = self.client.embed([text])
        except EmbeddingsFailure as exc:
            with self._lock:
                raise self._failed(exc) from None
        size = len(next(iter(self._vectors.values()), vec))
        if len(vec) != size:
            with self._lock:
                raise self._failed(
                    EmbeddingsFailure(
                        f"embeddings endpoint: a query vector of {len(vec)} dimensions, "
                        f"tools have {size}"
                    )
                )
        with self._lock:
            self._queries[text] = vec
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vec

    def _rank(
        self,
        query: Sequence[float],
        vectors: Mapping[str, Sequence[float]],
        only: set[str] | None,
        depth: int,
    ) -> list[str]:
        if self._matrix is not None:
            return _numpy_ranking(query, self._matrix, list(vectors), only, depth)
        return _cosine_ranking(query, vectors, only, depth)


def _as_matrix(vectors: Mapping[str, Sequence[float]]) -> Any:
    """The vectors as a float32 numpy array (rows in catalog order), or ``None`` without numpy."""
    try:
        import numpy
    except ImportError:  # the pure-Python ranking, slower (benchmarks/README.md)
        return None
    return numpy.asarray(list(vectors.values()), dtype=numpy.float32) if vectors else None


def _numpy_ranking(
    query: Sequence[float], matrix: Any, names: list[str], only: set[str] | None, depth: int
) -> list[str]:
    """:func:`_cosine_ranking` with numpy: one matrix product (same order, float32 scores)."""
    import numpy

    # rounded as the pure-Python ranking rounds: a BLAS product may differ in the last bit
    # between two equal rows, and equal vectors must tie (then catalog order)
    scores = numpy.round(matrix @ numpy.asarray(query, dtype=numpy.float32), _DECIMALS)
    if only is not None:
        keep = numpy.fromiter((n in only for n in names), dtype=bool, count=len(names))
        scores = numpy.where(keep, scores, -numpy.inf)
    # best first; equal scores in catalog order (a stable sort of the negated scores)
    order = numpy.argsort(-scores, kind="stable")[:depth]
    return [names[i] for i in order.tolist() if scores[i] != -numpy.inf]


def _cosine_ranking(
    query: Sequence[float],
    vectors: Mapping[str, Sequence[float]],
    only: set[str] | None,
    depth: int,
) -> list[str]:
    """Tool names by cosine similarity to ``query`` (unit vectors: the dot product), best first."""
    from heapq import nlargest
    from operator import mul

    scored = (
        (round(sum(map(mul, query, vec)), _DECIMALS), -i, name)
        for i, (name, vec) in enumerate(vectors.items())
        if only is None or name in only
    )
    return [name for _, _, name in nlargest(depth, scored)]
