"""Bad input is a located diagnostic at load, never a traceback (issue 10, class 5).

Each case runs the real commands (``validate``, ``import openapi``, ``serve``,
``call``, ``list``) on a hostile catalog or spec: the issue's example and
variants of it. Every finding must say ``file:line:col: severity TCxxx``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolcat.cli import main
from toolcat.loader._files import MAX_FILE_BYTES

TOOLCAT = [sys.executable, "-m", "toolcat.cli"]
SPEC_HEAD = (
    "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"
    "servers: [{url: 'http://127.0.0.1:9/api'}]\npaths:\n"
)
CATALOG_HEAD = "toolcat: 1\nservices:\n  svc: {base_url: 'http://127.0.0.1:9'}\ntools:\n"
OK = "responses: {'200': {description: ok}}"


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def located(text: str, path: Path, code: str) -> list[tuple[int, int]]:
    """(line, column) of every ``path:line:col: <severity> code`` line in ``text``."""
    pattern = re.escape(str(path)) + r":(\d+):(\d+): (?:error|warning) " + code + r"\b"
    return [(int(m[1]), int(m[2])) for m in re.finditer(pattern, text)]


# -- duplicate keys in a spec ---------------------------------------------------------

DUPLICATES = {
    # the example: the second /items hides the first, and GET /items vanished
    "yaml-paths": (
        "spec.yaml",
        SPEC_HEAD
        + f"  /items:\n    get: {{operationId: listItems, {OK}}}\n"
        + f"  /items:\n    post: {{operationId: addItem, {OK}}}\n",
        (7, 3),
    ),
    "json-paths": (
        "spec.json",
        json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}})[:-1]
        + ', "paths": {\n"/items": {"get": {"operationId": "listItems", "responses": {}}},\n'
        '"/items": {"post": {"operationId": "addItem", "responses": {}}}}}\n',
        (3, 1),
    ),
    "json-operation-keys": (
        "spec.json",
        '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {\n'
        '  "get": {"operationId": "one", "responses": {}},\n'
        '  "get": {"operationId": "two", "responses": {}}}}}\n',
        (3, 3),
    ),
}


@pytest.mark.parametrize("case", DUPLICATES, ids=list(DUPLICATES))
def test_a_duplicate_key_in_a_spec_is_a_located_error(
    tmp_path: Path, capsys: Any, case: str
) -> None:
    name, text, where = DUPLICATES[case]
    spec = tmp_path / name
    spec.write_text(text)
    code, out, err = run(capsys, "validate", str(spec))
    assert code == 1
    assert located(out, spec, "TC002") == [where], out
    assert "duplicate key" in out
    code, out, err = run(capsys, "import", "openapi", str(spec))
    assert code == 2 and out == ""
    assert located(err, spec, "TC002") == [where], err


def test_a_duplicate_key_in_a_catalog_stays_a_located_error(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    description: d\n    service: svc\n"
        "    method: GET\n    path: /a\n    path: /b\n"
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1 and located(out, path, "TC002") == [(10, 5)], out


# -- YAML tags that are not plain YAML 1.2 core ------------------------------------------

TAGGED_CATALOGS = {
    "python-object-mapping": (
        "    headers: !!python/object:os.system {X-A: b}\n",
        "!!python/object",
    ),
    "set": ("    tags: !!set {a, b}\n", "!!set"),
    "omap": ("    tags: !!omap [{a: 1}]\n", "!!omap"),
    "custom-scalar": ("    description: !vault secret\n", "!vault"),
}


@pytest.mark.parametrize("case", TAGGED_CATALOGS, ids=list(TAGGED_CATALOGS))
def test_a_yaml_tag_in_a_catalog_is_a_located_error(tmp_path: Path, capsys: Any, case: str) -> None:
    line, shown = TAGGED_CATALOGS[case]
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    service: svc\n    method: GET\n    path: /a\n" + line
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1
    assert [w[0] for w in located(out, path, "TC001")] == [9], out
    assert f"unsupported YAML tag '{shown}" in out


@pytest.mark.parametrize(
    ("tagged", "where"),
    [
        (f"  /a: !!python/object:collections.OrderedDict\n    get: {{{OK}}}\n", (5, 7)),
        (f"  /a:\n    get: {{tags: !!set {{a, b}}, {OK}}}\n", (6, 17)),
        (f"  /a:\n    get: !custom {{{OK}}}\n", (6, 10)),
    ],
    ids=["python-object", "set", "custom"],
)
def test_a_yaml_tag_in_a_spec_is_a_located_error(
    tmp_path: Path, capsys: Any, tagged: str, where: tuple[int, int]
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC_HEAD + tagged)
    code, out, _ = run(capsys, "validate", str(spec))
    assert code == 1 and located(out, spec, "TC201") == [where], out
    code, out, err = run(capsys, "import", "openapi", str(spec))
    assert code == 2 and located(err, spec, "TC201") == [where], err


# -- header and cookie names ---------------------------------------------------------------

BAD_NAMES = {
    "header-crlf": ('"X-A\\r\\nX-Evil: 1"', "header"),
    "cookie-space": ('"a b"', "cookie"),
    "header-colon": ('"X-B:"', "header"),
}


@pytest.mark.parametrize("case", BAD_NAMES, ids=list(BAD_NAMES))
def test_a_bad_header_or_cookie_name_in_a_spec_skips_the_operation_where_it_is(
    tmp_path: Path, capsys: Any, case: str
) -> None:
    name, where = BAD_NAMES[case]
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        SPEC_HEAD + f"  /a:\n    get:\n      operationId: getA\n      parameters:\n"
        f"        - {{name: {name}, in: {where}, schema: {{type: string}}}}\n      {OK}\n"
        f"  /b:\n    get: {{operationId: getB, {OK}}}\n"
    )
    code, out, _ = run(capsys, "validate", "--fail-on", "warning", str(spec))
    assert code == 1 and located(out, spec, "TC204") == [(6, 5)], out
    assert f"not a valid {where} name" in out
    code, out, err = run(capsys, "import", "openapi", str(spec))
    assert code == 0
    assert f"at {spec}:6:5: warning TC204" in err
    assert "name: getB" in out and "getA" not in out


@pytest.mark.parametrize("case", BAD_NAMES, ids=list(BAD_NAMES))
def test_a_bad_header_or_cookie_name_in_a_catalog_is_a_located_error(
    tmp_path: Path, capsys: Any, case: str
) -> None:
    name, where = BAD_NAMES[case]
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    description: d\n    service: svc\n    method: GET\n"
        f"    path: /a\n    parameters:\n      p: {{type: string, description: p, in: {where}, "
        f"name: {name}}}\n"
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1 and located(out, path, "TC008") == [(11, 7)], out


# -- cyclic $ref chains --------------------------------------------------------------------

LOOPS = {
    "a-b-a": (
        "A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}",
        "A -> B -> A",
    ),
    "self": ("A: {$ref: '#/components/schemas/A'}", "A -> A"),
    "through-allOf": (
        "A: {allOf: [{$ref: '#/components/schemas/B'}]}\n"
        "    B: {oneOf: [{$ref: '#/components/schemas/A'}]}",
        "A -> B -> A",
    ),
}


@pytest.mark.parametrize("case", LOOPS, ids=list(LOOPS))
def test_a_ref_loop_skips_the_operation_and_keeps_the_rest(
    tmp_path: Path, capsys: Any, case: str
) -> None:
    schemas, chain = LOOPS[case]
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        SPEC_HEAD + "  /a:\n    post:\n      operationId: postA\n      requestBody:\n"
        "        content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}\n"
        f"      {OK}\n"
        "  /tree:\n    post:\n      operationId: postTree\n      requestBody:\n"
        "        content: {application/json: {schema: {$ref: '#/components/schemas/Node'}}}\n"
        f"      {OK}\n"
        "components:\n  schemas:\n    " + schemas + "\n"
        "    Node: {type: object, properties: {children: {type: array, "
        "items: {$ref: '#/components/schemas/Node'}}}}\n"
    )
    code, out, _ = run(capsys, "validate", "--fail-on", "warning", str(spec))
    assert code == 1 and located(out, spec, "TC203") == [(6, 5)], out
    assert chain in out
    code, out, err = run(capsys, "import", "openapi", str(spec), "-o", str(tmp_path / "c.yaml"))
    assert code == 0 and f"at {spec}:6:5: warning TC203" in err
    # what was imported loads, and the recursive schema through properties is still there
    code, out, _ = run(capsys, "list", str(tmp_path / "c.yaml"))
    assert code == 0 and "postTree" in out and "postA" not in out


def test_a_ref_loop_in_catalog_definitions_is_a_located_error(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    description: d\n    service: svc\n    method: GET\n"
        "    path: /a\n    parameters:\n      q: {$ref: '#/$defs/A', description: q, in: query}\n"
        "    definitions:\n      A: {$ref: '#/$defs/B'}\n      B: {$ref: '#/$defs/A'}\n"
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1 and located(out, path, "TC022") == [(13, 7)], out
    code, _, err = run(capsys, "call", str(path), "t", "--args", '{"q": 1}')
    assert code == 1 and located(err, path, "TC022") == [(13, 7)], err


# -- YAML alias fan-out ----------------------------------------------------------------------


def fanout(levels: int, fan: int, width: int, key: bool = False) -> str:
    """One long text shared ``fan**levels`` times through aliases (about 1 KB of YAML)."""
    lines = [f'      x0: &a0 {{"{"k" * width}": 1}}' if key else f'      x0: &a0 "{"x" * width}"']
    for i in range(1, levels + 1):
        lines.append(f"      x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("levels", "fan", "width", "key"),
    [(6, 9, 900, False), (4, 40, 100, False), (6, 9, 900, True)],
    ids=["issue-9x6", "wide-4x40", "long-keys"],
)
def test_aliases_that_expand_past_the_size_limit_are_refused_where_they_are(
    tmp_path: Path, capsys: Any, levels: int, fan: int, width: int, key: bool
) -> None:
    assert fan**levels * width > MAX_FILE_BYTES  # over the limit by size, not by count
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    description: d\n    service: svc\n    method: POST\n"
        "    confirm: true\n    path: /a\n    body:\n" + fanout(levels, fan, width, key)
    )
    assert path.stat().st_size < 2048
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1 and "the expanded size limit" in out
    # at the anchor of the subtree whose next use passed the limit (an alias is that node)
    assert [w[0] for w in located(out, path, "TC001")] == [11 + levels], out
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC_HEAD + "  /a:\n    get:\n      x-big:\n" + fanout(levels, fan, width, key))
    code, _, err = run(capsys, "import", "openapi", str(spec))
    assert code == 2 and "the expanded size limit" in err
    assert [w[0] for w in located(err, spec, "TC207")] == [7 + levels], err


def test_aliases_under_the_size_limit_still_load(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    description: d\n    service: svc\n    method: POST\n"
        "    confirm: true\n    path: /a\n    body:\n" + fanout(3, 9, 900)
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0, out


# -- templates whose constant parts pass a limit ---------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "{{ 'x' * 3000000000 }}",
        "{{ range(10**9)|list }}",
        "{{ 'x'*10**5 * 10**5 }}",
        "{% for a in range(100000) %}{% for b in range(100000) %}x{% endfor %}{% endfor %}",
        "{{ ['a', 'b'] * 10**8 }}",
    ],
)
def test_a_template_bomb_is_a_located_error_at_validate(
    tmp_path: Path, capsys: Any, template: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    description: d\n    service: svc\n    method: POST\n"
        f"    confirm: true\n    path: /a\n    body: {json.dumps(template)}\n"
    )
    assert path.stat().st_size < 300
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1 and [w[0] for w in located(out, path, "TC032")] == [11], out


def test_a_template_under_the_limits_still_loads(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        CATALOG_HEAD + "  - name: t\n    description: d\n    service: svc\n    method: POST\n"
        '    confirm: true\n    path: /a\n    body: "{% for a in range(1000) %}{% for b in '
        "range(1000) %}{% endfor %}{% endfor %}{{ 'x' * 1000 }}\"\n"
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0, out


# -- serve and call say what validate says -------------------------------------------------

BROKEN = {
    "errors-and-warnings": CATALOG_HEAD
    + "  - name: t\n    service: svc\n    method: GET\n    path: /a/{id}\n"
    '    parameters:\n      h: {type: string, in: header, name: "X-A\\r\\nB"}\n',
    "yaml-tag": CATALOG_HEAD + "  - !!python/object:os.system {name: t}\n",
    "template-bomb": CATALOG_HEAD
    + "  - {name: t, description: d, service: svc, method: POST, confirm: true, path: /a,\n"
    "     body: \"{{ 'x' * 3000000000 }}\"}\n",
}


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOOLCAT, *argv], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_serve_prints_a_failed_load_as_validate_does(tmp_path: Path, case: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(BROKEN[case])
    checked = _cli("validate", str(path))
    served = _cli("serve", str(path))
    assert checked.returncode == served.returncode == 1
    expected = checked.stdout.splitlines() + checked.stderr.splitlines()
    assert expected and all(line.startswith(f"{path}:") for line in expected[:-1])
    lines = served.stderr.splitlines()
    assert lines[:-1] == expected, served.stderr
    assert lines[-1].startswith("toolcat: cannot serve") and "Traceback" not in served.stderr


def test_call_prints_a_failed_load_as_validate_does(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(BROKEN["errors-and-warnings"])
    code, out, err = run(capsys, "validate", str(path))
    expected = out.splitlines() + err.splitlines()
    code, _, err = run(capsys, "call", str(path), "t", "--args", "{}")
    assert code == 1 and err.splitlines()[:-1] == expected, err
    code, _, err = run(capsys, "list", str(path))  # list: only the errors, as before
    assert code == 1 and located(err, path, "TC008") and "TC103" not in err


def test_serve_takes_ref_root(tmp_path: Path) -> None:
    shared = tmp_path / "common" / "types.yaml"
    shared.parent.mkdir()
    shared.write_text("Item: {type: object, properties: {id: {type: string}}}\n")
    spec = tmp_path / "api" / "spec.yaml"
    spec.parent.mkdir()
    spec.write_text(
        SPEC_HEAD + "  /items:\n    post:\n      operationId: addItem\n      requestBody:\n"
        "        content: {application/json: {schema: {$ref: '../common/types.yaml#/Item'}}}\n"
        f"      {OK}\n"
    )
    catalog = tmp_path / "api" / "catalog.yaml"
    catalog.write_text(
        "toolcat: 1\nopenapi:\n  - spec: spec.yaml\n    service: items\n"
        "toolsets:\n  items: [addItem]\n"
    )
    refused = _cli("serve", str(catalog))  # the $ref leaves the spec's folder: not read
    assert refused.returncode == 1 and "--ref-root" in refused.stderr, refused.stderr
    assert located(refused.stderr, catalog, "TC014"), refused.stderr
    served = _cli("serve", "--ref-root", str(tmp_path), str(catalog))  # stdin at EOF: ends
    assert served.returncode == 0, served.stderr
    wrong = _cli("serve", "--ref-root", str(tmp_path / "nope"), str(catalog))
    assert wrong.returncode == 2 and "--ref-root" in wrong.stderr
