"""The lint rules (``TC1xx`` warnings): one function per code, registered with its name
and summary.

A rule is a function of what it checks (a tool's document, a toolset, a service, ...)
that yields a :class:`Finding` per problem: the message and where in the document it
is. The step that holds the document places and reports it (``Scope.report``), so a
rule never deals with files or positions::

    @lint("TC107", "duplicate-toolset-member", "a toolset names the same tool twice")
    def duplicate_toolset_member(name, members, line_of): ...

TC145 (``_context_names``) is one too, in a module of its own. A few warnings are found
while another step walks the text for its own reasons (the YAML reader, the schema
checks, the ``${VAR}`` scan, the suppression comments of ``toolcat validate``, the
compile step of a token exchange); they are registered here too, with the function that
finds them named beside them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, NamedTuple, ParamSpec

from toolcat.catalog import Service, method_semantics
from toolcat.catalog.common import (
    MAX_DESCRIPTION_CHARS,
    OPENAI_MAX_TOOLS,
    is_sensitive_header,
    is_sensitive_variable,
)

from ._diagnostics import Rule, Severity, register
from ._models_mcp import McpExampleDoc, McpToolDoc
from ._models_server import ServerAuthDoc
from ._models_tools import ExampleDoc, ToolDoc

__all__ = [
    "Finding",
    "LintRule",
    "body_on_get",
    "caller_token_to_mcp_server",
    "credential_in_file",
    "caller_token_without_oauth_callers",
    "description_too_long",
    "duplicate_example_names",
    "duplicate_toolset_member",
    "embeddings_key_in_file",
    "example_result_without_response",
    "idempotency_key_on_safe_method",
    "lint",
    "missing_description",
    "parameter_without_description",
    "pin_matches_nothing",
    "pinned_tool_outside_toolset",
    "redis_password_in_file",
    "response_validation_without_spec",
    "toolset_too_large",
    "too_many_pinned_tools",
    "unconfirmed_write",
    "unmasked_secret_argument",
]

P = ParamSpec("P")
Path = tuple[str | int, ...]


class Finding(NamedTuple):
    """One problem a rule found: the message and where (``key``: at the key, not the
    value); ``code`` is filled in by the rule that found it."""

    message: str
    path: Path = ()
    key: bool = False
    code: str = ""


class LintRule(Generic[P]):
    """A registered lint rule: call it to get its findings; ``code`` is what they report."""

    def __init__(self, rule: Rule, check: Callable[P, Iterator[Finding]]) -> None:
        self.rule = rule
        self.code = rule.code
        self._check = check
        self.__doc__ = check.__doc__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> Iterator[Finding]:
        for finding in self._check(*args, **kwargs):
            yield finding._replace(code=self.code)


def lint(
    code: str, name: str, summary: str
) -> Callable[[Callable[P, Iterator[Finding]]], LintRule[P]]:
    """Register the decorated function as the warning ``code``."""

    def decorate(check: Callable[P, Iterator[Finding]]) -> LintRule[P]:
        return LintRule(register(code, name, Severity.WARNING, summary, check), check)

    return decorate


# -- a tool -------------------------------------------------------------------------
# (a missing key is reported at the mapping that lacks it, as TC005 is)


@lint("TC101", "missing-description", "a tool without a description")
def missing_description(doc: ToolDoc | McpToolDoc) -> Iterator[Finding]:
    if not (doc.description or "").strip():
        where = ("description",) if doc.description is not None else ()
        yield Finding("no description; add one so the model knows when to use this tool", where)


@lint("TC102", "description-too-long", "a description longer than OpenAI accepts")
def description_too_long(doc: ToolDoc | McpToolDoc) -> Iterator[Finding]:
    text = doc.description or ""
    if text.strip() and len(text) > MAX_DESCRIPTION_CHARS:
        yield Finding(
            f"description is {len(text)} characters; OpenAI "
            f"accepts at most {MAX_DESCRIPTION_CHARS}: shorten it",
            ("description",),
        )


@lint(
    "TC104",
    "unconfirmed-write",
    "a tool that changes data does not say whether a caller must confirm it",
)
def unconfirmed_write(doc: ToolDoc) -> Iterator[Finding]:
    if method_semantics(doc.method).needs_confirm and doc.confirm is None:
        yield Finding(
            f"{doc.method} changes data but 'confirm' is not set; add "
            "'confirm: true' (or 'confirm: false' to state it is safe)"
        )


#: What every tool is checked for, in this order.
TOOL_RULES = (missing_description, description_too_long, unconfirmed_write)


@lint(
    "TC134", "idempotency-key-on-safe-method", "an idempotency_key on a tool whose method is safe"
)
def idempotency_key_on_safe_method(doc: ToolDoc) -> Iterator[Finding]:
    if doc.idempotency_key is not None and method_semantics(doc.method).safe:
        yield Finding(
            f"idempotency_key on a {doc.method} tool does nothing: calls with a safe method "
            "are never recorded (repeating them changes nothing)",
            ("idempotency_key",),
        )


@lint("TC120", "example-result-without-response", "an example states a result but no response")
def example_result_without_response(
    example: ExampleDoc | McpExampleDoc, label: str, at: Path
) -> Iterator[Finding]:
    if example.result is not None and example.response is None:
        mcp = isinstance(example, McpExampleDoc)
        shape = "content, structuredContent, isError" if mcp else "status, headers, body"
        yield Finding(
            f"{label}: 'result' is compared only with a recorded 'response'; add one ({shape})",
            (*at, "result"),
            key=True,
        )


@lint("TC121", "duplicate-example-name", "two examples of one tool have the same name")
def duplicate_example_names(
    examples: Sequence[ExampleDoc | McpExampleDoc],
) -> Iterator[Finding]:
    names: set[str] = set()
    for i, example in enumerate(examples):
        if example.name is None:
            continue
        if example.name in names:
            label = f"example {example.name!r}"
            yield Finding(
                f"{label} is named twice; give each example its own name", ("examples", i)
            )
        names.add(example.name)


# -- a parameter --------------------------------------------------------------------


@lint("TC103", "parameter-without-description", "a parameter without a description")
def parameter_without_description(arg: str, schema: Any) -> Iterator[Finding]:
    if "description" not in schema and "$ref" not in schema:
        yield Finding(
            f"parameter '{arg}' has no description; add one so the model knows what to pass",
            (),
            key=True,
        )


@lint("TC108", "body-on-get", "a GET, HEAD or TRACE tool sends a request body")
def body_on_get(arg: str, method: str, in_given: bool) -> Iterator[Finding]:
    """For a parameter the compile step places in the body of a ``method`` request."""
    if method_semantics(method).body_discouraged:
        yield Finding(
            f"parameter '{arg}' puts a body on a {method} request, which "
            "many servers and proxies drop or refuse; send it in the query (remove "
            "'in: body') or use POST",
            ("in",) if in_given else (),
            key=not in_given,
        )


@lint(
    "TC133",
    "unmasked-secret-argument",
    "a parameter that looks like a secret and is not marked sensitive",
)
def unmasked_secret_argument(arg: str, looks_secret: bool) -> Iterator[Finding]:
    if looks_secret:
        yield Finding(
            f"parameter '{arg}' looks like a secret but audit lines would show it; "
            "mark it 'sensitive: true' (or give it format: password)",
            (),
            key=True,
        )


# -- toolsets and services ------------------------------------------------------------


@lint(
    "TC105",
    "toolset-too-large",
    "a toolset with more tools than OpenAI accepts in one request",
)
def toolset_too_large(name: str, members: Sequence[str]) -> Iterator[Finding]:
    if len(members) > OPENAI_MAX_TOOLS:
        yield Finding(
            f"toolset '{name}' has {len(members)} tools; OpenAI accepts at "
            f"most {OPENAI_MAX_TOOLS} per request: split it",
            (),
            key=True,
        )


@lint("TC107", "duplicate-toolset-member", "a toolset names the same tool twice")
def duplicate_toolset_member(
    name: str, members: Sequence[str], line_of: Callable[[int], int]
) -> Iterator[Finding]:
    """``line_of(i)``: the line of the toolset's item ``i``."""
    first_at: dict[str, int] = {}
    for i, member in enumerate(members):
        if member in first_at:
            yield Finding(
                f"toolset '{name}' lists '{member}' again (first at line "
                f"{line_of(first_at[member])}); remove this one",
                (i,),
            )
        else:
            first_at[member] = i


@lint(
    "TC122",
    "response-validation-without-spec",
    "validate_responses without an OpenAPI spec to check against",
)
def response_validation_without_spec(service: Service) -> Iterator[Finding]:
    if service.validate_responses and service.spec is None:
        yield Finding(
            f"service '{service.name}': validate_responses needs the OpenAPI spec to "
            "check against; add 'spec: FILE' (or import the service's tools from it)",
            ("validate_responses",),
        )


@lint(
    "TC131",
    "caller-token-without-oauth-callers",
    "a service needs the caller's OAuth token, but server.auth accepts only API keys",
)
def caller_token_without_oauth_callers(
    auth: ServerAuthDoc | None, name: str, auth_type: str, needs_caller_token: bool
) -> Iterator[Finding]:
    """``auth``: the server's ``server.auth`` document; ``auth_type``: the service's."""
    if auth is None or auth.jwt is not None or auth.introspection is not None:
        return
    if auth.api_keys and needs_caller_token:
        yield Finding(
            f"service '{name}': auth {auth_type} needs the caller's OAuth token, "
            "but server.auth accepts only API keys, which are never forwarded or "
            "exchanged; every call through `toolcat serve` would be refused. Add "
            "server.auth.jwt or introspection, or give the service its own credentials"
        )


# -- the server: and search: sections -------------------------------------------------


@lint(
    "TC146",
    "mcp-caller-token-passthrough",
    "an MCP server's auth forwards the caller's own token",
)
def caller_token_to_mcp_server(auth_type: str | None) -> Iterator[Finding]:
    if auth_type == "forward_caller_token":
        yield Finding(
            "auth forward_caller_token passes the caller's own token to this MCP server, "
            "which the MCP specification forbids (token passthrough); use token_exchange "
            "for a token meant for this server",
            ("auth",),
        )


@lint(
    "TC147",
    "credential-in-file",
    "a credential header, or an MCP server's credential variable, written in the file",
)
def credential_in_file(
    headers: Mapping[str, Any], env: Mapping[str, Any] | None = None
) -> Iterator[Finding]:
    """A header whose name carries a credential (``Authorization``, ``X-Api-Key``), or a
    stdio MCP server's ``env`` entry named like one (``GITHUB_TOKEN``), whose value holds
    no ``${VAR}``: the secret itself would be committed with the catalog."""
    for name, value in headers.items():
        if is_sensitive_header(name) and isinstance(value, str) and "${" not in value:
            variable = "".join(c if c.isalnum() else "_" for c in name).upper()
            given = (
                "Bearer ${TOKEN}" if name.lower().endswith("authorization") else f"${{{variable}}}"
            )
            yield Finding(
                f"header {name} is written in the file, credential and all; read it from "
                f"the environment ({name}: {given})",
                ("headers", name),
            )
    for name, value in (env or {}).items():
        if is_sensitive_variable(name) and isinstance(value, str) and value and "${" not in value:
            yield Finding(
                f"env {name} is written in the file; pass it from the environment "
                f'({name}: "${{{name}}}")',
                ("env", name),
            )


@lint("TC135", "redis-password-in-file", "server.redis.url carries a password written in the file")
def redis_password_in_file(has_password: bool) -> Iterator[Finding]:
    if has_password:
        yield Finding(
            "server.redis.url carries a password in the catalog file; write it as "
            "${REDIS_URL} (or ${REDIS_PASSWORD} inside it) and keep it in the environment",
            ("url",),
        )


@lint("TC137", "embeddings-key-in-file", "search.embeddings.api_key written in the file")
def embeddings_key_in_file(api_key: str | None, refers: bool) -> Iterator[Finding]:
    """``refers``: whether ``api_key`` holds a ``${VAR}``."""
    if api_key and not refers:
        yield Finding(
            "search.embeddings.api_key is written in the file; read it from the environment "
            "(api_key: ${EMBEDDINGS_API_KEY})",
            ("api_key",),
        )


@lint(
    "TC140",
    "too-many-pinned-tools",
    "search.pinned pins more tools than a request over OpenAI can carry",
)
def too_many_pinned_tools(total: int, toolset: str, limit: int) -> Iterator[Finding]:
    """``limit``: the most pinned tools a search-mode request can carry."""
    if total > limit:
        yield Finding(
            f"search.pinned pins {total} tools"
            + ("" if toolset == "*" else f" for toolset '{toolset}'")
            + f"; with search_tools that is more than the {OPENAI_MAX_TOOLS} tools OpenAI "
            "accepts in one request, so search mode over OpenAI refuses to start: pin fewer",
            (),
            key=True,
        )


@lint("TC141", "pin-matches-nothing", "a glob of search.pinned that matches no tool")
def pin_matches_nothing(item: str, matched: Sequence[str]) -> Iterator[Finding]:
    if not matched:
        yield Finding(f"search.pinned: '{item}' matches no tool; pins nothing")


@lint(
    "TC142",
    "pinned-tool-outside-toolset",
    "a toolset's search.pinned entry names a tool outside that toolset",
)
def pinned_tool_outside_toolset(item: str, toolset: str, inside: bool) -> Iterator[Finding]:
    if toolset != "*" and not inside:
        yield Finding(
            f"search.pinned: '{item}' is not in toolset '{toolset}'; chat offers "
            "it with that toolset all the same, serve --toolset does not serve it"
        )


# -- found while another step walks the text --------------------------------------------
# Each is reported by the function named beside it, which meets the problem while it
# reads or checks for its own reasons; a rule of its own would walk the text again.

_FOUND_ELSEWHERE = (
    # loader/_schema_walks.py: the keyword walk of the authoring schema checks
    (
        "TC106",
        "unknown-schema-keyword",
        "a key in a parameter schema that is no JSON Schema keyword",
    ),
    # loader/_yaml.py: the reader, the one place that sees how each scalar was written
    (
        "TC109",
        "yaml11-value",
        "an unquoted value that YAML 1.1 tools read as a boolean or a number",
    ),
    # loader/_schema_walks.py: the pattern scan of the authoring schema checks
    (
        "TC110",
        "pattern-not-checked",
        "a pattern the linear-time regex engine cannot run, so it is not checked",
    ),
    # loader/_scope.py: Scope.env, the ${VAR} scan of every interpolated value
    (
        "TC115",
        "env-without-braces",
        "a value holds $NAME or %NAME%, which toolcat sends as written",
    ),
    # cli/_findings.py: toolcat validate, which applies the suppression comments
    ("TC125", "unused-suppression", "a suppression comment that suppresses nothing"),
    # loader/_compile_service.py: the compile step of a token exchange
    (
        "TC130",
        "token-exchange-secret-in-file",
        "a token exchange's client_secret written in the file",
    ),
    # loader/_export_lint.py: what the exports group, over the whole catalog
    ("TC148", "namespace-too-large", "a namespace of 10 or more functions (OpenAI Responses)"),
    (
        "TC149",
        "confirm-tool-callable-from-code",
        "a confirm: true tool that model-written code may call",
    ),
)
for _code, _name, _summary in _FOUND_ELSEWHERE:
    register(_code, _name, Severity.WARNING, _summary)
