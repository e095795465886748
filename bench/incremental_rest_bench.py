"""One-file incremental builds by two checkouts, interleaved: the whole build and the part that is not Pagefind.

Pagefind runs in a thread beside the rest of the site build; the build waits for it at the end.
"The rest" is the build's wall time less that wait: index update, pages, history files, home
page, `words.txt`, manifest and swap, as the build's own thread sees them (Pagefind's processes
still share the cores meanwhile).

Each checkout builds in a work folder of its own, copied once from a folder `bench/site_bench.py
--keep` left (its `repo`, `index.sqlite` and one site), so the two never share a site or an index.
A round commits the same one-file change to both repositories and builds each once, in
alternating order; each build runs in a fresh process with the checkout first on `sys.path`.
The first build of each is a warm-up (not timed): it brings the site to that checkout's format.

    python bench/site_bench.py --docs 10000 --commits 20 --bundles 2 --keep /tmp/sb/after10k
    python bench/incremental_rest_bench.py /tmp/sb/after10k --site site-2 --baseline /work/main \\
        --work /tmp/increst-bench --rounds 5
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

THIS_CHECKOUT = Path(__file__).resolve().parent.parent

# Run in the child process: one build of `workdir`, timed in process, printed as JSON.
ONE_BUILD = """
import concurrent.futures, json, sys, threading, time
from pathlib import Path
from indexer.api import build
waited = []
result = concurrent.futures.Future.result
def timed_result(self, timeout=None):
    started = time.monotonic()
    try:
        return result(self, timeout)
    finally:
        if threading.current_thread() is threading.main_thread():
            waited.append(time.monotonic() - started)
concurrent.futures.Future.result = timed_result
work = Path(sys.argv[1])
started = time.monotonic()
summary = build(work / "repo", index_path=work / "index.sqlite", out=work / "site")
total = time.monotonic() - started
site = {k: v for k, v in (summary.site or {}).items() if k != "broken_links"}
print(json.dumps({"build_seconds": total, "pagefind_wait": sum(waited), "rest_seconds": total - sum(waited),
                  "stages": summary.stages, "site": site}))
"""


def prepare(source: Path, site: str, work: Path) -> None:
    """A private copy of the benchmark folder's repository, index and one site (kept between runs).

    Without that site, the warm-up build makes one.
    """
    if (work / "repo").is_dir():
        return
    work.mkdir(parents=True)
    shutil.copytree(source / "repo", work / "repo", symlinks=True)
    shutil.copy2(source / "index.sqlite", work / "index.sqlite")
    if (source / site).is_dir():
        shutil.copytree(source / site, work / "site", symlinks=True)


def one_build(checkout: Path, work: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.run(
        [sys.executable, "-c", ONE_BUILD, str(work)], env=env, cwd=checkout, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"build in {work} with {checkout} failed:\n{proc.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def run(source: Path, site: str, checkouts: dict[str, Path], work: Path, rounds: int) -> dict[str, Any]:
    works = {name: work / name for name in checkouts}
    for name in checkouts:
        prepare(source, site, works[name])
    for name, checkout in checkouts.items():  # warm-up: each site in its checkout's format
        one_build(checkout, works[name])
    repo = works["this"] / "repo"
    paths = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))
    seen: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    loads = [os.getloadavg()[0]]
    for number in range(rounds):
        path = paths[(number * 7919 + 13) % len(paths)]
        for name in checkouts:
            commit_change(works[name] / "repo", path, f"\nRound {number} of the one-file benchmark.\n")
        order = list(checkouts) if number % 2 == 0 else list(reversed(checkouts))
        for name in order:
            seen[name].append(one_build(checkouts[name], works[name]))
        loads.append(os.getloadavg()[0])
    report: dict[str, Any] = {"rounds": rounds, "load_average_1min": [round(x, 1) for x in loads]}
    for name, builds in seen.items():
        report[name] = {
            "checkout": str(checkouts[name]),
            "best_build_seconds": round(min(b["build_seconds"] for b in builds), 2),
            "best_rest_seconds": round(min(b["rest_seconds"] for b in builds), 2),
            "all_build_seconds": [round(b["build_seconds"], 2) for b in builds],
            "all_rest_seconds": [round(b["rest_seconds"], 2) for b in builds],
            "pages_rendered": [b["site"]["pages_rendered"] for b in builds],
            "fastest_rest": min(builds, key=lambda b: b["rest_seconds"]),
        }
    if "baseline" in seen:
        for measure in ("best_build_seconds", "best_rest_seconds"):
            report[f"{measure}_this_over_baseline"] = round(report["this"][measure] / report["baseline"][measure], 3)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("source", type=Path, help="a folder bench/site_bench.py --keep left")
    parser.add_argument("--site", default="site-2", help="which of its sites to build on")
    parser.add_argument("--baseline", type=Path, help="another checkout of pincite to compare with")
    parser.add_argument("--work", type=Path, required=True, help="folder for the private copies (kept)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    checkouts = {"this": THIS_CHECKOUT}
    if args.baseline:
        checkouts = {"baseline": args.baseline.resolve(), **checkouts}
    print(json.dumps(run(args.source, args.site, checkouts, args.work, args.rounds), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
