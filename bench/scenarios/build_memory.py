"""Build memory: peak summed RSS and PSS of a whole cold build (index + site + search), by checkout.

Each round builds the repository from nothing (a new index file and site folder) with each
checkout in turn (the baseline, when given, and this one), in a process of its own, and samples
its whole process tree: the page pool's workers, git and Pagefind included. Two sums:

- summed RSS: pages that forked workers share with their parent count once per process, so
  this is an upper bound;
- summed PSS: each shared page split between the processes sharing it, so the tree's real
  footprint.

The repository is a clone given with `--repo`, or a synthetic corpus of `--docs` documents.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import alternate, checkout_env, checkouts, measure
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate

BASELINE = True
BUILD = """
import json, sys
from pathlib import Path
import indexer
work = Path(sys.argv[2])
summary = indexer.build(Path(sys.argv[1]), index_path=work / "index.sqlite", out=work / "site")
print(json.dumps(summary.site))
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, help="the repository to build (default: a synthetic corpus)")
    parser.add_argument("--docs", type=int, default=2000, help="without --repo: synthetic documents")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; each builds with every checkout in turn")


def build_once(checkout: Path, repo: Path) -> dict[str, Any]:
    """One cold build by `checkout` in a process of its own: peak memory, CPU, wall time, site figures."""
    import sys

    with tempfile.TemporaryDirectory(prefix="pincite-mem-") as work:
        run = measure(
            [sys.executable, "-c", BUILD, str(repo), work], cwd=checkout, env=checkout_env(checkout), pss=True
        )
    site = run.json()
    return {
        "peak_rss_mb": round(run.peak_rss_mb, 1),
        "peak_pss_mb": round(run.peak_pss_mb or 0.0, 1),
        "cpu_seconds": round(run.cpu_s, 2),
        "wall_seconds": round(run.wall_s, 2),
        "pagefind_seconds": site.get("pagefind_seconds"),
        "search_bundles": site.get("search_bundles_indexed"),
        "pages": site.get("pages_rendered"),
    }


def run(args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory(prefix="pincite-mem-repo-") as tmp:
        repo = (
            args.repo.resolve()
            if args.repo
            else generate(
                Path(tmp) / "repo",
                SynthParams(docs=args.docs, commits=max(10, args.docs // 50), target_bytes=args.docs * 5000),
            ).root
        )
        sides = checkouts(args.baseline)
        runs: dict[str, list[dict[str, Any]]] = {side.name: [] for side in sides}
        for _, order in alternate(sides, args.rounds):
            for side in order:
                runs[side.name].append(build_once(side.path, repo))
    corpus = f"`{args.repo.name}`" if args.repo else f"a synthetic corpus of {args.docs:,} documents"
    lines = [
        f"Cold builds (index, site, search) of {corpus}, best of {args.rounds} each.",
        "",
        "| checkout | peak summed RSS | peak summed PSS | CPU | wall | Pagefind runs |",
        "|---|---|---|---|---|---|",
    ]
    for name, done in runs.items():
        lines.append(
            f"| {name} | {min(r['peak_rss_mb'] for r in done):.0f} MB | {min(r['peak_pss_mb'] for r in done):.0f} MB "
            f"| {min(r['cpu_seconds'] for r in done):.1f} s | {min(r['wall_seconds'] for r in done):.1f} s "
            f"| {done[0]['search_bundles']} |"
        )
    return Result("\n".join(lines), {"runs": runs})
