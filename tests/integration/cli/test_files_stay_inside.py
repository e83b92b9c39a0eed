"""Files stay where they belong: `docs --force` follows no link out of its folder,
`toolcat.toml` roots stay in the repository, exclude globs match in linear time, an
import record cannot widen the $ref root, and a deep baseline is one line (exit 2)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from toolcat.cli._app import main

CATALOG = """\
toolcat: 1
services:
  s: {base_url: "http://api.test"}
tools:
  - {name: get_item, service: s, method: GET, path: /items, description: Read an item.}
"""

OTHER = """\
toolcat: 1
services:
  t: {base_url: "http://api.test"}
tools:
  - {name: other_item, service: t, method: GET, path: /other, description: Read another.}
"""


def _one_line(err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], lines[0]


# -- toolcat docs --force ----------------------------------------------------------


@pytest.mark.parametrize("planted", ["tools", "assets", "list", "assets/index", "index.html"])
def test_docs_force_neither_deletes_nor_writes_through_a_link(
    planted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "c.yaml"
    catalog.write_text(CATALOG)
    out = tmp_path / "site"
    assert main(["docs", str(catalog), "-o", str(out)]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victims = {name: elsewhere / name for name in ("keep.html", "keep.js", "index.html")}
    for path in victims.values():
        path.write_text("precious")
    link = out / planted
    if link.is_dir():
        for child in sorted(link.rglob("*"), reverse=True):
            child.rmdir() if child.is_dir() else child.unlink()
        link.rmdir()
    else:
        link.unlink(missing_ok=True)
    link.parent.mkdir(parents=True, exist_ok=True)
    target = victims["index.html"] if planted.endswith(".html") else elsewhere
    link.symlink_to(target)
    assert main(["docs", str(catalog), "-o", str(out), "--force"]) == 0
    capsys.readouterr()
    for path in victims.values():
        assert path.read_text() == "precious"  # nothing outside deleted or overwritten
    assert not link.is_symlink()  # the link itself was replaced by the site's own file
    assert (out / "tools" / "get_item.html").is_file()


# -- toolcat.toml roots --------------------------------------------------------------


@pytest.mark.parametrize("root", ["../outside", "inside-link", "inside-l*"])
def test_roots_outside_the_repository_are_refused(
    root: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "cat").mkdir()
    (repo / "cat" / "c.yaml").write_text(CATALOG)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("password: hunter2-outside\n")
    (repo / "inside-link").symlink_to(outside)
    (repo / "toolcat.toml").write_text(f'roots = ["cat", "{root}"]\n')
    monkeypatch.chdir(repo)
    assert main(["validate"]) == 2
    out = capsys.readouterr()
    _one_line(out.err, "toolcat.toml:1", "outside the repository")
    assert "hunter2" not in out.out + out.err


def test_roots_inside_the_repository_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "teams" / "a").mkdir(parents=True)
    (repo / "teams" / "a" / "c.yaml").write_text(CATALOG)
    (repo / "toolcat.toml").write_text('roots = ["teams/*"]\n')
    monkeypatch.chdir(repo)
    assert main(["validate"]) == 0, capsys.readouterr().err


# -- exclude globs -------------------------------------------------------------------


def test_an_exclude_glob_matches_in_linear_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "c.yaml").write_text(CATALOG)
    name = "a" * 200 + ".yaml"  # a backtracking matcher tries every split of the a's
    (repo / name).write_text(OTHER)
    (repo / "toolcat.toml").write_text('exclude = ["*a*a*a*a*a*a*a*a*a*a*a*a*b.yaml"]\n')
    monkeypatch.chdir(repo)
    start = time.perf_counter()
    assert main(["validate", "."]) == 0, capsys.readouterr().err
    assert time.perf_counter() - start < 5
    (repo / "toolcat.toml").write_text('exclude = ["a*a*.yaml"]\n')
    assert main(["validate", ".", "--format", "json"]) == 0
    assert "other_item" not in capsys.readouterr().out


# -- import --update and the recorded --ref-root -----------------------------------


def test_an_import_record_cannot_widen_the_ref_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec_dir = tmp_path / "api"
    spec_dir.mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "item.json").write_text(json.dumps({"type": "object"}))
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": "https://shop.example.com"}],
        "paths": {
            "/items": {
                "post": {
                    "operationId": "createItem",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "../shared/item.json"}}}
                    },
                    "responses": {"201": {"description": "ok"}},
                }
            }
        },
    }
    (spec_dir / "spec.json").write_text(json.dumps(spec))
    out = spec_dir / "shop.yaml"
    args = ["import", "openapi", str(spec_dir / "spec.json"), "-o", str(out), "-q"]
    assert main([*args, "--ref-root", "/"]) == 0  # the user allowed / once, on purpose
    capsys.readouterr()
    before = out.read_text()
    assert main(["import", "--update", str(out)]) == 2  # the record does not allow it again
    err = capsys.readouterr().err
    assert "--ref-root" in err and "is not used" in err
    assert "outside the $ref root" in err
    assert out.read_text() == before
    # the user's own flag still widens it
    assert main(["import", "openapi", str(spec_dir / "spec.json"), "--update", str(out),
                 "--ref-root", str(tmp_path), "-q"]) == 0  # fmt: skip


# -- baselines -----------------------------------------------------------------------


def test_a_deeply_nested_baseline_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "c.yaml"
    catalog.write_text(CATALOG)
    baseline = tmp_path / "baseline.json"
    baseline.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["validate", str(catalog), "--baseline", str(baseline)]) == 2
    _one_line(capsys.readouterr().err, "baseline", "nested deeper")
