"""The compiled, immutable model of a catalog: tools, HTTP commands, services. No I/O.

What the loader builds and the executor reads (module names)::

    ToolDefinition ── HttpCommand ── ParameterBinding, BodySpec, ResponseSpec  (_model)
         └─ annotations                 Service ── AuthSpec, RetryPolicy, Timeouts
    Catalog (_catalog): tools by exact name, services, toolsets, env; frozen values (_frozen)

and the facts every layer above shares, each in one module: HTTP method semantics
(_methods), ``${VAR}`` syntax (_env), the Jinja sandbox (_sandbox), the fast JSON
Schema check (_fastcheck), and the schema rewrites for OpenAI strict mode and Gemini
(_strict, _gemini, _schema_walk), the lexical tool search (_search), and what changed
between two catalogs (_diff, _diff_schema). Every frozen record of the package is a
``@record`` (_record): a frozen slotted dataclass whose methods other than
``__init__`` are shared rather than compiled per class.
"""

import typing as _t

from toolcat._lazy import lazy_names as _lazy_names

from ._catalog import Catalog, UnknownToolError, UnknownToolsetError
from ._depth import (
    MAX_NESTING_DEPTH,
    RECURSION_HEADROOM,
    loads_json,
    recursion_headroom,
    too_deep,
)
from ._env import (
    EnvSyntaxError,
    MissingVariableError,
    bare_references,
    check_env_syntax,
    interpolate,
    references,
)
from ._fastcheck import INTEGER_FORMATS, compile_check, integer_format_check
from ._frozen import FrozenDict, FrozenList, freeze, thaw
from ._gemini import GeminiResult, to_gemini_schema
from ._methods import METHODS, HttpMethod, MethodSemantics, method_semantics
from ._model import (
    ApiKeyAuth,
    AuthSpec,
    BasicAuth,
    BearerAuth,
    BodySpec,
    ForwardCallerToken,
    HttpCommand,
    NoAuth,
    OAuth2ClientCredentials,
    ParameterBinding,
    ParamLocation,
    ResponseSpec,
    RetryPolicy,
    Service,
    SourceLocation,
    Timeouts,
    TokenExchange,
    ToolAnnotations,
    ToolDefinition,
    ToolExample,
    credentials_may_travel,
    is_loopback_host,
)
from ._printable import escape_controls, escape_json_controls
from ._record import record
from ._regex import MAX_PATTERN_CACHE, linear_regex, pattern_problem, pattern_search
from ._retrieval import (
    REF_SUFFIXES,
    RefRefused,
    default_ref_root,
    is_url,
    ref_file,
    refuse_retrieval,
    sealed_registry,
)
from ._sandbox import (
    MAX_TEMPLATE_LOOPS,
    MAX_TEMPLATE_RANGE,
    MAX_TEMPLATE_SIZE,
    constant_bound_error,
    render_text,
    sandbox_environment,
)
from ._strict import (
    NotStrictable,
    StrictResult,
    check_strict_schema,
    strip_strict_nulls,
    to_strict_schema,
)

__all__ = [
    "AccessGrant",
    "AccessPolicy",
    "AccessRule",
    "ApiKeyAuth",
    "ApiKeyEntry",
    "AuditSettings",
    "AuthSpec",
    "BasicAuth",
    "BearerAuth",
    "BodySpec",
    "BudgetResult",
    "CHANGE_RULES",
    "Catalog",
    "ChangeKind",
    "ChangeRule",
    "DEFAULT_JWT_ALGORITHMS",
    "DEFAULT_SCHEMA_BUDGET",
    "EmbeddingsSettings",
    "EnvSyntaxError",
    "ForwardCallerToken",
    "FrozenDict",
    "FrozenList",
    "GeminiResult",
    "HttpCommand",
    "HttpMethod",
    "INTEGER_FORMATS",
    "IntrospectionSettings",
    "JwtSettings",
    "MAX_NESTING_DEPTH",
    "MAX_PATTERN_CACHE",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "MAX_TEMPLATE_LOOPS",
    "MAX_TEMPLATE_RANGE",
    "MAX_TEMPLATE_SIZE",
    "METHODS",
    "MethodSemantics",
    "MissingVariableError",
    "NoAuth",
    "NotStrictable",
    "OAuth2ClientCredentials",
    "ParamLocation",
    "ParameterBinding",
    "QuotaPolicy",
    "QuotaRule",
    "RECURSION_HEADROOM",
    "REF_SUFFIXES",
    "RedisSettings",
    "RefRefused",
    "ResponseSpec",
    "RetryPolicy",
    "SearchHit",
    "SearchIndex",
    "SearchSettings",
    "ServeAuth",
    "ServerSettings",
    "Service",
    "SourceLocation",
    "StrictResult",
    "Timeouts",
    "TokenExchange",
    "ToolAnnotations",
    "ToolChange",
    "ToolDefinition",
    "ToolExample",
    "UnknownToolError",
    "UnknownToolsetError",
    "bare_references",
    "budget_tool",
    "check_env_syntax",
    "check_strict_schema",
    "compile_check",
    "constant_bound_error",
    "credentials_may_travel",
    "default_ref_root",
    "diff_catalogs",
    "escape_controls",
    "escape_json_controls",
    "fit_schema",
    "freeze",
    "fuse_rankings",
    "integer_format_check",
    "interpolate",
    "is_loopback_host",
    "is_url",
    "linear_regex",
    "loads_json",
    "method_semantics",
    "pattern_problem",
    "pattern_search",
    "record",
    "recursion_headroom",
    "redis_url_problem",
    "ref_file",
    "references",
    "refuse_retrieval",
    "render_text",
    "sandbox_environment",
    "schema_size",
    "sealed_registry",
    "strip_strict_nulls",
    "thaw",
    "to_gemini_schema",
    "to_strict_schema",
    "tokenize",
    "too_deep",
]

if _t.TYPE_CHECKING:
    from ._budget import (
        DEFAULT_SCHEMA_BUDGET,
        BudgetResult,
        budget_tool,
        fit_schema,
        schema_size,
    )
    from ._diff import CHANGE_RULES, ChangeKind, ChangeRule, ToolChange, diff_catalogs
    from ._search import (
        MAX_QUERY_CHARS,
        MAX_QUERY_TERMS,
        EmbeddingsSettings,
        SearchHit,
        SearchIndex,
        SearchSettings,
        fuse_rankings,
        tokenize,
    )
    from ._serving import (
        DEFAULT_JWT_ALGORITHMS,
        AccessGrant,
        AccessPolicy,
        AccessRule,
        ApiKeyEntry,
        AuditSettings,
        IntrospectionSettings,
        JwtSettings,
        QuotaPolicy,
        QuotaRule,
        RedisSettings,
        ServeAuth,
        ServerSettings,
        redis_url_problem,
    )

# The search names load on first use: importing the catalog (every command) skips
# compiling the tokenizer's patterns (about 5 ms). So does the schema budget (export only).
# So do the serving settings (the ``server:`` section): about 10 ms of dataclasses
# that only `serve`, the executor's access checks and catalogs with one need.
# So does the catalog diff (``toolcat diff``): only that command reads it.
__getattr__, __dir__ = _lazy_names(
    __name__,
    {
        **{
            name: "._diff"
            for name in ("CHANGE_RULES", "ChangeKind", "ChangeRule", "ToolChange", "diff_catalogs")
        },
        **{
            name: "._budget"
            for name in (
                "DEFAULT_SCHEMA_BUDGET",
                "BudgetResult",
                "budget_tool",
                "fit_schema",
                "schema_size",
            )
        },
        **{
            name: "._search"
            for name in (
                "MAX_QUERY_CHARS",
                "MAX_QUERY_TERMS",
                "EmbeddingsSettings",
                "SearchHit",
                "SearchIndex",
                "SearchSettings",
                "fuse_rankings",
                "tokenize",
            )
        },
        **{
            name: "._serving"
            for name in (
                "DEFAULT_JWT_ALGORITHMS",
                "AccessGrant",
                "AccessPolicy",
                "AccessRule",
                "ApiKeyEntry",
                "AuditSettings",
                "IntrospectionSettings",
                "JwtSettings",
                "QuotaPolicy",
                "QuotaRule",
                "RedisSettings",
                "ServeAuth",
                "ServerSettings",
                "redis_url_problem",
            )
        },
    },
    __all__,
)
