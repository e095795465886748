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
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from indexer.site.search_bundles import Bundle, index_bundles, make_bundle


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("site", type=Path, help="a built pincite site (e.g. kept by bench/site_bench.py --keep)")
    parser.add_argument("--sizes", default="1,10,100,500,1000", help="delta sizes in pages; the base is added")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    started = time.monotonic()
    sizes = [0, *(int(n) for n in args.sizes.split(",") if int(n) > 0)]
    with tempfile.TemporaryDirectory(prefix="pincite-bundles-bench-", dir=args.site.parent) as work:
        figures = run(args.site, sizes, args.rounds, Path(work))
    figures["wall_seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
