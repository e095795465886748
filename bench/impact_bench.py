"""`pincite impact` on a pull request against running `pincite check` twice (at the base, at the head).

A synthetic corpus (bench/synth_corpus.py, fixed seed) with a long history; notes under `docs/`
cite `--citations` random lines (with their quotes) at commits spread over the history, committed
on `main`. A branch `pr` then makes `--pr-commits` commits, each editing one document (the first
ones edit cited lines), and the index is built at the branch's head, as the pull-request workflow
does. Measured, each as a whole process, best of `--repeat`, wall and CPU (user + system, git's
included):

- `pincite impact --base main --json` (at the branch's head);
- `pincite check --against main docs` plus `pincite check --against HEAD docs`: what answering the
  same question with `check` costs;
- `pincite --version`: the process floor.

The figure is the ratio impact / (check + check). `impact_scenario` is the scenario as a function
(for a runner of all benchmarks); the command line prints its result as JSON.

    python bench/impact_bench.py [--docs 1000] [--commits 300] [--citations 2000] [--pr-commits 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synth_corpus import SynthParams, generate, git

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float  # user + system of the process and its children (git)


@dataclass(frozen=True)
class ImpactFigures:
    docs: int
    history_commits: int
    citations: int
    pr_commits: int
    reverified: int  # citations impact verified again (the rest: their cited paths untouched)
    breaks: int
    impact: Timing
    check_twice: Timing
    version_floor: Timing

    @property
    def ratio_wall(self) -> float:
        return self.impact.wall / self.check_twice.wall

    @property
    def ratio_cpu(self) -> float:
        return self.impact.cpu / self.check_twice.cpu

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "ratio_wall": round(self.ratio_wall, 3), "ratio_cpu": round(self.ratio_cpu, 3)}


def write_notes(root: Path, citations: int, seed: int) -> list[tuple[str, int]]:
    """Notes citing `citations` random lines at commits spread over the history; (path, line) cited at HEAD."""
    rng = random.Random(seed)
    line = git(root, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    chosen = sorted(rng.sample(line, min(len(line), max(1, citations // 10))), key=line.index)
    head_paths = set(git(root, "ls-tree", "-r", "--name-only", "HEAD", "--", "corpus").splitlines())
    notes: list[str] = []
    cited_now: list[tuple[str, int]] = []
    for i in range(citations):
        commit = chosen[i % len(chosen)]
        paths = git(root, "ls-tree", "-r", "--name-only", commit, "--", "corpus").splitlines()
        path = rng.choice(paths)
        lines = git(root, "show", f"{commit}:{path}").split("\n")
        candidates = [n for n, text in enumerate(lines, 1) if len(text) > 20 and text[0].isalpha()]
        if not candidates:
            continue
        n = rng.choice(candidates)
        quote = lines[n - 1][:60].replace('"', "")
        notes.append(f'- "{quote}" ({path}@{commit}#L{n})\n')
        if commit == line[-1] and path in head_paths:
            cited_now.append((path, n))
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    for part in range(0, len(notes), 200):
        (docs / f"notes-{part // 200:03d}.md").write_text("# Notes\n\n" + "\n".join(notes[part : part + 200]))
    git(root, "add", "docs")
    git(root, "commit", "-q", "-m", "notes citing the corpus")
    return cited_now


def make_pull_request(root: Path, cited_now: list[tuple[str, int]], commits: int, seed: int) -> None:
    """A branch `pr` of `commits` commits, each editing one document: cited lines first, then others."""
    rng = random.Random(seed)
    git(root, "checkout", "-q", "-b", "pr")
    paths = git(root, "ls-tree", "-r", "--name-only", "HEAD", "--", "corpus").splitlines()
    targets = [p for p, _n in cited_now[: commits // 2]] + rng.sample(paths, commits)
    for k in range(commits):
        path = targets[k]
        file = root / path
        lines = file.read_text(encoding="utf-8").split("\n")
        cited = next((n for p, n in cited_now if p == path), None)
        at = cited - 1 if cited is not None and k < commits // 2 else rng.randrange(len(lines))
        lines[at] = f"An edit of the pull request, number {k}."
        file.write_text("\n".join(lines), encoding="utf-8")
        git(root, "commit", "-q", "-am", f"pr edit {k}")


def timed(args: list[str], cwd: Path, repeat: int) -> tuple[Timing, str]:
    """Best of `repeat` runs of `python -m indexer.cli.main ARGS`: wall and CPU, and the last stdout."""
    best: Timing | None = None
    out = ""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "indexer.cli.main", *args], cwd=cwd, env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 7):
            raise RuntimeError(f"pincite {' '.join(args)} failed: {proc.stderr}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out = proc.stdout
        if best is None or wall < best.wall:
            best = Timing(round(wall, 3), round(cpu, 3))
    assert best is not None
    return best, out


def _sum(a: Timing, b: Timing) -> Timing:
    return Timing(round(a.wall + b.wall, 3), round(a.cpu + b.cpu, 3))


def impact_scenario(
    workdir: Path, *, docs: int = 1000, commits: int = 300, citations: int = 2000, pr_commits: int = 5, repeat: int = 3
) -> ImpactFigures:
    """Generate the repository under `workdir`, then time impact against check twice."""
    root = workdir / "repo"
    params = SynthParams(docs=docs, commits=commits, files_per_commit=2, target_bytes=docs * 5_000, seed=7)
    generate(root, params)
    (root / ".gitignore").write_text(".pincite/\n_site/\n")
    git(root, "add", ".gitignore")
    git(root, "commit", "-q", "-m", "ignore the index")
    cited_now = write_notes(root, citations, seed=11)
    make_pull_request(root, cited_now, pr_commits, seed=13)
    subprocess.run(
        [sys.executable, "-m", "indexer.cli.main", "build", "--no-site"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
    )
    impact, out = timed(["impact", "--base", "main", "--json"], root, repeat)
    report = json.loads(out)
    at_base, _ = timed(["check", "--against", "main", "--json", "docs"], root, repeat)
    at_head, _ = timed(["check", "--against", "HEAD", "--json", "docs"], root, repeat)
    floor, _ = timed(["--version"], root, repeat)
    return ImpactFigures(
        docs=docs,
        history_commits=commits,
        citations=report["summary"]["citations"],
        pr_commits=pr_commits,
        reverified=report["summary"]["reverified"],
        breaks=report["summary"]["breaks"],
        impact=impact,
        check_twice=_sum(at_base, at_head),
        version_floor=floor,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--citations", type=int, default=2000)
    parser.add_argument("--pr-commits", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pincite-impact-bench-") as scratch:
        figures = impact_scenario(
            Path(scratch),
            docs=args.docs,
            commits=args.commits,
            citations=args.citations,
            pr_commits=args.pr_commits,
            repeat=args.repeat,
        )
    print(json.dumps(figures.to_json(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
