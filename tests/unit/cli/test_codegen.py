"""`toolcat codegen`: names made legal, schemas made types, files written once and again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog import Catalog, HttpCommand, McpCommand, Service, ToolDefinition
from toolcat.catalog._frozen import freeze
from toolcat.cli._app import main
from toolcat.cli._codegen import generate
from toolcat.cli._codegen._names import Namer, identifier

REPO = Path(__file__).resolve().parents[3]
PIN = "sha256:" + "0" * 64


def tool(name: str, schema: dict[str, Any], output: dict[str, Any] | None = None) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description=f'The {name} tool. Ends with a quote: """ and a backslash \\ */',
        input_schema=freeze(schema),
        command=HttpCommand(service="shop-api", method="GET", path="/"),
        output_schema=None if output is None else freeze(output),
    )


NODE = {
    "type": "object",
    "properties": {
        "value": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
    },
    "required": ["value"],
}
#: the tools that exercise every naming and schema rule: names that are not identifiers
#: or are keywords, two names equal once sanitised, recursive and oneOf schemas
TRICKY = [
    tool("get-item", {"type": "object", "properties": {"x-request-id": {"type": "string"}}}),
    tool(
        "get_item",
        {"type": "object", "properties": {"from": {"type": "integer"}}, "required": ["from"]},
    ),
    tool(
        "class",
        {
            "type": "object",
            "properties": {"_private": {"type": "boolean"}, "class": {"type": "string"}},
        },
    ),
    tool("2fa-check", {"type": "object", "properties": {}}),
    tool(
        "delete", {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    ),
    tool(  # builtins the generated code uses: as names they would hide list[str]
        "list",
        {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string"}}}},
    ),
    tool(
        "tree",
        {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "required": ["root"],
            "$defs": {"Node": NODE},
        },
        {
            "type": "object",
            "properties": {"depth": {"type": "integer"}, "node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": NODE},
        },
    ),
    tool(
        "shape",
        {
            "type": "object",
            "properties": {
                "shape": {
                    "oneOf": [
                        {
                            "type": "object",
                            "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                            "required": ["kind", "r"],
                        },
                        {
                            "type": "object",
                            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                            "required": ["kind"],
                        },
                        {"type": "string", "enum": ["unit", "none"]},
                    ]
                },
                "tags": {"type": ["array", "null"], "items": {"type": "string"}},
                "meta": {"type": "object", "additionalProperties": {"type": "integer"}},
                "json": {"$ref": "#/$defs/Json"},
            },
            "$defs": {
                "Json": {
                    "anyOf": [
                        {"type": "string"},
                        {"type": "array", "items": {"$ref": "#/$defs/Json"}},
                    ]
                }
            },
        },
    ),
]


def tricky_catalog() -> Catalog:
    return Catalog(TRICKY, [Service(name="shop-api", base_url="http://127.0.0.1:1")])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("get_item", "get_item"),
        ("get-item", "get_item"),
        ("class", "class_"),
        ("from", "from_"),
        ("delete", "delete_"),  # reserved in TypeScript
        ("interface", "interface_"),
        ("list", "list_"),  # a builtin the generated annotations use
        ("None", "None_"),
        ("2fa", "t_2fa"),
        ("_private", "private_"),  # reserved in TypeScript too
        ("_secret", "secret"),
        ("a.b@c", "a_b_c"),
        ("café", "caf"),
        ("---", "tool"),
    ],
)
def test_identifiers(name: str, expected: str) -> None:
    assert identifier(name) == expected


def test_names_equal_once_sanitised_get_a_number() -> None:
    namer = Namer(frozenset({"index"}))
    assert [namer.claim(n) for n in ["get-item", "get_item", "Get_Item", "index"]] == [
        "get_item",
        "get_item_2",
        "Get_Item_3",  # case-blind: modules are files, and some disks fold case
        "index_2",
    ]


def test_the_python_package_of_the_tricky_tools() -> None:
    files = generate(tricky_catalog(), "python", "api")
    module = files["api/shop_api.py"]
    for line in [
        "async def get_item(args: GetItemInput | None = None) -> _t.Any:",
        "async def get_item_2(args: GetItem2Input) -> _t.Any:",
        "async def class_(args: ClassInput | None = None) -> _t.Any:",
        "async def t_2fa_check(args: dict[str, _t.Any] | None = None) -> _t.Any:",
        "async def delete_(args: DeleteInput) -> _t.Any:",
        "async def list_(args: ListInput | None = None) -> _t.Any:",
        'ListInput = _t.TypedDict("ListInput", {"list": "_t.NotRequired[list[str]]"})',
        'GetItemInput = _t.TypedDict("GetItemInput", {"x-request-id": "_t.NotRequired[str]"})',
        'GetItem2Input = _t.TypedDict("GetItem2Input", {"from": "int"})',
        "    children: _t.NotRequired[list[Node]]",  # recursive: the struct names itself
        'Json: _t.TypeAlias = "str | list[Json]"',
        "    shape: _t.NotRequired[ShapeInputShape1 | ShapeInputShape2"
        " | _t.Literal['unit', 'none']]",
        "    tags: _t.NotRequired[list[str] | None]",
        "    meta: _t.NotRequired[dict[str, int]]",
        "    kind: _t.Literal['circle']",
        "async def tree(args: TreeInput) -> TreeOutput:",
        '    return _t.cast("TreeOutput", await _call("tree", args))',
        '    return await _call("get-item", args)',
        '    """The 2fa-check tool. Ends with a quote: \\"\\"\\" and a backslash \\\\ */"""',
    ]:
        assert line in module.splitlines(), line
    assert module.count("class Node(") == 1  # both tools' $defs/Node: one name each...
    assert "class Node_2(" in module  # ...in one module: the second is numbered
    assert files["api/__init__.py"].count('"2fa-check": "shop_api.t_2fa_check"') == 1
    compile(module, "shop_api.py", "exec")  # legal Python


def test_the_typescript_package_of_the_tricky_tools() -> None:
    files = generate(tricky_catalog(), "typescript", "api")
    module = files["src/shop_api.ts"].splitlines()
    for line in [
        "export async function get_item(args?: GetItemInput): Promise<unknown> {",
        "export async function delete_(args: DeleteInput): Promise<unknown> {",
        '  "x-request-id"?: string;',
        "  from: number;",
        "  children?: Node[];",
        "export type Json = string | Json[];",
        '  shape?: ShapeInputShape1 | ShapeInputShape2 | "unit" | "none";',
        "  tags?: string[] | null;",
        "  meta?: { [key: string]: number };",
        '  kind: "circle";',
        '  return (await _call("tree", args)) as TreeOutput;',
        '/** The 2fa-check tool. Ends with a quote: """ and a backslash \\ *\\/ */',
    ]:
        assert line in module, line
    index = files["src/index.ts"]
    assert 'export * as shop_api from "./shop_api.js";' in index


def test_odd_characters_and_top_level_names() -> None:
    odd = ToolDefinition(
        name="search",
        description="Has a NUL \x00, a bell \x07 and a lone surrogate \ud800.",
        input_schema=freeze({"type": "object", "properties": {}}),
        command=HttpCommand(service="connect", method="GET", path="/"),
    )
    catalog = Catalog([odd], [Service(name="connect", base_url="http://127.0.0.1:1")])
    files = generate(catalog, "python", "api")
    assert "from . import connect_2\n" in files["api/__init__.py"]  # connect() is taken
    module = files["api/connect_2.py"]
    assert 'a NUL \\x00, a bell \\x07 and a lone surrogate \ud800."""' in module
    assert (
        'export * as connect_2 from "./connect_2.js";'
        in generate(catalog, "typescript", "a")["src/index.ts"]
    )


def test_a_rerun_writes_the_same_bytes() -> None:
    for lang in ("python", "typescript"):
        assert generate(tricky_catalog(), lang, "api") == generate(tricky_catalog(), lang, "api")


def test_tools_of_an_mcp_server_get_its_module() -> None:
    upstream = ToolDefinition(
        name="create_entities",
        description="Create entities in the knowledge graph.",
        input_schema=freeze(
            {
                "type": "object",
                "properties": {"names": {"type": "array", "items": {"type": "string"}}},
            }
        ),
        command=McpCommand(server="memory", tool="create_entities", pin=PIN),
    )
    catalog = Catalog(
        [*TRICKY[:1], upstream], [Service(name="shop-api", base_url="http://127.0.0.1:1")]
    )
    files = generate(catalog, "python", "api")
    assert (
        "async def create_entities(args: CreateEntitiesInput | None = None) -> _t.Any:"
        in files["api/memory.py"]
    )
    assert files["api/index.txt"].splitlines()[-2:] == [
        "memory:",
        "  create_entities({names?: list[str]}) -> Any",
    ]


def test_modules_by_toolset_or_tag() -> None:
    catalog = Catalog(
        TRICKY, [Service(name="shop-api", base_url="http://127.0.0.1:1")], {"trees": ["tree"]}
    )
    by_toolset = generate(catalog, "python", "api", "toolset")
    assert "async def tree(" in by_toolset["api/trees.py"]
    assert "async def tree(" not in by_toolset["api/shop_api.py"]
    only = generate(catalog, "python", "api", toolset="trees")
    assert sorted(n for n in only if n.endswith(".py")) == [
        "api/__init__.py",
        "api/_client.py",
        "api/shop_api.py",
    ]
    assert only["api/shop_api.py"].count("async def ") == 1


def test_the_command_writes_and_rewrites_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "api"
    demo = str(REPO / "examples" / "demo" / "catalog.yaml")
    assert main(["codegen", "--lang", "python", demo, "-o", str(out)]) == 0
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert Path("toolcat_api/warehouse.py") in first
    (out / "toolcat_api" / "stale.py").write_text("")
    (out / ".toolcat-codegen").write_text(
        (out / ".toolcat-codegen").read_text() + "toolcat_api/stale.py\n"
    )
    assert main(["codegen", "--lang", "python", demo, "-o", str(out)]) == 0
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == first
    capsys.readouterr()

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert main(["codegen", "--lang", "typescript", demo, "-o", str(mine)]) == 2
    assert "did not write" in capsys.readouterr().err
    assert main(["codegen", "--lang", "python", "--package", "my-api", demo, "-o", str(out)]) == 2
    assert "identifier" in capsys.readouterr().err
    assert main(["codegen", "--lang", "python", "--toolset", "nope", demo, "-o", str(out)]) == 2
    assert "nope" in capsys.readouterr().err
