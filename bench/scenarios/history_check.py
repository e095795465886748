"""Check along a long history: `pincite check` of 1,000 citations over 500 commits of a 2,100-commit history.

A synthetic repository (tests/synth_corpus.py, fixed seed): 200 documents, 2,000 edit
commits with renames, then a folder move and a mass edit of every document's title, then 100
more edit commits. Markdown notes cite one random line each, with its quote, at commits spread
over the whole history. The index is built first (`pincite build --no-site`), as CI does.

Measured, each as a whole `pincite check` process (best of 3), in the same run:
- this checkout, and the baseline (`--baseline CHECKOUT`) when given;
- `pincite --version` of this checkout: the process floor, so the figure reads as a ratio;
- the git processes one check starts (a `git` wrapper first on PATH);
- peak memory (summed RSS of the process tree) of `check --json` over --big citations (default 100,000).

Wall and CPU time (user + system, with git's) are both given: on a shared machine the CPU time
is the steadier of the two.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness import GitCounter, checkout_env, checkouts, log, measure, nonzero, pincite
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate, git

BASELINE = True


def reshape(root: Path) -> None:
    """A folder move and a mass edit, then more ordinary history: what long-lived docs repos hold."""
    folders = sorted({p.split("/")[1] for p in git(root, "ls-files", "corpus").splitlines()})
    (root / "corpus" / "archive").mkdir()
    git(root, "mv", f"corpus/{folders[0]}", f"corpus/archive/{folders[0]}")
    git(root, "commit", "-q", "-m", f"move {folders[0]} into archive/")
    for path in git(root, "ls-files", "corpus").splitlines():
        file = root / path
        text = file.read_text(encoding="utf-8")
        file.write_text(text.replace("# ", "# Handbook: ", 1), encoding="utf-8")
    git(root, "commit", "-q", "-am", "prefix every title")
    rng = random.Random(3)
    paths = git(root, "ls-files", "corpus").splitlines()
    for n in range(100):
        file = root / rng.choice(paths)
        lines = file.read_text(encoding="utf-8").split("\n")
        lines.insert(rng.randrange(len(lines)), f"A later paragraph, number {n}, added after the move.")
        file.write_text("\n".join(lines), encoding="utf-8")
        git(root, "commit", "-q", "-am", f"later edit {n}")


def write_notes(root: Path, folder: Path, total: int, commits: int, seed: int) -> int:
    """`total` citations over `commits` distinct commits; returns the distinct commits cited."""
    rng = random.Random(seed)
    line = git(root, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    chosen = sorted(rng.sample(line[:-1], min(commits, len(line) - 1)), key=line.index)
    texts: dict[str, list[tuple[str, list[str]]]] = {}
    for commit in chosen:
        paths = git(root, "ls-tree", "-r", "--name-only", commit, "--", "corpus").splitlines()
        picked = rng.sample(paths, 2)
        texts[commit] = [(p, git(root, "show", f"{commit}:{p}").split("\n")) for p in picked]
    folder.mkdir(parents=True, exist_ok=True)
    blocks = []
    for i in range(total):
        commit = chosen[i % len(chosen)]
        path, lines = texts[commit][i // len(chosen) % 2]
        candidates = [n for n, text in enumerate(lines, 1) if text.strip() and not text.startswith(("#", "|", "`"))]
        first = rng.choice(candidates)
        blocks.append(f"> {lines[first - 1].strip()}\n\n— {path}@{commit}#L{first}\n")
    for n in range(10):
        (folder / f"note-{n:02d}.md").write_text("# Notes\n\n" + "\n".join(blocks[n::10]), encoding="utf-8")
    return len(chosen)


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # seconds of user + system time, the process and its git children
    output: str
    peak_mb: float


def run_pincite(checkout: Path, args: list[str], cwd: Path, path: str | None = None) -> Run:
    env = checkout_env(checkout, **({"PATH": path} if path else {}))
    run = measure(pincite(*args), cwd=cwd, env=env, ok=(0, 7))
    return Run(run.wall_s, run.cpu_s, run.stdout, run.peak_rss_mb)


def best_of(runs: int, checkout: Path, args: list[str], cwd: Path) -> Run:
    """The least wall and the least CPU time of `runs` runs: a shared machine only ever adds to both."""
    timings = [run_pincite(checkout, args, cwd) for _ in range(runs)]
    return Run(min(t.wall for t in timings), min(t.cpu for t in timings), timings[0].output, timings[0].peak_mb)


def git_processes(checkout: Path, args: list[str], cwd: Path, tmp: Path) -> int:
    counter = GitCounter(tmp)
    run_pincite(checkout, args, cwd, counter.path())
    return counter.count()


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--big", type=int, default=100_000, help="citations for the peak-memory run (0: skip)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the generated repository here")
    parser.add_argument("--runs", type=int, default=3)


def run(args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory(prefix="pincite-history-bench-") as folder:
        tmp = Path(folder)
        started = time.perf_counter()
        corpus = generate(
            (args.keep or tmp) / "repo",
            SynthParams(docs=200, commits=2000, files_per_commit=2, target_bytes=1_600_000, rename_rate=0.05, seed=5),
        )
        root = corpus.root
        reshape(root)
        commits = len(git(root, "rev-list", "--first-parent", "HEAD").split())
        distinct = write_notes(root, tmp / "notes", 1000, 500, seed=11)
        log(f"repository: {commits} first-parent commits, generated in {time.perf_counter() - started:.0f} s")
        sides = checkouts(args.baseline)
        this = sides[-1].path
        run_pincite(this, ["build", "--no-site"], root)
        check = ["check", str(tmp / "notes")]
        floor = best_of(args.runs, this, ["--version"], root)
        rows = [("`pincite --version` (process floor)", floor, None)]
        for side in sides:
            timing = best_of(args.runs, side.path, check, root)
            processes = git_processes(side.path, check, root, tmp)
            rows.append((f"`pincite check` 1,000 citations, {distinct} commits ({side.name})", timing, processes))
        summary = json.loads(run_pincite(this, [*check, "--json"], root).output)["summary"]
        peaks = {}
        if args.big:
            write_notes(root, tmp / "big", args.big, 500, seed=13)
            for side in sides:
                peaks[side.name] = run_pincite(side.path, ["check", str(tmp / "big"), "--json"], root).peak_mb
    lines = [
        f"Synthetic repository: {commits} first-parent commits (200 documents, renames, a folder move, a mass "
        f"edit of every title); the index built first (`pincite build --no-site`). Verdicts: {nonzero(summary)}.",
        "",
        f"| run | wall s (best of {args.runs}) | × floor | CPU s | × floor | git processes |",
        "|---|---|---|---|---|---|",
    ]
    for label, timing, processes in rows:
        lines.append(
            f"| {label} | {timing.wall:.2f} | {timing.wall / floor.wall:.1f} | {timing.cpu:.2f} "
            f"| {timing.cpu / floor.cpu:.1f} | {processes if processes is not None else '—'} |"
        )
    if peaks:
        lines.append("")
        for name, peak in peaks.items():
            lines.append(
                f"Peak memory of `pincite check --json` over {args.big:,} citations ({name}): {peak:.0f} MB.  "
            )
    figures = {"commits": commits, "summary": summary, "peak_mb": peaks}
    figures["rows"] = [{"run": label, "wall": r.wall, "cpu": r.cpu, "git": n} for label, r, n in rows]
    return Result("\n".join(lines), figures)
