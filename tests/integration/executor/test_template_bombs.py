"""Template bombs: every value a template builds is bounded, at check time and at run time.

``{{ 'x' * 3000000000 }}`` made ``validate`` allocate about 6 GB through Jinja's
constant folding. ``validate`` now runs under a 2 GiB address-space limit and
must finish; at call time the same template is a typed error and nothing is sent.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolcat.catalog.common import MAX_TEMPLATE_SIZE
from toolcat.executor import Executor, ExecutorSettings, ToolCall

BOMBS = [
    "{{ 'x' * 3000000000 }}",
    "{{ [0] * 3000000000 }}",
    "{{ 'x' | center(3000000000) }}",
    "{{ 'x'.rjust(3000000000) }}",
    "{{ '{:3000000000}'.format('x') }}",
    "{{ '%3000000000s' % 'x' }}",
    "{{ '%*s' % (3000000000, 'x') }}",
    "{{ 'x' | indent(3000000000, true) }}",
    "{{ 9 ** 3000000000 }}",
    "{{ range(3000000000) | list }}",
    "{% set ns = namespace(s='0123456789') %}{% for i in range(40) %}"
    "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
    "{% for i in range(100000) %}{% for j in range(1000) %}0123456789{% endfor %}{% endfor %}",
]

CATALOG = """\
toolcat: 1
services:
  api:
    base_url: {url}/echo/base
tools:
  - name: post_it
    description: Posts a body built by a template.
    service: api
    method: POST
    path: /items
    parameters:
      n: {{type: integer, required: false, description: n}}
    body:
      data: {template}
"""


def _quoted(template: str) -> str:
    return '"' + template.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
@pytest.mark.parametrize("template", BOMBS[:3] + BOMBS[8:9])
def test_validate_never_runs_a_template_bomb(tmp_path: Path, template: str) -> None:
    catalog = tmp_path / "bomb.yaml"
    catalog.write_text(
        CATALOG.format(url="https://api.example", template=_quoted(template)), encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "toolcat.cli", "validate", str(catalog)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_memory,
    )
    assert done.returncode in (0, 1), done.stderr  # a clean verdict: no MemoryError, no exit 3
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    assert done.returncode == 1 and f"{catalog}:14:" in done.stdout  # located, at load
    assert "error TC032" in done.stdout, done.stdout


@pytest.mark.parametrize("template", BOMBS)
def test_a_template_bomb_is_a_typed_error_and_nothing_is_sent(
    server: Any, tmp_path: Path, template: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcat.loader import load

    # the load-time check (TC032) refuses the constant ones; switched off here, so
    # that this tests the run-time bound on its own
    monkeypatch.setattr("toolcat.loader._templates.constant_bound_error", lambda tree: None)
    url, state = server
    catalog = tmp_path / "bomb.yaml"
    catalog.write_text(CATALOG.format(url=url, template=_quoted(template)), encoding="utf-8")
    with Executor(load([catalog]), ExecutorSettings(env={})) as ex:
        result = ex.execute(ToolCall("post_it", {}))
    assert result.error is not None and result.error.type == "invalid_arguments", result.content
    assert "limit" in result.error.msg
    assert state.wire == [], "a refused call reached the server"


def test_a_template_within_the_limits_still_renders(server: Any, tmp_path: Path) -> None:
    from toolcat.loader import load

    url, state = server
    template = "{{ ('ab' * 3) ~ ('%05d' % n) ~ ('x' | center(7)) ~ (range(3) | join(',')) }}"
    catalog = tmp_path / "ok.yaml"
    catalog.write_text(CATALOG.format(url=url, template=_quoted(template)), encoding="utf-8")
    with Executor(load([catalog]), ExecutorSettings(env={})) as ex:
        result = ex.execute(ToolCall("post_it", {"n": 42}))
    assert result.ok, result.content
    assert len(state.wire) == 1
    assert MAX_TEMPLATE_SIZE >= 1_000_000


LOOP_CATALOG = """\
toolcat: 1
services:
  api:
    base_url: {url}/echo/base
tools:
  - name: post_it
    description: Posts a body built by loops over an argument.
    service: api
    method: POST
    path: /items
    parameters:
      xs: {{type: array, items: {{type: integer}}, description: numbers}}
    body:
      data: {template}
"""

# Loops over the arguments: nothing constant for `validate` to judge, and no output
# for the size cap to stop. Each would spin for minutes without the loop budget.
LOOP_BOMBS = [
    "{% for a in xs %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}{% endfor %}",
    "{% for a in xs %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
    "{% for a in xs if a >= 0 %}{% for b in xs %}{% for c in xs if c < 0 %}"
    "{% endfor %}{% endfor %}{% endfor %}",
    "{% macro m() %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}{% endmacro %}"
    "{% for a in xs %}{{ m() }}{% endfor %}",
]


@pytest.mark.parametrize("template", LOOP_BOMBS)
def test_loops_over_the_arguments_share_one_budget_per_call(
    server: Any, tmp_path: Path, template: str
) -> None:
    from toolcat.catalog.common import MAX_TEMPLATE_LOOPS
    from toolcat.loader import load

    url, state = server
    catalog = tmp_path / "loops.yaml"
    catalog.write_text(LOOP_CATALOG.format(url=url, template=_quoted(template)), encoding="utf-8")
    with Executor(load([catalog]), ExecutorSettings(env={})) as ex:
        refused = ex.execute(ToolCall("post_it", {"xs": list(range(1000))}))
        small = ex.execute(ToolCall("post_it", {"xs": list(range(3))}))
    assert refused.error is not None and refused.error.type == "invalid_arguments"
    assert f"{MAX_TEMPLATE_LOOPS:,} iterations" in refused.error.msg
    assert small.ok, small.content  # the budget is per call: a small call still runs
    assert len(state.wire) == 1, "a refused call reached the server"
