"""`pincite check` on a long history: 1,000 citations pinned to 500+ distinct commits.

A synthetic repository (bench/synth_corpus.py, fixed seed): 200 documents, 2,000 edit
commits with renames, then a folder move and a mass edit of every document's title, then 100
more edit commits. Markdown notes cite one random line each, with its quote, at commits spread
over the whole history. The index is built first (`pincite build --no-site`), as CI does.

Measured, each as a whole `pincite check` process (best of 3), in the same run:
- this checkout, and optionally an older one (`--before PATH`, e.g. a worktree of main);
- `pincite --version` of this checkout: the process floor, so the figure reads as a ratio;
- the git processes one check starts (a `git` wrapper first on PATH);
- peak memory (ru_maxrss) of `check --json` over --big citations (default 100,000), each checkout.

Wall and CPU time (user + system, with git's) are both given: on a shared machine the CPU time
is the steadier of the two.

    python bench/history_check_bench.py [--before PATH] [--big 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.check_bench import git_counter
from bench.synth_corpus import SynthParams, generate, git

ROOT = Path(__file__).resolve().parents[1]


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


def run_pincite(checkout: Path, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    module = "indexer.cli.main" if (checkout / "indexer" / "cli" / "main.py").exists() else "indexer.cli"
    environment = {**(env or os.environ), "PYTHONPATH": str(checkout)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=environment, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 7):
        raise RuntimeError(f"pincite {' '.join(args)} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Run(wall, cpu, proc.stdout.decode())


def best_of(runs: int, checkout: Path, args: list[str], cwd: Path) -> Run:
    """The least wall and the least CPU time of `runs` runs: a shared machine only ever adds to both."""
    timings = [run_pincite(checkout, args, cwd) for _ in range(runs)]
    return Run(min(t.wall for t in timings), min(t.cpu for t in timings), timings[0].output)


def git_processes(checkout: Path, args: list[str], cwd: Path, tmp: Path) -> int:
    wrapper_dir, log = git_counter(tmp)
    env = {**os.environ, "PATH": f"{wrapper_dir}{os.pathsep}{os.environ['PATH']}"}
    run_pincite(checkout, args, cwd, env)
    return len(log.read_text().splitlines())


_PEAK_OF_CHILD = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def peak_memory_mb(checkout: Path, args: list[str], cwd: Path) -> float:
    """Peak RSS of one pincite run, measured by a parent of its own (ru_maxrss is a maximum over all children)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-c", _PEAK_OF_CHILD, sys.executable, "-m", "indexer.cli.main", *args]
    out = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, default=None, help="an older pincite checkout to compare with")
    parser.add_argument("--big", type=int, default=100_000, help="citations for the peak-memory run (0: skip)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the generated repository here")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pincite-history-bench-"))
    try:
        started = time.perf_counter()
        corpus = generate(
            (args.keep or tmp) / "repo",
            SynthParams(docs=200, commits=2000, files_per_commit=2, target_bytes=1_600_000, rename_rate=0.05, seed=5),
        )
        root = corpus.root
        reshape(root)
        commits = len(git(root, "rev-list", "--first-parent", "HEAD").split())
        distinct = write_notes(root, tmp / "notes", 1000, 500, seed=11)
        print(f"repository: {commits} first-parent commits, generated in {time.perf_counter() - started:.0f} s")
        run_pincite(ROOT, ["build", "--no-site"], root)
        check = ["check", str(tmp / "notes")]
        floor = best_of(args.runs, ROOT, ["--version"], root)
        rows = [("`pincite --version` (process floor)", floor, None)]
        checkouts = [("this checkout", ROOT)] + ([("--before", args.before.resolve())] if args.before else [])
        for label, checkout in checkouts:
            timing = best_of(args.runs, checkout, check, root)
            processes = git_processes(checkout, check, root, tmp)
            rows.append((f"`pincite check` 1,000 citations, {distinct} commits ({label})", timing, processes))
        summary = json.loads(run_pincite(ROOT, [*check, "--json"], root).output)["summary"]
        print(f"summary: {summary}")
        print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"| run | wall s (best of {args.runs}) | × floor | CPU s | × floor | git processes |")
        print("|---|---|---|---|---|---|")
        for label, timing, processes in rows:
            print(
                f"| {label} | {timing.wall:.2f} | {timing.wall / floor.wall:.1f} | {timing.cpu:.2f} "
                f"| {timing.cpu / floor.cpu:.1f} | {processes if processes is not None else '—'} |"
            )
        if args.big:
            write_notes(root, tmp / "big", args.big, 500, seed=13)
            for label, checkout in checkouts:
                peak = peak_memory_mb(checkout, ["check", str(tmp / "big"), "--json"], root)
                print(f"peak memory of `pincite check --json` over {args.big:,} citations ({label}): {peak:.0f} MB")
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
