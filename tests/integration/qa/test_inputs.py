"""`toolcat validate` on what file systems hold besides tidy catalogs.

Links that loop or dangle, an empty file, a directory whose name ends in
.yaml, a catalog in a pipe: each gets a diagnostic or is read, never a hang
or a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import toolcat

GOOD = """\
toolcat: 1
services:
  svc: {base_url: http://127.0.0.1:8080}
tools:
  - name: get_item
    description: Get one item.
    service: svc
    method: GET
    path: /items
"""


def test_links_that_loop_or_dangle_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "catalog.yaml").write_text(GOOD)
    (tmp_path / "up").symlink_to("..")
    (tmp_path / "self").symlink_to("self")
    (tmp_path / "gone.yaml").symlink_to("nowhere.yaml")
    proc = toolcat("validate", str(tmp_path), timeout=20)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no problems in 1 file" in proc.stderr


def test_a_zero_byte_file_is_an_empty_catalog(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_bytes(b"")
    proc = toolcat("validate", str(tmp_path / "empty.yaml"))
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{tmp_path / 'empty.yaml'}:1:1: error TC005 ")


def test_a_directory_named_like_a_catalog_is_walked(tmp_path: Path) -> None:
    folder = tmp_path / "catalogs.yaml"
    folder.mkdir()
    (folder / "a.yaml").write_text(GOOD.replace("path: /items", "path: items"))
    proc = toolcat("validate", str(folder))
    assert proc.returncode == 1
    assert f"{folder / 'a.yaml'}:9:11: error TC008 " in proc.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_file_is_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text(GOOD)
    path.chmod(0)
    proc = toolcat("validate", str(path))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"toolcat: {path}: permission denied"


def test_a_catalog_read_from_a_pipe(tmp_path: Path) -> None:
    proc = toolcat("validate", "/dev/stdin", stdin=GOOD.replace("GET", "FETCH"))
    assert proc.returncode == 1
    assert proc.stdout.startswith("/dev/stdin:8:13: error TC008 ")


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ('{"openapi": "3.0.0",\n "info": {"title": "x"\n', "3:1", "Expecting ',' delimiter"),
        ('{"toolcat": 1,\n "tools": [],}\n', "2:14", "Expecting property name"),
    ],
)
def test_a_json_path_that_is_no_json_is_reported_where_json_stops(
    tmp_path: Path, text: str, where: str, words: str
) -> None:
    path = tmp_path / "spec.json"
    path.write_text(text)
    proc = toolcat("validate", str(path))
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{path}:{where}: error TC001 not valid JSON: {words}")


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_control_characters_in_a_catalog_never_reach_the_terminal(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "esc.yaml"
    path.write_text(
        GOOD.replace(
            "  svc: {base_url: http://127.0.0.1:8080}",
            '  svc: {base_url: http://127.0.0.1:8080, "\\e[31mred": 1}',
        )
    )
    proc = toolcat("validate", str(path), "--format", fmt)
    assert proc.returncode == 1
    assert "\x1b" not in proc.stdout and "unknown key '\\x1b[31mred'" in proc.stdout
