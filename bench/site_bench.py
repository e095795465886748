"""Site benchmark: render the static site of the synthetic corpus, then search it in chromium.

One run reports, on the same machine and input:
- the cold site build (pincite's rendering, and Pagefind's own indexing of the same document
  pages, measured inside the same build) and the site's size by part;
- the site build after changed files, for each of `--changed` (cumulative counts of changed
  documents, one commit per step): pages rendered vs reused, and what Pagefind indexed (the
  delta bundle: the pages changed since the base was made);
- after each step, the bytes a reader downloads for a cold query and for a warm one (a second
  query in the same tab), counted at a local server, beside the page's own HTML/CSS/JS.

    python bench/site_bench.py                              # 10,000 documents, 200 commits (minutes)
    python bench/site_bench.py --docs 2000 --commits 40 --changed 1,100
    python bench/site_bench.py --docs 1000 --json           # a quick run
    python bench/site_bench.py --measure SITE --repo REPO   # only the queries, on a built site

Targets (issues 6 and 14): incremental site work proportional to changed documents; cold query
<= 300 KB, warm <= 100 KB.
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synth_corpus import SynthParams, generate, git
from indexer.api import build
from indexer.config import Config
from indexer.site.serve import HOST, SiteRequestHandler

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


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


class _Counter:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bytes = 0
        self.requests: list[tuple[str, int, int]] = []

    def reset(self) -> tuple[int, list[tuple[str, int, int]]]:
        with self.lock:
            seen = (self.bytes, self.requests)
            self.bytes, self.requests = 0, []
        return seen


def _counting_server(site: Path, counter: _Counter) -> http.server.ThreadingHTTPServer:
    class Counting(SiteRequestHandler):
        def copyfile(self, source: Any, outputfile: Any) -> None:
            data = source.read()
            outputfile.write(data)
            # What a host that gzips text (as most static hosts do) would send; Pagefind's
            # own files are compressed already and go as they are.
            text = self.path.split("?")[0].endswith((".html", ".js", ".css", ".json"))
            wire = len(gzip.compress(data, 6)) if text else len(data)
            with counter.lock:
                counter.bytes += len(data)
                counter.requests.append((self.path, len(data), wire))

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer((HOST, 0), lambda *a: Counting(*a, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _heading_words(root: Path, paths: list[str], documents: int) -> list[str]:
    """The longer words of the headings of `documents` documents spread over the corpus, in order."""
    words: list[str] = []
    for path in paths[:: max(1, len(paths) // (documents + 1))][:documents]:
        heading = (root / path).read_text(encoding="utf-8").splitlines()[0]
        words += [w for w in heading.lstrip("# ").lower().split() if len(w) > 4]
    return words


def _query_words(root: Path, paths: list[str]) -> tuple[str, str]:
    """Two words from document headings: real vocabulary, found in some documents, not all."""
    words = _heading_words(root, paths, 6)
    return words[0], words[-1]


def measure_queries(site: Path, first: str, second: str, more: list[str] | None = None) -> dict[str, Any]:
    """What a reader downloads for a cold query (`first`), then a warm one (`second`), then each of `more`."""
    from playwright.sync_api import sync_playwright

    counter = _Counter()
    server = _counting_server(site, counter)
    base = f"http://{HOST}:{server.server_address[1]}/"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_context().new_page()
            counter.reset()
            started = time.monotonic()
            # A reader arrives with a query (as from the search box on any page).
            page.goto(base + "search.html?q=" + first)
            page.wait_for_selector(".result-link", timeout=60_000)
            page.wait_for_load_state("networkidle")
            cold_seconds = time.monotonic() - started
            _, cold_requests = counter.reset()
            shell = sum(n for path, n, _ in cold_requests if not _is_search_file(path))
            cold = sum(n for path, n, _ in cold_requests if _is_search_file(path))
            cold_wire = sum(w for path, _, w in cold_requests if _is_search_file(path))
            started = time.monotonic()
            _search_again(page, second)
            warm_seconds = time.monotonic() - started
            warm, warm_requests = counter.reset()
            warm_wire = sum(w for _, _, w in warm_requests)
            results = page.locator(".result-link").count()
            more_bytes = {}
            for word in more or []:
                _search_again(page, word)
                more_bytes[word] = counter.reset()[0]
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return {
        "queries": [first, second],
        "page_bytes_html_css_js": shell,
        "cold_query_bytes": cold,
        "cold_query_bytes_text_gzipped": cold_wire,
        "cold_query_requests": len(cold_requests),
        "cold_query_files": sorted((path.split("?")[0], n) for path, n, _ in cold_requests if _is_search_file(path)),
        "cold_first_results_seconds": round(cold_seconds, 2),
        "warm_query_bytes": warm,
        "warm_query_bytes_text_gzipped": warm_wire,
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


def _timed_build(repo_dir: Path, index: Path, site: Path, config: Config) -> dict[str, Any]:
    started = time.monotonic()
    summary = build(repo_dir, index_path=index, out=site, config=config)
    return _stage(time.monotonic() - started, dict(summary.site or {}))


def run_site(
    repo_dir: Path, index: Path, site: Path, paths: list[str], steps: list[int], config: Config, words: tuple[str, str]
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


def run(docs: int, commits: int, workdir: Path, steps: list[int], config: Config) -> dict[str, Any]:
    repo_dir = workdir / "repo"
    corpus = generate(repo_dir, SynthParams(docs=docs, commits=commits))
    index = workdir / "index.sqlite"
    started = time.monotonic()
    build(repo_dir, index_path=index, site=False)
    index_seconds = time.monotonic() - started
    words = _query_words(repo_dir, corpus.paths)
    figures = run_site(repo_dir, index, workdir / "site", sorted(corpus.paths), steps, config, words)
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_at_end": os.getloadavg(),
        },
        "corpus": {"docs": docs, "commits": commits},
        "delta_share": config.site_search_delta_share,
        "index_only_build_seconds": round(index_seconds, 2),
        "index_file_bytes": index.stat().st_size,
        "site": figures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=10_000, help="documents in the synthetic corpus")
    parser.add_argument("--commits", type=int, default=200, help="edit commits after the first")
    parser.add_argument(
        "--keep", type=Path, default=None, help="work in this new folder and keep it (repo, index.sqlite, site)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument(
        "--changed", default="1", help="comma-separated cumulative counts of changed documents, one build each"
    )
    parser.add_argument("--delta-share", type=float, default=Config().site_search_delta_share)
    parser.add_argument("--measure", type=Path, default=None, help="only measure the queries on this built site")
    parser.add_argument("--repo", type=Path, default=None, help="with --measure: the repository the site is of")
    parser.add_argument("--more-words", type=int, default=0, help="with --measure: this many more warm queries")
    args = parser.parse_args(argv)
    if args.measure is not None:
        if args.repo is None:
            parser.error("--measure needs --repo (the query words come from its documents)")
        paths = sorted(p.relative_to(args.repo).as_posix() for p in (args.repo / "corpus").rglob("*.md"))
        more = list(dict.fromkeys(_heading_words(args.repo, paths, 40)))[-args.more_words :] if args.more_words else []
        print(json.dumps(measure_queries(args.measure, *_query_words(args.repo, paths), more), indent=2))
        return 0
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="pincite-site-bench-"))
    try:
        steps = [int(n) for n in args.changed.split(",")]
        config = Config(site_search_delta_share=args.delta_share)
        figures = run(args.docs, args.commits, workdir, steps, config)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
