"""`pincite check --json` on one large document: 1,000 to 10,000 citations in 1 to 10 MB.

A synthetic repository (tests/synth_corpus.py, fixed seed) with a history; one Markdown document
(the writer's draft, committed nowhere) holds `N` citations of lines at a few older commits, each
with its quote in a blockquote, between paragraphs of filler prose that bring it to `S` MB. Every
citation is drawn from the same fixed pool of (commit, path, line), so the git work is the same
at every size and what grows with `N` is pincite's own per-citation work. Sizes (citations, MB):
1k/1, 2k/2, 5k/5, 10k/10, and 1k/10 (the document's size alone).

Measured, each as a whole process tree (git included), best of `--repeat`:
- `pincite check --json DRAFT` for each size;
- the floor of the same run: one bare `git diff` per cited commit against HEAD over the cited
  paths (the diff the check needs, batched as tightly as git allows) and `pincite --version`.

The figures are ratios within the run: the CPU one more citation costs at each size (between two
rows of 1,000 citations per MB) against the first step, 1k/1 to 2k/2 (linear is 1.0 everywhere);
the 10 MB document with 1k citations against 1k/1 (the document's size alone); the check against
the floor.
"""

from __future__ import annotations

import argparse
import itertools
import random
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import ROOT, Measured, checkout_env, measure, pincite, ratio
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate, git

SIZES = ((1000, 1), (2000, 2), (5000, 5), (10000, 10), (1000, 10))
POOL_COMMITS = 4  # older commits the citations are pinned to
POOL_PATHS = 25  # paths cited at each of them: 100 (commit, path) pairs in all
FILLER = (
    "This paragraph is the writer's own prose between the quotations, long enough to stand for "
    "an argument that runs on for a while before the next source is brought in. "
)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeat", type=int, default=2, help="runs of each command; the fastest counts")
    parser.add_argument("--largest", type=int, default=10, help="leave out sizes over this many MB")


def citation_pool(root: Path, commits: list[str], seed: int) -> list[tuple[str, str, int, str]]:
    """(commit, path, line, quote) to draw citations from: a few lines of 100 (commit, path) pairs."""
    rng = random.Random(seed)
    step = max(1, (len(commits) - 1) // (POOL_COMMITS + 1))
    pinned = [commits[step * (i + 1)] for i in range(POOL_COMMITS)]
    pool: list[tuple[str, str, int, str]] = []
    for commit in pinned:
        paths = git(root, "ls-tree", "-r", "--name-only", commit, "--", "corpus").splitlines()[:POOL_PATHS]
        for path in paths:
            lines = git(root, "show", f"{commit}:{path}").split("\n")
            candidates = [n for n, text in enumerate(lines, 1) if prose_line(text)]
            for n in rng.sample(candidates, min(4, len(candidates))):
                pool.append((commit, path, n, lines[n - 1].strip()))
    return pool


def prose_line(text: str) -> bool:
    """A line a writer would quote: a sentence, not a heading or a table row."""
    return len(text) > 20 and text[0].isalpha() and "|" not in text


def draft(pool: list[tuple[str, str, int, str]], citations: int, megabytes: float, seed: int) -> str:
    """A Markdown document of about `megabytes` MB citing `citations` spans drawn from `pool`."""
    rng = random.Random(seed)
    blocks = [
        f"> {quote}\n\n— {path}@{commit}#L{n}\n"
        for commit, path, n, quote in (pool[i % len(pool)] for i in range(citations))
    ]
    rng.shuffle(blocks)
    cited = sum(len(b) + 1 for b in blocks)
    gap = max(0, int(megabytes * 1_000_000) - cited) // max(1, citations)
    filler = (FILLER * (gap // len(FILLER) + 1))[:gap].rstrip() + "\n"
    return "# Draft\n\n" + "\n".join(f"{filler}\n{block}" if gap else block for block in blocks)


def cited_pairs(pool: list[tuple[str, str, int, str]]) -> dict[str, list[str]]:
    by_commit: dict[str, list[str]] = {}
    for commit, path, _n, _q in pool:
        if path not in by_commit.setdefault(commit, []):
            by_commit[commit].append(path)
    return by_commit


def best(runs: list[Measured]) -> Measured:
    return min(runs, key=lambda m: m.cpu_s)


def measure_all(tmp: Path, repeat: int, largest: int) -> dict[str, Any]:
    corpus = generate(
        tmp / "repo",
        SynthParams(docs=100, commits=200, files_per_commit=1, target_bytes=1_500_000, rename_rate=0.0, checkout=False),
    )
    root = corpus.root
    pool = citation_pool(root, corpus.commits, seed=3)
    env = checkout_env(ROOT)
    floor = best([measure(pincite("--version"), cwd=root, env=env) for _ in range(repeat)])
    diffs = cited_pairs(pool)
    diff_cpu = min(
        sum(measure(["git", "diff", commit, "HEAD", "--", *paths], cwd=root).cpu_s for commit, paths in diffs.items())
        for _ in range(repeat)
    )
    rows: list[dict[str, Any]] = []
    for citations, megabytes in SIZES:
        if megabytes > largest:
            continue
        path = tmp / f"draft-{citations}-{megabytes}.md"
        path.write_text(draft(pool, citations, megabytes, seed=citations), encoding="utf-8")
        runs = [measure(pincite("check", "--json", str(path)), cwd=root, env=env, ok=(0, 1)) for _ in range(repeat)]
        run = best(runs)
        report = run.json()
        summary = report.get("summary", {}) if isinstance(report, dict) else {}
        rows.append(
            {
                "citations": citations,
                "megabytes": round(path.stat().st_size / 1_000_000, 2),
                "wall_s": round(run.wall_s, 2),
                "cpu_s": round(run.cpu_s, 2),
                "peak_rss_mb": round(run.peak_rss_mb),
                "summary": summary,
            }
        )
    marginal(rows)
    for row in rows:
        row["vs_floor"] = ratio(row["cpu_s"], floor.cpu_s + diff_cpu)
    return {
        "commits": len(corpus.commits),
        "pairs": sum(len(p) for p in diffs.values()),
        "repeat": repeat,
        "startup_cpu_s": round(floor.cpu_s, 3),
        "git_diff_cpu_s": round(diff_cpu, 3),
        "rows": rows,
    }


def marginal(rows: list[dict[str, Any]]) -> None:
    """Each row's CPU per citation added since the row before it at the same density (1,000 per MB):
    the fixed cost (imports, git, the index) falls out, what is left is the cost of one more citation.
    Linear is the same figure at every size: its ratio to the first step stays near 1."""
    dense = [r for r in rows if r["citations"] == 1000 * round(r["megabytes"])]
    for before, row in itertools.pairwise(dense):
        added = row["citations"] - before["citations"]
        row["marginal_ms"] = round(1000 * (row["cpu_s"] - before["cpu_s"]) / added, 3)
    first_step = next((r["marginal_ms"] for r in dense if "marginal_ms" in r), 0.0)
    for row in dense[1:]:
        row["marginal_vs_first_step"] = ratio(row["marginal_ms"], first_step)


def markdown(f: dict[str, Any]) -> str:
    table = [
        f"| {r['citations']:,} | {r['megabytes']} | {r['wall_s']} | {r['cpu_s']} | {r.get('marginal_ms', '–')} | "
        f"{r.get('marginal_vs_first_step', '–')} | {r['vs_floor']} | {r['peak_rss_mb']} |"
        for r in f["rows"]
    ]
    return "\n".join(
        [
            f"Synthetic repository: 100 documents, {f['commits']} commits; the citations pinned to "
            f"{f['pairs']} (commit, path) pairs at 4 older commits, checked against HEAD. Best of {f['repeat']}.",
            f"Floor in the same run: `pincite --version` {f['startup_cpu_s']} s CPU; one bare `git diff` per cited "
            f"commit over the cited paths, {f['git_diff_cpu_s']} s CPU in all.",
            "",
            "| citations | MB | wall s | CPU s (tree) | CPU ms per citation added since the row above | "
            "that vs the first step | CPU vs floor (start-up + git diff) | peak RSS MB |",
            "|---|---|---|---|---|---|---|---|",
            *table,
        ]
    )


def run(args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory(prefix="pincite-big-document-") as tmp:
        figures = measure_all(Path(tmp), args.repeat, args.largest)
    return Result(markdown(figures), figures)
