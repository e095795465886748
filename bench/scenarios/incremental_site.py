"""One-file incremental site builds by two checkouts, interleaved: the whole build and the part that is not Pagefind.

Pagefind runs in a thread beside the rest of the site build; the build waits for it at the end.
"The rest" is the build's wall time less that wait: index update, pages, history files, home
page, `words.txt`, manifest and swap, as the build's own thread sees them (Pagefind's processes
still share the cores meanwhile).

Each checkout (the baseline, when given, and this one) builds in a work folder of its own,
copied once from a source folder: one the `site` scenario left (`--keep`: its `repo`,
`index.sqlite` and a site), a clone of a real repository (`--repo`, with `--roots` and
`--history-start`; its warm-up build is a cold one), or, without either, a synthetic corpus
built here first. A work folder that holds a `repo` already is used as it is (`--work`). A
round commits the same one-file change to every copy and builds each once, in alternating
order; each build runs in a fresh process with its checkout's pincite. The first build of each
is a warm-up (not timed): it brings the site to that checkout's format. Reported per checkout:
the fastest build and rest, the least CPU time of a build's whole process tree (git, Pagefind
and any process the build leaves behind included: `harness.measure`), pages rendered, Pagefind's
time and what it indexed, and the ratio of this checkout's figures to the baseline's.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import alternate, checkout_env, checkouts, in_checkout, load, measure, ratio, repository_name
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, commit_change, generate

BASELINE = True

# Run in the child process with the checkout's pincite: one build of `workdir`, timed in process, printed as JSON.
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


def prepare(source: Path, site: str, work: Path, repo: Path | None = None) -> None:
    """A private copy of the benchmark folder's repository, index and one site (kept between runs),
    or a clone of `repo`. Without that site, the warm-up build makes one.
    """
    if (work / "repo").is_dir():
        return
    work.mkdir(parents=True)
    if repo is not None:
        subprocess.run(["git", "clone", "--quiet", str(repo), str(work / "repo")], check=True)
        return
    shutil.copytree(source / "repo", work / "repo", symlinks=True)
    shutil.copy2(source / "index.sqlite", work / "index.sqlite")
    if (source / site).is_dir():
        shutil.copytree(source / site, work / "site", symlinks=True)


def one_build(checkout: Path, work: Path, settings: dict[str, str]) -> dict[str, Any]:
    """One build in a fresh process with `checkout`'s pincite: its figures, and its process tree's CPU time."""
    run = measure([sys.executable, "-c", ONE_BUILD, str(work)], cwd=checkout, env=checkout_env(checkout, **settings))
    figures: dict[str, Any] = run.json()
    figures["cpu_seconds"] = run.cpu_s
    return figures


def settings_of(args: argparse.Namespace) -> dict[str, str]:
    """The PINCITE_* settings every build of the run is given (a real repository's roots and history start)."""
    settings = {}
    if args.roots:
        settings["PINCITE_ROOTS"] = " ".join(args.roots)
    if args.history_start:
        settings["PINCITE_HISTORY_START"] = args.history_start
    return settings


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", type=Path, help="a folder the `site` scenario left with --keep")
    parser.add_argument("--site", default="site", help="with --source: which of its sites to build on")
    parser.add_argument("--docs", type=int, default=1000, help="without --source: synthetic documents")
    parser.add_argument("--work", type=Path, help="folder for the private copies (kept; default: a temporary one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repo", type=Path, help="a clone of a real repository to build instead (cloned again)")
    parser.add_argument("--roots", nargs="+", help="with --repo: its corpus roots (default: its settings')")
    parser.add_argument("--history-start", help="with --repo: the commit its history starts at (a SHA)")
    parser.add_argument("--change", help="the document each round changes (default: a different one each round)")


def measure_rounds(
    source: Path, site: str, sides: dict[str, Path], work: Path, rounds: int, args: argparse.Namespace
) -> dict[str, Any]:
    works = {name: work / name for name in sides}
    settings = settings_of(args)
    for name in sides:
        prepare(source, site, works[name], args.repo)
    for name, checkout in sides.items():  # warm-up: each site in its checkout's format
        one_build(checkout, works[name], settings)
    repo = works["this"] / "repo"
    roots = args.roots or ["corpus"]
    paths = (
        [args.change]
        if args.change
        else sorted(p.relative_to(repo).as_posix() for root in roots for p in (repo / root).rglob("*.md"))
    )
    seen: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    loads = [load()]
    for number, order in alternate(list(sides), rounds):
        path = paths[(number * 7919 + 13) % len(paths)]
        for name in sides:
            commit_change(works[name] / "repo", path, f"\nRound {number} of the one-file benchmark.\n")
        for name in order:
            seen[name].append(one_build(sides[name], works[name], settings))
        loads.append(load())
    report: dict[str, Any] = {"rounds": rounds, "load_average_1min": loads}
    for name, builds in seen.items():
        fastest = min(builds, key=lambda b: b["build_seconds"])
        report[name] = {
            "best_build_seconds": round(fastest["build_seconds"], 2),
            "best_rest_seconds": round(min(b["rest_seconds"] for b in builds), 2),
            "best_cpu_seconds": round(min(b["cpu_seconds"] for b in builds), 2),
            "all_cpu_seconds": [round(b["cpu_seconds"], 2) for b in builds],
            "stages": min(builds, key=lambda b: b["cpu_seconds"])["stages"],
            "citation_documents_read": fastest["site"].get("citation_documents_read"),
            "pagefind_seconds": fastest["site"].get("pagefind_seconds"),
            "search_pages_indexed": fastest["site"].get("search_pages_indexed"),
            "search_bundles_indexed": fastest["site"].get("search_bundles_indexed"),
            "all_build_seconds": [round(b["build_seconds"], 2) for b in builds],
            "all_rest_seconds": [round(b["rest_seconds"], 2) for b in builds],
            "pages_rendered": [b["site"]["pages_rendered"] for b in builds],
            "fastest_rest": min(builds, key=lambda b: b["rest_seconds"]),
        }
    if "baseline" in seen:
        for key in ("best_build_seconds", "best_rest_seconds", "best_cpu_seconds"):
            report[f"{key}_this_over_baseline"] = ratio(report["this"][key], report["baseline"][key])
    return report


def run(args: argparse.Namespace) -> Result:
    sides = {side.name: side.path for side in checkouts(args.baseline)}
    with tempfile.TemporaryDirectory(prefix="pincite-incremental-") as tmp:
        source = args.source
        if source is None and args.repo is not None:
            source = args.repo
        elif source is None:
            source = Path(tmp) / "source"
            generate(source / "repo", SynthParams(docs=args.docs, commits=20, target_bytes=args.docs * 5000))
            in_checkout(sides["this"], ONE_BUILD.replace('work / "site"', "work / sys.argv[2]"), str(source), args.site)
        figures = measure_rounds(source, args.site, sides, args.work or Path(tmp) / "work", args.rounds, args)
    if args.repo:
        described = (
            f"`{args.repo.name}` (roots {' '.join(args.roots or ['as set'])}, history from {args.history_start})"
        )
    elif args.source:
        described = f"`{args.source.name}`"
    else:
        described = f"a synthetic corpus of {args.docs:,} documents"
    lines = [
        f"One-file builds on {described}, {args.rounds} rounds; the fastest counts.",
        "",
        "| checkout | CPU (process tree) | build (wall) | the rest (not Pagefind) | Pagefind | "
        "pages indexed by Pagefind | pages rendered | documents read for citations |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in sides:
        r = figures[name]
        lines.append(
            f"| {name} | {r['best_cpu_seconds']:.2f} s | {r['best_build_seconds']:.2f} s | "
            f"{r['best_rest_seconds']:.2f} s | "
            f"{r['pagefind_seconds']} s | {r['search_pages_indexed']} | {r['pages_rendered'][0]} | "
            f"{r['citation_documents_read']} |"
        )
    if "baseline" in sides:
        lines += [
            "",
            f"This checkout / baseline: CPU x{figures['best_cpu_seconds_this_over_baseline']}, "
            f"build x{figures['best_build_seconds_this_over_baseline']}, "
            f"the rest x{figures['best_rest_seconds_this_over_baseline']}.",
        ]
    return Result("\n".join(lines), figures, subject=repository_name(args.repo) if args.repo else None)
