"""Stage 3: compilation to the IR: placement, input schemas, bodies, services, annotations."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolcat.catalog import (
    ApiKeyAuth,
    BearerAuth,
    Catalog,
    FrozenDict,
    NoAuth,
    OAuth2ClientCredentials,
    ParameterBinding,
    ParamLocation,
    Timeouts,
    ToolDefinition,
)
from toolcat.loader import load_catalog
from toolcat.tests.support import http_command

GOOD = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "good"


@pytest.fixture(scope="module")
def rich() -> Catalog:
    result = load_catalog([GOOD / "rich-tools.yaml"], progress=False)
    assert result.diagnostics == ()
    assert result.catalog is not None
    return result.catalog


def _binding(tool: ToolDefinition, arg: str) -> ParameterBinding:
    return next(b for b in http_command(tool).parameters if b.argument == arg)


def test_placement_rules(rich: Catalog) -> None:
    tool = rich["list_files"]
    assert _binding(tool, "folder").location is ParamLocation.PATH  # named in the template
    assert _binding(tool, "limit").location is ParamLocation.QUERY  # GET default
    session = _binding(tool, "session")
    assert (session.location, session.wire_name) == (ParamLocation.COOKIE, "sid")
    kinds = _binding(tool, "kinds")
    assert (kinds.style, kinds.explode) == ("form", False)
    tag = rich["tag_file"]
    assert _binding(tag, "tag").location is ParamLocation.BODY  # PATCH default
    upload = rich["upload_file"]
    folder = _binding(upload, "folder")
    assert (folder.location, folder.wire_name) == (ParamLocation.PATH, "folder_id")
    assert _binding(upload, "meta").content_type == "application/json"


def test_required_rules(rich: Catalog) -> None:
    tool = rich["list_files"]
    schema = tool.input_schema
    assert schema["required"] == ["folder"]  # limit has a default, the others required: false
    assert schema["additionalProperties"] is False
    assert _binding(tool, "folder").required and not _binding(tool, "limit").required
    # placement keys never leak into the JSON Schema
    assert set(schema["properties"]["session"]) == {"type", "description"}
    assert "style" not in schema["properties"]["kinds"]


def test_input_schema_carries_only_reachable_defs(rich: Catalog) -> None:
    schema = rich["upload_file"].input_schema
    assert set(schema["$defs"]) == {"Meta", "Owner"}
    assert schema["properties"]["meta"] == {"$ref": "#/$defs/Meta"}
    assert isinstance(schema, FrozenDict)
    with pytest.raises(TypeError):
        schema["x"] = 1


def test_bodies(rich: Catalog) -> None:
    upload = http_command(rich["upload_file"]).body
    assert upload is not None
    assert upload.media_type == "multipart/form-data"
    assert upload.binary_fields == ("file",)
    replace = http_command(rich["replace_file"]).body
    assert replace is not None
    assert (replace.argument, replace.media_type) == ("content", "text/plain")
    tag = http_command(rich["tag_file"]).body
    assert tag is not None
    assert tag.template["add"] == ["{{ tag }}"] and tag.template["by"] == "toolcat"
    assert http_command(rich["list_files"]).body is None


def test_annotations_derived_unless_set(rich: Catalog) -> None:
    listed = rich["list_files"].annotations
    assert (listed.title, listed.read_only, listed.open_world) == ("List files", True, False)
    replace = rich["replace_file"].annotations
    assert (replace.read_only, replace.destructive, replace.idempotent) == (False, True, True)
    assert http_command(rich["replace_file"]).method == "PUT"  # normalised
    assert http_command(rich["replace_file"]).retry_unsafe is True
    assert rich["tag_file"].return_direct and rich["tag_file"].confirm
    assert rich["tag_file"].tags == ("files", "write")


def test_response_and_output_schema(rich: Catalog) -> None:
    tool = rich["list_files"]
    assert http_command(tool).response.max_chars == 2000
    assert "map(attribute='name')" in (http_command(tool).response.select or "")
    assert tool.output_schema == {"type": "array", "items": {"type": "string"}}
    assert tool.source is not None and tool.source.line == 16


def test_services_and_auth() -> None:
    result = load_catalog([GOOD / "every-auth.yaml"], progress=False)
    assert result.diagnostics == ()
    catalog = result.catalog
    assert catalog is not None
    services = catalog.services
    assert services["open"].auth == NoAuth()
    assert services["bearer"].auth == BearerAuth(token="${BEARER_TOKEN}")  # kept raw
    assert services["bearer"].timeouts == Timeouts(connect=2, read=10, total=30)
    assert services["basic"].retry.on_status == (503,)
    assert services["basic"].retry.attempts == 5
    assert services["keyed"].auth == ApiKeyAuth(
        location="query", name="api_key", value="${API_KEY:-demo}"
    )
    assert services["keyed"].headers == {"X-Api-Version": "2", "X-Debug": "false"}
    assert services["keyed"].max_response_chars == 5000
    assert services["machine"].auth == OAuth2ClientCredentials(
        token_url="http://127.0.0.1:9004/token",
        client_id="toolcat",
        client_secret="${OAUTH_SECRET}",
        scopes=("read", "write"),
    )
    assert services["open"].timeouts == Timeouts(total=30.0)  # the IR default
    whoami = http_command(catalog["whoami"])
    assert whoami.auth == NoAuth() and whoami.base_url == "http://127.0.0.1:9101"
    assert whoami.retry is not None
    assert whoami.timeouts == Timeouts(total=3.0) and whoami.retry.attempts == 2
    assert http_command(catalog["ping"]).auth is None  # the service's applies


def test_directory_catalog_spans_files() -> None:
    folder = GOOD.parent / "good-dir"
    result = load_catalog([folder], progress=False)
    assert result.diagnostics == ()
    assert result.catalog is not None
    assert result.catalog.toolsets["crm"] == ("find_customer", "add_note")
    assert [Path(f).relative_to(folder).as_posix() for f in result.files] == [
        "more/tools.yml",
        "services.yaml",
    ]


def test_body_argument_goes_in_the_body_even_for_delete(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "toolcat: 1\nservices: {s: {base_url: 'http://127.0.0.1:1'}}\ntools:\n"
        "  - name: purge\n    description: Purge ids.\n    service: s\n    method: DELETE\n"
        "    path: /items\n    confirm: true\n    body_argument: ids\n    parameters:\n"
        "      ids: {type: array, items: {type: string}, description: Ids.}\n"
        "      dry: {type: boolean, required: false, description: Dry run.}\n"
    )
    result = load_catalog([path])
    assert result.diagnostics == ()
    assert result.catalog is not None
    tool = result.catalog["purge"]
    assert _binding(tool, "ids").location is ParamLocation.BODY
    assert _binding(tool, "dry").location is ParamLocation.QUERY
    body = http_command(tool).body
    assert body is not None and body.argument == "ids"
