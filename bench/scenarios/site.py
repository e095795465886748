"""Static site: the cold and incremental site build of a synthetic corpus, and what a reader downloads to search it.

One run reports, on the same machine and input:
- the cold site build (pincite's rendering, and Pagefind's own indexing of the same document
  pages, measured inside the same build) and the site's size by part;
- the site build after changed files, for each of `--changed` (cumulative counts of changed
  documents, one commit per step): pages rendered vs reused, and what Pagefind indexed (the
  delta bundle: the pages changed since the base was made);
- after each step, the bytes a reader downloads for a cold query and for a warm one (a second
  query in the same tab), counted at a local server, beside the page's own HTML/CSS/JS.

With `--measure SITE --repo REPO`, only the queries, on a site built before.

Targets: incremental site work proportional to changed documents; cold query <= 300 KB, warm
<= 100 KB.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.browser import CountingServer, launch
from bench.corpora import heading_words
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate, git


def _size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def _site_sizes(site: Path) -> dict[str, dict[str, int]]:
    parts: dict[str, dict[str, int]] = {}
    for name in ("v", "doc", "history", "pagefind", "static", "files"):
        if (site / name).exists():
            size, count = _size(site / name)
            parts[name] = {"bytes": size, "files": count}
    total, count = _size(site)
    parts["total"] = {"bytes": total, "files": count}
    return parts


def _query_words(root: Path, paths: list[str]) -> tuple[str, str]:
    """Two words from document headings: real vocabulary, found in some documents, not all."""
    words = heading_words(root, paths, 6)
    return words[0], words[-1]


def measure_queries(site: Path, first: str, second: str, more: list[str] | None = None) -> dict[str, Any]:
    """What a reader downloads for a cold query (`first`), then a warm one (`second`), then each of `more`."""
    from playwright.sync_api import sync_playwright

    with CountingServer(site) as server, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_context().new_page()
        server.take()
        started = time.monotonic()
        # A reader arrives with a query (as from the search box on any page).
        page.goto(server.base + "search.html?q=" + first)
        page.wait_for_selector(".result-link", timeout=60_000)
        page.wait_for_load_state("networkidle")
        cold_seconds = time.monotonic() - started
        cold_requests = server.take()
        searched = [r for r in cold_requests if _is_search_file(r.path)]
        started = time.monotonic()
        _search_again(page, second)
        warm_seconds = time.monotonic() - started
        warm_requests = server.take()
        results = page.locator(".result-link").count()
        more_bytes = {}
        for word in more or []:
            _search_again(page, word)
            more_bytes[word] = sum(r.raw for r in server.take())
        browser.close()
    return {
        "queries": [first, second],
        "page_bytes_html_css_js": sum(r.raw for r in cold_requests if not _is_search_file(r.path)),
        "cold_query_bytes": sum(r.raw for r in searched),
        "cold_query_bytes_text_gzipped": sum(r.wire for r in searched),
        "cold_query_requests": len(cold_requests),
        "cold_query_files": sorted((r.path.split("?")[0], r.raw) for r in searched),
        "cold_first_results_seconds": round(cold_seconds, 2),
        "warm_query_bytes": sum(r.raw for r in warm_requests),
        "warm_query_bytes_text_gzipped": sum(r.wire for r in warm_requests),
        "warm_query_requests": len(warm_requests),
        "warm_results_seconds": round(warm_seconds, 2),
        "warm_results_shown": results,
        "more_warm_query_bytes": more_bytes,
    }


def _search_again(page: Any, word: str) -> None:
    """A query typed into the search page already open, waited for until its results and files are in."""
    page.fill("#q", word)
    page.click("#search-form button[type=submit]")
    page.wait_for_function(
        "w => document.querySelector('#search-status').textContent.includes('match') && location.search.includes(w)",
        arg=word,
        timeout=60_000,
    )
    page.wait_for_load_state("networkidle")


def _is_search_file(path: str) -> bool:
    return path.startswith("/pagefind/") or path.startswith("/search-bundles.json")


def _changed_documents(paths: list[str], count: int) -> list[str]:
    """`count` documents spread over the corpus (the first `n` of them for any smaller count)."""
    step = max(1, len(paths) // max(count, 1))
    return [paths[(len(paths) // 2 + n * step) % len(paths)] for n in range(count)]


def _stage(total: float, figures: dict[str, Any]) -> dict[str, Any]:
    keys = ("pages_rendered", "pages_reused", "history_written", "history_reused")
    search = ("search_bundles_indexed", "search_bundles_reused", "search_pages_indexed", "search_pages_superseded")
    return {
        "build_seconds": round(total, 2),
        "site_seconds": figures.get("seconds"),
        "pincite_render_seconds": round(float(figures["seconds"]) - float(figures["pagefind_seconds"]), 2),
        "pagefind_seconds": figures.get("pagefind_seconds"),
        **{key: figures.get(key) for key in search + keys},
    }


def _timed_build(repo_dir: Path, index: Path, site: Path, config: Any) -> dict[str, Any]:
    from indexer.api import build

    started = time.monotonic()
    summary = build(repo_dir, index_path=index, out=site, config=config)
    return _stage(time.monotonic() - started, dict(summary.site or {}))


def run_site(
    repo_dir: Path, index: Path, site: Path, paths: list[str], steps: list[int], config: Any, words: tuple[str, str]
) -> dict[str, Any]:
    """Cold site build, then for each step the changed files, the incremental build and the queries."""
    figures: dict[str, Any] = {"cold": _timed_build(repo_dir, index, site, config), "steps": []}
    figures["site_size"] = _site_sizes(site)
    done = 0
    for count in steps:
        for path in _changed_documents(paths, count)[done:]:
            target = repo_dir / path
            target.write_bytes(target.read_bytes() + f"\nEdited by the benchmark, step {count}.\n".encode())
        git(repo_dir, "commit", "-q", "-a", "-m", f"Edit {count - done} documents")
        done = count
        step = {"changed_documents": count, "build": _timed_build(repo_dir, index, site, config)}
        step["search_bundles"] = json.loads((site / "search-bundles.json").read_text())["bundles"]
        step["query"] = measure_queries(site, *words)
        figures["steps"].append(step)
    return figures


def measure(docs: int, commits: int, target_mb: float, workdir: Path, steps: list[int], config: Any) -> dict[str, Any]:
    from indexer.api import build

    repo_dir = workdir / "repo"
    corpus = generate(repo_dir, SynthParams(docs=docs, commits=commits, target_bytes=int(target_mb * 1e6)))
    index = workdir / "index.sqlite"
    started = time.monotonic()
    build(repo_dir, index_path=index, site=False)
    index_seconds = time.monotonic() - started
    words = _query_words(repo_dir, corpus.paths)
    figures = run_site(repo_dir, index, workdir / "site", sorted(corpus.paths), steps, config, words)
    return {
        "corpus": {"docs": docs, "commits": commits, "target_mb": target_mb},
        "delta_share": config.site_search_delta_share,
        "index_only_build_seconds": round(index_seconds, 2),
        "index_file_bytes": index.stat().st_size,
        "site": figures,
    }


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=10_000, help="documents in the synthetic corpus")
    parser.add_argument("--commits", type=int, default=200, help="edit commits after the first")
    parser.add_argument(
        "--target-mb", type=float, default=50.0, help="the documents' total size (50 MB whatever --docs: give less)"
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="work in this new folder and keep it (repo, index.sqlite, site)"
    )
    parser.add_argument(
        "--changed", default="1", help="comma-separated cumulative counts of changed documents, one build each"
    )
    parser.add_argument("--delta-share", type=float, help="site_search_delta_share (default: pincite's)")
    parser.add_argument("--measure", type=Path, default=None, help="only measure the queries on this built site")
    parser.add_argument("--repo", type=Path, default=None, help="with --measure: the repository the site is of")
    parser.add_argument("--more-words", type=int, default=0, help="with --measure: this many more warm queries")
    parser.add_argument(
        "--words", default="", help="with --measure: the cold and the warm query (`a,b`) instead of --repo's headings"
    )


def run(args: argparse.Namespace) -> Result:
    from indexer.config import Config

    if args.measure is not None and args.words:
        cold, warm = args.words.split(",", 1)
        found = measure_queries(args.measure, cold, warm)
        return Result(_query_markdown(found), found, subject="queries on a built site")
    if args.measure is not None:
        if args.repo is None:
            raise SystemExit("--measure needs --repo (the query words come from its documents)")
        paths = sorted(p.relative_to(args.repo).as_posix() for p in (args.repo / "corpus").rglob("*.md"))
        more = list(dict.fromkeys(heading_words(args.repo, paths, 40)))[-args.more_words :] if args.more_words else []
        found = measure_queries(args.measure, *_query_words(args.repo, paths), more)
        return Result(_query_markdown(found), found, subject="queries on a built site")
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="pincite-site-bench-"))
    try:
        steps = [int(n) for n in args.changed.split(",")]
        share = Config().site_search_delta_share if args.delta_share is None else args.delta_share
        config = Config(site_search_delta_share=share)
        figures = measure(args.docs, args.commits, args.target_mb, workdir, steps, config)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return Result(markdown(figures), figures)


def _query_markdown(q: dict[str, Any]) -> str:
    return (
        f"cold query `{q['queries'][0]}`: {q['cold_query_bytes'] / 1e3:.0f} KB of search files "
        f"({q['cold_query_bytes_text_gzipped'] / 1e3:.0f} KB as sent, {q['cold_query_requests']} requests, first "
        f"results in {q['cold_first_results_seconds']} s); warm query `{q['queries'][1]}`: "
        f"{q['warm_query_bytes'] / 1e3:.0f} KB ({q['warm_query_bytes_text_gzipped'] / 1e3:.0f} KB as sent, "
        f"{q['warm_query_requests']} requests, {q['warm_results_seconds']} s); the page itself "
        f"{q['page_bytes_html_css_js'] / 1e3:.0f} KB"
    )


def markdown(f: dict[str, Any]) -> str:
    site, cold = f["site"], f["site"]["cold"]
    size = site["site_size"]
    parts = ", ".join(f"{k} {v['bytes'] / 1e6:.1f} MB/{v['files']:,}" for k, v in size.items() if k != "total")
    lines = [
        f"Synthetic corpus: {f['corpus']['docs']:,} documents ({f['corpus']['target_mb']} MB), "
        f"{f['corpus']['commits']} commits; search delta "
        f"share {f['delta_share']}. Index-only build {f['index_only_build_seconds']} s, index file "
        f"{f['index_file_bytes'] / 1e6:.0f} MB.",
        "",
        f"Cold site build: {cold['build_seconds']} s (pincite's rendering {cold['pincite_render_seconds']} s, "
        f"Pagefind {cold['pagefind_seconds']} s); {cold['pages_rendered']:,} pages. Site "
        f"{size['total']['bytes'] / 1e6:.1f} MB in {size['total']['files']:,} files ({parts}).",
        "",
        "| changed documents | build | rendering | Pagefind | pages rendered / reused | search pages indexed "
        "| cold query | warm query |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in site["steps"]:
        b, q = s["build"], s["query"]
        lines.append(
            f"| {s['changed_documents']} | {b['build_seconds']} s | {b['pincite_render_seconds']} s | "
            f"{b['pagefind_seconds']} s | {b['pages_rendered']} / {b['pages_reused']} | {b['search_pages_indexed']} "
            f"| {q['cold_query_bytes'] / 1e3:.0f} KB | {q['warm_query_bytes'] / 1e3:.0f} KB |"
        )
    lines += ["", "Queries after the last step: " + _query_markdown(site["steps"][-1]["query"]) + "."]
    return "\n".join(lines)
