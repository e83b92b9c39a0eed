"""What the layers above the IR share, each fact in one module of ``toolcat.catalog``.

- HTTP method semantics: ``METHODS`` (the table behind ``method_semantics``);
- ``${VAR}``: ``references``, ``bare_references``, ``check_env_syntax``, ``interpolate``;
  which header and variable names carry credentials (``is_sensitive_header``, ...);
- frozen values: ``freeze`` (JSON to ``FrozenDict``/``FrozenList``) and ``thaw``;
- the one nesting limit: ``MAX_NESTING_DEPTH``, ``too_deep``, ``loads_json``,
  ``recursion_headroom``;
- what the providers' APIs accept: ``PROVIDER_LIMITS``, ``MAX_DESCRIPTION_CHARS``,
  ``TOOL_NAME``, ``OPENAI_MAX_TOOLS``;
- schema regexes on a linear-time engine: ``linear_validator``, ``pattern_search``, ...;
- the retrieval policy of ``$ref``: no URL, files under the ``$ref`` root;
- the one sandboxed Jinja environment and its bounds;
- where credentials may travel (``credentials_may_travel``, ``is_loopback_host``);
- which request bodies are JSON (``is_json_media_type``);
- where JSON Schema keeps subschemas (``SUBSCHEMA_ONE``, ``SUBSCHEMA_MAPS``,
  ``SUBSCHEMA_LISTS``);
- how an upstream MCP argument stands as a catalog parameter (``mcp_parameter``), the
  title an upstream tool shows (``mcp_title``), and its schemas in 2020-12 (``mcp_schema``);
- outside text made safe for a terminal or a log (``escape_controls``).
"""

from toolcat.catalog._auth import CALLER_TOKEN_AUTH
from toolcat.catalog._depth import (
    MAX_NESTING_DEPTH,
    RECURSION_HEADROOM,
    loads_json,
    recursion_headroom,
    too_deep,
)
from toolcat.catalog._env import (
    bare_references,
    check_env_syntax,
    interpolate,
    is_sensitive_header,
    is_sensitive_variable,
    references,
)
from toolcat.catalog._frozen import (
    freeze,
    thaw,
)
from toolcat.catalog._keywords import SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_ONE
from toolcat.catalog._limits import (
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
from toolcat.catalog._mcp import mcp_parameter, mcp_schema, mcp_title
from toolcat.catalog._methods import (
    METHODS,
)
from toolcat.catalog._model import (
    credentials_may_travel,
    is_json_media_type,
    is_loopback_host,
)
from toolcat.catalog._namespaces import NAMESPACE_KINDS, Namespace, NamespaceKind, namespace_groups
from toolcat.catalog._printable import (
    escape_controls,
    escape_json_controls,
)
from toolcat.catalog._regex import (
    MAX_PATTERN_CACHE,
    linear_validator,
    pattern_runs,
    pattern_search,
    runnable_schema,
    schema_objects,
    unrunnable_patterns,
)
from toolcat.catalog._retrieval import (
    REF_SUFFIXES,
    RefRefused,
    default_ref_root,
    is_url,
    ref_file,
    refuse_retrieval,
    sealed_registry,
)
from toolcat.catalog._sandbox import (
    MAX_TEMPLATE_LOOPS,
    MAX_TEMPLATE_RANGE,
    MAX_TEMPLATE_SIZE,
    constant_bound_error,
    render_text,
    sandbox_environment,
)

__all__ = [
    "CALLER_TOKEN_AUTH",
    "DEFER_ABOVE_TOOLS",
    "INPUT_EXAMPLE_LIMITS",
    "InputExampleLimits",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NESTING_DEPTH",
    "MAX_PATTERN_CACHE",
    "MAX_TEMPLATE_LOOPS",
    "MAX_TEMPLATE_RANGE",
    "MAX_TEMPLATE_SIZE",
    "METHODS",
    "NAMESPACE_KINDS",
    "NAMESPACE_LIMITS",
    "Namespace",
    "NamespaceKind",
    "NamespaceLimits",
    "OPENAI_MAX_TOOLS",
    "PROVIDER_LIMITS",
    "ProviderLimits",
    "RECURSION_HEADROOM",
    "REF_SUFFIXES",
    "RefRefused",
    "SUBSCHEMA_LISTS",
    "SUBSCHEMA_MAPS",
    "SUBSCHEMA_ONE",
    "TOOL_NAME",
    "TOOL_NAME_PATTERN",
    "bare_references",
    "check_env_syntax",
    "constant_bound_error",
    "credentials_may_travel",
    "default_ref_root",
    "escape_controls",
    "escape_json_controls",
    "freeze",
    "interpolate",
    "is_json_media_type",
    "is_loopback_host",
    "is_sensitive_header",
    "is_sensitive_variable",
    "is_url",
    "linear_validator",
    "loads_json",
    "mcp_parameter",
    "mcp_schema",
    "mcp_title",
    "namespace_groups",
    "pattern_runs",
    "pattern_search",
    "recursion_headroom",
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
