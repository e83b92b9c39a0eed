"""`toolcat test` on a real spec from the corpus (train-travel, OpenAPI 3.1): a catalog
written by `toolcat import`, given examples, catches a changed path template; conformance
catches a parameter style that breaks the spec."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from toolcat.cli import main

EXAMPLE = """\
  examples:
  - name: one booking
    arguments: {bookingId: 1725ff48-ab45-4bb5-9d02-88745177dedb}
    request:
      method: GET
      path: /bookings/1725ff48-ab45-4bb5-9d02-88745177dedb
      headers: {Authorization: Bearer TOKEN}
    response:
      status: 200
      body: {id: 1725ff48-ab45-4bb5-9d02-88745177dedb, passenger_name: Ada}
    result: {id: 1725ff48-ab45-4bb5-9d02-88745177dedb, passenger_name: Ada}
"""


def _tool_section(text: str, name: str) -> tuple[int, int]:
    start = text.index(f"- name: {name}\n")
    end = text.find("\n- name: ", start + 1)
    return start, len(text) if end < 0 else end + 1


@pytest.fixture
def written(corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    spec = tmp_path / "train-travel.yaml"
    shutil.copyfile(corpus_dir / "train-travel-openapi3.1.yaml", spec)
    out = tmp_path / "catalog.yaml"
    assert main(["import", "openapi", str(spec), "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    return out


def _with_example(catalog: Path) -> str:
    text = catalog.read_text()
    start, end = _tool_section(text, "get-booking")
    return text[:end] + EXAMPLE + text[end:] if end < len(text) else text + EXAMPLE


def test_examples_catch_a_changed_path_template(
    written: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _with_example(written)
    written.write_text(text)
    env = ["--env", "TRAIN_TRAVEL_API_OAUTH2_TOKEN=TOKEN"]
    code, out = main(["test", str(written), *env]), capsys.readouterr().out
    assert code == 0, out
    assert out == "ok    get-booking: one booking\n"
    start, end = _tool_section(text, "get-booking")
    section = text[start:end].replace("path: /bookings/{bookingId}", "path: /booking/{bookingId}")
    written.write_text(text[:start] + section + text[end:])
    code, out = main(["test", str(written), *env]), capsys.readouterr().out
    assert code == 1
    assert "TC066 tool 'get-booking': example 'one booking': the request differs" in out
    assert '-  "path": "/bookings/1725ff48-ab45-4bb5-9d02-88745177dedb"' in out
    assert '+  "path": "/booking/1725ff48-ab45-4bb5-9d02-88745177dedb"' in out


def test_conformance_finds_a_broken_parameter_style(
    written: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = str(written.parent / "train-travel.yaml")
    argv = ["test", str(written), "--conformance", "--spec", spec, "--tool", "get-booking"]
    code, out = main(argv), capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("ok    get-booking: conformance (GET /bookings/{bookingId}): 25 requests")
    text = written.read_text()
    start, end = _tool_section(text, "get-booking")
    # the writer leaves `in: path` out (the path template says it): add the style beside the ref
    section = text[start:end].replace(
        'bookingId: {$ref: "#/$defs/bookingId"}',
        'bookingId: {$ref: "#/$defs/bookingId", style: label}',
        1,
    )
    assert section != text[start:end]
    written.write_text(text[:start] + section + text[end:])
    code, out = main(argv), capsys.readouterr().out
    assert code == 1
    assert "TC068 tool 'get-booking': the request does not conform" in out
    assert "Invalid path parameter: bookingId" in out
    assert "/bookings/.3fa85f64" in out  # the label style's leading dot
