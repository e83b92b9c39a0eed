"""A catalog file's shared ``definitions:``: each tool gets exactly the $defs it reaches."""

from __future__ import annotations

from pathlib import Path

from toolcat.catalog.common import thaw
from toolcat.loader import load_catalog

CATALOG = """\
toolcat: 1
services:
  pets: {base_url: "https://pets.example.com"}
definitions:
  Pet:
    type: object
    description: A pet.
    properties:
      name: {type: string, description: Its name.}
      owner: {$ref: "#/$defs/Owner"}
  Owner:
    type: object
    properties: {name: {type: string}}
  Tag: {type: string, description: A tag.}
tools:
  - name: add_pet
    description: Add a pet.
    service: pets
    method: POST
    path: /pets
    confirm: true
    parameters:
      pet: {$ref: "#/$defs/Pet", in: body}
    output_schema: {$ref: "#/$defs/Pet"}
  - name: tag_pet
    description: Tag a pet.
    service: pets
    method: PUT
    path: /pets/{id}/tags
    confirm: false
    parameters:
      id: {type: string, description: The pet's id.}
      tags: {type: array, items: {$ref: "#/$defs/Tag"}, description: The tags.}
    definitions:
      Local: {type: string}
    output_schema:
      type: array
      items: {$ref: "#/$defs/Tag"}
"""


def test_each_tool_carries_exactly_what_it_reaches(tmp_path: Path) -> None:
    path = tmp_path / "pets.yaml"
    path.write_text(CATALOG, encoding="utf-8")
    result = load_catalog([path])
    assert result.catalog is not None and not result.diagnostics, result.diagnostics
    add = result.catalog["add_pet"]
    assert set(add.input_schema["$defs"]) == {"Pet", "Owner"}
    assert set(thaw(add.output_schema)["$defs"]) == {"Pet", "Owner"}
    tag = result.catalog["tag_pet"]
    assert set(tag.input_schema["$defs"]) == {"Tag"}  # Local is not reached
    assert set(thaw(tag.output_schema)["$defs"]) == {"Tag"}


def test_definitions_belong_to_their_file(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(
        "toolcat: 1\ntools:\n  - name: other\n    description: Other.\n    service: pets\n"
        "    method: GET\n    path: /other\n    parameters:\n"
        '      pet: {$ref: "#/$defs/Pet"}\n',
        encoding="utf-8",
    )
    result = load_catalog([tmp_path])
    found = [(d.code, Path(d.file).name, d.line) for d in result.diagnostics]
    assert found == [("TC022", "b.yaml", 9)]


def test_a_broken_shared_definition_is_reported_once_where_it_is(tmp_path: Path) -> None:
    path = tmp_path / "pets.yaml"
    path.write_text(
        CATALOG.replace(
            "Tag: {type: string, description: A tag.}",
            "Tag: {type: string, description: A tag., enum: [a, 1]}",
        ),
        encoding="utf-8",
    )
    result = load_catalog([path])
    found = [(d.code, d.line) for d in result.diagnostics]
    assert found == [("TC024", 14)], [str(d) for d in result.diagnostics]
    assert result.catalog is None
