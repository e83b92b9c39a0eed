"""Inputs are bounded: only regular files are read, under one size cap (issue 10, class 2).

Each case runs the real ``toolcat validate`` in a subprocess: a device, a FIFO
with a writer that never writes, or an oversized file must end at once with
exit 2 and one line, never read until memory runs out or block.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from toolcat.loader._files import MAX_FILE_BYTES

from .conftest import one_line_refusal

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]


def validate(*paths: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOOLCAT, "validate", *paths], capture_output=True, text=True, timeout=60
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_without_reading_it() -> None:
    one_line_refusal(validate("/dev/zero"), "/dev/zero", "a device, not a regular file")


def test_a_fifo_is_refused_before_it_is_opened(fifo: Path) -> None:
    one_line_refusal(validate(str(fifo)), str(fifo), "a FIFO (named pipe), not a regular file")


def test_a_fifo_given_as_an_openapi_spec_is_refused(tmp_path: Path, fifo: Path) -> None:
    catalog = tmp_path / "c.yaml"
    catalog.write_text(f"toolcat: 1\nopenapi:\n  - spec: {fifo.name}\n", encoding="utf-8")
    done = validate(str(catalog))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "is not a regular file" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/stdin"), reason="needs /dev/stdin")
def test_a_pipe_handed_over_as_stdin_is_read_up_to_the_cap() -> None:
    big = "toolcat: 1\ntools: []\n" + "#" * (MAX_FILE_BYTES + 10) + "\n"
    done = subprocess.run(
        [*TOOLCAT, "validate", "/dev/stdin"], input=big, capture_output=True, text=True, timeout=60
    )
    one_line_refusal(done, "/dev/stdin", f"over the limit of {MAX_FILE_BYTES:,} bytes")
    with open(os.devnull, "rb") as zeros_elsewhere:  # /dev/stdin that is a device: refused
        done = subprocess.run(
            [*TOOLCAT, "validate", "/dev/stdin"],
            stdin=zeros_elsewhere,
            capture_output=True,
            text=True,
            timeout=60,
        )
    one_line_refusal(done, "/dev/stdin", "a device, not a regular file")


def test_an_oversized_catalog_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:  # sparse: costs no disk, and nothing may read it anyway
        f.truncate(MAX_FILE_BYTES + 1)
    one_line_refusal(validate(str(big)), str(big), f"over the limit of {MAX_FILE_BYTES:,} bytes")


def test_a_file_just_under_the_cap_is_still_read(tmp_path: Path) -> None:
    ok = tmp_path / "ok.yaml"
    ok.write_text("toolcat: 1\ntools: []\n" + "#" * 1000 + "\n", encoding="utf-8")
    done = validate(str(ok))
    assert done.returncode in (0, 1), done.stderr
    assert "regular file" not in done.stderr


DEEP = 200_000
SPEC_HEAD = '{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": '
DEEP_FILES = {
    "catalog.json": '{"toolcat": 1, "tools": ' + "[" * DEEP + "]" * DEEP + "}",
    "catalog.yaml": "toolcat: 1\ntools: " + "[" * DEEP + "]" * DEEP + "\n",
    "shallower.yaml": "toolcat: 1\ntools: " + "[" * 300 + "]" * 300 + "\n",
    "spec.json": SPEC_HEAD + '{"a": ' * DEEP + "1" + "}" * DEEP + "}",
    "spec.yaml": "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: "
    + "{a: " * 300
    + "1"
    + "}" * 300
    + "\n",
}


@pytest.mark.parametrize("name", sorted(DEEP_FILES))
def test_a_deeply_nested_document_is_a_located_diagnostic(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(DEEP_FILES[name], encoding="utf-8")
    done = validate(str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    first = done.stdout.splitlines()[0]
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: error TC\d+ .*nest", first), first


@pytest.mark.parametrize("spec", ["spec.json", "spec.yaml"])
def test_a_deeply_nested_imported_spec_is_the_specs_refusal(tmp_path: Path, spec: str) -> None:
    (tmp_path / spec).write_text(DEEP_FILES[spec], encoding="utf-8")
    catalog = tmp_path / "c.yaml"
    catalog.write_text(f"toolcat: 1\nopenapi:\n  - spec: {spec}\n", encoding="utf-8")
    done = validate(str(catalog))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert "error TC201" in done.stdout and "nest" in done.stdout, done.stdout
