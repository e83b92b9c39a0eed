"""The compiled, immutable model of a catalog: tools, HTTP commands, services. No I/O.

What the loader builds and the executor reads (module names)::

    ToolDefinition ── HttpCommand ── ParameterBinding, BodySpec, ResponseSpec  (_model)
         │          └─ McpCommand (_mcp): a tool of an upstream MCP server, with its pin
         └─ annotations                 Service ── AuthSpec (_auth), RetryPolicy, Timeouts
                                        McpUpstream (_mcp): a stdio or HTTP MCP server
    Catalog (_catalog): tools by exact name, services, toolsets, env; frozen values (_frozen)

Every frozen record of the package is a ``dataclass(frozen=True, slots=True)``. This
package's surface is that model; the rest has its own subpackage, each with a small
surface: :mod:`toolcat.catalog.serving` (the ``server:`` section's settings: access,
quotas, audit, auth, redis), :mod:`toolcat.catalog.common` (the facts and helpers the
layers above share, each in one module: HTTP method semantics (_methods), ``${VAR}``
syntax (_env), the Jinja sandbox (_sandbox), the nesting limit (_depth), what the
providers' APIs accept (_limits), schema regexes on a linear-time engine (_regex), the
retrieval policy of ``$ref`` (_retrieval) and text made printable (_printable)),
:mod:`toolcat.catalog.schema` (the schema rewrites: OpenAI strict mode, Gemini, the
size budget), :mod:`toolcat.catalog.search` (the lexical tool search) and
:mod:`toolcat.catalog.diff` (what changed between two catalogs).
"""

from ._auth import (
    AUTH_TYPES,
    ApiKeyAuth,
    AuthSpec,
    BasicAuth,
    BearerAuth,
    ForwardCallerToken,
    NoAuth,
    OAuth2ClientCredentials,
    TokenExchange,
)
from ._catalog import (
    Catalog,
    UnknownToolError,
    UnknownToolsetError,
)
from ._env import (
    EnvSyntaxError,
    MissingVariableError,
)
from ._frozen import (
    FrozenDict,
    FrozenList,
)
from ._mcp import McpCommand, McpHealth, McpUpstream, mcp_pin
from ._methods import (
    HttpMethod,
    MethodSemantics,
    method_semantics,
)
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
)

__all__ = [
    "AUTH_TYPES",
    "ApiKeyAuth",
    "AuthSpec",
    "BasicAuth",
    "BearerAuth",
    "BodySpec",
    "Catalog",
    "EnvSyntaxError",
    "ForwardCallerToken",
    "FrozenDict",
    "FrozenList",
    "HttpCommand",
    "HttpMethod",
    "McpCommand",
    "McpHealth",
    "McpUpstream",
    "MethodSemantics",
    "MissingVariableError",
    "NoAuth",
    "OAuth2ClientCredentials",
    "ParamLocation",
    "ParameterBinding",
    "ResponseSpec",
    "RetryPolicy",
    "Service",
    "SourceLocation",
    "Timeouts",
    "TokenExchange",
    "ToolAnnotations",
    "ToolDefinition",
    "ToolExample",
    "UnknownToolError",
    "UnknownToolsetError",
    "mcp_pin",
    "method_semantics",
]
