"""The cold site stage's CPU, this checkout against a baseline checkout, on the same index (issue 14).

The index is built once (by this checkout); then, round after round, each checkout renders the
whole site from it into an empty folder, in a fresh process of its own (`render_site`, as
`pincite build` runs it: version, document, history and diff pages, history files, top pages,
and Pagefind over the document pages). The two checkouts alternate, and swap order each round,
so both see the same neighbours on a shared machine; the fastest run of each counts.

Each run reports the CPU of the rendering process itself (user + system, every thread: page
rendering, Markdown, escaping, writing files, JSON) and of the processes it waited for (git's
diffs and Pagefind), from `getrusage` deltas around `render_site` alone (the interpreter's
start-up and imports are not counted). The two sites are compared file by file (Pagefind's own
files aside): a speed-up must not change a page (a change that
means to, such as a new Markdown renderer, lists the pages it changed).

    python bench/site_cpu_bench.py --baseline /tmp/pincite-main                   # 2,000 documents
    python bench/site_cpu_bench.py --baseline /tmp/pincite-main --docs 500 --rounds 2 --json
    python bench/site_cpu_bench.py --baseline /tmp/pincite-main --repo ~/src/some-clone --roots docs
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.mkdocs_bench import add_corpus_arguments, corpus  # noqa: E402

# Run by each checkout's interpreter with that checkout first on the path: the site stage alone.
RENDER = """
import json, resource, shutil, sys, time
from pathlib import Path
from indexer.api import build
from indexer.config import load_config
from indexer.site.builder import render_site
from indexer.vcs.repo import GitRepo

repo, out = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
git = GitRepo(repo)
config = load_config(git.root, {})
summary = build(repo, site=False, config=config)  # already up to date: reads the index's summary
before_self = resource.getrusage(resource.RUSAGE_SELF)
before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
started = time.perf_counter()
stats = render_site(git, config, Path(summary.index_path), out, summary)
wall = time.perf_counter() - started
after_self = resource.getrusage(resource.RUSAGE_SELF)
after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = lambda a, b: (b.ru_utime - a.ru_utime) + (b.ru_stime - a.ru_stime)
print(json.dumps({
    "wall_s": wall,
    "self_cpu_s": cpu(before_self, after_self),
    "children_cpu_s": cpu(before_children, after_children),
    "pagefind_wall_s": stats.pagefind_seconds,
    "pages_rendered": stats.pages_rendered,
}))
"""


def render_once(checkout: Path, repo: Path, out: Path, roots: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "PINCITE_ROOTS": ",".join(roots)}
    # Run from the checkout, so that its `indexer` package is the one imported.
    proc = subprocess.run(
        [sys.executable, "-c", RENDER, str(repo), str(out)], cwd=checkout, env=env, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{checkout}: the site build failed: {proc.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def differing_files(left: Path, right: Path) -> list[str]:
    """Files whose bytes differ, or that exist on one side only (Pagefind's files and the manifest aside)."""
    ignored = ("pagefind/", ".pincite-site.json", "search-bundles.json")

    def files(root: Path) -> set[str]:
        found = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
        return {f for f in found if not f.startswith(ignored)}

    on_left, on_right = files(left), files(right)
    both = on_left & on_right
    return sorted((on_left ^ on_right) | {f for f in both if not filecmp.cmp(left / f, right / f, shallow=False)})


def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.workdir or tempfile.mkdtemp(prefix="pincite-site-cpu-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    repo, described = corpus(args, work)
    checkouts = {"pincite": ROOT, "baseline": Path(args.baseline).resolve()}
    load_at_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    _log("building the index ...")
    subprocess.run(
        [sys.executable, "-m", "indexer.cli.main", "build", "--repo", str(repo), "--no-site"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PINCITE_ROOTS": ",".join(args.roots)},
        check=True,
        capture_output=True,
    )
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for round_no in range(args.rounds):
        order = list(checkouts) if round_no % 2 == 0 else list(reversed(checkouts))
        for name in order:
            _log(f"round {round_no + 1}: {name} renders the site ...")
            runs[name].append(render_once(checkouts[name], repo, work / f"site-{name}", args.roots))
    out: dict[str, Any] = {
        "corpus": described,
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": str(os.cpu_count()),
            "python": platform.python_version(),
            "load average at start": load_at_start,
            "load average at end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        },
        "runs": runs,
        "differing_files": differing_files(work / "site-baseline", work / "site-pincite"),
    }
    for name, side in runs.items():
        out[name] = {key: min(r[key] for r in side) for key in ("wall_s", "self_cpu_s", "children_cpu_s")}
    out["ratio_self_cpu"] = round(out["pincite"]["self_cpu_s"] / out["baseline"]["self_cpu_s"], 3)
    return out


def report(out: dict[str, Any]) -> str:
    lines = []
    for name in ("baseline", "pincite"):
        best = out[name]
        lines.append(
            f"{name:9} site stage: own CPU {best['self_cpu_s']:6.2f} s, git + Pagefind {best['children_cpu_s']:6.2f} s,"
            f" wall {best['wall_s']:6.2f} s (fastest of {len(out['runs'][name])})"
        )
    lines.append(f"own CPU, this checkout / baseline: {out['ratio_self_cpu']:.2f}x")
    lines.append(f"files that differ between the two sites (Pagefind's aside): {len(out['differing_files'])}")
    lines.append(f"machine: {out['machine']}")
    return "\n".join(lines)


def _log(message: str) -> None:
    print(f"[site_cpu_bench] {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="another pincite checkout (e.g. an export of main)")
    add_corpus_arguments(parser)  # an existing clone (--repo) gets its index built in it
    parser.add_argument("--rounds", type=int, default=3, help="runs of each checkout; the fastest counts")
    parser.add_argument("--workdir", help="keep the corpus and the sites here (reused)")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    args = parser.parse_args(argv)
    out = run(args)
    print(json.dumps(out, indent=2) if args.json else report(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
