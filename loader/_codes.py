"""The codes the loader's steps report (reading, names, parameters, templates, the
``server:`` and ``search:`` sections, OpenAPI import), registered with their names,
severities and summaries. The lint rules register themselves, each with its check
(``_lint``). Every code is stable once published; docs/diagnostics.md lists each."""

from __future__ import annotations

from ._diagnostics import Severity, register

__all__: list[str] = []

_CODES = (
    # -- reading files ---------------------------------------------------------
    (
        "TC001",
        "yaml-syntax",
        Severity.ERROR,
        "the file is not valid YAML, or not UTF-8, or passes a YAML size or expansion cap",
    ),
    ("TC002", "duplicate-key", Severity.ERROR, "the same key twice in one mapping"),
    ("TC003", "unknown-key", Severity.ERROR, "a key the format does not have, usually a typo"),
    ("TC004", "wrong-type", Severity.ERROR, "a value of the wrong type"),
    (
        "TC005",
        "missing-key",
        Severity.ERROR,
        "a required key is absent, or the file is empty or not a catalog",
    ),
    (
        "TC006",
        "unsupported-version",
        Severity.ERROR,
        "toolcat: names a format version this toolcat does not read",
    ),
    (
        "TC007",
        "file-unreadable",
        Severity.ERROR,
        "a file of the catalog, or a spec it names, is missing or cannot be read",
    ),
    ("TC008", "invalid-value", Severity.ERROR, "a value of the right type that is not allowed"),
    (
        "TC009",
        "bad-env-syntax",
        Severity.ERROR,
        "a malformed ${...} in a string interpolated when a tool runs",
    ),
    # -- names and references --------------------------------------------------
    (
        "TC010",
        "invalid-tool-name",
        Severity.ERROR,
        "a tool name that model providers do not accept",
    ),
    ("TC011", "duplicate-tool-name", Severity.ERROR, "a tool name used twice in the catalog"),
    ("TC012", "unknown-service", Severity.ERROR, "a tool names a service no file defines"),
    ("TC013", "duplicate-service", Severity.ERROR, "two files define the same service"),
    (
        "TC014",
        "unknown-tool-in-toolset",
        Severity.ERROR,
        "a toolset names a tool that does not exist",
    ),
    ("TC015", "duplicate-toolset", Severity.ERROR, "two files define the same toolset"),
    (
        "TC016",
        "duplicate-server-section",
        Severity.ERROR,
        "two files of one catalog have a server: section",
    ),
    (
        "TC017",
        "duplicate-api-key",
        Severity.ERROR,
        "two server.auth.api_keys entries share a name or a hash",
    ),
    (
        "TC018",
        "unknown-access-reference",
        Severity.ERROR,
        "a server.access rule names a toolset, tool or tag the catalog lacks",
    ),
    (
        "TC019",
        "invalid-access-rule",
        Severity.ERROR,
        "a server.access rule that cannot decide anything as written",
    ),
    # -- parameters ------------------------------------------------------------
    (
        "TC020",
        "path-variable-without-parameter",
        Severity.ERROR,
        "a {variable} of the path that no parameter fills",
    ),
    (
        "TC021",
        "path-parameter-not-in-template",
        Severity.ERROR,
        "a path parameter that the path template does not hold",
    ),
    (
        "TC022",
        "invalid-parameter-schema",
        Severity.ERROR,
        "a parameter schema that is not valid JSON Schema 2020-12, or a $ref that points nowhere",
    ),
    ("TC023", "default-violates-schema", Severity.ERROR, "a default that its own schema rejects"),
    (
        "TC024",
        "enum-violates-schema",
        Severity.ERROR,
        "an enum value that the rest of its schema rejects",
    ),
    (
        "TC025",
        "parameter-conflict",
        Severity.ERROR,
        "parameters or body settings that contradict each other",
    ),
    # -- templates -------------------------------------------------------------
    (
        "TC030",
        "template-syntax",
        Severity.ERROR,
        "a body template or response.select that is not valid Jinja2",
    ),
    (
        "TC031",
        "template-undeclared-argument",
        Severity.ERROR,
        "a template reads a name it will not have",
    ),
    (
        "TC032",
        "template-too-large",
        Severity.ERROR,
        "a constant part of a template would pass a size limit",
    ),
    # -- security ---------------------------------------------------------------
    ("TC040", "credentials-in-url", Severity.ERROR, "a base_url holds credentials before @"),
    (
        "TC045",
        "external-schema-ref",
        Severity.ERROR,
        "a $ref to a URL or a file outside the tool's definitions",
    ),
    # -- shared definitions ----------------------------------------------------
    (
        "TC050",
        "definition-name-clash",
        Severity.ERROR,
        "a tool's own definition has the name of a shared one",
    ),
    (
        "TC051",
        "unknown-output-definition",
        Severity.ERROR,
        "an output schema refers to a #/$defs/NAME that nothing defines",
    ),
    (
        "TC052",
        "invalid-definition-name",
        Severity.ERROR,
        "a shared definition's name that a #/$defs/NAME ref cannot name plainly",
    ),
    # -- OpenAPI overlays and rules ------------------------------------------------
    (
        "TC060",
        "overlay-unreadable",
        Severity.ERROR,
        "an overlay is missing, unreadable, too large, or not YAML or JSON",
    ),
    (
        "TC061",
        "overlay-invalid",
        Severity.ERROR,
        "an overlay file that is not an Overlay 1.0 document",
    ),
    (
        "TC062",
        "overlay-bad-target",
        Severity.ERROR,
        "an overlay action's target that is not RFC 9535 JSONPath",
    ),
    (
        "TC063",
        "overlay-action-failed",
        Severity.ERROR,
        "an overlay action that cannot apply to what its target selects",
    ),
    (
        "TC064",
        "openapi-rule-sets-nothing",
        Severity.ERROR,
        "a rule of an openapi: entry that matches but sets nothing",
    ),
    # -- examples and `toolcat test` ------------------------------------------
    (
        "TC065",
        "example-invalid-arguments",
        Severity.ERROR,
        "an example's arguments break the tool's input schema",
    ),
    (
        "TC066",
        "example-request-differs",
        Severity.ERROR,
        "the request an example renders differs from its request",
    ),
    (
        "TC067",
        "example-result-differs",
        Severity.ERROR,
        "the result an example's response gives differs from its result",
    ),
    (
        "TC068",
        "request-not-conforming",
        Severity.ERROR,
        "toolcat test --conformance: a request the spec does not accept",
    ),
    ("TC069", "example-not-run", Severity.ERROR, "an example that could not run"),
    # -- running the check (validate) ---------------------------------------------
    (
        "TC070",
        "cannot-check",
        Severity.ERROR,
        "toolcat validate could not check the catalog at all",
    ),
    # -- upstream credentials ----------------------------------------------------
    (
        "TC075",
        "caller-token-over-plain-http",
        Severity.ERROR,
        "the caller's token would travel over plain http",
    ),
    (
        "TC076",
        "token-endpoint-not-https",
        Severity.ERROR,
        "a token exchange's token_url is plain http to a non-loopback host",
    ),
    (
        "TC077",
        "token-exchange-without-target",
        Severity.ERROR,
        "a token exchange names neither audience nor resource",
    ),
    # -- audit and quotas (server:) ---------------------------------------------
    ("TC080", "invalid-quota", Severity.ERROR, "a quota whose rate or limit cannot work"),
    (
        "TC081",
        "unknown-quota-reference",
        Severity.ERROR,
        "a quota or concurrency limit names something the catalog lacks",
    ),
    # -- shared state (server.redis) and idempotency keys ------------------------
    ("TC082", "invalid-redis-settings", Severity.ERROR, "server.redis settings that cannot work"),
    (
        "TC083",
        "unknown-idempotency-key",
        Severity.ERROR,
        "an idempotency_key that names neither an argument nor a header",
    ),
    # -- search (search: embeddings, pinned tools) ---------------------------------
    (
        "TC086",
        "embeddings-key-in-clear",
        Severity.ERROR,
        "search.embeddings names an endpoint that cannot be used",
    ),
    (
        "TC089",
        "unknown-pinned-tool",
        Severity.ERROR,
        "search.pinned names a tool the catalog does not have",
    ),
    (
        "TC090",
        "unknown-pinned-toolset",
        Severity.ERROR,
        "search.pinned names a toolset the catalog does not have",
    ),
    (
        "TC091",
        "duplicate-search-section",
        Severity.ERROR,
        "two files of one catalog have a search: section",
    ),
    # -- MCP servers ---------------------------------------------------------------
    (
        "TC092",
        "mcp-server-transport",
        Severity.ERROR,
        "an MCP server gives neither or both of command and url, or an option of the other",
    ),
    ("TC093", "unknown-mcp-server", Severity.ERROR, "a tool names an MCP server the catalog lacks"),
    (
        "TC094",
        "http-key-on-mcp-tool",
        Severity.ERROR,
        "a tool of an MCP server has an HTTP key (service, method, path, a placement)",
    ),
    (
        "TC095",
        "invalid-mcp-pin",
        Severity.ERROR,
        "an mcp.pin that is not sha256: and 64 hex digits",
    ),
    (
        "TC096",
        "mcp-argument-mapping",
        Severity.ERROR,
        "an mcp.arguments rename or mcp.fixed value names nothing or collides",
    ),
    ("TC097", "duplicate-mcp-server", Severity.ERROR, "two MCP servers have the same name"),
    # -- OpenAPI import ----------------------------------------------------------
    (
        "TC201",
        "openapi-unreadable",
        Severity.ERROR,
        "the spec cannot be parsed as JSON or YAML, or is not a mapping",
    ),
    (
        "TC202",
        "openapi-unsupported-version",
        Severity.ERROR,
        "the spec is not OpenAPI 3.0/3.1/3.2 or Swagger 2.0",
    ),
    (
        "TC203",
        "openapi-unresolved-ref",
        Severity.WARNING,
        "a $ref in the spec points nowhere, or to a URL",
    ),
    (
        "TC204",
        "openapi-operation-skipped",
        Severity.WARNING,
        "an operation that could not become a tool",
    ),
    (
        "TC205",
        "openapi-no-server",
        Severity.WARNING,
        "the spec has no servers, so the service has no usable base URL",
    ),
    (
        "TC206",
        "openapi-override-unknown-operation",
        Severity.WARNING,
        "an entry's tools: overrides an operation the spec does not have",
    ),
    ("TC207", "openapi-spec-too-large", Severity.ERROR, "the spec is larger than the import limit"),
    (
        "TC208",
        "openapi-not-available",
        Severity.ERROR,
        "this build of toolcat cannot import OpenAPI specs",
    ),
    (
        "TC209",
        "openapi-server-outside-service",
        Severity.WARNING,
        "an operation's own servers URL is not under the service's base URL",
    ),
    (
        "TC215",
        "openapi-selection-matches-nothing",
        Severity.ERROR,
        "a value of an include: selection matches no operation",
    ),
    (
        "TC216",
        "openapi-exclude-matches-nothing",
        Severity.WARNING,
        "a value of an exclude: selection matches no operation",
    ),
    (
        "TC220",
        "overlay-target-matches-nothing",
        Severity.WARNING,
        "an overlay action's target selects nothing in the spec",
    ),
    (
        "TC221",
        "openapi-rule-matches-nothing",
        Severity.WARNING,
        "a rule of an openapi: entry matches no imported operation",
    ),
)

for _code, _name, _severity, _summary in _CODES:
    register(_code, _name, _severity, _summary)
