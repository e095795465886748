"""Search bundles: what a delta bundle costs Pagefind and a reader, by its size, against the whole base.

On a built site, delta bundles of N document pages (spread over the corpus) are indexed the
way a build indexes them (`indexer.site.search_bundles.index_bundles`: hard links in a staging
folder, one Pagefind run, the pages' ids read back), next to the base over every page (what a
build runs when it makes a new base, and what every one-file build ran before search had a
delta). Rounds alternate the sizes, so a busy minute on a shared machine hits them alike; the
fastest round of each counts, as a ratio to the base of the same run. For each bundle, the bytes
of its word index (what a query word's chunk comes from), its metadata and its chunk count.

The site is one built before (`--site`, e.g. kept by the `site` scenario's --keep) or one
built here of a synthetic corpus (`--docs`).

With `--part-mb`, the base instead, made as a build makes it with each `site_search_part_mb`
(0: one bundle): the parts, Pagefind's CPU, the peak summed RSS of this process and its Pagefind
runs, and what a query word's chunks from all the parts come to (the parts' mean chunk sizes,
added up). That run's section is its own (`search-bundles — the base in parts`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import TreeWatch, alternate, children_cpu
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate


def document_pages(site: Path) -> dict[str, str]:
    """The document paths of a built site's pages (doc/<path>.html), each with a constant key."""
    doc = site / "doc"
    return {p.relative_to(doc).as_posix()[: -len(".html")]: "bench" for p in doc.rglob("*.html")}


def bundle_of(pages: dict[str, str], size: int) -> Any:
    """The base over every page for size 0, else a delta of `size` pages spread over the corpus."""
    from indexer.site.search_bundles import make_bundle

    if size == 0:
        return make_bundle("base", pages, "bench")
    paths = sorted(pages)
    step = max(1, len(paths) // size)
    return make_bundle("delta", {paths[(n * step) % len(paths)]: "bench" for n in range(size)}, "bench")


def bundle_bytes(folder: Path) -> dict[str, int]:
    chunks = list((folder / "index").glob("*.pf_index"))
    meta = list(folder.glob("pagefind.*.pf_meta"))
    return {
        "index_bytes": sum(p.stat().st_size for p in chunks),
        "index_chunks": len(chunks),
        "largest_chunk_bytes": max((p.stat().st_size for p in chunks), default=0),
        "meta_bytes": sum(p.stat().st_size for p in meta),
    }


def run_sizes(site: Path, sizes: list[int], rounds: int, workdir: Path) -> dict[str, Any]:
    from indexer.site.search_bundles import index_bundles

    pages = document_pages(site)
    times: dict[int, list[float]] = {size: [] for size in sizes}
    made: dict[int, dict[str, int]] = {}
    for _, order in alternate(sizes, rounds):
        for size in order:
            target = workdir / f"out-{size}"
            shutil.rmtree(target, ignore_errors=True)
            bundle = bundle_of(pages, size)
            times[size].append(index_bundles(site, [bundle], target, workdir / "stage"))
            made[size] = bundle_bytes(target / bundle.folder)
    baseline = min(times[0]) if 0 in times else None
    return {
        "site": str(site),
        "pages": len(pages),
        "rounds": rounds,
        "by_size": [
            {
                "bundle": "base (every page)" if size == 0 else f"delta of {size}",
                "pages_indexed": len(bundle_of(pages, size).pages),
                "best_seconds": round(min(times[size]), 2),
                "all_seconds": [round(t, 2) for t in times[size]],
                "ratio_to_base": round(min(times[size]) / baseline, 3) if baseline else None,
                **made[size],
            }
            for size in sizes
        ],
    }


def run_parts(site: Path, part_mbs: list[float], rounds: int, workdir: Path) -> dict[str, Any]:
    """The base made in parts of each size in `part_mbs`, indexed as a build indexes it."""
    from indexer.site.search_bundles import base_parts, index_bundles

    pages = document_pages(site)
    found: dict[float, list[dict[str, Any]]] = {mb: [] for mb in part_mbs}
    for _, order in alternate(part_mbs, rounds):
        for mb in order:
            target = workdir / f"parts-{mb}"
            shutil.rmtree(target, ignore_errors=True)
            parts = base_parts(
                pages, "bench", lambda path: (site / "doc" / f"{path}.html").stat().st_size, int(mb * 1e6)
            )
            cpu = children_cpu()
            watch = TreeWatch(os.getpid())
            seconds = index_bundles(site, parts, target, workdir / "stage")
            peak, _ = watch.stop()
            after = children_cpu()
            made = [bundle_bytes(target / part.folder) for part in parts]
            found[mb].append(
                {
                    "parts": len(parts),
                    "chunk_size": parts[0].chunk_size,
                    "seconds": round(seconds, 2),
                    "pagefind_cpu_seconds": round(after - cpu, 2),
                    "peak_rss_mb": round(peak, 1),
                    "index_chunks": sum(m["index_chunks"] for m in made),
                    "index_bytes": sum(m["index_bytes"] for m in made),
                    "meta_bytes": sum(m["meta_bytes"] for m in made),
                    "a_words_chunks_bytes": round(sum(m["index_bytes"] / max(1, m["index_chunks"]) for m in made)),
                }
            )
    return {"site": str(site), "pages": len(pages), "by_part_mb": {str(mb): runs for mb, runs in found.items()}}


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--site", type=Path, help="a built pincite site (e.g. kept by the `site` scenario)")
    parser.add_argument("--docs", type=int, default=1000, help="without --site: documents of the corpus to build")
    parser.add_argument("--sizes", default="1,10,100,500,1000", help="delta sizes in pages; the base is added")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part-mb", help="site_search_part_mb values (0: one bundle): measure the base in parts")


def run(args: argparse.Namespace) -> Result:
    from indexer.api import build

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pincite-bundles-bench-") as work:
        site = args.site
        if site is None:
            generate(Path(work) / "repo", SynthParams(docs=args.docs, commits=20, target_bytes=args.docs * 5_000))
            build(Path(work) / "repo", index_path=Path(work) / "index.sqlite", out=Path(work) / "site")
            site = Path(work) / "site"
        if args.part_mb:
            figures = run_parts(site, [float(mb) for mb in args.part_mb.split(",")], args.rounds, Path(work))
        else:
            sizes = [0, *(int(n) for n in args.sizes.split(",") if int(n) > 0)]
            figures = run_sizes(site, sizes, args.rounds, Path(work))
    figures["wall_seconds"] = round(time.monotonic() - started, 1)
    described = f"{figures['pages']:,} document pages"
    if args.part_mb:
        lines = [
            f"The base over {described}, made in parts as a build makes it; {args.rounds} rounds.",
            "",
            "| part MB | parts | seconds | Pagefind CPU | peak RSS | index chunks | index bytes | a word's chunks |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for mb, runs in figures["by_part_mb"].items():
            r = min(runs, key=lambda x: x["seconds"])
            lines.append(
                f"| {mb} | {r['parts']} | {r['seconds']} s | {r['pagefind_cpu_seconds']} s | {r['peak_rss_mb']} MB "
                f"| {r['index_chunks']} | {r['index_bytes'] / 1e6:.1f} MB | {r['a_words_chunks_bytes'] / 1e3:.0f} KB |"
            )
        return Result("\n".join(lines), figures, subject="the base in parts")
    lines = [
        f"Bundles of a site of {described}, indexed as a build indexes them; best of {args.rounds} rounds.",
        "",
        "| bundle | pages | seconds | ÷ base | word index | chunks | largest chunk | metadata |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in figures["by_size"]:
        lines.append(
            f"| {r['bundle']} | {r['pages_indexed']:,} | {r['best_seconds']} s | {r['ratio_to_base']} "
            f"| {r['index_bytes'] / 1e3:.0f} KB | {r['index_chunks']} | {r['largest_chunk_bytes'] / 1e3:.0f} KB "
            f"| {r['meta_bytes'] / 1e3:.0f} KB |"
        )
    return Result("\n".join(lines), figures)
