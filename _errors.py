"""The root of every exception toolcat raises: ``except toolcat.ToolcatError`` catches them all.

Exception tree (builtin bases in brackets are kept so that ``except LookupError``
and friends written before the root existed still work)::

    ToolcatError
    │
    ├── toolcat.catalog: the compiled model
    │   ├── UnknownToolError          [LookupError] no tool of that name (``closest`` names)
    │   ├── UnknownToolsetError       [LookupError] no toolset of that name
    │   ├── EnvSyntaxError            [ValueError]  a malformed ``${`` reference
    │   ├── MissingVariableError      [LookupError] an environment variable a tool needs is unset
    │   ├── NotStrictable             [ValueError]  a schema that strict mode cannot express
    │   └── RefRefused                              a ``$ref`` the retrieval policy refuses
    │
    ├── toolcat.loader: reading and compiling
    │   ├── CatalogError                            loading failed (``diagnostics``)
    │   ├── CatalogInputError         [OSError]     a PATH that cannot be read
    │   ├── FileReadError             [OSError]     not a regular file, or over the size cap
    │   ├── SpecError                               an OpenAPI spec that cannot be imported
    │   ├── RefError                                a ``$ref`` that cannot be followed
    │   ├── McpPolicyError            [ValueError]  an MCP import policy that cannot be applied
    │   └── OperationSkipped                        one operation that cannot become a tool
    │
    ├── toolcat.executor: the runtime core (callers get results, not these)
    │   ├── TemplateFailure                         a body template or ``select`` failed
    │   ├── EncodingRefused                         a body encoded twice over, unknown or corrupt
    │   ├── BodyTooLarge                            a decoded body past ``max_response_bytes``
    │   ├── CallStopped                             a step that stops a call with its error
    │   │   ├── TokenError                          the OAuth2 token endpoint gave no token
    │   │   ├── DispatchFailure                     a request that got no usable response
    │   │   └── CallerTokenRefused                  the caller's token may not be sent or exchanged
    │   ├── SharedStateError                        Redis (server.redis) cannot be used now
    │   ├── SpecUnavailable                         a spec that responses cannot be checked against
    │   └── EmbeddingsFailure                       no usable vectors (search falls back to lexical)
    │
    ├── toolcat.executor.providers
    │   └── UnknownProviderError      [ValueError]  no provider of that name (``known``)
    │
    ├── toolcat.executor.agent: model clients
    │   └── ModelError                              a model endpoint gave no usable reply
    │       ├── ModelHTTPError                      a non-2xx status (after retries)
    │       ├── ModelConnectionError                no answer: connect, timeout, reset
    │       └── ModelResponseError                  a reply that breaks the protocol
    │
    ├── toolcat.executor.mcp: tools of upstream MCP servers
    │   └── NotSent                                 a call stopped before it reached the upstream
    │
    ├── toolcat.executor.mcp_server
    │   ├── AuthConfigError           [ValueError]  auth settings that cannot be used
    │   ├── AnswerRefused             [ValueError]  an identity provider answer it cannot use
    │   └── CatalogLoadFailed                       the catalog to serve has errors
    │
    └── toolcat.cli
        ├── CliError                                a failure the user can fix (``code``)
        ├── DemoError                               the demo cannot run
        └── NotEmptyError                           ``toolcat docs`` into a folder with files

Private control-flow exceptions (names starting with ``_``) derive from
``ToolcatError`` too, so none can escape as a bare ``Exception``; they are not
drawn here. This module imports nothing: every layer, the catalog included,
can depend on it.
"""

from __future__ import annotations

__all__ = ["ToolcatError"]


class ToolcatError(Exception):
    """Base class of every exception toolcat raises."""
