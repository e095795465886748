"""Site benchmark: render the static site of the synthetic corpus, then search it in chromium.

One run reports, on the same machine and input:
- the cold site build (pincite's rendering, and Pagefind's own indexing of the same document
  pages, measured inside the same build) and the site's size by part;
- the site build after one changed file (pages rendered vs reused: work proportional to the
  changed documents; Pagefind indexes again the search bundle of the changed page);
- the bytes a reader downloads for a cold query and for a warm one (a second query in the
  same tab), counted at a local server, beside the page's own HTML/CSS/JS.

Each of `--bundles` is measured on a site of its own, over the same index and corpus, one
after the other in the same run: 1 is a single Pagefind index (every page indexed again at
each build), 0 the default setting, N forces N bundles.

    python bench/site_bench.py                              # 10,000 documents, 200 commits (minutes)
    python bench/site_bench.py --docs 2000 --commits 40 --bundles 1,4,8,16
    python bench/site_bench.py --docs 1000 --json           # a quick run

Targets (issue 6): incremental site work proportional to changed documents; cold query
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

from bench.synth_corpus import SynthParams, commit_change, generate
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


def _query_words(root: Path, paths: list[str]) -> tuple[str, str]:
    """Two words from document headings: real vocabulary, found in some documents, not all."""
    words = []
    for path in paths[:: max(1, len(paths) // 7)][:6]:
        heading = (root / path).read_text(encoding="utf-8").splitlines()[0]
        words += [w for w in heading.lstrip("# ").lower().split() if len(w) > 4]
    return words[0], words[-1]


def measure_queries(site: Path, first: str, second: str) -> dict[str, Any]:
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
            page.fill("#q", second)
            page.click("#search-form button[type=submit]")
            page.wait_for_function(
                "w => document.querySelector('#search-status').textContent.includes('match')"
                " && location.search.includes(w)",
                arg=second,
                timeout=60_000,
            )
            page.wait_for_load_state("networkidle")
            warm_seconds = time.monotonic() - started
            warm, warm_requests = counter.reset()
            warm_wire = sum(w for _, _, w in warm_requests)
            results = page.locator(".result-link").count()
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
    }


def _is_search_file(path: str) -> bool:
    return path.startswith("/pagefind/") or path.startswith("/search-bundles.json")


def _site_config(bundles: int) -> Config:
    """The site settings of one measured variant: 0 is the default; N forces N search bundles."""
    if bundles == 0:
        return Config()
    return Config(site_search_pages_per_bundle=1, site_search_max_bundles=bundles)


def run_variant(repo_dir: Path, index: Path, site: Path, changed: str, bundles: int) -> dict[str, Any]:
    """Cold site build, one changed file, the incremental build, then the queries, for one bundle setting."""
    config = _site_config(bundles)
    started = time.monotonic()
    cold = build(repo_dir, index_path=index, out=site, config=config)
    cold_total = time.monotonic() - started
    cold_site = dict(cold.site or {})
    commit_change(repo_dir, changed, f"\nOne more paragraph, added by the benchmark for {bundles} bundles.\n")
    started = time.monotonic()
    warm = build(repo_dir, index_path=index, out=site, config=config)
    warm_total = time.monotonic() - started
    warm_site = dict(warm.site or {})

    def own(stage: dict[str, Any]) -> float:
        return round(float(stage["seconds"]) - float(stage["pagefind_seconds"]), 2)

    def stage(total: float, figures: dict[str, Any]) -> dict[str, Any]:
        keys = ("pages_rendered", "pages_reused", "history_written", "history_reused")
        return {
            "build_seconds": round(total, 2),
            "site_seconds": figures.get("seconds"),
            "pincite_render_seconds": own(figures),
            "pagefind_seconds": figures.get("pagefind_seconds"),
            "search_bundles_indexed": figures.get("search_bundles_indexed"),
            "search_bundles_reused": figures.get("search_bundles_reused"),
            **{key: figures.get(key) for key in keys},
        }

    return {
        "bundles_setting": bundles or "default",
        "cold": stage(cold_total, cold_site),
        "one_changed_file": stage(warm_total, warm_site),
    }


def run(docs: int, commits: int, workdir: Path, variants: list[int], keep_sites: bool = False) -> dict[str, Any]:
    repo_dir = workdir / "repo"
    corpus = generate(repo_dir, SynthParams(docs=docs, commits=commits))
    index = workdir / "index.sqlite"
    started = time.monotonic()
    build(repo_dir, index_path=index, site=False)
    index_seconds = time.monotonic() - started
    first, second = _query_words(repo_dir, corpus.paths)
    results = []
    for number, bundles in enumerate(variants):
        site = workdir / f"site-{bundles}"
        changed = corpus.paths[(len(corpus.paths) // 2 + number * 7919) % len(corpus.paths)]
        figures = run_variant(repo_dir, index, site, changed, bundles)
        figures["search_bundles"] = len(json.loads((site / "search-bundles.json").read_text())["bundles"])
        figures["site_size"] = _site_sizes(site)
        figures["query"] = measure_queries(site, first, second)
        results.append(figures)
        if not keep_sites:
            shutil.rmtree(site, ignore_errors=True)  # a 10,000-document site takes 0.6 GB
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_at_end": os.getloadavg(),
        },
        "corpus": {"docs": docs, "commits": commits},
        "index_only_build_seconds": round(index_seconds, 2),
        "index_file_bytes": index.stat().st_size,
        "variants": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=10_000, help="documents in the synthetic corpus")
    parser.add_argument("--commits", type=int, default=200, help="edit commits after the first")
    parser.add_argument(
        "--keep", type=Path, default=None, help="work in this new folder and keep it (the sites are site-<bundles>)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument(
        "--bundles",
        default="0",
        help="comma-separated search bundle counts to measure, each on its own site; 0 is the default setting",
    )
    args = parser.parse_args(argv)
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="pincite-site-bench-"))
    try:
        variants = [int(b) for b in args.bundles.split(",")]
        figures = run(args.docs, args.commits, workdir, variants, keep_sites=args.keep is not None)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
