"""Whole history: one cold `pincite build` of a clone's whole history (index, site, search): CPU, peak memory, site.

The goal (issue 28): the whole history of tldr-pages/tldr (21,829 first-parent commits) builds on a
2-core runner within 30 minutes and 1.5 GB of peak memory, and its site is at most 1 GB (a static
host's limit). One build, from nothing, with `--verbose` so its stages are timed as they end:
the wall time, the CPU time of the whole process tree (render and extraction pools, git and
Pagefind included), the peak summed RSS and PSS of the tree, the site's bytes and files by
folder. `--no-site` measures the index alone. A long build: run it with `nice`, and report the
machine's load beside it.

    python -m bench whole-history --repo <clone of tldr-pages/tldr> --roots 'pages*'
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import checkout_env, checkouts, commit_of, load, log, measure, pincite, repository_name
from bench.scenarios import Result
from bench.scenarios.site_shape import repo_roots

BASELINE = True
GOALS = {"wall_s": 30 * 60, "peak_rss_mb": 1536, "site_bytes": 1_000_000_000}


def folder_sizes(site: Path) -> dict[str, tuple[int, int]]:
    """(files, bytes) of each top-level folder of the site; the top files together as `(top)`."""
    sizes: dict[str, tuple[int, int]] = {}
    for root, _dirs, files in os.walk(site):
        relative = Path(root).relative_to(site)
        key = relative.parts[0] if relative.parts else "(top)"
        files_n, size = sizes.get(key, (0, 0))
        sizes[key] = (files_n + len(files), size + sum((Path(root) / f).lstat().st_size for f in files))
    return sizes


def build_once(code: Path, repo: Path, roots: list[str], out: Path, site: bool) -> dict[str, Any]:
    env = checkout_env(code, PINCITE_ROOTS=",".join(roots))
    argv = ["--verbose", "build", "--repo", str(repo), "--index", str(out / "index.sqlite"), "--json"]
    argv += ["--out", str(out / "site")] if site else ["--no-site"]
    started_load = load()
    measured = measure(pincite(*argv), cwd=code, env=env, pss=True)  # `-m` puts the working folder on the path
    summary = measured.json()
    sizes = folder_sizes(out / "site") if site else {}
    return {
        "wall_s": measured.wall_s,
        "cpu_s": measured.cpu_s,
        "peak_rss_mb": measured.peak_rss_mb,
        "peak_pss_mb": measured.peak_pss_mb,
        "load": f"{started_load} at the start, {load()} at the end",
        "stages_verbose": [line for line in measured.stderr.splitlines() if ": " in line and " done in " in line],
        "summary": {k: summary.get(k) for k in ("commits", "documents", "versions", "passages", "stages")},
        "site_bytes": sum(b for _f, b in sizes.values()),
        "site_files": sum(f for f, _b in sizes.values()),
        "folders": sizes,
        "index_bytes": (out / "index.sqlite").stat().st_size,
    }


def run(args: argparse.Namespace) -> Result:
    repo = Path(args.repo).resolve()
    roots = repo_roots(repo, args.roots)
    found: dict[str, dict[str, Any]] = {}
    for side in checkouts(args.baseline):
        with tempfile.TemporaryDirectory(prefix="pincite-whole-history-", dir=args.workdir) as scratch:
            log(f"{'index' if args.no_site else 'whole build'} by {side.name} ...")
            found[side.name] = build_once(side.path, repo, roots, Path(scratch), site=not args.no_site)
            found[side.name]["code"] = commit_of(side.path)
    rows = ["| checkout | wall | CPU | peak RSS (PSS) | site | files | index |", "|---|---|---|---|---|---|---|"]
    for name, r in found.items():
        rows.append(
            f"| {name} ({r['code']}) | {r['wall_s']:.0f} s | {r['cpu_s']:.0f} s | {r['peak_rss_mb']:,.0f} MB"
            f" ({r['peak_pss_mb'] or 0:,.0f} MB) | {r['site_bytes'] / 1e6:,.1f} MB | {r['site_files']:,} |"
            f" {r['index_bytes'] / 1e6:.1f} MB |"
        )
    last = found[list(found)[-1]]
    met = {key: last[key] <= goal for key, goal in GOALS.items() if not (args.no_site and key == "site_bytes")}
    lines = [
        f"{repository_name(repo)}: {last['summary']['commits']:,} commits, {last['summary']['documents']:,}"
        f" documents, {last['summary']['versions']:,} versions; roots: {len(roots)} folders.",
        "",
        *rows,
        "",
        "Goals: " + ", ".join(f"{k} {'met' if v else 'not met'}" for k, v in met.items()) + ".  ",
        "Stages (wall): " + "; ".join(last["stages_verbose"]) + ".  ",
        "Site by folder: "
        + "; ".join(f"`{k}` {f:,} files {b / 1e6:.1f} MB" for k, (f, b) in sorted(last["folders"].items())),
    ]
    return Result("\n".join(lines), found, subject=repository_name(repo))


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", required=True, help="a clone (read, never written)")
    parser.add_argument("--roots", required=True, help="comma-separated root folders; shell patterns match HEAD's")
    parser.add_argument("--no-site", action="store_true", help="the index alone")
    parser.add_argument("--workdir", help="where the build's index and site go (default: the system's temp folder)")
