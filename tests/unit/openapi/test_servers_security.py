"""Servers (variables, relative URLs, per-operation) and security schemes mapped to catalog auth."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolcat.catalog import ApiKeyAuth, BearerAuth, NoAuth

GET = {"get": {"operationId": "op", "responses": {}}}


def test_server_variables_take_their_defaults(spec3: Any, run_import: Any) -> None:
    servers = [
        {
            "url": "https://{region}.example.com/{base}",
            "variables": {
                "region": {"default": "eu", "enum": ["eu", "us"]},
                "base": {"default": "v2"},
            },
        }
    ]
    result = run_import(spec3({"/x": GET}, servers=servers))
    assert result.services["test_api"]["base_url"] == (
        "${TEST_API_BASE_URL:-https://eu.example.com/v2}"  # the spec's server is the default
    )


def test_relative_server_needs_a_variable_or_the_spec_url(spec3: Any, run_import: Any) -> None:
    doc = spec3({"/x": GET}, servers=[{"url": "/api/v3"}])
    result = run_import(doc)
    assert result.services["test_api"]["base_url"] == "${TEST_API_BASE_URL}/api/v3"
    assert [d.code for d in result.diagnostics] == ["TC205"]
    resolved = run_import(doc, spec_url="https://petstore.example.com/openapi.json")
    assert resolved.services["test_api"]["base_url"] == (
        "${TEST_API_BASE_URL:-https://petstore.example.com/api/v3}"
    )
    assert not resolved.diagnostics


def test_existing_service_is_not_created_and_no_server_warning(spec3: Any, run_import: Any) -> None:
    result = run_import(
        spec3({"/x": GET}, servers=[]), service="mine", existing_services={"mine": object()}
    )
    assert result.services == {} and result.tools[0]["service"] == "mine" and not result.diagnostics


def test_servers_outside_the_service_become_services_without_credentials(
    spec3: Any, run_import: Any
) -> None:
    """A request goes only under its service's base URL: an operation or path
    ``servers`` entry elsewhere is its own service, with no auth, and a TC209 warning."""
    bearer = {"bearer": {"type": "http", "scheme": "bearer"}}
    doc = spec3(
        {
            "/a": {
                "servers": [{"url": "https://files.example.com"}],
                "get": {"operationId": "a", "responses": {}},
            },
            "/b": {
                "get": {
                    "operationId": "b",
                    "servers": [{"url": "https://b.example.com/"}],
                    "security": [{"bearer": []}],
                    "responses": {},
                }
            },
            "/b2": {
                "get": {
                    "operationId": "b2",
                    "servers": [{"url": "https://b.example.com/"}],
                    "responses": {},
                }
            },
            "/same-host": {  # the same origin, another base path: outside too
                "get": {
                    "operationId": "d",
                    "servers": [{"url": "https://api.example.com/v1x"}],
                    "responses": {},
                }
            },
            "/below": {  # under the base path: kept on the service
                "get": {
                    "operationId": "e",
                    "servers": [{"url": "https://api.example.com/v1/beta"}],
                    "responses": {},
                }
            },
            "/c": GET,
        },
        components={"securitySchemes": bearer},
        security=[{"bearer": []}],
    )
    result = run_import(doc)
    tools = {t["name"]: t for t in result.tools}
    services = result.services
    assert services["test_api"]["auth"]["type"] == "bearer"
    assert tools["a"]["service"] == "test_api_files"
    assert tools["b"]["service"] == tools["b2"]["service"] == "test_api_b"
    assert tools["d"]["service"] == "test_api_example"
    assert services["test_api_files"]["base_url"] == "https://files.example.com"
    assert services["test_api_b"]["base_url"] == "https://b.example.com"
    assert services["test_api_example"]["base_url"] == "https://api.example.com/v1x"
    for name in ("a", "b", "b2", "d"):
        assert "base_url" not in tools[name] and "auth" not in tools[name]
        assert "auth" not in services[tools[name]["service"]]
    assert tools["e"]["service"] == "test_api"
    assert tools["e"]["base_url"] == "https://api.example.com/v1/beta"
    assert "base_url" not in tools["op"] and tools["op"]["service"] == "test_api"
    warned = [d for d in result.diagnostics if d.code == "TC209"]
    assert len(warned) == 3  # once per server URL
    assert {d.path for d in warned} == {
        ("paths", "/a", "servers"),
        ("paths", "/b", "get", "servers"),
        ("paths", "/same-host", "get", "servers"),
    }
    assert all(d.severity == "warning" for d in warned)


def test_a_catalog_service_keeps_its_credentials_from_a_spec_server(
    spec3: Any, run_import: Any
) -> None:
    class Mine:
        base_url = "https://vendor.example.com/api"

    doc = spec3(
        {
            "/collect": {
                "post": {
                    "operationId": "collect",
                    "servers": [{"url": "http://other-host/collect"}],
                    "responses": {},
                }
            },
            "/items": {
                "get": {
                    "operationId": "items",
                    "servers": [{"url": "https://vendor.example.com/api/v2"}],
                    "responses": {},
                }
            },
        }
    )
    result = run_import(doc, service="vendor", existing_services={"vendor": Mine()})
    tools = {t["name"]: t for t in result.tools}
    assert tools["collect"]["service"] == "vendor_other_host"
    assert result.services == {
        "vendor_other_host": {
            "base_url": "http://other-host/collect",
            "description": "servers entry of POST /collect; no credentials",
        }
    }
    assert tools["items"]["service"] == "vendor"
    assert [d.code for d in result.diagnostics] == ["TC209"]
    assert "'vendor_other_host' without credentials" in result.diagnostics[0].message


def test_swagger2_host_basepath_schemes(run_import: Any) -> None:
    doc = {
        "swagger": "2.0",
        "info": {"title": "t", "version": "1"},
        "host": "api.example.com:8443",
        "basePath": "/v1",
        "schemes": ["http", "https"],
        "paths": {"/x": GET},
    }
    assert run_import(doc).services["t"]["base_url"] == (
        "${T_BASE_URL:-https://api.example.com:8443/v1}"
    )


SCHEMES = {
    "key_header": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "key_query": {"type": "apiKey", "in": "query", "name": "api_key"},
    "key_cookie": {"type": "apiKey", "in": "cookie", "name": "session"},
    "bearer": {"type": "http", "scheme": "bearer"},
    "basic": {"type": "http", "scheme": "basic"},
    "oauth": {
        "type": "oauth2",
        "flows": {
            "clientCredentials": {
                "tokenUrl": "https://auth.example.com/token",
                "scopes": {"read": "r"},
            }
        },
    },
}


@pytest.mark.parametrize(
    ("scheme", "expected"),
    [
        (
            "key_header",
            {
                "type": "api_key",
                "in": "header",
                "name": "X-API-Key",
                "value": "${TEST_API_KEY_HEADER}",
            },
        ),
        (
            "key_query",
            {"type": "api_key", "in": "query", "name": "api_key", "value": "${TEST_API_KEY_QUERY}"},
        ),
        (
            "key_cookie",
            {
                "type": "api_key",
                "in": "cookie",
                "name": "session",
                "value": "${TEST_API_KEY_COOKIE}",
            },
        ),
        ("bearer", {"type": "bearer", "token": "${TEST_API_BEARER_TOKEN}"}),
        (
            "basic",
            {
                "type": "basic",
                "username": "${TEST_API_BASIC_USERNAME}",
                "password": "${TEST_API_BASIC_PASSWORD}",
            },
        ),
        (
            "oauth",
            {
                "type": "oauth2_client_credentials",
                "token_url": "https://auth.example.com/token",
                "client_id": "${TEST_API_OAUTH_CLIENT_ID}",
                "client_secret": "${TEST_API_OAUTH_CLIENT_SECRET}",
                "scopes": ["read"],
            },
        ),
    ],
)
def test_each_scheme_maps_to_service_auth(
    spec3: Any, run_import: Any, compile_result: Any, scheme: str, expected: dict[str, Any]
) -> None:
    doc = spec3(
        {"/x": GET},
        components={"securitySchemes": SCHEMES},
        security=[{scheme: ["read"] if scheme == "oauth" else []}],
    )
    result = run_import(doc)
    assert result.services["test_api"]["auth"] == expected
    compile_result(result)  # the documents compile


@pytest.mark.parametrize("where", ["header", "cookie"])
def test_an_api_key_name_that_cannot_be_sent_is_noted_not_written(
    spec3: Any, run_import: Any, compile_result: Any, where: str
) -> None:
    # RapidAPI's specs name the header "RapidAPI.com API Key": no header can carry that name,
    # and a service written with it did not load
    scheme = {"type": "apiKey", "in": where, "name": "RapidAPI.com API Key"}
    doc = spec3({"/x": GET}, components={"securitySchemes": {"k": scheme}}, security=[{"k": []}])
    result = run_import(doc)
    assert "auth" not in result.services["test_api"]
    notes = [n for r in result.report for n in r.notes]
    assert any("'RapidAPI.com API Key' is not a valid" in n for n in notes), notes
    compile_result(result)  # the documents compile


def test_alternatives_and_the_empty_requirement(
    spec3: Any, run_import: Any, compile_result: Any
) -> None:
    doc = spec3(
        {
            "/public": {"get": {"operationId": "public", "security": [], "responses": {}}},
            "/optional": {"get": {"operationId": "optional", "security": [{}], "responses": {}}},
            "/alt": {
                "get": {
                    "operationId": "alt",
                    "security": [{"mtls": []}, {"bearer": []}],
                    "responses": {},
                }
            },
            "/same": {
                "get": {"operationId": "same", "security": [{"key_header": []}], "responses": {}}
            },
            "/inherit": GET,
        },
        components={"securitySchemes": {**SCHEMES, "mtls": {"type": "mutualTLS"}}},
        security=[{"key_header": []}],
    )
    result = run_import(doc)
    tools = {t["name"]: t for t in result.tools}
    assert tools["public"]["auth"] == {"type": "none"}
    assert tools["optional"]["auth"] == {"type": "none"}
    assert tools["alt"]["auth"] == {"type": "bearer", "token": "${TEST_API_BEARER_TOKEN}"}
    assert "auth" not in tools["same"] and "auth" not in tools["op"]
    catalog = compile_result(result)
    assert isinstance(catalog["public"].command.auth, NoAuth)
    assert isinstance(catalog["alt"].command.auth, BearerAuth)
    assert catalog["op"].command.auth is None
    assert isinstance(catalog.services["test_api"].auth, ApiKeyAuth)


def test_secret_values_in_the_spec_are_never_copied(spec3: Any, run_import: Any) -> None:
    scheme = {
        "type": "apiKey",
        "in": "header",
        "name": "X-Key",
        "x-example-value": "sk_live_SECRET",
        "description": "use sk_live_SECRET",
    }
    doc = spec3({"/x": GET}, components={"securitySchemes": {"k": scheme}}, security=[{"k": []}])
    result = run_import(doc)
    assert "sk_live_SECRET" not in json.dumps([result.tools, result.services])


def test_names_from_titles_starting_with_digits_make_valid_variables(
    run_import: Any, compile_result: Any
) -> None:
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "1Password API", "version": "1"},
        "paths": {"/x": GET},
        "components": {"securitySchemes": {"2fa": {"type": "http", "scheme": "bearer"}}},
        "security": [{"2fa": []}],
    }
    result = run_import(doc)
    service = result.services["api_1password_api"]
    assert service["base_url"] == "${API_1PASSWORD_API_BASE_URL}"
    assert service["auth"]["token"] == "${API_1PASSWORD_API_2FA_TOKEN}"
    compile_result(result)


def test_a_service_the_catalog_defines_keeps_its_own_auth(spec3: Any, run_import: Any) -> None:
    doc = spec3(
        {"/x": {"get": {"operationId": "x", "security": [{"bearer": []}], "responses": {}}}},
        components={"securitySchemes": SCHEMES},
        security=[{"key_header": []}],
    )
    mine = run_import(doc, service="mine", existing_services={"mine": object()})
    assert mine.services == {} and "auth" not in mine.tools[0]
    created = run_import(doc)
    assert created.tools[0]["auth"]["type"] == "bearer"


def test_what_of_the_specs_own_security_cannot_be_mapped_is_noted_on_each_inheriting_tool(
    spec3: Any, run_import: Any
) -> None:
    """An operation without ``security`` inherits the spec's: when that names a scheme the
    importer cannot map, the tool is written without auth and its report says why, as for
    an operation that names the scheme itself."""
    doc = spec3(
        {
            "/inherit": GET,
            "/own": {"get": {"operationId": "own", "security": [{"bearer": []}], "responses": {}}},
        },
        components={"securitySchemes": {**SCHEMES, "mtls": {"type": "mutualTLS"}}},
        security=[{"mtls": []}],
    )
    result = run_import(doc)
    notes = {r.tool: r.notes for r in result.report}
    unmapped = "security scheme 'mtls' of type 'mutualTLS' is not supported"
    assert unmapped in notes["op"]
    assert unmapped not in notes["own"]  # its own requirement maps to bearer
    assert "auth" not in result.services["test_api"]
