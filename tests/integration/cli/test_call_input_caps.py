"""``toolcat call TOOL --args @FILE`` and ``--args -`` read under the loader's one file cap.

Each case runs the real command in a subprocess: a device, a FIFO with a writer
that never writes, an oversized (sparse) file or an oversized stdin end at once
with exit 2 and one line, never a hang or a read until memory runs out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from toolcat.loader import MAX_FILE_BYTES

from .conftest import one_line_refusal

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]

CATALOG = """\
toolcat: 1
services:
  svc: {base_url: "http://127.0.0.1:9"}
tools:
  - name: echo
    description: Echo.
    service: svc
    method: GET
    path: /echo
    parameters:
      q: {type: string, description: Q}
"""


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG, encoding="utf-8")
    return str(path)


def call(catalog: str, args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOOLCAT, "call", catalog, "echo", "--args", args, "--dry-run"],
        capture_output=True,
        text=True,
        timeout=60,
        input=input,
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_args_from_dev_zero_are_refused_without_reading_it(catalog: str) -> None:
    one_line_refusal(call(catalog, "@/dev/zero"), "/dev/zero", "a device, not a regular file")


def test_args_from_a_fifo_are_refused_before_it_is_opened(catalog: str, fifo: Path) -> None:
    one_line_refusal(call(catalog, f"@{fifo}"), str(fifo), "a FIFO (named pipe)")


def test_args_from_a_file_over_the_cap_are_refused(catalog: str, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk or memory spent
    one_line_refusal(call(catalog, f"@{big}"), str(big), f"over the limit of {MAX_FILE_BYTES:,}")


def test_args_on_stdin_over_the_cap_are_refused(catalog: str) -> None:
    big = '{"q": "' + "x" * MAX_FILE_BYTES + '"}'
    one_line_refusal(
        call(catalog, "-", input=big), "stdin", f"over the limit of {MAX_FILE_BYTES:,}"
    )


def test_args_from_a_regular_file_and_stdin_still_work(catalog: str, tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    args.write_text('{"q": "from-file"}', encoding="utf-8")
    done = call(catalog, f"@{args}")
    assert done.returncode == 0 and "q=from-file" in done.stdout, done.stdout + done.stderr
    done = call(catalog, "-", input='{"q": "from-stdin"}')
    assert done.returncode == 0 and "q=from-stdin" in done.stdout, done.stdout + done.stderr


def test_args_that_are_not_utf8_are_one_line(catalog: str, tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    args.write_bytes(b'{"q": "\xff"}')
    one_line_refusal(call(catalog, f"@{args}"), "not UTF-8 text")
