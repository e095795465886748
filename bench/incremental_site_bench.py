"""One-file incremental builds (index + site + search) by several pincite checkouts, interleaved.

Works in a folder `bench/site_bench.py --keep` left (its `repo` and `index.sqlite`). Each named
checkout gets a site (`site-<name>`) and an index (`index-<name>.sqlite`, first a copy of
`index.sqlite`) of its own, and builds in a process of its own with `PYTHONPATH` on its
checkout, so two versions of pincite are compared on the same corpus in the same run. Each site
is first brought up to the repository's HEAD (not timed); then each round commits a change to
one document and builds every site once, in alternating order, so each timed build sees exactly
one changed file and a busy minute on a shared machine hits them alike. The fastest round of each
checkout counts; ratios are to the first checkout given.

    python bench/site_bench.py --docs 10000 --commits 20 --keep /tmp/sb/after10k
    python bench/incremental_site_bench.py /tmp/sb/after10k \\
        --checkouts before=/work/main,after=/work/wt/delta-bundle --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synth_corpus import commit_change

# Runs in the checkout's own interpreter environment: one build, its figures as JSON.
BUILD = """
import json, sys, time
from pathlib import Path
from indexer.api import build
repo, index, site = map(Path, sys.argv[1:4])
started = time.monotonic()
summary = build(repo, index_path=index, out=site)
import indexer
print(json.dumps({"build_seconds": time.monotonic() - started, "site": summary.site, "code": indexer.__file__}))
"""


def build_with(checkout: Path, repo: Path, index: Path, site: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    env = {k: v for k, v in env.items() if not k.startswith("PINCITE_")}
    # From the checkout's folder: `python -c` puts the current folder ahead of PYTHONPATH.
    proc = subprocess.run(
        [sys.executable, "-c", BUILD, str(repo), str(index), str(site)],
        env=env,
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"the build with {checkout} failed:\n{proc.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def _row(figures: dict[str, Any]) -> dict[str, float]:
    site = figures["site"]
    return {
        "build_seconds": float(figures["build_seconds"]),
        "site_seconds": float(site["seconds"]),
        "pagefind_seconds": float(site["pagefind_seconds"]),
        "search_pages_indexed": float(site.get("search_pages_indexed", -1)),
        "search_bundles_indexed": float(site["search_bundles_indexed"]),
    }


def run(workdir: Path, checkouts: dict[str, Path], rounds: int) -> dict[str, Any]:
    repo = workdir / "repo"
    paths = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))
    names = list(checkouts)
    for name in names:  # up to HEAD first: later builds then see one change each
        index = workdir / f"index-{name}.sqlite"
        if not index.exists():
            shutil.copyfile(workdir / "index.sqlite", index)
        build_with(checkouts[name], repo, index, workdir / f"site-{name}")
    seen: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    code: dict[str, str] = {}
    for number in range(rounds):
        commit_change(repo, paths[(number * 7919 + 13) % len(paths)], f"\nRound {number} of the benchmark.\n")
        for name in names if number % 2 == 0 else list(reversed(names)):
            figures = build_with(checkouts[name], repo, workdir / f"index-{name}.sqlite", workdir / f"site-{name}")
            seen[name].append(_row(figures))
            code[name] = str(figures["code"])  # the package the build really ran
    first = min(r["build_seconds"] for r in seen[names[0]])
    report = []
    for name in names:
        best = min(seen[name], key=lambda r: r["build_seconds"])
        report.append(
            {
                "checkout": name,
                "path": str(checkouts[name]),
                "code": code[name],
                "best": {k: round(v, 2) for k, v in best.items()},
                "all_build_seconds": [round(r["build_seconds"], 2) for r in seen[name]],
                "all_pagefind_seconds": [round(r["pagefind_seconds"], 2) for r in seen[name]],
                "ratio_to_first": round(best["build_seconds"] / first, 3),
            }
        )
    return {"rounds": rounds, "load_average_at_end": os.getloadavg(), "by_checkout": report}


def _checkouts(text: str) -> dict[str, Path]:
    pairs = [item.split("=", 1) for item in text.split(",") if item]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        raise SystemExit(f"--checkouts {text!r}: give name=path pairs separated by commas")
    return {name: Path(path).resolve() for name, path in pairs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("workdir", type=Path, help="a folder bench/site_bench.py --keep left")
    parser.add_argument(
        "--checkouts",
        default=f"this={Path(__file__).resolve().parent.parent}",
        help="name=path pairs of pincite checkouts to compare, the baseline first",
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    figures = run(args.workdir, _checkouts(args.checkouts), args.rounds)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
