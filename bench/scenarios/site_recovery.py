"""Drift banner recovery in the browser: what the search for moved text costs a reader.

When a permalinked span drifted, its version page looks for the cited text at the site's
HEAD: the path's own document page, and the document pages Pagefind names as holding the
text's words, each confirmed by exact comparison (static/quote.js). The site gains no data
file for it (only static/quote.js and static/recovery.js), so this measures what a reader
downloads and waits for.

For `--lookups` HEAD documents (chosen with a fixed seed), the first line of eight words or
more is searched for with `findText` of static/recovery.js (the search a version page runs for a
drifted span whose file is gone: Pagefind candidates, then each candidate's document page compared exactly),
from the previous document's page, so the page holding the text is not in the browser's cache.
The first lookup in the tab is cold (Pagefind's scripts, wasm and metadata load), the rest warm.
Bytes are counted at a local server (text as a host's gzip would send it, Pagefind's files as
they are). The same run measures a cold query on the search page as the baseline.

The site is one built before (`--site`, e.g. kept by the `site` scenario) or a small one built
here (`--docs`).

Static files are served from this checkout's site_templates/static, so a site built before
a change to the scripts measures the current ones.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import tempfile
import time
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.browser import CountingServer, Request, launch
from bench.harness import ROOT
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate

STATIC = ROOT / "site_templates" / "static"
# A lookup runs on the previous document's page, so the document holding the text is not
# already in the browser's cache (as for a reader whose cited text moved to another file).
LOOKUP = """async ([text, kind]) => {
  const started = performance.now();
  const { findText } = await import(new URL("/static/recovery.js", location.href).href);
  const { normalizeQuote } = await import(new URL("/static/quote.js", location.href).href);
  const found = await findText('../' .repeat(location.pathname.split('/').length - 2),
    normalizeQuote(text), [], kind);
  return { ms: performance.now() - started, places: found.places.map((p) => p.path), gaps: found.gaps };
}"""
LINE = re.compile(r"<li id=L\d+>(.*?)(?=<li |</ol>)", re.S)
# Where a document page's source lines start; the id quoted or not (the sites of older checkouts quote it).
SOURCE = re.compile(r'<ol id="?src"?')


def _passage(site: Path, path: str) -> str | None:
    """The first line of a document page's text with eight words or more (not a heading)."""
    html = (site / "doc" / f"{path}.html").read_text(encoding="utf-8")
    for raw in LINE.findall(SOURCE.split(html, maxsplit=1)[-1]):
        text = unescape(re.sub(r"<[^>]+>", "", raw))
        if not text.startswith("#") and len(text.split()) >= 8:
            return text
    return None


def _sums(requests: list[Request]) -> dict[str, int]:
    """Bytes (as sent, text gzipped as a host would), requests and Pagefind's share."""
    return {
        "raw": sum(r.raw for r in requests),
        "wire": sum(r.wire for r in requests),
        "requests": len(requests),
        "pagefind": sum(r.wire for r in requests if r.path.startswith("/pagefind/")),
    }


def _documents(site: Path, count: int, seed: int) -> list[str]:
    pages = sorted(p.relative_to(site / "doc").as_posix()[: -len(".html")] for p in (site / "doc").rglob("*.html"))
    return random.Random(seed).sample(pages, min(count, len(pages)))


def _word(site: Path, path: str) -> str:
    """A word of a document's text, for the baseline query: real vocabulary of this corpus."""
    html = (site / "doc" / f"{path}.html").read_text(encoding="utf-8")
    body = re.sub(r"<[^>]+>", " ", SOURCE.split(html, maxsplit=1)[-1].split(">", 1)[-1])
    words: list[str] = re.findall(r"[a-z]{6,}", body.lower())
    return words[0]


def measure(site: Path, lookups: int, seed: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    rows: list[dict[str, Any]] = []
    documents = _documents(site, lookups, seed)
    with CountingServer(site, static=STATIC) as server:
        base = server.base
        with sync_playwright() as p:
            browser = launch(p)
            # Baseline, same run: a reader's cold query on the search page.
            tab = browser.new_context().new_page()
            tab.goto(base + "search.html?q=" + _word(site, documents[0]))
            tab.wait_for_selector(".result-link", timeout=60_000)
            tab.wait_for_load_state("networkidle")
            baseline = _sums(server.take())
            tab.context.close()
            tab = browser.new_context().new_page()
            previous = documents[-1]
            for path in documents:
                text = _passage(site, path)
                if text is None:
                    continue
                tab.goto(f"{base}doc/{quote(previous)}.html")
                tab.wait_for_load_state("networkidle")
                previous = path
                server.take()
                started = time.monotonic()
                found = tab.evaluate(LOOKUP, [text, "lines"])
                seconds = time.monotonic() - started
                rows.append(
                    {
                        **_sums(server.take()),
                        "path": path,
                        "seconds": seconds,
                        "found_itself": path in found["places"],
                        "places": len(found["places"]),
                        "gaps": found["gaps"],
                    }
                )
            browser.close()
    if not rows:
        raise SystemExit("no document had a line of eight words or more")
    cold, warm = rows[0], rows[1:] or rows

    def figures(row_set: list[dict[str, Any]]) -> dict[str, Any]:
        def med(key: str) -> float:
            return float(statistics.median(r[key] for r in row_set))

        return {
            "bytes_gzipped_text": med("wire"),
            "pagefind_bytes": med("pagefind"),
            "document_pages_bytes_gzipped": med("wire") - med("pagefind"),
            "requests": med("requests"),
            "seconds": round(med("seconds"), 3),
        }

    return {
        "site": str(site),
        "documents": sum(1 for _ in (site / "doc").rglob("*.html")),
        "site_bytes_added": {
            **{f"static/{name}": (STATIC / name).stat().st_size for name in ("quote.js", "recovery.js")},
            "data files": 0,
        },
        "lookups": len(rows),
        "baseline_cold_query_pagefind_bytes": baseline["pagefind"],
        "cold_lookup": figures([cold]),
        "warm_lookup_median": figures(warm),
        "warm_lookup_max": max(
            ({k: r[k] for k in ("path", "wire", "pagefind", "requests", "places")} for r in warm),
            key=lambda r: r["wire"],
        ),
        "cold_lookup_pagefind_over_baseline": round(cold["pagefind"] / baseline["pagefind"], 2)
        if baseline["pagefind"]
        else None,
        "found_its_own_line": f"{sum(r['found_itself'] for r in rows)}/{len(rows)}",
        "unique_place": sum(1 for r in rows if r["places"] == 1 and not r["gaps"]),
        "several_places": sum(1 for r in rows if r["places"] > 1),
        "incomplete_search": [{"path": r["path"], "places": r["places"], "gaps": r["gaps"]} for r in rows if r["gaps"]],
    }


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--site", type=Path, help="a built site (e.g. kept by the `site` scenario's --keep)")
    parser.add_argument("--docs", type=int, default=1000, help="without --site: documents of the corpus to build")
    parser.add_argument("--lookups", type=int, default=25, help="passages searched for (the first is cold)")
    parser.add_argument("--seed", type=int, default=8)


def run(args: argparse.Namespace) -> Result:
    from indexer.api import build

    workdir: Path | None = None
    site = args.site
    if site is None:
        workdir = Path(tempfile.mkdtemp(prefix="pincite-recovery-bench-"))
        generate(workdir / "repo", SynthParams(docs=args.docs, commits=20, target_bytes=args.docs * 5_000))
        build(workdir / "repo", index_path=workdir / "index.sqlite", out=workdir / "site")
        site = workdir / "site"
    try:
        f = measure(site, args.lookups, args.seed)
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
    cold, warm = f["cold_lookup"], f["warm_lookup_median"]
    lines = [
        f"A site of {f['documents']:,} document pages; {f['lookups']} lookups (the first cold). The site gains "
        f"`static/quote.js` ({f['site_bytes_added']['static/quote.js']:,} bytes) and no data file.",
        "",
        "| lookup | bytes as sent | Pagefind's | document pages' | requests | seconds |",
        "|---|---|---|---|---|---|",
        *[
            f"| {label} | {r['bytes_gzipped_text'] / 1e3:.0f} KB | {r['pagefind_bytes'] / 1e3:.0f} KB | "
            f"{r['document_pages_bytes_gzipped'] / 1e3:.0f} KB | {r['requests']:.0f} | {r['seconds']} |"
            for label, r in (("cold", cold), ("warm (median)", warm))
        ],
        "",
        "Baseline in the same run, a cold query on the search page: "
        f"{f['baseline_cold_query_pagefind_bytes'] / 1e3:.0f} KB of Pagefind files; the cold lookup's Pagefind "
        f"bytes are x{f['cold_lookup_pagefind_over_baseline']} of it.",
        "",
        f"Found its own line: {f['found_its_own_line']}; a unique place {f['unique_place']}, several places "
        f"{f['several_places']}, an incomplete search {len(f['incomplete_search'])}.",
    ]
    return Result("\n".join(lines), f)
