"""Index build of a real clone against its floor: CPU of `build --no-site` over one `cat-file` into bare FTS5.

The floor is `build-search`'s floor (a), over the versions this build indexes: every blob under
the roots in the tree of the first indexed commit and every blob the first-parent history adds
after it, read through one `git cat-file --batch`, its paragraphs inserted into a bare FTS5
porter table, the table optimized. The build is `indexer.build(..., site=False)` from nothing, with
the same roots and `history_start`. Floor, build and (with --baseline) the baseline's build run
alternated in fresh processes, best of `--repeat`; CPU time is the whole process tree's (the
build's pool and git included). The goals (issue 28): a build of HEAD only within 2× the floor on
small-file corpora, a build with history within 3×.

    python -m bench index-floor --repo <clone of tldr-pages/tldr> --roots 'pages*' --history-start HEAD
    python -m bench index-floor --repo <clone of tldr-pages/tldr> --roots 'pages*' --last 2000
    python -m bench index-floor --repo <clone of rust-lang/rfcs> --roots text --history-start HEAD
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import ROOT, checkouts, commit_of, log, own_cpu, repository_name, step
from bench.scenarios import Result
from bench.scenarios.build_search import fts_floor
from bench.scenarios.site_shape import repo_roots

BASELINE = True
TARGETS = {"head": 2.0, "history": 3.0}


# -- child steps (each run in a fresh process) --------------------------------------------------
def indexed_blobs(repo: Path, roots: list[str], start: str) -> list[bytes]:
    """The blobs a cold build from `start` indexes: those of `start`'s tree under `roots`, then every
    blob the first-parent history adds after it, each once."""
    git = ["git", "-c", "core.quotepath=false"]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", start, "--", *roots], cwd=repo, capture_output=True, check=True
    ).stdout
    found = {rec.split(b"\t", 1)[0].split()[2]: None for rec in listing.split(b"\0") if rec}
    walk = ["log", "--first-parent", "--format=", "--raw", "--no-abbrev", "--no-renames", f"{start}..HEAD"]
    log_out = subprocess.run(
        [*git, *walk, "--", *roots],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    for line in log_out.splitlines():
        fields = line.split(b"\t", 1)[0].split()
        if len(fields) >= 4 and fields[3].strip(b"0"):  # a deleted path's new blob is all zeros
            found.setdefault(fields[3])
    return list(found)


def step_floor(repo: str, db: str, roots: list[str], start: str) -> dict[str, Any]:
    """Floor (a) of `build-search` over the blobs a build from `start` indexes."""
    return fts_floor(repo, db, lambda: indexed_blobs(Path(repo), roots, start))


def step_build(repo: str, index: str, roots: list[str], start: str) -> dict[str, Any]:
    import indexer
    from indexer.config import load_config

    started, cpu = time.perf_counter(), own_cpu()
    config = load_config(Path(repo), {"index_path": index, "history_start": start, "roots": roots})
    summary = indexer.build(Path(repo), site=False, index_path=Path(index), config=config)
    return {
        "seconds": time.perf_counter() - started,
        "cpu_before": cpu,
        "summary": {k: v for k, v in summary.to_json().items() if k in ("commits", "documents", "versions")},
        "stages": dict(getattr(summary, "stages", {}) or {}),
    }


def run_step(name: str, code: Path = ROOT, **kwargs: Any) -> dict[str, Any]:
    result, measured = step(f"{__name__}:step_{name}", checkout=code, **kwargs)
    return result | {"cpu_seconds": measured.cpu_s, "wall_seconds": measured.wall_s, "rss_mb": measured.peak_rss_mb}


# -- the run ------------------------------------------------------------------------------------
def start_commit(repo: Path, args: argparse.Namespace) -> str:
    rev = args.history_start
    if args.last:
        line = subprocess.run(
            ["git", "rev-list", "--first-parent", f"--max-count={args.last}", "HEAD"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        rev = line[-1]
    return subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def measure(args: argparse.Namespace) -> dict[str, Any]:
    repo = Path(args.repo).resolve()
    roots = repo_roots(repo, args.roots)
    if not roots:
        raise SystemExit(f"no folder at HEAD of {repo} matches --roots {args.roots!r}")
    start = start_commit(repo, args)
    sides = [(c.name, c.path) for c in checkouts(args.baseline)]
    runs: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="pincite-index-floor-") as scratch:
        for n in range(1, args.repeat + 1):
            log(f"floor, run {n} ...")
            db = Path(scratch) / "floor.sqlite"
            runs.setdefault("floor", []).append(run_step("floor", repo=repo, db=db, roots=roots, start=start))
            db.unlink()
            for name, code in sides:
                log(f"build by {name}, run {n} ...")
                index = Path(scratch) / f"{name}.sqlite"
                runs.setdefault(name, []).append(
                    run_step("build", code=code, repo=repo, index=index, roots=roots, start=start)
                )
                index.unlink()
    best = {key: min(measured, key=lambda r: r["cpu_seconds"]) for key, measured in runs.items()}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    commits = int(
        subprocess.run(
            ["git", "rev-list", "--first-parent", "--count", f"{start}^..HEAD" if start != head else "HEAD^!"],
            cwd=repo,
            capture_output=True,
            text=True,
        ).stdout.strip()
        or 1
    )
    return {
        "repo": str(repo),
        "head": head,
        "start": start,
        "commits": commits,
        "roots": roots,
        "runs": runs,
        "best": best,
        "ratios": {name: best[name]["cpu_seconds"] / best["floor"]["cpu_seconds"] for name, _ in sides},
        "codes": {name: commit_of(code) for name, code in sides},
    }


def report(res: dict[str, Any], args: argparse.Namespace) -> str:
    floor = res["best"]["floor"]
    kind = "head" if res["start"] == res["head"] else "history"
    target = TARGETS[kind]
    scope = "HEAD only" if kind == "head" else f"the last {res['commits']:,} first-parent commits"
    rows = [
        "| step | CPU | ÷ floor | wall | peak RSS | versions | goal |",
        "|---|---|---|---|---|---|---|",
        f"| floor: cat-file + paragraphs into FTS5 porter + optimize | {floor['cpu_seconds']:.2f} s | 1.00 |"
        f" {floor['wall_seconds']:.1f} s | {floor['rss_mb']:.0f} MB | {floor['blobs']:,} blobs | |",
    ]
    for name, ratio in res["ratios"].items():
        build = res["best"][name]
        met = "met" if ratio <= target else "not met"
        rows.append(
            f"| `build --no-site` by {name} ({res['codes'][name][:12]}) | {build['cpu_seconds']:.2f} s |"
            f" **{ratio:.2f}** | {build['wall_seconds']:.1f} s | {build['rss_mb']:.0f} MB |"
            f" {build['summary']['versions']:,} | ≤ {target:.0f}×: {met} |"
        )
    every = "; ".join(f"{k} " + ", ".join(f"{r['cpu_seconds']:.1f}" for r in v) + " s" for k, v in res["runs"].items())
    stages = "; ".join(
        f"{name}: " + ", ".join(f"{k} {v:.2f}" for k, v in res["best"][name]["stages"].items())
        for name in res["ratios"]
    )
    return "\n".join(
        [
            f"{repository_name(Path(res['repo']))} at {res['head'][:12]}, {scope} (from {res['start'][:12]}), "
            f"roots {', '.join(res['roots'][:3])}{'…' if len(res['roots']) > 3 else ''} ({len(res['roots'])} folders): "
            f"{floor['blobs']:,} blobs, {floor['bytes'] / 1e6:.1f} MB. Best of {args.repeat} by CPU, alternated.",
            "",
            *rows,
            "",
            f"Every run's CPU seconds: {every}.  ",
            f"Stages of the best builds (wall s): {stages}.",
        ]
    )


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", required=True, help="a clone (read, never written)")
    parser.add_argument("--roots", required=True, help="comma-separated root folders; shell patterns match HEAD's")
    parser.add_argument("--history-start", default="HEAD", help="first indexed commit (default HEAD: HEAD only)")
    parser.add_argument("--last", type=int, help="index the last N first-parent commits (overrides --history-start)")
    parser.add_argument("--repeat", type=int, default=2)


def run(args: argparse.Namespace) -> Result:
    res = measure(args)
    subject = f"{repository_name(Path(res['repo']))}, " + (
        "HEAD only" if res["start"] == res["head"] else f"last {res['commits']:,} commits"
    )
    return Result(report(res, args), res, subject=subject)
