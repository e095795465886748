"""Peak memory of a whole cold build (index + site + search) of a repository, by checkout.

Each round builds the repository from nothing (a new index file and site folder) with each
checkout in turn, in a process of its own, and samples its whole process tree every 100 ms:
the page pool's workers, git and Pagefind included. Two sums are reported:

- summed RSS: pages that forked workers share with their parent count once per process, so
  this is an upper bound;
- summed PSS: each shared page split between the processes sharing it, so the tree's real
  footprint.

    python bench/build_memory_bench.py /tmp/synth-10000 --checkouts before=/tmp/co-old,after=/work/main
    python bench/build_memory_bench.py /tmp/synth-10000 --checkouts after=/work/main --rounds 1 --json

The repository is any git repository pincite can build (`bench/synth_corpus.py` makes one; the
10,000-document corpus of BENCHMARKS.md is `python bench/build_bench.py --workdir DIR`'s).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.build_bench import TreeWatch, process_tree  # noqa: E402

BUILD = """
import json, sys
sys.path.insert(0, {checkout!r})
from pathlib import Path
import indexer
summary = indexer.build(Path({repo!r}), index_path=Path({work!r}) / "index.sqlite", out=Path({work!r}) / "site")
print(json.dumps(summary.site))
"""


def _tree_pss_kib(root: int) -> int:
    total = 0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
                total += next((int(line.split()[1]) for line in handle if line.startswith("Pss:")), 0)
        except OSError:
            continue
    return total


def build_once(checkout: Path, repo: Path) -> dict[str, Any]:
    """One cold build by `checkout` in a process of its own: peak memory, CPU, wall time, site figures."""
    with tempfile.TemporaryDirectory(prefix="pincite-mem-") as work:
        code = BUILD.format(checkout=str(checkout), repo=str(repo), work=work)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        watch, peak_pss, stop = TreeWatch(proc.pid), [0], threading.Event()

        def sample() -> None:
            while not stop.wait(0.1):
                peak_pss[0] = max(peak_pss[0], _tree_pss_kib(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out, err = proc.communicate()
        stop.set()
        sampler.join()
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"the build by {checkout} failed:\n{err[-2000:]}")
        site = json.loads(out.strip().splitlines()[-1])
        return {
            "peak_rss_mb": round(watch.stop(), 1),
            "peak_pss_mb": round(peak_pss[0] / 1024, 1),
            "cpu_seconds": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
            "wall_seconds": round(wall, 2),
            "pagefind_seconds": site.get("pagefind_seconds"),
            "search_bundles": site.get("search_bundles_indexed"),
            "pages": site.get("pages_rendered"),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", type=Path, help="the repository to build")
    parser.add_argument("--checkouts", required=True, help="name=path,... of pincite checkouts, built in this order")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; each builds with every checkout in turn")
    parser.add_argument("--json", action="store_true", help="print every run as JSON")
    args = parser.parse_args(argv)
    checkouts = dict(item.split("=", 1) for item in args.checkouts.split(","))
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for round_no in range(args.rounds):
        order = list(checkouts) if round_no % 2 == 0 else list(reversed(checkouts))
        for name in order:
            run = build_once(Path(checkouts[name]).resolve(), args.repo.resolve())
            runs[name].append(run)
            print(f"round {round_no + 1} {name}: {json.dumps(run)}", file=sys.stderr, flush=True)
    for name, done in runs.items():
        print(
            f"{name}: peak summed RSS {min(r['peak_rss_mb'] for r in done):.0f} MB, "
            f"peak summed PSS {min(r['peak_pss_mb'] for r in done):.0f} MB, "
            f"CPU {min(r['cpu_seconds'] for r in done):.1f} s, wall {min(r['wall_seconds'] for r in done):.1f} s "
            f"(best of {len(done)}); Pagefind runs: {done[0]['search_bundles']}"
        )
    if args.json:
        print(json.dumps(runs, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
