"""Digests of every export mode for the demo, the repository's specs and the shared corpus.

    python scripts/export_digests.py > tests/data/export-digests.json
    python scripts/export_digests.py --diagnostics > tests/data/diagnostics.json

Each entry is the SHA-256 of the export's parsed JSON written canonically (sorted keys,
compact), plus its notes, per provider mode; for the demo, specs/ and
the corpus's large specs, also the SHA-256 of
``toolcat schema``'s output bytes. tests/integration/openapi/test_export_digests.py
recomputes them and compares, and tests/unit/loader/test_diagnostics_unchanged.py does the
same for the broken catalogs' diagnostics (their whole text): a refactoring must leave
every export and every diagnostic as it was. Regenerate only for a change that means to
alter them, and say so in CHANGELOG.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from toolcat.executor.providers import export_catalog
from toolcat.loader import load_catalog

MODES = (
    ("openai", False),
    ("openai", True),
    ("openai-responses", False),
    ("anthropic", False),
    ("gemini", False),
    ("mcp", False),
)
ROOT = Path(__file__).resolve().parent.parent
# corpus specs whose command-line output is recorded byte for byte too (the large ones)
CLI_CORPUS = (
    "corpus/github-api.github.com.json",
    "corpus/stripe-spec3.json",
    "corpus/kubernetes-swagger2.json",
)


def corpus_dir() -> Path | None:
    where = os.environ.get("TOOLCAT_CORPUS") or ROOT.parent / "shared" / "corpus"
    path = Path(where)
    return path if path.is_dir() else None


def sources() -> list[tuple[str, Path]]:
    """(key, path) of every source: examples/demo, specs/*, and the corpus's specs."""
    out = [("examples/demo", ROOT / "examples" / "demo")]
    out += [(f"specs/{p.name}", p) for p in sorted((ROOT / "specs").iterdir()) if p.is_file()]
    corpus = corpus_dir()
    if corpus is not None:
        for p in sorted(corpus.rglob("*")):
            if p.suffix in (".json", ".yaml", ".yml") and p.is_file():
                out.append((f"corpus/{p.relative_to(corpus)}", p))
    return out


def digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digests_of(path: Path) -> dict[str, str] | None:
    """Each mode's digest, or None when the source does not load as a catalog."""
    try:
        result = load_catalog([path], progress=False)
    except Exception:  # not a catalog (a corpus file that is no spec): left out
        return None
    if result.catalog is None:
        return None
    out = {}
    for provider, strict in MODES:
        mode = provider + (" --strict" if strict else "")
        try:
            exported = export_catalog(result.catalog, provider, strict=strict)
        except Exception as exc:  # recorded, so a change in what fails shows too
            out[mode] = f"error: {type(exc).__name__}"
            continue
        out[mode] = digest({"tools": exported.tools, "notes": [str(n) for n in exported.notes]})
    return out


def cli_digests_of(path: Path) -> dict[str, str]:
    """``toolcat schema``'s stdout and stderr bytes for each mode: the text, not only the JSON."""
    out = {}
    for provider, strict in MODES:
        argv = [sys.executable, "-m", "toolcat.cli", "schema", str(path), "--provider", provider]
        argv += ["--strict"] if strict else []
        done = subprocess.run(argv, capture_output=True, check=False, cwd=ROOT)
        mode = "cli " + provider + (" --strict" if strict else "")
        out[mode] = hashlib.sha256(done.stdout + b"\0" + done.stderr).hexdigest()
    return out


def diagnostics() -> dict[str, list[str]]:
    """Each broken catalog's diagnostics as ``toolcat validate`` words them, paths from the root."""
    broken = ROOT / "tests" / "data" / "catalogs" / "broken"
    out = {}
    for case in sorted(p for p in broken.iterdir() if p.suffix == ".yaml" or p.is_dir()):
        result = load_catalog([case], progress=False)
        prefix = str(ROOT) + os.sep
        out[case.name] = [str(d).replace(prefix, "") for d in result.diagnostics]
    return out


def main() -> int:
    if sys.argv[1:] == ["--diagnostics"]:
        json.dump(diagnostics(), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    table = {}
    for key, path in sources():
        found = digests_of(path)
        if found is not None and (not key.startswith("corpus/") or key in CLI_CORPUS):
            found.update(cli_digests_of(path))
        if found is not None:
            table[key] = found
        print(key, file=sys.stderr)
    json.dump(table, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
