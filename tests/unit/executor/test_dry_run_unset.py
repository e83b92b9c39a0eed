"""A dry run with a secret unset shows the request, the secret's place masked; a call refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from toolcat.catalog import (
    ApiKeyAuth,
    BasicAuth,
    BearerAuth,
    OAuth2ClientCredentials,
    TokenExchange,
)
from toolcat.executor import Executor, ExecutorSettings, PreparedRequest, ToolCall

OAUTH = OAuth2ClientCredentials("${TOKEN_URL}", "${CLIENT_ID}", "${CLIENT_SECRET}", ())
EXCHANGE = TokenExchange("https://sts.test/token", "${CLIENT_ID}", "${CLIENT_SECRET}")


@pytest.mark.parametrize(
    ("auth", "headers", "url", "unset"),
    [
        (BearerAuth("${T}"), {"Authorization": "Bearer ***"}, "", ["T"]),
        (BasicAuth("${USER}", "${PASS}"), {"Authorization": "Basic ***"}, "", ["USER", "PASS"]),
        (BasicAuth("me", "${PASS}"), {"Authorization": "Basic ***"}, "", ["PASS"]),
        (ApiKeyAuth("header", "X-Key", "${T}"), {"X-Key": "***"}, "", ["T"]),
        (ApiKeyAuth("header", "X-Plain", "${T}"), {"X-Plain": "***"}, "", ["T"]),
        (ApiKeyAuth("query", "k", "${T}"), {}, "?k=***", ["T"]),
        (ApiKeyAuth("cookie", "k", "${T}"), {"Cookie": "***"}, "", ["T"]),
        (OAUTH, {"Authorization": "Bearer ***"}, "", ["TOKEN_URL", "CLIENT_ID", "CLIENT_SECRET"]),
    ],
)
def test_the_dry_run_shows_the_request_and_names_what_is_unset(
    f: Any, auth: Any, headers: dict[str, str], url: str, unset: list[str]
) -> None:
    with Executor(f.catalog(f.tool(), auth=auth), ExecutorSettings(env={})) as ex:
        shown = ex.prepare(ToolCall("t", {}))
    assert isinstance(shown, PreparedRequest), shown
    assert shown.url == f"{f.BASE}/items{url}" and dict(shown.headers) == headers
    assert list(shown.unset) == unset and shown.to_dict()["unset"] == unset
    assert "${" not in json.dumps(shown.to_dict())  # the stand-in is masked as its value


def test_a_token_exchange_with_its_client_unset_shows_the_request(f: Any) -> None:
    catalog = f.catalog(f.tool(), base_url="https://api.test/v1", auth=EXCHANGE)
    with Executor(catalog, ExecutorSettings(env={})) as ex:
        shown = ex.prepare(ToolCall("t", {}))  # no caller's token: a dry run needs none
    assert isinstance(shown, PreparedRequest), shown
    assert dict(shown.headers) == {"Authorization": "Bearer ***"}
    assert shown.unset == ("CLIENT_ID", "CLIENT_SECRET")


def test_a_header_variable_stands_masked_and_a_set_or_defaulted_one_is_used(f: Any) -> None:
    catalog = f.catalog(
        f.tool(),
        auth=BearerAuth("${T:-fallback-token}"),
        headers={"X-Team": "${TEAM}", "X-Region": "${REGION:-eu-west}", "X-Set": "${SET}"},
    )
    with Executor(catalog, ExecutorSettings(env={"SET": "set-value"})) as ex:
        shown = ex.prepare(ToolCall("t", {}))
    assert isinstance(shown, PreparedRequest), shown
    assert shown.unset == ("TEAM",)  # a default is no missing variable
    assert dict(shown.headers) == {
        "X-Team": "***",
        "X-Region": "***",  # a header with a variable is a secret of the call
        "X-Set": "***",
        "Authorization": "Bearer ***",
    }


def test_everything_set_means_nothing_unset(f: Any) -> None:
    with Executor(
        f.catalog(f.tool(), auth=BearerAuth("${T}")), ExecutorSettings(env={"T": "tkn-1"})
    ) as ex:
        shown = ex.prepare(ToolCall("t", {}))
    assert isinstance(shown, PreparedRequest) and shown.unset == ()
    assert "unset" not in shown.to_dict()


def test_an_unset_base_url_still_stops_the_dry_run(f: Any) -> None:
    with Executor(f.catalog(f.tool(), base_url="${API_URL}"), ExecutorSettings(env={})) as ex:
        shown = ex.prepare(ToolCall("t", {}))
    assert not isinstance(shown, PreparedRequest)
    assert shown.error is not None and shown.error.type == "missing_variable"
    assert "API_URL" in shown.error.msg


def test_a_real_call_with_the_secret_unset_still_refuses_and_sends_nothing(f: Any) -> None:
    rec = f.Recorder()
    with Executor(
        f.catalog(f.tool(), auth=BearerAuth("${T}")), ExecutorSettings(client=rec.client(), env={})
    ) as ex:
        result = ex.execute(ToolCall("t", {}))
    assert result.error is not None and result.error.type == "missing_variable"
    assert result.error.msg.startswith("environment variable T is not set")
    assert rec.requests == []
