"""The cold site stage's own CPU, this checkout against the baseline, rendering from the same index.

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
"""

from __future__ import annotations

import argparse
import filecmp
import tempfile
from pathlib import Path
from typing import Any

from bench.corpora import add_corpus_arguments, corpus
from bench.harness import ROOT, alternate, checkout_env, in_checkout, log, measure, pincite, repository_name
from bench.scenarios import Result

BASELINE = True

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
    result: dict[str, Any] = in_checkout(checkout, RENDER, str(repo), str(out), PINCITE_ROOTS=",".join(roots))
    return result


def differing_files(left: Path, right: Path) -> list[str]:
    """Files whose bytes differ, or that exist on one side only (Pagefind's files and the manifest aside)."""
    ignored = ("pagefind/", ".pincite-site", "search-bundles.json")  # the manifest: a file, or a folder

    def files(root: Path) -> set[str]:
        found = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
        return {f for f in found if not f.startswith(ignored)}

    on_left, on_right = files(left), files(right)
    both = on_left & on_right
    return sorted((on_left ^ on_right) | {f for f in both if not filecmp.cmp(left / f, right / f, shallow=False)})


def measure_sides(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.workdir or tempfile.mkdtemp(prefix="pincite-site-cpu-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    repo, described = corpus(args, work)
    checkouts = {"pincite": ROOT, "baseline": Path(args.baseline).resolve()}
    log("building the index ...")
    measure(
        pincite("build", "--repo", str(repo), "--no-site"),
        cwd=ROOT,
        env=checkout_env(ROOT, PINCITE_ROOTS=",".join(args.roots)),
    )
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for round_no, order in alternate(list(checkouts), args.rounds):
        for name in order:
            log(f"round {round_no + 1}: {name} renders the site ...")
            runs[name].append(render_once(checkouts[name], repo, work / f"site-{name}", args.roots))
    out: dict[str, Any] = {
        "corpus": described,
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
    return "```\n" + "\n".join(lines) + "\n```"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)  # an existing clone (--repo) gets its index built in it
    parser.add_argument("--rounds", type=int, default=3, help="runs of each checkout; the fastest counts")
    parser.add_argument("--workdir", help="keep the corpus and the sites here (reused)")


def run(args: argparse.Namespace) -> Result:
    if args.baseline is None:
        raise SystemExit("site-cpu compares two checkouts: give --baseline CHECKOUT")
    with tempfile.TemporaryDirectory(prefix="pincite-bench-") as tmp:
        args.workdir = args.workdir or tmp  # without --workdir, nothing is left behind
        out = measure_sides(args)
    return Result(report(out), out, subject=repository_name(Path(args.repo)) if args.repo else None)
