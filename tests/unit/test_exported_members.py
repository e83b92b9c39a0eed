"""Every package's public surface is its sorted ``__all__``, exactly its public names."""

from __future__ import annotations

import importlib
import tomllib
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES: list[str] = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
    "packages"
]
ALLOWED_PRIVATE = {"__version__"}


def _public(module: types.ModuleType) -> list[str]:
    return sorted(
        name
        for name, value in vars(module).items()
        if (not name.startswith("_") or name in ALLOWED_PRIVATE)
        # submodules and `from __future__ import annotations` are not part of the surface
        and not isinstance(value, types.ModuleType)
        and type(value).__name__ != "_Feature"
    )


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported), f"{name}.__all__ is not sorted"
    for member in exported:  # also loads the lazily imported names of the front door
        assert hasattr(module, member), f"{name}.{member} is exported but missing"
    assert exported == _public(module)


def test_the_front_door_resolves_lazily_and_caches() -> None:
    import toolcat

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        toolcat.nope  # noqa: B018
    assert set(toolcat.__all__) <= set(dir(toolcat))


# toolcat.catalog is the IR and nothing else: the compiled model a loader builds and an
# executor reads. Helpers go to toolcat.catalog.common, the server: section's settings
# to toolcat.catalog.serving; a name added here is a decision about the model.
CATALOG_IR = [
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


def test_the_catalog_package_exports_the_ir_only() -> None:
    import toolcat.catalog

    assert toolcat.catalog.__all__ == CATALOG_IR


def test_the_catalog_subpackages_share_no_name() -> None:
    """Each name has one public home: the IR, its helpers or the server's settings."""
    import toolcat.catalog
    import toolcat.catalog.common
    import toolcat.catalog.serving

    homes = [toolcat.catalog.__all__, toolcat.catalog.common.__all__]
    homes.append(toolcat.catalog.serving.__all__)
    names = [name for home in homes for name in home]
    assert len(names) == len(set(names))
