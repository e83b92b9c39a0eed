"""`toolcat import mcp`'s policy over a listing: names, selection, rules, overrides, confirm."""

from __future__ import annotations

from typing import Any

import pytest
from toolcat.catalog import mcp_pin
from toolcat.loader.mcp import (
    McpOverride,
    McpPolicy,
    McpPolicyError,
    McpRule,
    McpSelection,
    effective_hints,
    import_mcp_tools,
    parse_mcp_hint,
)
from toolcat.loader.mcp._policy import policy_from_document

READ = {"readOnlyHint": True}
LISTING: list[dict[str, Any]] = [
    {
        "name": "read_file",
        "description": "Read a file.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Where."},
                "encoding": {"type": "string", "default": "utf-8"},
                "limit": {"type": "integer", "description": "At most."},
            },
            "required": ["path"],
        },
        "annotations": READ,
    },
    {
        "name": "write_file",
        "description": "Write a file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
            "required": ["path", "text"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
    },
    {"name": "delete_file", "inputSchema": {"type": "object"}},
    {
        "name": "stats",
        "title": "Statistics",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
]


def _names(policy: McpPolicy | None = None) -> list[str]:
    return [t["name"] for t in import_mcp_tools("fs", LISTING, policy).tools]


def _tool(name: str, policy: McpPolicy | None = None) -> dict[str, Any]:
    result = import_mcp_tools("fs", LISTING, policy)
    return next(t for t in result.tools if t["mcp"]["tool"] == name)


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, (False, True, False, True)),
        ({"readOnlyHint": True}, (True, False, True, True)),
        ({"destructiveHint": False}, (False, False, False, True)),
        ({"idempotentHint": True, "openWorldHint": False}, (False, True, True, False)),
        ({"readOnlyHint": True, "destructiveHint": True}, (True, False, True, True)),
    ],
)
def test_hints_take_mcp_defaults(annotations: Any, expected: tuple[bool, ...]) -> None:
    hints = effective_hints(annotations)
    got = tuple(
        hints[h] for h in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    )
    assert got == expected


def test_every_tool_is_pinned_to_its_listing_and_prefixed_with_the_server() -> None:
    result = import_mcp_tools("fs", LISTING)
    assert [t["name"] for t in result.tools] == [
        "fs_read_file",
        "fs_write_file",
        "fs_delete_file",
        "fs_stats",
    ]
    for tool, listed in zip(result.tools, LISTING, strict=True):
        assert tool["mcp"] == {"server": "fs", "tool": listed["name"], "pin": mcp_pin(listed)}
    assert [str(r) for r in result.report][0] == "imported read_file as fs_read_file"


def test_arguments_keep_their_schema_and_say_which_are_optional() -> None:
    params = _tool("read_file")["parameters"]
    assert params["path"] == {"type": "string", "description": "Where."}
    assert params["limit"] == {"type": "integer", "description": "At most.", "required": False}
    # a default makes it optional already; the server described it not: one is written
    assert params["encoding"] == {
        "type": "string",
        "default": "utf-8",
        "description": "The 'encoding' argument.",
    }


def test_output_schema_title_and_annotations_are_written() -> None:
    stats = _tool("stats")
    assert stats["output_schema"] == LISTING[3]["outputSchema"]
    assert stats["annotations"] == {"title": "Statistics", "read_only": True, "open_world": False}
    assert stats["description"] == "Statistics"  # no description: the title


@pytest.mark.parametrize(
    ("confirm", "expected"),
    [
        ("not-read-only", [False, True, True, False]),
        ("destructive", [False, False, True, False]),
        ("all", [True, True, True, True]),
        ("none", [False, False, False, False]),
    ],
)
def test_confirm_policy(confirm: Any, expected: list[bool]) -> None:
    result = import_mcp_tools("fs", LISTING, McpPolicy(confirm=confirm))
    assert [t["confirm"] for t in result.tools] == expected


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (McpPolicy(prefix=""), ["read_file", "write_file", "delete_file", "stats"]),
        (McpPolicy(prefix="f-"), ["f-read_file", "f-write_file", "f-delete_file", "f-stats"]),
        (
            McpPolicy(include=McpSelection(tools=("*_file",))),
            ["fs_read_file", "fs_write_file", "fs_delete_file"],
        ),
        (
            McpPolicy(exclude=McpSelection(tools=("delete*", "stats"))),
            ["fs_read_file", "fs_write_file"],
        ),
        (
            McpPolicy(exclude=McpSelection(annotations=(("destructiveHint", True),))),
            ["fs_read_file", "fs_write_file", "fs_stats"],
        ),
        (
            McpPolicy(include=McpSelection(annotations=(("readOnlyHint", True),))),
            ["fs_read_file", "fs_stats"],
        ),
        (
            McpPolicy(
                include=McpSelection(tools=("*_file",), annotations=(("readOnlyHint", True),))
            ),
            ["fs_read_file"],
        ),
        (
            McpPolicy(rules=(McpRule(match=McpSelection(tools=("stats",)), exclude=True),)),
            ["fs_read_file", "fs_write_file", "fs_delete_file"],
        ),
    ],
)
def test_selection(policy: McpPolicy, expected: list[str]) -> None:
    assert _names(policy) == expected


def test_left_out_tools_are_reported_with_the_reason() -> None:
    policy = McpPolicy(exclude=McpSelection(tools=("delete*",)))
    report = import_mcp_tools("fs", LISTING, policy).report
    assert str(report[2]) == "skipped  delete_file: excluded (delete*)"


def test_rules_apply_in_order_and_overrides_win() -> None:
    writes = McpRule(annotations=(("readOnlyHint", False),), confirm=True, tags=("writes",))
    relax = McpRule(match=McpSelection(tools=("write_*",)), confirm=False, timeout=60.0)
    policy = McpPolicy(
        rules=(writes, relax, McpRule(description_prefix="FS:", toolsets=("fs",))),
        tools={"delete_file": McpOverride(name="rm", description="Delete one file.", confirm=True)},
    )
    result = import_mcp_tools("fs", LISTING, policy)
    by = {t["mcp"]["tool"]: t for t in result.tools}
    assert by["write_file"]["confirm"] is False and by["write_file"]["tags"] == ["writes"]
    assert by["write_file"]["mcp"]["timeout"] == 60.0
    assert by["write_file"]["description"] == "FS: Write a file."
    assert by["delete_file"]["name"] == "rm"
    assert by["delete_file"]["description"] == "Delete one file."
    assert result.toolsets == {"fs": ["fs_read_file", "fs_write_file", "rm", "fs_stats"]}


def test_renamed_hidden_and_fixed_arguments() -> None:
    override = McpOverride(
        rename={"path": "file"},
        hide=("encoding",),
        fixed={"limit": 100},
        parameters={"file": {"description": "The file to read.", "pattern": "^/"}},
    )
    tool = _tool("read_file", McpPolicy(tools={"read_file": override}))
    assert set(tool["parameters"]) == {"file"}
    assert tool["parameters"]["file"] == {
        "type": "string",
        "description": "The file to read.",
        "pattern": "^/",
    }
    assert tool["mcp"]["arguments"] == {"file": "path"}
    assert tool["mcp"]["fixed"] == {"limit": 100}


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (
            McpPolicy(tools={"read_fil": McpOverride()}),
            "tools.read_fil: the server lists no tool 'read_fil'; did you mean 'read_file'?",
        ),
        (
            McpPolicy(tools={"read_file": McpOverride(hide=("pth",))}),
            "tools.read_file.hide: read_file has no argument 'pth'; did you mean 'path'?",
        ),
        (
            McpPolicy(tools={"read_file": McpOverride(hide=("path",))}),
            "tools.read_file.hide: 'path' is required by read_file; give it a value under "
            "fixed instead",
        ),
        (
            McpPolicy(tools={"read_file": McpOverride(rename={"path": "limit"})}),
            "tools.read_file.rename: two arguments would be named 'limit'",
        ),
        (
            McpPolicy(tools={"stats": McpOverride(name="fs_read_file")}),
            "tools.stats.name: 'fs_read_file' is already a tool's name",
        ),
    ],
)
def test_policy_mistakes_are_one_line(policy: McpPolicy, message: str) -> None:
    with pytest.raises(McpPolicyError) as err:
        import_mcp_tools("fs", LISTING, policy)
    assert str(err.value) == message


def test_a_rule_that_matches_nothing_is_a_warning() -> None:
    policy = McpPolicy(rules=(McpRule(match=McpSelection(tools=("nothing*",)), confirm=True),))
    assert import_mcp_tools("fs", LISTING, policy).warnings == [
        "rules[0] matches no tool the server lists"
    ]


def test_descriptions_are_cut_to_the_budget() -> None:
    long = [{"name": "t", "description": "word " * 100, "inputSchema": {}}]
    text = import_mcp_tools("s", long, description_max=40).tools[0]["description"]
    assert len(text) <= 40 and text.endswith("…")


def test_unsafe_names_are_made_provider_safe_and_unique() -> None:
    listing = [{"name": "a.b", "inputSchema": {}}, {"name": "a/b", "inputSchema": {}}]
    names = [t["name"] for t in import_mcp_tools("s", listing).tools]
    assert names[0] == "s_a_b" and names[1] != names[0] and names[1].startswith("s_a_b")


def test_the_policy_file_reads_into_the_same_policy() -> None:
    policy = policy_from_document(
        {
            "prefix": "",
            "exclude": {"annotations": ["destructiveHint"]},
            "confirm": "all",
            "rules": [{"match": {"annotations": {"readOnlyHint": False}}, "tags": ["w"]}],
            "tools": {"read_file": {"rename": {"path": "file"}, "fixed": {"limit": 5}}},
        },
        "policy.yaml",
    )
    assert policy.exclude == McpSelection(annotations=(("destructiveHint", True),))
    assert policy.rules[0].annotations == (("readOnlyHint", False),)
    assert _names(policy) == ["read_file", "write_file", "stats"]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"prefx": "a"}, "policy.yaml: prefx: Extra inputs are not permitted"),
        ({"confirm": "some"}, "policy.yaml: confirm: Input should be"),
        ({"tools": {"t": {"hidden": ["a"]}}}, "policy.yaml: tools.t.hidden: Extra inputs"),
    ],
)
def test_policy_file_mistakes_name_where(document: Any, message: str) -> None:
    with pytest.raises(McpPolicyError) as err:
        policy_from_document(document, "policy.yaml")
    assert str(err.value).startswith(message)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("readOnlyHint", ("readOnlyHint", True)), ("openWorldHint=false", ("openWorldHint", False))],
)
def test_hint_flags(text: str, expected: tuple[str, bool]) -> None:
    assert parse_mcp_hint(text) == expected


def test_an_unknown_hint_is_refused() -> None:
    with pytest.raises(McpPolicyError, match="readOnlyHint, destructiveHint"):
        parse_mcp_hint("readonly")


def test_an_include_glob_that_matches_nothing_is_a_typo() -> None:
    with pytest.raises(McpPolicyError) as err:
        import_mcp_tools("fs", LISTING, McpPolicy(include=McpSelection(tools=("read_fil",))))
    assert str(err.value) == (
        "include 'read_fil' matches no tool the server lists; did you mean 'read_file'?"
    )
    policy = McpPolicy(exclude=McpSelection(tools=("nothing*",)))
    assert import_mcp_tools("fs", LISTING, policy).warnings == [
        "exclude 'nothing*' matches no tool the server lists"
    ]


def test_a_schema_over_the_budget_is_noted_and_written_whole() -> None:
    props = {f"p{i}": {"type": "string", "description": "x" * 100} for i in range(100)}
    listing = [{"name": "big", "description": "Big.", "inputSchema": {"properties": props}}]
    result = import_mcp_tools("s", listing, schema_budget=8000)
    assert len(result.tools[0]["parameters"]) == 100
    assert any("over the schema budget (8000 characters)" in n for n in result.report[0].notes)


def test_the_report_notes_what_the_model_loses_and_only_that() -> None:
    closed = {"type": "object", "properties": {"q": {"type": "string"}}}
    listing = [
        {
            "name": "closed",
            "description": "Closed.",
            "inputSchema": {**closed, "additionalProperties": False},
        },
        {
            "name": "open",
            "description": "Open.",
            "inputSchema": {**closed, "additionalProperties": True},
        },
        {
            "name": "long",
            "description": "Word " * 400,
            "inputSchema": {
                "type": "object",
                "properties": {"q": {"type": "string", "description": "Q " * 900}},
            },
        },
    ]
    result = import_mcp_tools("fs", listing, description_max=1024)
    notes = {r.tool: r.notes for r in result.report}
    assert not any("additionalProperties" in n for n in notes["closed"])  # the catalog's own
    assert any(
        "takes arguments it does not list (additionalProperties)" in n for n in notes["open"]
    )
    assert "its description: cut from 1,999 to " in "\n".join(notes["long"])
    assert "argument q: cut from 1,799 to " in "\n".join(notes["long"])
