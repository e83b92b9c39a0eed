"""Request rendering: every parameter location and OpenAPI style, every body type."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
from toolcat.catalog import BodySpec
from toolcat.executor import Executor, ExecutorSettings, PreparedRequest, ToolCall

PRIM = "blue"
ARR = ["blue", "black", "brown"]
OBJ = {"R": 100, "G": 200, "B": 150}
ARR_S = {"type": "array", "items": {"type": "string"}}
OBJ_S = {"type": "object", "additionalProperties": {"type": "integer"}}


def _schema(value: Any) -> dict[str, Any]:
    return (
        ARR_S
        if isinstance(value, list)
        else OBJ_S
        if isinstance(value, dict)
        else {"type": "string"}
    )


def _send(f: Any, tool: Any, args: dict[str, Any], **service: Any) -> httpx.Request:
    rec = f.Recorder()
    with Executor(f.catalog(tool, **service), ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(ToolCall(tool.name, args))
    assert result.ok, result.content
    assert len(rec.requests) == 1
    last: httpx.Request = rec.last
    return last


# OpenAPI 3.1 §4.8.12.4 style examples, for the parameter "color".
PATH_CASES = [
    ("simple", False, PRIM, "blue"),
    ("simple", False, ARR, "blue,black,brown"),
    ("simple", False, OBJ, "R,100,G,200,B,150"),
    ("simple", True, ARR, "blue,black,brown"),
    ("simple", True, OBJ, "R=100,G=200,B=150"),
    ("label", False, PRIM, ".blue"),
    ("label", False, ARR, ".blue,black,brown"),
    ("label", False, OBJ, ".R,100,G,200,B,150"),
    ("label", True, ARR, ".blue.black.brown"),
    ("label", True, OBJ, ".R=100.G=200.B=150"),
    ("matrix", False, PRIM, ";color=blue"),
    ("matrix", False, ARR, ";color=blue,black,brown"),
    ("matrix", False, OBJ, ";color=R,100,G,200,B,150"),
    ("matrix", True, ARR, ";color=blue;color=black;color=brown"),
    ("matrix", True, OBJ, ";R=100;G=200;B=150"),
    (None, None, PRIM, "blue"),
]


@pytest.mark.parametrize("style,explode,value,expected", PATH_CASES)
def test_path_styles(
    f: Any, style: str | None, explode: bool | None, value: Any, expected: str
) -> None:
    tool = f.tool(
        path="/paint/{color}",
        params=(f.p("color", "path", _schema(value), required=True, style=style, explode=explode),),
    )
    request = _send(f, tool, {"color": value})
    assert request.url.raw_path.decode() == f"/v1/paint/{expected}"


QUERY_CASES = [
    ("form", True, PRIM, "color=blue"),
    ("form", True, ARR, "color=blue&color=black&color=brown"),
    ("form", True, OBJ, "R=100&G=200&B=150"),
    ("form", False, ARR, "color=blue,black,brown"),
    ("form", False, OBJ, "color=R,100,G,200,B,150"),
    ("spaceDelimited", False, ARR, "color=blue%20black%20brown"),
    ("spaceDelimited", False, OBJ, "color=R%20100%20G%20200%20B%20150"),
    ("spaceDelimited", True, ARR, "color=blue&color=black&color=brown"),
    ("pipeDelimited", False, ARR, "color=blue|black|brown"),
    ("pipeDelimited", False, OBJ, "color=R|100|G|200|B|150"),
    ("pipeDelimited", True, ARR, "color=blue&color=black&color=brown"),
    ("deepObject", True, OBJ, "color[R]=100&color[G]=200&color[B]=150"),
    (None, None, ARR, "color=blue&color=black&color=brown"),
]


@pytest.mark.parametrize("style,explode,value,expected", QUERY_CASES)
def test_query_styles(
    f: Any, style: str | None, explode: bool | None, value: Any, expected: str
) -> None:
    tool = f.tool(params=(f.p("color", "query", _schema(value), style=style, explode=explode),))
    request = _send(f, tool, {"color": value})
    assert request.url.query.decode() == expected


def test_query_values_are_percent_encoded_unless_allow_reserved(f: Any) -> None:
    value = "a b&c=d/e?f#g"
    plain = f.tool(params=(f.p("q", "query"),))
    assert _send(f, plain, {"q": value}).url.query.decode() == "q=a%20b%26c%3Dd%2Fe%3Ff%23g"
    reserved = f.tool(params=(f.p("q", "query", allow_reserved=True),))
    # "&" and "#" stay encoded even then: they would add a parameter or start a fragment.
    assert _send(f, reserved, {"q": value}).url.query.decode() == "q=a%20b%26c=d/e?f%23g"


def test_primitive_types_serialize_as_json_text(f: Any) -> None:
    tool = f.tool(
        params=(
            f.p("b", "query", {"type": "boolean"}),
            f.p("i", "query", {"type": "integer"}),
            f.p("n", "query", {"type": "number"}),
            f.p("z", "query", {"type": ["string", "null"]}),
        )
    )
    request = _send(f, tool, {"b": True, "i": 3, "n": 1.5, "z": None})
    assert request.url.query.decode() == "b=true&i=3&n=1.5"


def test_content_typed_parameter_is_json(f: Any) -> None:
    tool = f.tool(params=(f.p("filter", "query", OBJ_S, content_type="application/json"),))
    request = _send(f, tool, {"filter": {"a": 1}})
    assert request.url.params["filter"] == '{"a":1}'


def test_wire_names_and_headers_and_cookies(f: Any) -> None:
    tool = f.tool(
        params=(
            f.p("trace", "header", wire="X-Trace-Id"),
            f.p("tags", "header", ARR_S, wire="X-Tags"),
            f.p("rgb", "header", OBJ_S, wire="X-Rgb", explode=True),
            f.p("session", "cookie", wire="sid"),
            f.p("colors", "cookie", ARR_S),
            f.p("page", "query", {"type": "integer"}, wire="page[number]"),
        )
    )
    request = _send(
        f,
        tool,
        {"trace": "abc", "tags": ARR, "rgb": OBJ, "session": "s 1;x", "colors": ARR, "page": 2},
    )
    assert request.headers["x-trace-id"] == "abc"
    assert request.headers["x-tags"] == "blue,black,brown"
    assert request.headers["x-rgb"] == "R=100,G=200,B=150"
    # a ";" or space in a cookie value is encoded: it cannot start another cookie
    assert request.headers["cookie"] == "sid=s%201%3Bx; colors=blue,black,brown"
    assert request.url.query.decode() == "page[number]=2"


def test_constant_headers_service_then_tool(f: Any) -> None:
    from toolcat.catalog import FrozenDict

    tool = f.tool(headers=FrozenDict({"x-team": "tool", "X-Tool": "1"}))
    request = _send(f, tool, {}, headers=FrozenDict({"X-Team": "svc", "X-Env": "${STAGE:-dev}"}))
    assert request.headers["x-team"] == "tool"
    assert request.headers.get_list("x-team") == ["tool"]
    assert request.headers["x-env"] == "dev"


def test_absent_optional_arguments_are_left_out(f: Any) -> None:
    tool = f.tool(params=(f.p("a", "query"), f.p("h", "header", wire="X-H"), f.p("c", "cookie")))
    request = _send(f, tool, {})
    assert request.url.query == b""
    assert "x-h" not in request.headers and "cookie" not in request.headers


def test_base_url_query_is_kept(f: Any) -> None:
    tool = f.tool(params=(f.p("q", "query"),))
    request = _send(f, tool, {"q": "1"}, base_url="http://api.test/v1/?format=json")
    assert request.url.query.decode() == "format=json&q=1"
    assert request.url.path == "/v1/items"


# -- bodies -----------------------------------------------------------------------------------


def test_json_body_from_bindings(f: Any) -> None:
    tool = f.tool(
        method="POST",
        params=(
            f.p("name", "body", required=True),
            f.p("qty", "body", {"type": "integer"}, wire="quantity"),
            f.p("note", "body"),
        ),
        body=BodySpec(),
    )
    request = _send(f, tool, {"name": "x", "qty": 2})
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {"name": "x", "quantity": 2}


def test_body_argument_non_object(f: Any) -> None:
    tool = f.tool(
        method="PUT",
        params=(f.p("items", "body", ARR_S, required=True),),
        body=BodySpec(media_type="application/merge-patch+json", argument="items"),
    )
    request = _send(f, tool, {"items": ["a"]})
    assert request.headers["content-type"] == "application/merge-patch+json"
    assert json.loads(request.content) == ["a"]


def test_body_template_keeps_native_types_and_drops_absent(f: Any) -> None:
    tool = f.tool(
        method="POST",
        params=(
            f.p("customer_id", "body", required=True),
            f.p("items", "body", {"type": "array"}, required=True),
            f.p("count", "body", {"type": "integer"}),
            f.p("note", "body"),
        ),
        body=BodySpec(
            template={
                "customer": "{{ customer_id }}",
                "lines": "{{ items }}",
                "n": "{{ count }}",
                "note": "{{ note }}",
                "label": "order for {{ customer_id }}",
                "fixed": 7,
                "nested": {"first": "{{ items[0] }}", "gone": "{{ note | upper }}"},
            }
        ),
    )
    request = _send(f, tool, {"customer_id": "c1", "items": [{"sku": "a", "qty": 1}], "count": 0})
    assert json.loads(request.content) == {
        "customer": "c1",
        "lines": [{"sku": "a", "qty": 1}],
        "n": 0,
        "label": "order for c1",
        "fixed": 7,
        "nested": {"first": {"sku": "a", "qty": 1}},
    }


def test_body_template_is_sandboxed(f: Any) -> None:
    tool = f.tool(
        method="POST",
        params=(f.p("x", "body", required=True),),
        body=BodySpec(template={"v": "{{ x.__class__.__mro__ }}"}),
    )
    rec = f.Recorder(f.forbid)
    with Executor(f.catalog(tool), ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(ToolCall("t", {"x": "a"}))
    assert not result.ok and not rec.requests


def test_form_body(f: Any) -> None:
    tool = f.tool(
        method="POST",
        params=(
            f.p("a", "body"),
            f.p("tags", "body", ARR_S),
            f.p("n", "body", {"type": "integer"}),
        ),
        body=BodySpec(media_type="application/x-www-form-urlencoded"),
    )
    request = _send(f, tool, {"a": "x y&z", "tags": ["1", "2"], "n": 5})
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.content == b"a=x+y%26z&tags=1&tags=2&n=5"


def test_multipart_body_with_files(f: Any) -> None:
    file_schema = {"type": ["string", "object"]}
    tool = f.tool(
        method="POST",
        params=(
            f.p("title", "body"),
            f.p("doc", "body", file_schema),
            f.p("img", "body", file_schema),
        ),
        body=BodySpec(media_type="multipart/form-data", binary_fields=("doc", "img")),
    )
    png = b"\x89PNG\r\n\x1a\n\x00\x01"
    request = _send(
        f,
        tool,
        {
            "title": "t1",
            "doc": "plain text",
            "img": {
                "filename": "a.png",
                "content_base64": base64.b64encode(png).decode(),
                "content_type": "image/png",
            },
        },
    )
    ctype = request.headers["content-type"]
    assert ctype.startswith("multipart/form-data; boundary=")
    content = request.content
    assert b'name="title"\r\n\r\nt1\r\n' in content
    assert b'name="doc"; filename="doc"' in content and b"plain text" in content
    assert b'name="img"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n' + png in content


def test_multipart_bad_base64_is_an_argument_error(f: Any) -> None:
    tool = f.tool(
        method="POST",
        params=(f.p("doc", "body", {"type": "object"}),),
        body=BodySpec(media_type="multipart/form-data", binary_fields=("doc",)),
    )
    rec = f.Recorder(f.forbid)
    with Executor(f.catalog(tool), ExecutorSettings(client=rec.client(), env={})) as ex:
        result = ex.execute(ToolCall("t", {"doc": {"content_base64": "not base64!"}}))
    assert result.error is not None and result.error.type == "invalid_arguments"
    assert result.error.loc == ("doc", "content_base64")


def test_text_and_octet_stream_bodies(f: Any) -> None:
    text = f.tool(
        method="POST",
        params=(f.p("text", "body", required=True),),
        body=BodySpec(media_type="text/plain", argument="text"),
    )
    request = _send(f, text, {"text": "héllo"})
    assert request.content == "héllo".encode() and request.headers["content-type"] == "text/plain"
    blob = f.tool(
        method="PUT",
        params=(f.p("data", "body", required=True),),
        body=BodySpec(media_type="application/octet-stream", argument="data"),
    )
    request = _send(f, blob, {"data": base64.b64encode(b"\x00\xff").decode()})
    assert request.content == b"\x00\xff"


def test_optional_body_absent_sends_no_body(f: Any) -> None:
    tool = f.tool(method="POST", params=(f.p("a", "body"),), body=BodySpec(required=False))
    request = _send(f, tool, {})
    assert request.content == b"" and "content-type" not in request.headers


# -- dry run ------------------------------------------------------------------------------------


def test_prepare_sends_nothing_and_masks_secrets(f: Any) -> None:
    from toolcat.catalog import ApiKeyAuth, FrozenDict

    tool = f.tool(method="POST", params=(f.p("q", "query"), f.p("name", "body")), body=BodySpec())
    cat = f.catalog(
        tool,
        auth=ApiKeyAuth("query", "api_key", "${KEY}"),
        headers=FrozenDict({"X-Session": "${SESSION}"}),
    )
    rec = f.Recorder(f.forbid)
    env = {"KEY": "k-123456", "SESSION": "sess-98765"}
    with Executor(cat, ExecutorSettings(client=rec.client(), env=env)) as ex:
        prepared = ex.prepare(ToolCall("t", {"q": "x", "name": "n"}))
    assert isinstance(prepared, PreparedRequest)
    text = json.dumps(prepared.to_dict())
    assert "k-123456" not in text and "sess-98765" not in text
    assert prepared.url == "http://api.test/v1/items?q=x&api_key=***"
    assert prepared.headers["X-Session"] == "***"
    assert prepared.body == {"name": "n"}
    assert prepared.method == "POST"


def test_non_ascii_header_values_are_sent_as_utf8(f: Any) -> None:
    tool = f.tool(params=(f.p("note", "header", wire="X-Note"),))
    request = _send(f, tool, {"note": "héllo ☃"})
    assert request.headers.raw[-1] == (b"X-Note", "héllo ☃".encode())
    rec = f.Recorder(f.forbid)
    with Executor(f.catalog(tool), ExecutorSettings(client=rec.client(), env={})) as ex:
        prepared = ex.prepare(ToolCall("t", {"note": "héllo"}))
    assert isinstance(prepared, PreparedRequest) and prepared.headers["X-Note"] == "héllo"


def test_form_encoding_per_property(f: Any) -> None:
    """OpenAPI ``encoding`` of form properties (Stripe's deepObject fields) is honoured."""
    tool = f.tool(
        method="POST",
        params=(
            f.p("name", "body"),
            f.p("address", "body", OBJ_S, style="deepObject", explode=True),
            f.p("expand", "body", ARR_S, style="deepObject", explode=True),
            f.p("ids", "body", ARR_S, style="pipeDelimited", explode=False),
            f.p("meta", "body", {"type": "object"}, content_type="application/json"),
        ),
        body=BodySpec(media_type="application/x-www-form-urlencoded"),
    )
    request = _send(
        f,
        tool,
        {
            "name": "a b",
            "address": {"R": 1},
            "expand": ["x", "y"],
            "ids": ["1", "2"],
            "meta": {"k": 1},
        },
    )
    assert request.content.decode() == (
        "name=a+b&address[R]=1&expand[]=x&expand[]=y&ids=1|2&meta=%7B%22k%22%3A1%7D"
    )


def test_multipart_part_with_its_own_content_type(f: Any) -> None:
    tool = f.tool(
        method="POST",
        params=(
            f.p("title", "body"),
            f.p("meta", "body", {"type": "object"}, content_type="application/json"),
        ),
        body=BodySpec(media_type="multipart/form-data"),
    )
    request = _send(f, tool, {"title": "t", "meta": {"k": [1, 2]}})
    assert (
        b'name="meta"\r\nContent-Type: application/json\r\n\r\n{"k":[1,2]}\r\n' in request.content
    )
    assert b'name="title"\r\n\r\nt\r\n' in request.content


def test_deep_object_nesting(f: Any) -> None:
    tool = f.tool(params=(f.p("q", "query", {"type": "object"}, style="deepObject", explode=True),))
    value = {"a": {"b": 1}, "tags": ["x"], "lines": [{"sku": "s", "n": 2}], "none": None}
    request = _send(f, tool, {"q": value})
    assert request.url.query.decode() == "q[a][b]=1&q[tags][]=x&q[lines][0][sku]=s&q[lines][0][n]=2"
