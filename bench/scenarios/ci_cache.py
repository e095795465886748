"""A one-file push in CI: the site workflow's own `run:` steps with the caches restored, against a cold run.

The steps are `.github/workflows/site.yml`'s, run as the tests run them (`tests/workflow_steps.py`:
each `run:` step expanded and run in bash as a runner would, the Actions cache stood in for by a
folder, `LocalCache`). A synthetic corpus is pushed once and built with the caches (the previous
push, whose caches are saved); then each round commits a one-file change and runs the workflow
twice on fresh clones, in alternating order: warm (the caches the previous run saved are restored,
and this run's saved) and cold (nothing restored). Timed: each `run:` step's wall time and the CPU
of its processes; the cache's own restore (a local copy here, a download on GitHub) is reported
apart, outside the steps. The fastest round of each counts; the ratios are warm / cold.

Run it with the checkout's pincite first on the path (`PYTHONPATH=$PWD`): the steps call `pincite`.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import alternate, load, ratio
from bench.scenarios import Result

ROOT = Path(__file__).resolve().parents[2]
BASE_URL = "https://docs.example.org/corpus/"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=1000, help="synthetic documents")
    parser.add_argument("--commits", type=int, default=20, help="commits of history before the pushes")
    parser.add_argument("--rounds", type=int, default=3)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_workflow(source: Path, workdir: Path, cache_folder: Path, warm: bool) -> dict[str, Any]:
    """One run of the site workflow's build job on a fresh clone; warm: with the Actions cache."""
    import yaml

    from tests.workflow_steps import LocalCache, read_outputs, run_step

    job = yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text(encoding="utf-8"))["jobs"]["build"]
    clone = workdir / "repo"
    contexts: dict[str, Any] = {"steps": {}, "github": {}}
    cache = LocalCache(cache_folder)
    figures: dict[str, Any] = {"steps": {}, "restore_seconds": 0.0, "restored": []}
    for step in job["steps"]:
        action = str(step.get("uses", "")).split("@")[0]
        if action == "actions/checkout":
            subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True, capture_output=True)
            head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True, text=True)
            contexts["github"]["sha"] = head.stdout.strip()
        elif action == "actions/configure-pages":
            contexts["steps"][step["id"]] = {"outputs": {"base_url": BASE_URL}}
        elif action == "actions/cache":
            if warm:
                started = time.monotonic()
                hit = cache.restore(step, contexts, clone)
                figures["restore_seconds"] += time.monotonic() - started
                figures["restored"].append(hit)
        elif action in ("actions/setup-python", "actions/upload-pages-artifact") or step.get("id") == "install":
            continue  # this interpreter runs pincite; the artifact is the site folder
        elif action:
            raise RuntimeError(f"no local equivalent for {action}")
        else:
            cpu, started = _children_cpu(), time.monotonic()
            command, result = run_step(step, contexts, clone, workdir)
            seconds, cpu = time.monotonic() - started, _children_cpu() - cpu
            if result.returncode != 0:
                raise RuntimeError(f"step {step.get('name', command)!r} failed:\n{result.stderr}")
            if "id" in step:
                contexts["steps"][step["id"]] = {"outputs": read_outputs(workdir)}
            figures["steps"][step.get("name", command)] = {"seconds": seconds, "cpu": cpu}
            if command.startswith("pincite build"):
                figures["build"] = json.loads(result.stdout)
    if warm:
        cache.save_pending(clone)
    figures["run_seconds"] = sum(s["seconds"] for s in figures["steps"].values())
    figures["run_cpu"] = sum(s["cpu"] for s in figures["steps"].values())
    build = next(s for name, s in figures["steps"].items() if name.startswith("Build"))
    figures["build_seconds"], figures["build_cpu"] = build["seconds"], build["cpu"]
    return figures


def _corpus(dest: Path, docs: int, commits: int) -> list[str]:
    """The synthetic corpus, with the README the workflow's check reads (it cites one document)."""
    from tests.synth_corpus import SynthParams, generate, git

    generate(dest, SynthParams(docs=docs, commits=commits, target_bytes=docs * 5000))
    paths = sorted(p.relative_to(dest).as_posix() for p in (dest / "corpus").rglob("*.md"))
    head = git(dest, "rev-parse", "HEAD").strip()
    (dest / "README.md").write_text(f"# The corpus\n\nSee {paths[0]}@{head}#L1.\n", encoding="utf-8")
    (dest / "docs").mkdir(exist_ok=True)
    (dest / "docs" / "index.md").write_text(f"# Docs\n\nAs {paths[1]}@{head}#L1 says.\n", encoding="utf-8")
    git(dest, "add", "README.md", "docs")
    git(dest, "commit", "-q", "-m", "README and docs that cite the corpus")
    return paths


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    fastest = min(runs, key=lambda r: r["run_seconds"])
    site = fastest["build"]["site"]
    return {
        "best_run_seconds": round(fastest["run_seconds"], 2),
        "best_build_seconds": round(min(r["build_seconds"] for r in runs), 2),
        "best_run_cpu": round(min(r["run_cpu"] for r in runs), 2),
        "best_build_cpu": round(min(r["build_cpu"] for r in runs), 2),
        "restore_seconds": round(fastest["restore_seconds"], 2),
        "pages_rendered": site["pages_rendered"],
        "pages_reused": site["pages_reused"],
        "search_pages_indexed": site["search_pages_indexed"],
        "pagefind_seconds": site["pagefind_seconds"],
        "extracted": fastest["build"]["extracted"],
        "previous_site": site.get("previous_site"),
        "all_run_seconds": [round(r["run_seconds"], 2) for r in runs],
        "steps": {name: {k: round(v, 2) for k, v in s.items()} for name, s in fastest["steps"].items()},
    }


def run(args: argparse.Namespace) -> Result:
    from tests.synth_corpus import commit_change

    with tempfile.TemporaryDirectory(prefix="pincite-ci-cache-") as tmp:
        work = Path(tmp)
        source = work / "source"
        paths = _corpus(source, args.docs, args.commits)
        cache = work / "actions-cache"
        run_workflow(source, work / "push-0", cache, warm=True)  # the previous push: its caches are saved
        seen: dict[str, list[dict[str, Any]]] = {"warm": [], "cold": []}
        loads = [load()]
        for number, order in alternate(["warm", "cold"], args.rounds):
            path = paths[(number * 7919 + 13) % len(paths)]
            commit_change(source, path, f"\nRound {number} of the one-file push.\n")
            for side in order:
                empty = work / f"empty-cache-{number}"
                folder = cache if side == "warm" else empty
                seen[side].append(run_workflow(source, work / f"{side}-{number}", folder, warm=side == "warm"))
            loads.append(load())
    figures: dict[str, Any] = {"docs": args.docs, "rounds": args.rounds, "load_average_1min": loads}
    figures.update({side: _summary(runs) for side, runs in seen.items()})
    warm, cold = figures["warm"], figures["cold"]
    for key in ("best_run_seconds", "best_build_seconds", "best_run_cpu", "best_build_cpu"):
        figures[f"{key}_warm_over_cold"] = ratio(warm[key], cold[key])
    lines = [
        f"A one-file push to a synthetic corpus of {args.docs:,} documents ({args.commits} commits of history), "
        f"the site workflow's `run:` steps on a fresh clone, {args.rounds} rounds; the fastest counts.",
        "",
        "| run | `run:` steps | of which the build | CPU of the steps | pages rendered | pages Pagefind indexed "
        "| Pagefind | cache restore (local copy) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for side in ("warm", "cold"):
        r = figures[side]
        lines.append(
            f"| {side} | {r['best_run_seconds']:.2f} s | {r['best_build_seconds']:.2f} s | {r['best_run_cpu']:.2f} s | "
            f"{r['pages_rendered']:,} | {r['search_pages_indexed']:,} | {r['pagefind_seconds']} s | "
            f"{r['restore_seconds']:.2f} s |"
        )
    lines += [
        "",
        f"Warm / cold: the `run:` steps x{figures['best_run_seconds_warm_over_cold']}, the build "
        f"x{figures['best_build_seconds_warm_over_cold']}; CPU of the steps x{figures['best_run_cpu_warm_over_cold']}, "
        f"of the build x{figures['best_build_cpu_warm_over_cold']}. The warm build found the previous site "
        f"`{warm['previous_site']}`.",
    ]
    return Result("\n".join(lines), figures)
