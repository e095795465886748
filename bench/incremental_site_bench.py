"""One-file incremental builds (index + site + search) of sites with different bundle counts, interleaved.

Works in a folder `bench/site_bench.py --keep` left (its `repo`, `index.sqlite` and `site-<bundles>`
sites). Each site is first brought up to the repository's HEAD (not timed); then each round
commits a change to one document and builds every site once, in alternating order, so each
timed build sees exactly one changed file and a busy minute on a shared machine hits them alike.
The fastest round of each site counts; ratios are to the first site given.

    python bench/site_bench.py --docs 10000 --commits 20 --bundles 1,2 --keep /tmp/sb/after10k
    python bench/incremental_site_bench.py /tmp/sb/after10k --bundles 1,2 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.site_bench import _site_config
from bench.synth_corpus import commit_change
from indexer.api import build


def run(workdir: Path, variants: list[int], rounds: int) -> dict[str, Any]:
    repo, index = workdir / "repo", workdir / "index.sqlite"
    paths = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))
    for bundles in variants:  # up to HEAD first: later builds then see one change each
        build(repo, index_path=index, out=workdir / f"site-{bundles}", config=_site_config(bundles))
    seen: dict[int, list[dict[str, float]]] = {bundles: [] for bundles in variants}
    for number in range(rounds):
        commit_change(repo, paths[(number * 7919 + 13) % len(paths)], f"\nRound {number} of the benchmark.\n")
        for bundles in variants if number % 2 == 0 else list(reversed(variants)):
            started = time.monotonic()
            summary = build(repo, index_path=index, out=workdir / f"site-{bundles}", config=_site_config(bundles))
            site = dict(summary.site or {})
            seen[bundles].append(
                {
                    "build_seconds": time.monotonic() - started,
                    "site_seconds": float(site["seconds"]),
                    "pagefind_seconds": float(site["pagefind_seconds"]),
                    "pages_rendered": float(site["pages_rendered"]),
                }
            )
    first = min(r["build_seconds"] for r in seen[variants[0]])
    report = []
    for bundles in variants:
        best = min(seen[bundles], key=lambda r: r["build_seconds"])
        report.append(
            {
                "bundles": bundles,
                "best": {k: round(v, 2) for k, v in best.items()},
                "all_build_seconds": [round(r["build_seconds"], 2) for r in seen[bundles]],
                "ratio_to_first": round(best["build_seconds"] / first, 3),
            }
        )
    return {"rounds": rounds, "load_average_at_end": os.getloadavg(), "by_bundles": report}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("workdir", type=Path, help="a folder bench/site_bench.py --keep left")
    parser.add_argument("--bundles", default="1,2", help="the site-<bundles> folders to build, baseline first")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    figures = run(args.workdir, [int(b) for b in args.bundles.split(",")], args.rounds)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
