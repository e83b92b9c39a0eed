"""Lexical tool search: a BM25F index over a catalog's tools, in memory, no I/O.

The ranking is deliberately small so that a browser can repeat it exactly from
``SearchIndex.to_dict()`` (docs/search.md spells out every step):

1. **Tokens.** Text is NFKD-folded (accents dropped), camelCase and digit runs
   are split (``listRepos2FA`` -> ``list repos 2 fa``; a plural acronym stays
   whole: ``getURLs`` -> ``get urls``), every run of letters or digits is a
   token, lower-cased, and each CJK character is a token of its own. English
   stop words are dropped; the rest go through the Snowball English stemmer
   (``snowballstemmer``, imported when the first index is built).
2. **Fields.** A tool has five fields with weights ``FIELD_WEIGHTS``: its name
   (and annotation title), tags, description, parameters (property names,
   descriptions and string enum values, three levels deep, through
   ``anyOf``/``oneOf``/``allOf`` and the schema's own ``#/$defs/``) and service name.
3. **BM25F.** For a term ``t`` and tool ``d``:
   ``tf~ = sum_f w_f * tf_f / (1 - b_f + b_f * len_f / avglen_f)`` and
   ``score = sum_t q_t * idf_t * tf~ * (K1 + 1) / (K1 + tf~)`` with
   ``idf_t = ln(1 + (N - df_t + 0.5) / (df_t + 0.5))``. ``tf~`` and ``idf`` are
   precomputed per posting, so a query only sums.
4. **Query.** Distinct stems of the query, each with weight ``q_t = 1``, but
   ``NUMBER_WEIGHT`` for a number (in a request a number is a value, ``for 2
   people``, not a word of a tool's name); two adjacent words written as one
   in the catalog (``board game`` -> ``boardgame``) add that term at
   ``COMPOUND_WEIGHT``; a stem with general synonyms (``SYNONYMS``: verbs such
   as get/fetch/retrieve) adds those at weight ``SYNONYM_WEIGHT`` when the
   query lacks them, and the longest indexed term of at least ``MIN_PREFIX``
   characters that the stem starts with (``repositori`` -> ``repo``) adds at
   ``PREFIX_WEIGHT``.
5. **Order.** Score descending, then catalog order; scores are rounded to six
   decimals before comparing, so both implementations tie identically.

Bounds: a query is cut at ``MAX_QUERY_CHARS`` characters and
``MAX_QUERY_TERMS`` distinct terms, so any input answers in bounded time.
"""

from __future__ import annotations

import heapq
import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcat.catalog._model import SourceLocation

if TYPE_CHECKING:
    from toolcat.catalog._model import ToolDefinition

__all__ = [
    "FIELD_WEIGHTS",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "EmbeddingsSettings",
    "SearchHit",
    "SearchIndex",
    "SearchSettings",
    "fuse_rankings",
    "tokenize",
]

#: The longest query read, in characters; the rest is ignored.
MAX_QUERY_CHARS = 4096
#: The most distinct query terms scored (the first ones, in query order).
MAX_QUERY_TERMS = 64

#: The most characters of parameter text (names, descriptions, enum values) indexed a tool.
MAX_PARAMETER_CHARS = 20_000

K1 = 1.2
#: field -> (weight, length normalisation b). The name carries the most signal and
#: is short; parameter text is long and noisy, so it counts for little.
FIELD_WEIGHTS: Mapping[str, tuple[float, float]] = {
    "name": (3.0, 0.5),
    "tags": (1.5, 0.3),
    "description": (1.0, 0.75),
    "parameters": (0.4, 0.75),
    "service": (0.5, 0.0),
}
SYNONYM_WEIGHT = 0.3
#: A number in a request is nearly always a value (``2 people``, ``radius 5``), and a
#: digit in a tool's name a version or a variant (``Events_3_FindEvents``): it still
#: counts, but little.
NUMBER_WEIGHT = 0.1
#: Two adjacent query words that the catalog writes as one word (``user name`` for a
#: ``username`` argument): that word counts as a word of the query.
COMPOUND_WEIGHT = 1.0
#: A query stem also matches the longest indexed term (of at least MIN_PREFIX
#: characters) that it starts with, at PREFIX_WEIGHT.
MIN_PREFIX = 3
PREFIX_WEIGHT = 0.5

# Words that say nothing about which tool is meant (a short general English list,
# plus the politeness of requests: "please", "could you").
STOP_WORDS = frozenset(
    """a about an and any are as at be been but by can could do does for from had has
    have he help her hers him his how i i'd i'm if in into is it its let me my of on or
    our please she should so some than that the their them then there these they this
    those to us want was we were what when where which who whom why will with would you
    your""".split()
)

# General verb families of tool names (stems). Only everyday software vocabulary:
# nothing from one domain, so that it carries over to other catalogs.
_FAMILIES = (
    ("get", "fetch", "retriev", "obtain", "read", "show", "view", "look"),
    ("list", "enumer", "all"),
    ("find", "search", "queri", "lookup", "look"),
    ("creat", "add", "make", "new", "insert", "regist"),
    ("delet", "remov", "eras", "destroy", "drop"),
    ("updat", "modifi", "chang", "edit", "set", "alter"),
    ("calcul", "comput", "estim"),
    ("send", "post", "submit"),
)
SYNONYMS: Mapping[str, tuple[str, ...]] = {
    stem: tuple(sorted({s for fam in _FAMILIES if stem in fam for s in fam} - {stem}))
    for fam in _FAMILIES
    for stem in fam
}

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W\d_{_CJK}]+|\d+")
# camelCase boundaries: lower then upper (``getRepo``), and the end of an acronym before
# a capitalised word (``HTTPStatus``), unless the acronym is a plural (``URLs``, ``IDs``).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])(?![A-Z]s(?:[^a-z]|$))")
_MARKS = re.compile(r"[\u0300-\u036f]")


def tokenize(text: str) -> list[str]:
    """The lower-case word and number tokens of ``text`` (before stop words and stems).

    >>> tokenize("getRepoIssues v2_list.HTTPStatus café listURLs")
    ['get', 'repo', 'issues', 'v', '2', 'list', 'http', 'status', 'cafe', 'list', 'urls']
    """
    import unicodedata  # here, not at the top: importing toolcat.catalog stays as it was

    folded = _MARKS.sub("", unicodedata.normalize("NFKD", text))
    return [t.lower() for t in _TOKEN.findall(_CAMEL.sub(" ", folded))]


def _english_stemmer() -> Callable[[str], str]:
    import snowballstemmer  # the Snowball project's stemmer; only when an index is built

    stem: Callable[[str], str] = snowballstemmer.stemmer("english").stemWord
    return stem


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked tool: its name and score (higher is better)."""

    name: str
    score: float


def _fields(tool: ToolDefinition) -> dict[str, str]:
    params: list[str] = []
    defs = tool.input_schema.get("$defs")
    _schema_words(tool.input_schema, params, 0, defs if isinstance(defs, Mapping) else {})
    title = tool.annotations.title or ""
    return {
        "name": f"{tool.name} {title}",
        "tags": " ".join(tool.tags),
        "description": tool.description,
        "parameters": " ".join(params)[:MAX_PARAMETER_CHARS],
        "service": tool.target,  # the MCP server of an upstream's tool
    }


#: The keywords whose schemas describe the same value: their words are the value's words.
_ALTERNATIVES = ("anyOf", "oneOf", "allOf")
_DEFS_REF = "#/$defs/"


def _schema_words(schema: Any, out: list[str], depth: int, defs: Mapping[str, Any]) -> None:
    """Property names, descriptions and string enum values, three levels down at most.

    A ``#/$defs/`` reference stands for its definition (one level down, so that a
    definition that refers to itself ends), and the branches of
    ``anyOf``/``oneOf``/``allOf`` for the value itself (at the same depth), so an
    argument described only there is found too.
    """
    if not isinstance(schema, Mapping) or depth > 3:
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS_REF):
        _schema_words(defs.get(ref[len(_DEFS_REF) :]), out, depth + 1, defs)
    if depth and isinstance(schema.get("description"), str):
        out.append(schema["description"])
    enum = schema.get("enum")
    if isinstance(enum, Sequence) and not isinstance(enum, str):
        out.extend(v for v in enum[:50] if isinstance(v, str))
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for key, sub in props.items():
            out.append(str(key))
            _schema_words(sub, out, depth + 1, defs)
    items = schema.get("items")
    if isinstance(items, Mapping):
        _schema_words({k: v for k, v in items.items() if k != "description"}, out, depth + 1, defs)
    for keyword in _ALTERNATIVES:
        branches = schema.get(keyword)
        if isinstance(branches, Sequence) and not isinstance(branches, str):
            for branch in branches[:20]:
                _schema_words(branch, out, depth, defs)


class SearchIndex:
    """A BM25F index over tools; ``search`` ranks them for a free-text query.

    >>> # index = SearchIndex.build(catalog)
    >>> # [hit.name for hit in index.search("open an issue", top=3)]
    """

    __slots__ = ("names", "_postings", "_stem", "_stems")

    def __init__(
        self,
        names: Sequence[str],
        postings: Mapping[str, tuple[tuple[int, float], ...]],
        stem: Callable[[str], str],
    ) -> None:
        self.names = tuple(names)
        self._postings = postings  # term -> ((tool position, idf * saturated tf~), ...)
        self._stem = stem
        self._stems: dict[str, str] = {}

    @classmethod
    def build(cls, tools: Iterable[ToolDefinition]) -> SearchIndex:
        stem = _english_stemmer()
        cache: dict[str, str] = {}

        def terms(text: str) -> list[str]:
            out = []
            for tok in tokenize(text):
                if tok in STOP_WORDS:
                    continue
                s = cache.get(tok)
                if s is None:
                    s = cache[tok] = stem(tok)
                out.append(s)
            return out

        names: list[str] = []
        docs: list[dict[str, list[str]]] = []
        for tool in tools:
            names.append(tool.name)
            docs.append({f: terms(text) for f, text in _fields(tool).items()})
        n = len(docs)
        avg = {f: (sum(len(d[f]) for d in docs) / n if n else 0.0) or 1.0 for f in FIELD_WEIGHTS}
        weighted: dict[str, list[tuple[int, float]]] = {}
        for pos, doc in enumerate(docs):
            acc: dict[str, float] = {}
            for f, (w, b) in FIELD_WEIGHTS.items():
                toks = doc[f]
                if not toks:
                    continue
                norm = w / (1 - b + b * len(toks) / avg[f])
                for t in toks:
                    acc[t] = acc.get(t, 0.0) + norm
            for t, tf in acc.items():
                weighted.setdefault(t, []).append((pos, tf))
        postings: dict[str, tuple[tuple[int, float], ...]] = {}
        for t, plist in weighted.items():
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            postings[t] = tuple((pos, idf * tf * (K1 + 1) / (K1 + tf)) for pos, tf in plist)
        index = cls(names, postings, stem)
        index._stems.update(cache)
        return index

    def __len__(self) -> int:
        return len(self.names)

    def _stem_of(self, tok: str) -> str:
        s = self._stems.get(tok)
        if s is None:
            s = self._stem(tok)
            if len(self._stems) < 200_000:
                self._stems[tok] = s
        return s

    def query_terms(self, query: str) -> dict[str, float]:
        """The weighted stems a query scores with (synonyms included)."""
        terms: dict[str, float] = {}
        words: list[str] = []  # the query's words, "" for a stop word or a number
        for tok in tokenize(query[:MAX_QUERY_CHARS]):
            if tok in STOP_WORDS:
                words.append("")
                continue
            number = tok.isdecimal()
            words.append("" if number else tok)
            terms[self._stem_of(tok)] = NUMBER_WEIGHT if number else 1.0
            if len(terms) >= MAX_QUERY_TERMS:
                break
        stems = list(terms)
        for first, second in itertools.pairwise(words):
            if first and second:
                joined = self._stem_of(first + second)
                if joined in self._postings:
                    terms.setdefault(joined, COMPOUND_WEIGHT)
        for s in stems:
            if s.isdecimal():
                continue  # a number has neither synonyms nor abbreviations
            for syn in SYNONYMS.get(s, ()):
                terms.setdefault(syn, SYNONYM_WEIGHT)
            # An abbreviation in the catalog ("repo", "auth", "config") for a longer
            # query word: the longest indexed prefix of the stem, at a lower weight.
            for cut in range(len(s) - 1, MIN_PREFIX - 1, -1):
                if s[:cut] in self._postings:
                    terms.setdefault(s[:cut], PREFIX_WEIGHT)
                    break
        return terms

    def search(
        self, query: str, top: int = 10, *, only: Iterable[str] | None = None
    ) -> list[SearchHit]:
        """The ``top`` best tools for ``query``, best first; tools without a match are left out.

        ``only`` restricts the answer to those tool names (a toolset).
        """
        if top <= 0:
            return []
        scores: dict[int, float] = {}
        for term, weight in self.query_terms(query).items():
            for pos, s in self._postings.get(term, ()):
                scores[pos] = scores.get(pos, 0.0) + weight * s
        if only is not None:
            allowed = set(only)
            scores = {p: s for p, s in scores.items() if self.names[p] in allowed}
        items: Iterable[tuple[int, float]] = scores.items()
        if len(scores) > top:
            # Only the tools that can reach the top are sorted (the sort key is most of a
            # query's time): the top-th best score, rounded, less a margin wider than rounding.
            floor = round(heapq.nlargest(top, scores.values())[-1], 6) - 1e-6
            items = [item for item in items if item[1] >= floor]
        ranked = sorted(items, key=lambda item: (-round(item[1], 6), item[0]))
        return [SearchHit(self.names[p], round(s, 6)) for p, s in ranked[:top]]

    def to_dict(self) -> dict[str, Any]:
        """The index as JSON-ready data, for a browser that ranks the same way."""
        return {
            "version": 2,
            "stemmer": "snowball-english",
            "tools": list(self.names),
            "stop_words": sorted(STOP_WORDS),
            "synonyms": {k: list(v) for k, v in sorted(SYNONYMS.items())},
            "synonym_weight": SYNONYM_WEIGHT,
            "number_weight": NUMBER_WEIGHT,
            "compound_weight": COMPOUND_WEIGHT,
            "min_prefix": MIN_PREFIX,
            "prefix_weight": PREFIX_WEIGHT,
            "max_query_chars": MAX_QUERY_CHARS,
            "max_query_terms": MAX_QUERY_TERMS,
            "postings": {
                t: [x for pos, s in plist for x in (pos, round(s, 6))]
                for t, plist in sorted(self._postings.items())
            },
        }


# -- semantic ranking: settings (the catalog's ``search:`` section) and fusion -----------


@dataclass(frozen=True, slots=True)
class EmbeddingsSettings:
    """``search.embeddings``: an OpenAI-compatible embeddings endpoint for semantic ranking.

    Raw strings may hold ``${VAR}`` (resolved when the executor calls the endpoint);
    ``api_key`` is a secret, sent only to ``url``'s host and only over https (or
    http to a loopback address). ``cache`` is a directory (``None``: the user's
    cache directory). ``weight`` and ``k`` set the reciprocal rank fusion:
    ``1 / (k + lexical rank) + weight / (k + semantic rank)``.
    """

    url: str
    model: str
    api_key: str | None = field(default=None, repr=False)  # a secret: not in repr
    dimensions: int | None = None
    timeout: float = 10.0
    cache: str | None = None
    weight: float = 1.0
    k: int = 60
    source: SourceLocation | None = None


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """The catalog's ``search:`` section: how its tools are ranked for a request."""

    embeddings: EmbeddingsSettings | None = None


def fuse_rankings(
    rankings: Sequence[tuple[Sequence[str], float]], k: int = 60, top: int = 10
) -> list[SearchHit]:
    """Reciprocal rank fusion: each ranking (names, best first) with its weight.

    A name's score is the sum of ``weight / (k + rank)`` (ranks from 1) over the
    rankings that hold it; ties keep the order of first appearance (the first
    ranking's order, then the next one's).

    >>> [h.name for h in fuse_rankings([(["a", "b", "c"], 1.0), (["c", "b"], 1.0)], top=3)]
    ['c', 'b', 'a']
    """
    if top <= 0:
        return []
    scores: dict[str, float] = {}
    for names, weight in rankings:
        if weight <= 0:
            continue
        for rank, name in enumerate(names, 1):
            scores[name] = scores.get(name, 0.0) + weight / (k + rank)
    order = {name: i for i, name in enumerate(scores)}
    ranked = sorted(scores.items(), key=lambda item: (-round(item[1], 9), order[item[0]]))
    return [SearchHit(name, round(score, 6)) for name, score in ranked[:top]]
