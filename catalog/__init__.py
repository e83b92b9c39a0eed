"""The compiled, immutable model of a catalog: tools, HTTP commands, services. No I/O.

What the loader builds and the executor reads (module names)::

    ToolDefinition ── HttpCommand ── ParameterBinding, BodySpec, ResponseSpec  (_model)
         │          └─ McpCommand (_mcp): a tool of an upstream MCP server, with its pin
         └─ annotations                 Service ── AuthSpec (_auth), RetryPolicy, Timeouts
                                        McpUpstream (_mcp): a stdio or HTTP MCP server
    Catalog (_catalog): tools by exact name, services, toolsets, env; frozen values (_frozen)
    the ``server:`` section's settings: access, quotas, audit, auth, redis (_serving)

and the facts every layer above shares, each in one module: HTTP method semantics
(_methods), ``${VAR}`` syntax (_env), the Jinja sandbox (_sandbox), the nesting limit
(_depth), what the providers' APIs accept (_limits), and schema regexes on a
linear-time engine (_regex). Every frozen record of the package is a
``dataclass(frozen=True, slots=True)``.

Three subpackages read the IR, each with its own small surface:
:mod:`toolcat.catalog.schema` (the schema rewrites: OpenAI strict mode, Gemini, the
size budget), :mod:`toolcat.catalog.search` (the lexical tool search) and
:mod:`toolcat.catalog.diff` (what changed between two catalogs).
"""

from ._auth import (
    AUTH_TYPES,
    CALLER_TOKEN_AUTH,
    ApiKeyAuth,
    AuthSpec,
    BasicAuth,
    BearerAuth,
    ForwardCallerToken,
    NoAuth,
    OAuth2ClientCredentials,
    TokenExchange,
)
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
from ._frozen import FrozenDict, FrozenList, freeze, thaw
from ._limits import (
    DEFER_ABOVE_TOOLS,
    INPUT_EXAMPLE_LIMITS,
    MAX_DESCRIPTION_CHARS,
    NAMESPACE_LIMITS,
    OPENAI_MAX_TOOLS,
    PROVIDER_LIMITS,
    TOOL_NAME,
    TOOL_NAME_PATTERN,
    InputExampleLimits,
    NamespaceLimits,
    ProviderLimits,
)
from ._mcp import McpCommand, McpUpstream, mcp_pin
from ._methods import METHODS, HttpMethod, MethodSemantics, method_semantics
from ._model import (
    BodySpec,
    HttpCommand,
    ParameterBinding,
    ParamLocation,
    ResponseSpec,
    RetryPolicy,
    Service,
    SourceLocation,
    Timeouts,
    ToolAnnotations,
    ToolDefinition,
    ToolExample,
    credentials_may_travel,
    is_loopback_host,
)
from ._namespaces import NAMESPACE_KINDS, Namespace, NamespaceKind, namespace_groups
from ._printable import escape_controls, escape_json_controls
from ._regex import (
    MAX_PATTERN_CACHE,
    linear_validator,
    pattern_runs,
    pattern_search,
    runnable_schema,
    schema_objects,
    unrunnable_patterns,
)
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
from ._serving import (
    DEFAULT_CLIENT_CLAIMS,
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

__all__ = [
    "AUTH_TYPES",
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
    "CALLER_TOKEN_AUTH",
    "Catalog",
    "DEFAULT_CLIENT_CLAIMS",
    "DEFAULT_JWT_ALGORITHMS",
    "DEFER_ABOVE_TOOLS",
    "EnvSyntaxError",
    "ForwardCallerToken",
    "FrozenDict",
    "FrozenList",
    "HttpCommand",
    "HttpMethod",
    "INPUT_EXAMPLE_LIMITS",
    "InputExampleLimits",
    "IntrospectionSettings",
    "JwtSettings",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NESTING_DEPTH",
    "MAX_PATTERN_CACHE",
    "MAX_TEMPLATE_LOOPS",
    "MAX_TEMPLATE_RANGE",
    "MAX_TEMPLATE_SIZE",
    "METHODS",
    "McpCommand",
    "McpUpstream",
    "MethodSemantics",
    "MissingVariableError",
    "NAMESPACE_KINDS",
    "NAMESPACE_LIMITS",
    "Namespace",
    "NamespaceKind",
    "NamespaceLimits",
    "NoAuth",
    "OAuth2ClientCredentials",
    "OPENAI_MAX_TOOLS",
    "PROVIDER_LIMITS",
    "ParamLocation",
    "ParameterBinding",
    "ProviderLimits",
    "QuotaPolicy",
    "QuotaRule",
    "RECURSION_HEADROOM",
    "REF_SUFFIXES",
    "RedisSettings",
    "RefRefused",
    "ResponseSpec",
    "RetryPolicy",
    "ServeAuth",
    "ServerSettings",
    "Service",
    "SourceLocation",
    "TOOL_NAME",
    "TOOL_NAME_PATTERN",
    "Timeouts",
    "TokenExchange",
    "ToolAnnotations",
    "ToolDefinition",
    "ToolExample",
    "UnknownToolError",
    "UnknownToolsetError",
    "bare_references",
    "check_env_syntax",
    "constant_bound_error",
    "credentials_may_travel",
    "default_ref_root",
    "escape_controls",
    "escape_json_controls",
    "freeze",
    "interpolate",
    "is_loopback_host",
    "is_url",
    "linear_validator",
    "loads_json",
    "mcp_pin",
    "method_semantics",
    "namespace_groups",
    "pattern_runs",
    "pattern_search",
    "recursion_headroom",
    "redis_url_problem",
    "ref_file",
    "references",
    "refuse_retrieval",
    "render_text",
    "runnable_schema",
    "sandbox_environment",
    "schema_objects",
    "sealed_registry",
    "thaw",
    "too_deep",
    "unrunnable_patterns",
]
