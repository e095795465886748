"""What a delta search bundle costs Pagefind and a reader, by its size, against the whole base.

On a built site, delta bundles of N document pages (spread over the corpus) are indexed the
way a build indexes them (`indexer.site.search_bundles.index_bundles`: hard links in a staging
folder, one Pagefind run, the pages' ids read back), next to the base over every page (what a
build runs when it makes a new base, and what every one-file build ran before search had a
delta). Rounds alternate the sizes, so a busy minute on a shared machine hits them alike; the
fastest round of each counts, as a ratio to the base of the same run. For each bundle, the bytes
of its word index (what a query word's chunk comes from), its metadata and its chunk count.

    python bench/site_bench.py --docs 10000 --commits 20 --keep /tmp/sb10k
    python bench/search_bundles_bench.py /tmp/sb10k/site --sizes 1,10,100,500,1000 --rounds 3

With `--part-mb`, the base instead, made as a build makes it with each `site_search_part_mb`
(0: one bundle): the parts, Pagefind's CPU, the peak summed RSS of this process and its Pagefind
runs, and what a query word's chunks from all the parts come to (the parts' mean chunk sizes,
added up).

    python bench/search_bundles_bench.py /tmp/sb10k/site --part-mb 0,20 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.build_bench import TreeWatch
from indexer.site.search_bundles import Bundle, base_parts, index_bundles, make_bundle


def document_pages(site: Path) -> dict[str, str]:
    """The document paths of a built site's pages (doc/<path>.html), each with a constant key."""
    doc = site / "doc"
    return {p.relative_to(doc).as_posix()[: -len(".html")]: "bench" for p in doc.rglob("*.html")}


def bundle_of(pages: dict[str, str], size: int) -> Bundle:
    """The base over every page for size 0, else a delta of `size` pages spread over the corpus."""
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


def run(site: Path, sizes: list[int], rounds: int, workdir: Path) -> dict[str, Any]:
    pages = document_pages(site)
    times: dict[int, list[float]] = {size: [] for size in sizes}
    made: dict[int, dict[str, int]] = {}
    for round_number in range(rounds):
        for size in sizes if round_number % 2 == 0 else list(reversed(sizes)):
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
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_at_end": os.getloadavg(),
        },
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
    pages = document_pages(site)
    found: dict[float, list[dict[str, Any]]] = {mb: [] for mb in part_mbs}
    for round_number in range(rounds):
        for mb in part_mbs if round_number % 2 == 0 else list(reversed(part_mbs)):
            target = workdir / f"parts-{mb}"
            shutil.rmtree(target, ignore_errors=True)
            parts = base_parts(
                pages, "bench", lambda path: (site / "doc" / f"{path}.html").stat().st_size, int(mb * 1e6)
            )
            cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
            watch = TreeWatch(os.getpid())
            seconds = index_bundles(site, parts, target, workdir / "stage")
            peak = watch.stop()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            made = [bundle_bytes(target / part.folder) for part in parts]
            found[mb].append(
                {
                    "parts": len(parts),
                    "chunk_size": parts[0].chunk_size,
                    "seconds": round(seconds, 2),
                    "pagefind_cpu_seconds": round(after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, 2),
                    "peak_rss_mb": round(peak, 1),
                    "index_chunks": sum(m["index_chunks"] for m in made),
                    "index_bytes": sum(m["index_bytes"] for m in made),
                    "meta_bytes": sum(m["meta_bytes"] for m in made),
                    "a_words_chunks_bytes": round(sum(m["index_bytes"] / max(1, m["index_chunks"]) for m in made)),
                }
            )
    return {"site": str(site), "pages": len(pages), "by_part_mb": {str(mb): runs for mb, runs in found.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("site", type=Path, help="a built pincite site (e.g. kept by bench/site_bench.py --keep)")
    parser.add_argument("--sizes", default="1,10,100,500,1000", help="delta sizes in pages; the base is added")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part-mb", help="site_search_part_mb values (0: one bundle): measure the base in parts")
    args = parser.parse_args(argv)
    started = time.monotonic()
    sizes = [0, *(int(n) for n in args.sizes.split(",") if int(n) > 0)]
    with tempfile.TemporaryDirectory(prefix="pincite-bundles-bench-", dir=args.site.parent) as work:
        if args.part_mb:
            figures = run_parts(args.site, [float(mb) for mb in args.part_mb.split(",")], args.rounds, Path(work))
        else:
            figures = run(args.site, sizes, args.rounds, Path(work))
    figures["wall_seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
