"""Stage: Jinja2 checks of body templates and response.select."""

from __future__ import annotations

import pytest
from toolcat.loader._templates import TemplateChecker, template_strings


@pytest.mark.parametrize(
    ("source", "code", "line"),
    [
        ("{{ a }", "TC030", 1),
        ("{{ a | no_such_filter }}", "TC030", 1),
        ("{% if a %}\n{{ a }\n{% endif %}", "TC030", 2),
        ("{{ a is no_such_test }}", "TC030", 1),
        ("{{ b }}", "TC031", 1),
        ("{% for x in a %}{{ x }}{{ c }}{% endfor %}", "TC031", 1),
    ],
)
def test_bad_templates(source: str, code: str, line: int) -> None:
    (issue,) = TemplateChecker().check(source, {"a"}, "body template")
    assert (issue.code, issue.line) == (code, line)


@pytest.mark.parametrize(
    "source",
    [
        "{{ a }}",
        "{{ a | upper }}",
        "{% for x in a %}{{ x }}{% endfor %}",
        "{{ range(3) | list }}",
        "{{ a if a else 'none' }}",
        "text without markup",
    ],
)
def test_good_templates(source: str) -> None:
    assert TemplateChecker().check(source, {"a"}, "body template") == []


def test_template_strings_walks_json_values() -> None:
    body = {"a": "{{ x }}", "b": ["plain", "{% if y %}y{% endif %}"], "c": 3}
    assert list(template_strings(body)) == [
        (("a",), "{{ x }}"),
        (("b", 1), "{% if y %}y{% endif %}"),
    ]


@pytest.mark.parametrize(
    "source",
    [
        "{{ a }}",
        "/orders/{{ id }}/items/{{ item }}",
        "{{ status }} for payment",
        "{{ a.b.c }} and {{ c }}",
        "{ {{ a }} }",
        "{{ a }}}",
        "{{ true }} {{ none }} {{ range }}",
        "{{ a }}{{ a }}",
        "plain text { with braces }",
        "",
    ],
)
def test_names_known_without_the_parser_are_the_parsers(source: str) -> None:
    """Text whose only markup is "{{ name }}" skips Jinja's parser: the names it finds are
    the ones the parser finds."""
    from jinja2 import meta

    checker = TemplateChecker()
    env = checker._environment()
    expected = meta.find_undeclared_variables(env.parse(source)) - set(env.globals)
    assert checker.names(source) == (None, frozenset(expected))
