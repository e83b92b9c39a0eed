"""One sandbox: the loader's template checks and the executor's rendering share one environment."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2.exceptions import SecurityError, UndefinedError
from toolcat.catalog.common import sandbox_environment
from toolcat.executor._templates import BodyTemplate, Selector, TemplateFailure
from toolcat.loader._templates import TemplateChecker

# Reaching Python internals, or mutating a value, from a template.
ESCAPES = [
    "{{ x.__class__ }}",
    "{{ x.__class__.__mro__ }}",
    "{{ ''.__class__.mro() }}",
    "{{ t.mro }}",
    "{{ x.append(1) }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ lipsum.__globals__ }}",
]


def test_loader_and_executor_use_the_same_environments() -> None:
    checker = TemplateChecker()
    checker.check("{{ (x | int) + 1 }}", {"x"}, "body")  # the checker builds its environment
    strict = sandbox_environment()
    assert checker._env is strict
    assert BodyTemplate("{{ x }} and text", {"x"})._root.value.environment is strict
    loose = Selector("{{ body }} and text")._template
    assert loose is not None and loose.environment is sandbox_environment(strict=False)


@pytest.mark.parametrize("strict", [True, False])
def test_both_environments_are_sandboxed_and_immutable(strict: bool) -> None:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = sandbox_environment(strict=strict)
    assert isinstance(env, ImmutableSandboxedEnvironment) and not env.autoescape


@pytest.mark.parametrize("source", ESCAPES)
def test_the_strict_environment_refuses_internals(source: str) -> None:
    with pytest.raises(SecurityError):
        sandbox_environment().from_string(source).render(x=[1], t=int)


@pytest.mark.parametrize("source", ESCAPES)
def test_a_body_template_refuses_internals(source: str) -> None:
    template = BodyTemplate({"v": source}, {"x", "t"})
    with pytest.raises(TemplateFailure, match="unsafe"):
        template.render({"x": [1], "t": int})


@pytest.mark.parametrize("source", ESCAPES)
def test_a_select_expression_never_reveals_internals(source: str) -> None:
    select = Selector(source.replace("x", "body").replace("t.", "headers."))
    try:
        value: Any = select([1], 200, {"a": "b"})
    except TemplateFailure as exc:
        assert "unsafe" in exc.msg
    else:
        assert value in (None, "")
        assert "class" not in str(value)


def test_undefined_names_are_errors_where_strict() -> None:
    with pytest.raises(UndefinedError):
        sandbox_environment().from_string("{{ nope }}").render()
    # at load time, in the loader's words
    (issue,) = TemplateChecker().check("{{ nope }}", {"x"}, "body")
    assert issue.code == "TC031" and "'nope'" in issue.message
    # at run time, in the executor's
    with pytest.raises(TemplateFailure, match="nope"):
        BodyTemplate({"v": "{{ x }} {{ nope }}"}, {"x"}).render({"x": 1})
    # select is loose on purpose: a missing field is None
    assert Selector("{{ body.missing }}")({}, 200, {}) is None
