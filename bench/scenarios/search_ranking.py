"""Search ranking: two built sites' searches side by side, how much their top results and match counts agree.

Each query runs in chromium through the site's own search index (`static/search-index.js`, every
bundle the site lists, superseded pages dropped), as the search page runs it. For each query it
reports the match count on each site and how many of the first site's top ten results the second
site's top ten hold, then the mean over the queries. Use it to see what a change to the search
bundles (parts, a delta, another Pagefind) does to what readers find first.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.browser import launch
from bench.corpora import heading_words
from bench.scenarios import Result

TOP = 10
SEARCH = """async ([query, top]) => {
    const { load } = await import(new URL("static/search-index.js", location.href).href);
    const index = await load(new URL("./", location.href));
    const found = await index.search(query);
    const first = await Promise.all(found.results.slice(0, top).map((result) => result.data()));
    return [found.results.length, first.map((data) => data.url)];
}"""


def answers(site: Path, queries: list[str]) -> dict[str, tuple[int, list[str]]]:
    """Each query's match count and top result URLs on the site at `site`."""
    from playwright.sync_api import sync_playwright

    from indexer.site.serve import serve_in_thread

    server, base = serve_in_thread(site)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page()
            page.goto(base + "search.html")
            found = {query: page.evaluate(SEARCH, [query, TOP]) for query in queries}
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return {query: (int(count), list(top)) for query, (count, top) in found.items()}


def compare(first: dict[str, tuple[int, list[str]]], second: dict[str, tuple[int, list[str]]]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for query, (count, top) in first.items():
        other_count, other_top = second[query]
        shared = len(set(top) & set(other_top)) / len(top) if top else 1.0
        rows.append({"query": query, "matches": [count, other_count], "top_shared": shared})
        rows[-1]["same_order"] = top == other_top
    return {
        "queries": len(rows),
        "top_shared_mean": round(sum(r["top_shared"] for r in rows) / max(1, len(rows)), 2),
        "top_shared_least": min((r["top_shared"] for r in rows), default=1.0),
        "same_order": sum(r["same_order"] for r in rows),
        "same_match_count": sum(r["matches"][0] == r["matches"][1] for r in rows),
        "by_query": rows,
    }


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("first", type=Path, help="a built site (the reference)")
    parser.add_argument("second", type=Path, help="another built site of the same pages")
    parser.add_argument("--queries", nargs="*", default=[], help="the queries")
    parser.add_argument("--heading-words", type=Path, help="also: words of the headings of this repository's corpus/")
    parser.add_argument("--count", type=int, default=30, help="with --heading-words: how many words")


def run(args: argparse.Namespace) -> Result:
    queries = list(args.queries)
    if args.heading_words:
        repo = args.heading_words
        paths = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))
        queries += list(dict.fromkeys(heading_words(repo, paths, 40)))[: args.count]
    if not queries:
        raise SystemExit("give --queries or --heading-words")
    result = compare(answers(args.first, queries), answers(args.second, queries))
    lines = [
        f"{result['queries']} queries: top {TOP} in common {result['top_shared_mean']:.2f} by mean "
        f"({result['top_shared_least']:.2f} the least), same order {result['same_order']}, "
        f"same match count {result['same_match_count']}.",
        "",
        "| query | matches (first / second) | top ten in common |",
        "|---|---|---|",
        *[
            f"| {row['query']} | {row['matches'][0]} / {row['matches'][1]} | {row['top_shared']:.1f} |"
            for row in result["by_query"]
        ],
    ]
    return Result("\n".join(lines), result)
