"""`pincite impact` on a pull request against running `pincite check` twice (at the base, at the head).

A synthetic corpus (tests/synth_corpus.py, fixed seed) with a long history; notes under `docs/`
cite `--citations` random lines (with their quotes) at commits spread over the history, committed
on `main`. A branch `pr` then makes `--pr-commits` commits, each editing one document (the first
ones edit cited lines), and the index is built at the branch's head, as the pull-request workflow
does. Measured, each as a whole process tree, best of `--repeat`, wall and CPU:

- `pincite impact --base main --json` (at the branch's head);
- `pincite check --against main docs` plus `pincite check --against HEAD docs`: what answering the
  same question with `check` costs;
- `pincite --version`: the process floor.

The figure is the ratio impact / (check + check), in CPU.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

from bench.harness import ROOT, Measured, checkout_env, measure, pincite
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate, git


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--citations", type=int, default=2000)
    parser.add_argument("--pr-commits", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)


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


def best(args: list[str], cwd: Path, repeat: int) -> Measured:
    """The fastest of `repeat` whole-process runs of `pincite ARGS` (exit 7, a broken citation, is a result)."""
    runs = [measure(pincite(*args), cwd=cwd, env=checkout_env(ROOT), ok=(0, 7)) for _ in range(repeat)]
    return min(runs, key=lambda run: run.wall_s)


def run(args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory(prefix="pincite-impact-bench-") as scratch:
        root = Path(scratch) / "repo"
        params = SynthParams(
            docs=args.docs, commits=args.commits, files_per_commit=2, target_bytes=args.docs * 5_000, seed=7
        )
        generate(root, params)
        (root / ".gitignore").write_text(".pincite/\n_site/\n")
        git(root, "add", ".gitignore")
        git(root, "commit", "-q", "-m", "ignore the index")
        cited_now = write_notes(root, args.citations, seed=11)
        make_pull_request(root, cited_now, args.pr_commits, seed=13)
        measure(pincite("build", "--no-site"), cwd=root, env=checkout_env(ROOT))
        impact = best(["impact", "--base", "main", "--json"], root, args.repeat)
        at_base = best(["check", "--against", "main", "--json", "docs"], root, args.repeat)
        at_head = best(["check", "--against", "HEAD", "--json", "docs"], root, args.repeat)
        floor = best(["--version"], root, args.repeat)
    summary = json.loads(impact.stdout)["summary"]
    twice_cpu, twice_wall = at_base.cpu_s + at_head.cpu_s, at_base.wall_s + at_head.wall_s
    figures = {
        "docs": args.docs,
        "history_commits": args.commits,
        "citations": summary["citations"],
        "pr_commits": args.pr_commits,
        "reverified": summary["reverified"],
        "breaks": summary["breaks"],
        "impact": {"wall_s": round(impact.wall_s, 3), "cpu_s": round(impact.cpu_s, 3)},
        "check_twice": {"wall_s": round(twice_wall, 3), "cpu_s": round(twice_cpu, 3)},
        "version_floor": {"wall_s": round(floor.wall_s, 3), "cpu_s": round(floor.cpu_s, 3)},
        "ratio_cpu": round(impact.cpu_s / twice_cpu, 3),
    }
    markdown = "\n".join(
        [
            f"{args.docs:,} documents, {args.commits} commits, {summary['citations']:,} citations; a branch of "
            f"{args.pr_commits} commits. Impact verified {summary['reverified']} again and reported "
            f"{summary['breaks']} broken.",
            "",
            "| run | wall s | CPU s |",
            "|---|---|---|",
            f"| `pincite impact --base main --json` | {impact.wall_s:.2f} | {impact.cpu_s:.2f} |",
            f"| `pincite check` at main + at HEAD | {twice_wall:.2f} | {twice_cpu:.2f} |",
            f"| `pincite --version` (the process floor) | {floor.wall_s:.2f} | {floor.cpu_s:.2f} |",
            "",
            f"**impact / check twice: {figures['ratio_cpu']:.2f} in CPU.**",
        ]
    )
    return Result(markdown, figures)
