"""`toolcat demo` runs end to end as a user would start it: a subprocess, offline, exit 0."""

from __future__ import annotations

import os
import re
import subprocess
import sys


def test_demo_runs_the_scripted_conversation_through_the_real_stack() -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["NO_PROXY"] = "*"
    proc = subprocess.run(
        [sys.executable, "-m", "toolcat.cli", "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr + out
    assert "validated: 0 errors" in out
    # The parallel first turn, with the HTTP request each call sent.
    assert "call  search_items" in out and "call  get_item" in out
    assert re.search(r"http  GET http://127\.0\.0\.1:\d+/items\?q=widget", out)
    # The model's invalid quantity is refused before any request, then corrected.
    assert "ERR   place_order (no request sent)" in out and "invalid_arguments" in out
    assert re.search(r"http  POST http://127\.0\.0\.1:\d+/orders -> 201", out)
    # The final answer is built from what the real service returned.
    assert re.search(r"assistant> .*Steel gadgets left: 7\..*order ORD-1001, total 13\.50", out)
    assert "stopped: final_answer after 4 model calls and 4 tool calls" in out


def test_sample_service_alone_serves_the_catalog_default_api() -> None:
    import httpx

    proc = subprocess.Popen(
        [sys.executable, "-m", "toolcat.cli", "demo", "--sample-service", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert found, line  # stdout holds only our lines: warnings go to stderr
        item = httpx.get(found.group(0) + "/items/W-BLUE-01", timeout=10).json()
        assert item["stock"] == 42
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()
