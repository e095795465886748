"""What one changed document costs Pagefind, by number of search bundles, on a built site.

For each bundle count K, the bundle holding one document (about pages / K pages) is indexed
the way a build indexes it (`indexer.site.search_bundles.index_bundles`: hard links in a
staging folder, one Pagefind run), next to K = 1 (every page, what a build without bundles
runs each time). Rounds alternate the counts, so a busy minute on a shared machine hits them
alike; the fastest round of each counts, and each is given as a ratio to K = 1 of the same run.

    python bench/site_bench.py --docs 2000 --commits 40 --bundles 0 --keep /tmp/sb2k
    python bench/search_bundles_bench.py /tmp/sb2k/site-0 --counts 1,2,4,8,16 --rounds 3
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

from indexer.site.search_bundles import Bundle, bucket_of, index_bundles, plan_bundles


def document_pages(site: Path) -> dict[str, str]:
    """The document paths of a built site's pages (doc/<path>.html), each with a constant key."""
    doc = site / "doc"
    return {p.relative_to(doc).as_posix()[: -len(".html")]: "bench" for p in doc.rglob("*.html")}


def changed_bundle(pages: dict[str, str], count: int, changed: str) -> Bundle:
    mine = bucket_of(changed, count)
    return next(b for b in plan_bundles(pages, count, "bench") if b.bucket == mine)


def run(site: Path, counts: list[int], rounds: int, workdir: Path) -> dict[str, Any]:
    pages = document_pages(site)
    changed = sorted(pages)[len(pages) // 2]
    times: dict[int, list[float]] = {count: [] for count in counts}
    sizes = {count: len(changed_bundle(pages, count, changed).pages) for count in counts}
    for round_number in range(rounds):
        order = counts if round_number % 2 == 0 else list(reversed(counts))
        for count in order:
            target = workdir / f"out-{count}"
            shutil.rmtree(target, ignore_errors=True)
            bundle = changed_bundle(pages, count, changed)
            times[count].append(index_bundles(site, [bundle], target, workdir / "stage"))
    baseline = min(times[1]) if 1 in times else None
    return {
        "site": str(site),
        "pages": len(pages),
        "changed_document": changed,
        "rounds": rounds,
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_at_end": os.getloadavg(),
        },
        "by_count": [
            {
                "bundles": count,
                "pages_indexed": sizes[count],
                "best_seconds": round(min(times[count]), 2),
                "all_seconds": [round(t, 2) for t in times[count]],
                "ratio_to_one_bundle": round(min(times[count]) / baseline, 3) if baseline else None,
            }
            for count in counts
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("site", type=Path, help="a built pincite site (e.g. kept by bench/site_bench.py --keep)")
    parser.add_argument("--counts", default="1,2,4,8,16", help="bundle counts to compare; include 1 for the ratios")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pincite-bundles-bench-", dir=args.site.parent) as work:
        figures = run(args.site, [int(c) for c in args.counts.split(",")], args.rounds, Path(work))
    figures["wall_seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
